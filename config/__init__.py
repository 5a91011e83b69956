"""Placeholder: the config loader is being written (see controller/table.py's Settings)."""

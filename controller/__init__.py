"""Croupier: the table core. Pure: it takes inputs and returns events, and does no I/O."""

__version__ = "0.1.0"

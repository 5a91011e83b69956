"""The slow rule's run-time half (docs/testing.md): a test that drives Chromium or tmux must be marked
``slow``. ``tests/conftest.py`` records, before each test, whether it is."""

from __future__ import annotations

import pytest

running_slow_test = True
"""Whether the test now running is marked slow (True outside pytest, so helpers work in a script)."""


def require_slow(what: str) -> None:
    """Fail the running test unless it is marked ``slow``: it drives ``what`` (Chromium, tmux)."""
    if not running_slow_test:
        pytest.fail(f"this test drives {what}: mark it @pytest.mark.slow (docs/testing.md, the slow rule)")

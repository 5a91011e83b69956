"""The slow rule (docs/testing.md): the fixtures that make a test slow, and the run-time check that a test
that drives Chromium or tmux is marked ``slow`` (``tests/conftest.py`` records, before each test, whether
it is)."""

from __future__ import annotations

import pytest

SERVICE_FIXTURES = frozenset({
    "pcscd_daemon", "pcscd", "reader_a", "reader_b", "hand_a", "hand_b",  # tests/drivers/pcsc/conftest.py
    "broker", "own_broker", "postgres_server", "database",  # tests/controller/floor/conftest.py
})
"""Fixtures that start or reach a real external service: every test using one is slow."""

running_slow_test = True
"""Whether the test now running is marked slow (True outside pytest, so helpers work in a script)."""


def require_slow(what: str) -> None:
    """Fail the running test unless it is marked ``slow``: it drives ``what`` (Chromium, tmux)."""
    if not running_slow_test:
        pytest.fail(f"this test drives {what}: mark it @pytest.mark.slow (docs/testing.md, the slow rule)")

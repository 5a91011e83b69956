"""The suite's children get Ctrl+C as on a terminal, however the suite was started (tests/conftest.py)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from tests import conftest

PROBE = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"


def test_a_command_the_tests_start_stops_on_ctrl_c() -> None:
    shown = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True)
    assert shown.stdout.strip() == "True"


def test_the_suite_gives_ctrl_c_back_when_it_was_started_with_it_ignored(pytestconfig: pytest.Config) -> None:
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a shell's background job starts it
    try:
        conftest.pytest_configure(pytestconfig)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)

"""The suite's children get Ctrl+C as on a terminal, however the suite was started (tests/conftest.py)."""

from __future__ import annotations

import subprocess
import sys

PROBE = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"


def test_a_command_the_tests_start_stops_on_ctrl_c() -> None:
    shown = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True)
    assert shown.stdout.strip() == "True"

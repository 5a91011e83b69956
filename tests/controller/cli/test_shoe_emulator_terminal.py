"""``croupier shoe-emulator ... &`` beside the dealer console (README, "A live table without hardware") writes
nothing into the dealer's terminal once the console runs there (issue 28 item 18): its messages go to a log file
it names when it starts."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DEADLINE = 60.0


class Shell:
    """An interactive bash with job control on a pseudo-terminal: the dealer's terminal."""

    def __init__(self) -> None:
        self.master, slave = os.openpty()
        self.process = subprocess.Popen(["setsid", "--ctty", "bash", "--norc", "--noprofile", "-i"], stdin=slave,
                                        stdout=slave, stderr=slave, cwd=ROOT,
                                        env={**os.environ, "PS1": "$ ", "PYTHONPATH": str(ROOT)})
        os.close(slave)
        self.screen = b""

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def read(self, seconds: float) -> str:
        """What the terminal showed so far, after reading for ``seconds`` more."""
        until = time.monotonic() + seconds
        while (left := until - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    self.screen += os.read(self.master, 65536)
                except OSError:
                    break
        return self.screen.decode(errors="replace")

    def close(self) -> None:
        self.process.kill()
        self.process.wait(timeout=DEADLINE)
        os.close(self.master)


@pytest.fixture
def shell() -> Iterator[Shell]:
    terminal = Shell()
    yield terminal
    terminal.close()


def wait_for(condition: str, check: Callable[[], bool], deadline: float = DEADLINE) -> None:
    until = time.monotonic() + deadline
    while not check():
        assert time.monotonic() < until, f"{condition} within {deadline} s"
        time.sleep(0.1)


@pytest.mark.slow
def test_a_background_emulator_keeps_its_warning_out_of_the_dealers_terminal(shell: Shell, tmp_path: Path) -> None:
    from drivers.serial.driver import SerialShoe

    announced, pid_file = tmp_path / "pty.txt", tmp_path / "pid.txt"
    shell.type(f"{sys.executable} -m controller.cli.main shoe-emulator --seed 42 --follow-table >{announced} & "
               f"echo $! >{pid_file}")
    wait_for("the PTY line", lambda: announced.exists() and announced.read_text().startswith("PTY "))
    pty = announced.read_text().split()[1]
    started = shell.read(2.0)
    found = re.search(r"messages go to (\S+\.log)", started)
    assert found, started
    log = Path(found.group(1))
    emulator = int(pid_file.read_text())
    try:
        controller = SerialShoe(f"serial://{pty}")  # says hello, never writes an indication: the emulator warns
        try:
            wait_for("the warning in the log", lambda: log.exists() and "no indication" in log.read_text())
            later = shell.read(1.0)[len(started):]
        finally:
            controller.close()
    finally:
        os.kill(emulator, signal.SIGTERM)
    assert "no indication" not in later and "shoe-emulator:" not in later, later
    assert "?indicator=1" in log.read_text()
    log.unlink()


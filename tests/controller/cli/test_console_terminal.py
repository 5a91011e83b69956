"""The dealer console (``run --console textual``, ``simulate --interactive``) needs a terminal: its keys come from
standard input and it draws on standard error. Without one it hung, dealing nothing and saying nothing; it is
refused in one line (exit 2) before anything is opened, dealt or journaled. ``--console auto`` picks the plain
lines there."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

import pytest

from tests.inprocess import CROUPIER, ROOT, environment

DEADLINE = 120.0
"""Seconds a refused command may take (generous: it must end, not be quick)."""


def refused(*argv: str) -> subprocess.CompletedProcess[str]:
    """``croupier ARGV`` with no terminal at all: standard input empty, the output piped."""
    return subprocess.run([*CROUPIER, *argv], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          cwd=ROOT, timeout=DEADLINE, env=environment(without="CROUPIER_"))


@pytest.mark.parametrize(("argv", "option", "instead"), [
    (["simulate", "--interactive", "--rounds", "3", "--seed", "1"], "--interactive", "leave out --interactive"),
    (["run", "--driver", "mock://?seed=1", "--console", "textual", "--rounds", "3"], "--console textual",
     "use --console plain"),
    (["train", "--console", "--rounds", "2", "--seed", "1"], "--console", "leave out --console"),
], ids=["simulate --interactive", "run --console textual", "train --console"])
def test_the_console_without_a_terminal_is_refused_before_anything_is_journaled(
        argv: list[str], option: str, instead: str, tmp_path: Path) -> None:
    journal = tmp_path / "table.journal"
    done = refused(*argv, "--journal", str(journal))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, lines
    command = argv[0]
    assert lines[0].startswith(f"croupier {command}: {option}: "), lines
    assert "needs a terminal" in lines[0] and "run it in a terminal" in lines[0] and instead in lines[0], lines
    assert done.stdout == "", "nothing was dealt or shown"
    assert not journal.exists() and list(tmp_path.iterdir()) == [], "nothing was journaled"


def test_auto_without_a_terminal_deals_on_plain_lines() -> None:
    done = refused("run", "--driver", "mock://?seed=1", "--auto-next", "--rounds", "1", "--console", "auto")
    assert done.returncode == 0, done.stderr
    assert "Card to PLAYER" in done.stdout and "\x1b[" not in done.stdout + done.stderr


class Stream(io.StringIO):
    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


@pytest.mark.parametrize(("stdin", "stderr", "expected"), [
    (True, True, True), (False, True, False), (True, False, False), (False, False, False)])
def test_the_console_needs_its_keys_and_its_screen_on_a_terminal(stdin: bool, stderr: bool, expected: bool) -> None:
    """Standard output is not the console's: ``run --console textual > log`` keeps its summary in the file."""
    from controller.cli.terminal import console_terminal

    assert console_terminal(Stream(stdin), Stream(stderr)) is expected
    assert console_terminal(None, Stream(True)) is False


def test_a_closed_stream_is_no_terminal() -> None:
    from controller.cli.terminal import console_terminal

    read, write = os.pipe()
    os.close(write)
    with os.fdopen(read) as closed:
        pass
    assert console_terminal(closed, Stream(True)) is False

"""The width the transcript and ``croupier roads`` keep within (:mod:`controller.ui.terminalwidth`): a terminal
that reports 0 columns (``stty cols 0``, some serial consoles and containers) or ``COLUMNS=0`` is a terminal of
unknown width, taken as the default 80 columns, as ``shutil.get_terminal_size`` takes it. It was taken as a width
of 0 (raised to the narrowest, 20): every line of the dealer's transcript wrapped at 20 columns."""

from __future__ import annotations

import fcntl
import os
import struct
import sys
import termios
from collections.abc import Callable, Iterator
from typing import TextIO

import pytest

from controller.cli import roads
from controller.ui.terminalwidth import DEFAULT_WIDTH
from controller.ui.transcript import Transcript, terminal_width


@pytest.fixture
def terminal_of() -> Iterator[Callable[[int], TextIO]]:
    """A function that opens a pseudo-terminal of ``columns`` columns and gives its stream."""
    opened: list[tuple[int, TextIO]] = []

    def make(columns: int) -> TextIO:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        stream = os.fdopen(slave, "w", encoding="utf-8")
        opened.append((master, stream))
        return stream

    yield make
    for master, stream in opened:
        stream.close()
        os.close(master)


def test_a_terminal_of_0_columns_is_taken_as_the_default_width(terminal_of: Callable[[int], TextIO],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    make = terminal_of
    assert terminal_width(make(0)) == DEFAULT_WIDTH == 80
    assert terminal_width(make(57)) == 57


def test_columns_0_is_unset_and_the_terminal_says_its_width(terminal_of: Callable[[int], TextIO],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    make = terminal_of
    monkeypatch.setenv("COLUMNS", "0")
    assert terminal_width(make(57)) == 57
    assert terminal_width(make(0)) == DEFAULT_WIDTH
    monkeypatch.setenv("COLUMNS", "66")
    assert terminal_width(make(57)) == 66, "a width given in COLUMNS still wins"


def test_a_line_on_a_terminal_of_0_columns_is_not_wrapped_at_20(terminal_of: Callable[[int], TextIO],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    make = terminal_of
    transcript = Transcript(make(0))
    assert transcript.width == DEFAULT_WIDTH


def test_roads_take_columns_0_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "0")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    assert roads.terminal_width() is None, "a pipe with COLUMNS=0 gets every column, as without COLUMNS"
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(os, "get_terminal_size", lambda *fd: os.terminal_size((0, 0)))
    assert roads.terminal_width() == DEFAULT_WIDTH

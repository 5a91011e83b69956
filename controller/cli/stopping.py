"""SIGTERM and SIGHUP stop a table (``croupier run``, ``croupier simulate``), a study (``croupier study``) and a drill
(``croupier train``) as Ctrl+C does.

A supervisor or a service manager stops a process with SIGTERM (``kill``, ``systemctl stop``), a terminal that goes
away sends SIGHUP; either killed the table outright, with no word and nothing closed. While a table runs they are
taken as Ctrl+C is (SIGINT): on plain lines the table stops where it is, the journal is closed and the feed
drained on the way out; at the dealer console, the console closes and the table stops as on Ctrl+C, the summary
printed; a study reports the shoes dealt so far, a drill gives and keeps its report. Then the command says which
signal stopped it and exits 128 + the signal's number (143, 129), as Ctrl+C
exits 130. A second signal while the table stops, or after it until the process exits, is ignored: the first
one's stop goes on.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType
from typing import Any

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""The signals that stop a table as Ctrl+C does."""


class SignalStop(KeyboardInterrupt):
    """The table was stopped by ``signal`` (a KeyboardInterrupt: everything that closes on Ctrl+C closes on it)."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number

    @property
    def name(self) -> str:
        return signal.Signals(self.number).name

    @property
    def status(self) -> int:
        """The exit status: 128 + the signal's number, as Ctrl+C's 130."""
        return 128 + self.number


class Stopping:
    """The stop signal received, once (None before)."""

    def __init__(self) -> None:
        self.received: int | None = None

    def handle(self, number: int, frame: FrameType | None) -> None:
        if self.received is not None:
            return  # already stopping: the first signal's stop goes on
        self.received = number
        on_interrupt: Any = signal.getsignal(signal.SIGINT)
        if callable(on_interrupt) and on_interrupt is not signal.default_int_handler:
            on_interrupt(signal.SIGINT, frame)  # asyncio's (the dealer console): it closes the console as Ctrl+C does
            return
        raise SignalStop(number)

    def check(self) -> None:
        """Raise the stop once the command returned after a stop signal (the console closed on it)."""
        if self.received is not None:
            raise SignalStop(self.received)


@contextlib.contextmanager
def stopped_by_signals(until_exit: bool = False) -> Iterator[Stopping]:
    """While the ``with`` block runs, SIGTERM and SIGHUP stop it as Ctrl+C does; after it, a block that returned
    after one, or ended in an interrupt after one, raises :class:`SignalStop`. Outside the main thread (where no
    handler can be set) nothing changes, nor for a signal that was ignored (``nohup`` ignores SIGHUP).

    ``until_exit``: the block is the whole process's work, which ends after it; once stopped by a signal, a second
    one is ignored until the process exits (its stop is said, its status given), instead of killing it there."""
    stopping = Stopping()
    previous: dict[int, Any] = {}
    try:
        for number in STOP_SIGNALS:
            if signal.getsignal(number) is not signal.SIG_IGN:  # nohup's SIGHUP stays ignored
                previous[number] = signal.signal(number, stopping.handle)
    except ValueError:  # not the main thread: no handler can be set there
        pass
    try:
        yield stopping
    except KeyboardInterrupt as interrupt:
        if isinstance(interrupt, SignalStop) or stopping.received is None:
            raise
        # the console's asyncio runner, cancelled by the stop (during its start), raised an interrupt of its own
        raise SignalStop(stopping.received) from None
    finally:
        if not (until_exit and stopping.received is not None):  # else the handler stays: it ignores a second
            for restored, handler in previous.items():
                signal.signal(restored, handler)
    stopping.check()

"""The host clock beside a live table: its synchronisation read at start and every ``[journal] clock_every``
seconds, and any jump noticed within seconds, each given to the table as a ``CLOCK`` input (journaled; the core
turns it into a ``clock`` event, and an alert when it calls for one: :mod:`controller.core.clock`).

A jump is the wall clock moving otherwise than the monotonic one between two looks a few seconds apart (a step
by hand or by a time service); the synchronisation comes from ``timedatectl`` (systemd) or ``chronyc``, whichever
answers, else it is unknown.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import threading
import time
from collections.abc import Callable

from controller.core.clock import ClockReading
from controller.core.inputs import Input, InputKind

JUMP_FLOOR = 0.1
"""Seconds: a difference between the two clocks smaller than this is not a jump (the looks are not atomic)."""
LOOK_EVERY = 2.0
"""Seconds between two looks at the clocks."""


def read_synchronisation(run: Callable[[list[str]], str | None] | None = None) -> ClockReading:
    """The host clock's synchronisation as ``timedatectl`` or ``chronyc`` tell it; unknown when neither answers."""
    ask = run or _output
    answer = ask(["timedatectl", "show", "-p", "NTPSynchronized", "--value"])
    if answer is not None and answer.strip() in ("yes", "no"):
        return ClockReading(answer.strip() == "yes", "timedatectl")
    answer = ask(["chronyc", "-c", "tracking"])
    if answer is not None:
        fields = answer.strip().split(",")
        with contextlib.suppress(IndexError, ValueError):
            return ClockReading(fields[-1].strip() == "Normal", "chronyc", float(fields[4]))
    return ClockReading(None, "none")


def _output(command: list[str]) -> str | None:
    if shutil.which(command[0]) is None:
        return None
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


class ClockWatch:
    """Gives ``put`` a ``CLOCK`` input at :meth:`start`, every ``every`` seconds (0: never again) and at each jump."""

    def __init__(self, put: Callable[[Input], None], every: float,
                 read: Callable[[], ClockReading] = read_synchronisation,
                 wall: Callable[[], float] = time.time, monotonic: Callable[[], float] = time.monotonic,
                 look_every: float = LOOK_EVERY, sleep: Callable[[float], bool] | None = None) -> None:
        self.put = put
        self.every = every
        self.read = read
        self.wall = wall
        self.monotonic = monotonic
        self.look_every = look_every
        self._stop = threading.Event()
        self.sleep = sleep or self._stop.wait
        """Waits the given seconds between two looks; True: stop watching (:meth:`close` makes it so)."""
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Read the clock now, then watch it in a thread until :meth:`close`."""
        since = self.wall(), self.monotonic()
        self._give(self.read())
        self._thread = threading.Thread(target=self._watch, args=since, name="croupier-clock", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)

    def _give(self, reading: ClockReading) -> None:
        self.put(Input(InputKind.CLOCK, reading.text()))

    def _watch(self, wall: float, monotonic: float) -> None:
        last_reading = monotonic
        while not self.sleep(self.look_every):
            now_wall, now_monotonic = self.wall(), self.monotonic()
            jump = (now_wall - wall) - (now_monotonic - monotonic)
            wall, monotonic = now_wall, now_monotonic
            if abs(jump) >= JUMP_FLOOR:
                self._give(self.read()._replace(jump=jump))
                last_reading = now_monotonic
            elif self.every and now_monotonic - last_reading >= self.every:
                self._give(self.read())
                last_reading = now_monotonic


__all__ = ["ClockWatch", "read_synchronisation"]

"""Several input sources merged into one: the card reader plus the dealer's keyboard.

The primary source (the reader) is read only when the table asks for the next
input, so a paced or seeded shoe is never read ahead; typed lines are read by
a thread into a queue. The primary gets the table's indicator; the merged
source is exhausted when both are.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import ClassVar

from controller.core.exceptions import CroupierError
from controller.core.inputs import READER_KINDS, Input, InputKind
from drivers.base import CardSource, Indication, Option, Resumable

POLL_SECONDS = 0.05


class MergedSource(CardSource):
    """Inputs from ``primary`` (the reader) and from ``lines`` (typed dealer inputs)."""

    schemes = ("merged",)
    options: ClassVar[Mapping[str, Option]] = {}

    def __init__(self, primary: CardSource, lines: Iterable[str] | None = None,
                 parse: Callable[[str], Input | None] | None = None,
                 on_error: Callable[[str], None] | None = None, pace: float = 0.0,
                 hold_when_idle: bool = False) -> None:
        super().__init__(primary.url)
        self.primary = primary
        self._queue: queue.Queue[Input] = queue.Queue()
        self._running = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._on_error = on_error or (lambda message: None)
        self._primary_failed = False
        self.pace = pace
        """Seconds to wait between two reads of the primary (a simulated dealer's pace)."""
        self._next_read = 0.0
        self.hold_when_idle = hold_when_idle
        """Read the primary only while the table expects a card (a simulated dealer draws when due); a
        scripted primary's dealer inputs (``@shoe``, ``@burn`` ...) are read whenever they come next."""
        self._holding = hold_when_idle
        self.keep_open = False
        """While True the source is never exhausted: a console may still send inputs."""
        self._held = False
        if lines is not None and parse is not None:
            self._start(lambda: self._pump_lines(lines, parse))

    def put(self, item: Input) -> None:
        """Queue an input from another producer (e.g. the dealer console). Thread-safe."""
        self._queue.put(item)

    def hold(self, held: bool) -> None:
        """Read no card from the primary while ``held`` (the console asks the dealer something that a
        card would make stale); queued inputs still come. Thread-safe."""
        self._held = held

    def _start(self, target: Callable[[], None]) -> None:
        with self._lock:
            self._running += 1
        thread = threading.Thread(target=self._run, args=(target,), daemon=True)
        thread.start()

    def _run(self, target: Callable[[], None]) -> None:
        try:
            target()
        finally:
            with self._lock:
                self._running -= 1

    def _pump_lines(self, lines: Iterable[str], parse: Callable[[str], Input | None]) -> None:
        for line in lines:
            if self._stop.is_set():
                return
            try:
                item = parse(line)
            except CroupierError as error:
                self._on_error(str(error))
                continue
            if item is not None:
                self._queue.put(item)

    def _recv(self, timeout: float | None) -> Input | None:
        try:
            return self._queue.get_nowait()
        except queue.Empty:
            pass
        if self._held:
            try:
                return self._queue.get(timeout=POLL_SECONDS)
            except queue.Empty:
                return None
        if self._holding and not self._primary_failed and self._dealer_input_next():
            return self.primary.recv(POLL_SECONDS)
        if self._primary_failed or self._holding or self.primary.exhausted:
            try:
                return self._queue.get(timeout=POLL_SECONDS)
            except queue.Empty:
                return None
        wait = POLL_SECONDS if timeout is None else min(timeout, POLL_SECONDS)
        if self.pace:
            now = time.monotonic()
            if now < self._next_read:
                # a simulated dealer waits out its pace at once (a typed input still comes at once); one that
                # may be held or stopped from a console keeps looking every poll
                paced = wait if self.hold_when_idle or timeout is not None else self._next_read - now
                try:
                    return self._queue.get(timeout=min(paced, self._next_read - now))
                except queue.Empty:
                    return None
        try:
            item = self.primary.recv(wait)
            if item is not None and self.pace:
                self._next_read = time.monotonic() + self.pace
            return item
        except CroupierError as error:
            self._on_error(str(error))
            self._primary_failed = True
            return Input(InputKind.OFFLINE)

    def _dealer_input_next(self) -> bool:
        """Is the primary's next input a person's (a script playing the dealer), not a reader event?"""
        upcoming = getattr(self.primary, "upcoming", None)
        item = upcoming() if callable(upcoming) else None
        return isinstance(item, Input) and item.kind not in READER_KINDS

    @property
    def exhausted(self) -> bool:
        with self._lock:
            running = self._running
        # a primary held until a dealer's input, with no dealer input left to come, is done too
        primary_done = self._primary_failed or self.primary.exhausted or self._holding
        return not self.keep_open and primary_done and running == 0 and self._queue.empty()

    def _indicate(self, what: Indication) -> None:
        if self.hold_when_idle:
            self._holding = what in (Indication.HOLD, Indication.NEW_SHOE)
        self.primary.indicate(what)

    def settle(self) -> None:
        self.primary.settle()

    @property
    def resumable(self) -> Resumable | None:
        """The reader's: the typed lines have no place to keep."""
        return self.primary.resumable

    def _close(self) -> None:
        self._stop.set()
        self.primary.close()

"""The work a piece of code does, counted rather than timed: the Python bytecode instructions it runs and the
most memory it holds at once beyond what it started with. Both are the same on an idle and on a loaded
machine, so a test can compare the work of one input at N and at 10 N and prove it flat (no quadratic path)
without a timed assertion.

:func:`work_of` counts from its own call; :func:`work_after` counts only once a named function has been
entered a given number of times (the first calls run untraced, at full speed), for a whole command run where
only its last inputs are measured.
"""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import CodeType, FrameType
from typing import Any

Tracer = Callable[[FrameType, str, Any], Any]


@dataclass
class Work:
    """What was counted: bytecode instructions run, and the peak of memory held (bytes)."""

    instructions: int = 0
    peak_bytes: int = 0

    def per(self, inputs: int) -> Work:
        """The work of one input, when this was ``inputs`` inputs'."""
        return Work(self.instructions // inputs, self.peak_bytes)


@dataclass
class _Counter:
    watched: CodeType | None = None
    """Count only once this code has been entered :attr:`skip` times (None: from the start)."""
    skip: int = 0
    entered: int = 0
    work: Work = field(default_factory=Work)
    counting: bool = False

    def local(self, frame: FrameType, event: str, arg: Any) -> Tracer:
        if event == "opcode":
            self.work.instructions += 1
        return self.local

    def call(self, frame: FrameType, event: str, arg: Any) -> Tracer | None:
        if not self.counting and frame.f_code is self.watched:
            self.entered += 1
            if self.entered > self.skip:
                self.counting = True
                tracemalloc.start()
        if not self.counting:
            return None
        frame.f_trace_opcodes = True
        return self.local


@contextmanager
def _traced(counter: _Counter) -> Iterator[Work]:
    previous = sys.gettrace()
    was_tracing_memory = tracemalloc.is_tracing()
    if counter.counting:
        tracemalloc.start()
    sys.settrace(counter.call)
    try:
        yield counter.work
    finally:
        sys.settrace(previous)
        if counter.counting:
            counter.work.peak_bytes = tracemalloc.get_traced_memory()[1]
            if not was_tracing_memory:
                tracemalloc.stop()


def work_of(action: Callable[[], object]) -> Work:
    """The work of ``action()``."""
    counter = _Counter(counting=True)
    with _traced(counter) as work:
        action()
    return work


def work_after(function: Callable[..., object], calls: int, action: Callable[[], object]) -> Work:
    """The work of ``action()`` from the ``calls + 1``-th call of ``function`` on (nothing before it is counted)."""
    code = getattr(function, "__code__", None)
    if not isinstance(code, CodeType):
        raise TypeError(f"{function!r} has no code to watch")
    counter = _Counter(watched=code, skip=calls)
    with _traced(counter) as work:
        action()
    return work

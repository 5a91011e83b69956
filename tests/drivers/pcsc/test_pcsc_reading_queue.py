"""The hand-over between the pcsc:// reading thread and the caller of ``recv``, without pcscd: the thread is played
by the test, at the moments a scheduler may pick."""

from __future__ import annotations

import queue
import threading

import pytest

from controller.core.inputs import Input, InputKind
from drivers.pcsc.source import PcscCardSource


class _LateQueue(queue.Queue[Input]):
    """The caller's wait ends empty; just then the reading thread queues its last input and fails."""

    def __init__(self, source: PcscCardSource, last: Input, failure: BaseException) -> None:
        super().__init__()
        self.source, self.last, self.failure, self.late = source, last, failure, True

    def get(self, block: bool = True, timeout: float | None = None) -> Input:
        if self.late:
            self.late = False
            self.put(self.last)
            self.source._failure = self.failure
            raise queue.Empty
        return super().get(block, timeout)


def _source() -> PcscCardSource:
    """A source whose reading thread the test plays (no pcscd, no reader)."""
    source = PcscCardSource.__new__(PcscCardSource)
    source.url = "pcsc://?reader=Test"
    source._closed = False
    source._failure = None
    source._reading = threading.Thread(target=lambda: None)  # taken for started: the test plays it
    return source


def test_an_input_queued_just_before_the_thread_failed_is_delivered_before_the_failure() -> None:
    """The failure was raised as soon as the caller saw it, even when the thread had queued an input since the
    caller's wait ended: that card came after the error, or never when the caller stopped on it."""
    source = _source()
    card = Input(InputKind.CARD, "4C")
    source._inputs = _LateQueue(source, card, RuntimeError("pyscard broke"))
    assert source.recv(1) == card
    with pytest.raises(RuntimeError, match="pyscard broke"):
        source.recv(1)

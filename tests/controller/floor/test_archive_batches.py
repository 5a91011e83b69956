"""How the archive's writers cut what arrives into PostgreSQL transactions (``Archiver._next_batch``)."""

from __future__ import annotations

import queue
import threading
from typing import Any

import pytest

from controller.floor import archive
from controller.floor.archive import Archiver

Inbox = queue.Queue[tuple[int, Any]]


def queued(*items: int) -> Inbox:
    inbox: Inbox = queue.Queue()
    for item in items:
        inbox.put((1, item))
    return inbox


def test_a_batch_takes_every_message_already_waiting_up_to_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "BATCH_LIMIT", 3)
    inbox = queued(1, 2, 3, 4, 5)
    assert [item for _, item in Archiver._next_batch(inbox)] == [1, 2, 3]
    assert [item for _, item in Archiver._next_batch(inbox)] == [4, 5]


def test_a_batch_waits_after_its_first_message_for_more_to_arrive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "BATCH_LIMIT", 2)
    monkeypatch.setattr(archive, "BATCH_LINGER", 60.0)
    inbox = queued(1)
    batches: list[list[Any]] = []
    writer = threading.Thread(target=lambda: batches.append([item for _, item in Archiver._next_batch(inbox)]),
                              daemon=True)
    writer.start()
    while inbox.qsize():  # the writer has taken the first message and waits for the next
        threading.Event().wait(0.01)
    inbox.put((1, 2))
    writer.join(timeout=30)
    assert batches == [[1, 2]]


def test_a_batch_ends_its_wait_counted_from_its_first_message_while_more_keep_coming(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Messages every 10 ms, a 50 ms wait: a wait counted from the latest message would never end."""
    monkeypatch.setattr(archive, "BATCH_LIMIT", 1_000_000)
    monkeypatch.setattr(archive, "BATCH_LINGER", 0.05)
    inbox = queued(0)
    stop = threading.Event()

    def trickle() -> None:
        number = 1
        while not stop.wait(0.01) and number < 3000:  # 30 s at most
            inbox.put((1, number))
            number += 1

    feeder = threading.Thread(target=trickle, daemon=True)
    feeder.start()
    try:
        batch = Archiver._next_batch(inbox)
        assert feeder.is_alive(), "the batch waited for the messages to stop coming"
    finally:
        stop.set()
        feeder.join(timeout=30)
    assert [item for _, item in batch] == list(range(len(batch)))


def test_a_batch_ends_when_nothing_more_arrives_in_its_linger(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "BATCH_LINGER", 0.05)
    assert [item for _, item in Archiver._next_batch(queued(7))] == [7]
    assert Archiver._next_batch(queued()) == []

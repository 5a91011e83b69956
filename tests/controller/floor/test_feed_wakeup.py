"""The feed's worker is woken by the table's commits, not by a timer nor by each acknowledgement.

A real journal and a real Mosquitto; the feed's outbox is the real one, its reads counted. An idle
feed reads nothing from the journal; a commit is read once and published; the acknowledged mark is
still kept in the journal when nothing else happens.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.core.events import Event, ReaderEvent, RoundEvent, TableEvent
from controller.floor.feed import TableFeed
from controller.floor.urls import parse_feed
from controller.journal.outbox import Outbox
from controller.journal.store import Journal, Record
from tests.controller.floor.mosquitto import Subscriber, wait_for

IDLE_SECONDS = 2.0
"""Long enough for a timer-driven worker to have looked at the journal several times."""


class CountedReads:
    """The feed's real outbox, with its reads of records counted."""

    def __init__(self, outbox: Outbox) -> None:
        self.outbox = outbox
        self.reads = 0
        self.lock = threading.Lock()
        self.real = outbox.records_after

    def records_after(self, seq: int, limit: int) -> list[Record]:
        with self.lock:
            self.reads += 1
        return self.real(seq, limit)

    def take(self) -> int:
        with self.lock:
            reads, self.reads = self.reads, 0
        return reads


@pytest.fixture
def fed(broker: str, tmp_path: Path) -> Iterator[tuple[Journal, TableFeed, Subscriber, CountedReads]]:
    site, table = "site-" + uuid.uuid4().hex[:8], "t1"
    journal = Journal.create_or_open(tmp_path / "t.journal")
    header = TableEvent(decks=8, variant="commission", driver="mock://", seed=1, mode="simulation")
    journal.begin({"table": "test"}, [header])
    subscriber = Subscriber(broker, f"croupier/{site}/{table}/#")
    feed = TableFeed(parse_feed(f"mqtt://{broker}/{site}/{table}"), str(tmp_path / "t.journal"))
    feed.start()
    assert feed.outbox is not None
    counted = CountedReads(feed.outbox)
    feed.outbox.records_after = counted.records_after  # type: ignore[method-assign]
    try:
        yield journal, feed, subscriber, counted
    finally:
        feed.close()
        journal.close()
        subscriber.close()


def journal_seqs(subscriber: Subscriber) -> set[int]:
    return {json.loads(payload)["seq"] for payload in subscriber.on("journal")}


def test_an_idle_feed_does_not_read_the_journal(fed: tuple[Journal, TableFeed, Subscriber, CountedReads]) -> None:
    _, feed, subscriber, counted = fed
    wait_for(lambda: journal_seqs(subscriber) >= {1, 2} and feed.acks.idle and feed.acks.acked == 2,
             "the first records published and acknowledged")
    counted.take()
    time.sleep(IDLE_SECONDS)
    assert counted.take() == 0, "with nothing committed, the feed must wait to be woken, not poll the journal"


def test_a_commit_is_read_once_and_published(fed: tuple[Journal, TableFeed, Subscriber, CountedReads]) -> None:
    journal, feed, subscriber, counted = fed
    wait_for(lambda: feed.acks.idle and feed.acks.acked == 2, "the first records acknowledged")
    counted.take()
    rounds: list[Event] = [RoundEvent(round=number, shoe=1) for number in range(1, 41)]
    seq = journal.append_events(rounds)
    feed.wake()
    wait_for(lambda: seq in journal_seqs(subscriber), "the committed record on the journal topic")
    wait_for(lambda: feed.acks.idle and feed.acks.acked == seq, "its 41 messages acknowledged")
    assert counted.take() == 1, "one commit, one read: the broker's 41 acknowledgements must not make it read again"


def test_the_acknowledged_mark_is_kept_while_the_table_is_quiet(
        fed: tuple[Journal, TableFeed, Subscriber, CountedReads], tmp_path: Path) -> None:
    journal, feed, _, _ = fed
    reader = ReaderEvent(status="online")
    seq = journal.append_events([reader])
    feed.wake()
    outbox = Outbox(str(tmp_path / "t.journal"))
    try:
        wait_for(lambda: outbox.published() == seq, "the mark of the last acknowledged record in the journal")
    finally:
        outbox.close()

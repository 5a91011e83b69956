"""What the floor benchmark measures after a run: lost, duplicated and rejected records, latency, rates.

Latency is from a record's ``at`` (the journal takes it inside its write transaction, just before
the fsync'd commit) to the commit of the archive's transaction that stored the row, read with
``pg_xact_commit_timestamp(xmin)`` (PostgreSQL runs with ``track_commit_timestamp=on``). Both
clocks are this machine's wall clock (UTC), so they compare directly.
"""

from __future__ import annotations

import contextlib
import sqlite3
import statistics
import threading
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import psycopg
from paho.mqtt.enums import CallbackAPIVersion

from controller.floor.messages import record_events
from controller.journal.store import Record

SYS_TOPIC = "$SYS/broker/publish/messages/+"
"""Mosquitto's counters of PUBLISH messages received, sent and dropped (every ``sys_interval`` s)."""


class BrokerCounters:
    """Mosquitto's ``$SYS`` publish counters, summed over broker restarts (a restart resets them)."""

    def __init__(self, address: str) -> None:
        host, port = address.rsplit(":", 1)
        self.lock = threading.Lock()
        self.current: dict[str, int] = {}
        self.before_restarts: dict[str, int] = {}
        self.updated = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-sys-{uuid.uuid4().hex[:8]}",
                                  protocol=mqtt.MQTTv5)
        self.client.on_connect = lambda client, *args: client.subscribe(SYS_TOPIC, qos=0)
        self.client.on_message = self._on_message
        self.client.reconnect_delay_set(min_delay=1, max_delay=1)
        self.client.connect_async(host, int(port))
        self.client.loop_start()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        name = message.topic.rsplit("/", 1)[-1]
        with contextlib.suppress(ValueError), self.lock:
            value = int(message.payload)
            if value < self.current.get(name, 0):
                self.before_restarts[name] = self.before_restarts.get(name, 0) + self.current[name]
            self.current[name] = value
            self.updated.set()

    def read(self, name: str) -> int:
        """The counter ``name`` (received, sent, dropped) since the broker first started."""
        with self.lock:
            return self.before_restarts.get(name, 0) + self.current.get(name, 0)

    def fresh(self, seconds: float) -> bool:
        """Wait for the next update of the counters (at most ``seconds``)."""
        self.updated.clear()
        return self.updated.wait(seconds)

    def close(self) -> None:
        """Disconnect."""
        with contextlib.suppress(Exception):
            self.client.disconnect()
        self.client.loop_stop()


def parse_at(text: str) -> datetime:
    """A journal time (ISO 8601, UTC, ``Z``)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def journal_rows(path: Path) -> list[Record]:
    """Every record of the journal at ``path``, in order (read-only)."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
        return [Record(*row) for row in
                connection.execute("SELECT seq, kind, at, body, prev, hash FROM records ORDER BY seq")]


@dataclass
class Audit:
    """The archive compared with the tables' journals."""

    journal_records: int = 0
    archived_rows: int = 0
    lost: int = 0
    """Journal records missing from the archive (or archived with another hash)."""
    duplicated: int = 0
    """Rows archived more than once for one (site, table, seq)."""
    unexpected: int = 0
    """Archived rows of records no journal holds."""
    rejected: int = 0
    pending: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    latency_at: list[float] = field(default_factory=list)
    """When each latency's record was journaled (seconds since the epoch), in the order of ``latencies_ms``."""
    to_subscriber_ms: list[float] = field(default_factory=list)
    """Journal commit to the record's first receipt by the benchmark's own subscriber (feed and broker)."""
    subscriber_to_archive_ms: list[float] = field(default_factory=list)
    """That receipt to the archive's commit (the archive's own part)."""
    first_at: datetime | None = None
    last_at: datetime | None = None
    last_commit: datetime | None = None
    cards_per_second: list[float] = field(default_factory=list)
    """Each table's dealing rate: inputs per second from its first to its last record."""
    rounds: int = 0
    """Rounds played (``result`` events) over all tables."""
    cards: int = 0
    """Cards dealt or burned over all tables."""
    lost_examples: list[str] = field(default_factory=list)

    @property
    def faultless(self) -> bool:
        """Nothing lost, duplicated, unexpected, rejected or left pending."""
        return not (self.lost or self.duplicated or self.unexpected or self.rejected or self.pending)


def archived_count(database: str, site: str) -> int:
    """Rows archived for ``site`` so far."""
    with psycopg.connect(database) as connection:
        row = connection.execute("SELECT count(*) FROM journal_records WHERE site = %s", (site,)).fetchone()
    return int(row[0]) if row else 0


def audit(database: str, site: str, journals: dict[str, Path],
          arrivals: dict[tuple[str, int], float] | None = None) -> Audit:
    """Compare every table's journal with its archived rows, and measure the latencies (split at each
    record's receipt by the benchmark's own subscriber, ``arrivals``: (table, seq) -> epoch seconds)."""
    result = Audit()
    with psycopg.connect(database) as connection:
        rows = connection.execute(
            "SELECT table_id, seq, hash, pg_xact_commit_timestamp(xmin) FROM journal_records WHERE site = %s",
            (site,)).fetchall()
        result.rejected = _count(connection, "journal_rejects", site)
        result.pending = _count(connection, "journal_pending", site)
    result.archived_rows = len(rows)
    archived: dict[tuple[str, int], list[tuple[str, datetime]]] = {}
    for table, seq, hash_, committed in rows:
        archived.setdefault((str(table), int(seq)), []).append((str(hash_), committed))
    result.duplicated = sum(len(copies) - 1 for copies in archived.values())
    known: set[tuple[str, int]] = set()
    for table, path in sorted(journals.items()):
        records = journal_rows(path)
        known.update((table, record.seq) for record in records)
        _audit_table(result, table, records, archived, arrivals or {})
    result.unexpected = sum(1 for key in archived if key not in known)
    return result


def _count(connection: psycopg.Connection[Any], name: str, site: str) -> int:
    row = connection.execute(f"SELECT count(*) FROM {name} WHERE site = %s", (site,)).fetchone()
    return int(row[0]) if row else 0


def _audit_table(result: Audit, table: str, records: list[Record],
                 archived: dict[tuple[str, int], list[tuple[str, datetime]]],
                 arrivals: dict[tuple[str, int], float]) -> None:
    result.journal_records += len(records)
    if records:
        first, last = parse_at(records[0].at), parse_at(records[-1].at)
        result.first_at = min(result.first_at or first, first)
        result.last_at = max(result.last_at or last, last)
    for record in records:
        copies = archived.get((table, record.seq), [])
        if not copies or copies[0][0] != record.hash:
            result.lost += 1
            if len(result.lost_examples) < 5:
                result.lost_examples.append(f"{table} record {record.seq}")
            continue
        at, committed = parse_at(record.at), copies[0][1]
        result.latencies_ms.append((committed - at).total_seconds() * 1000)
        result.latency_at.append(at.timestamp())
        received = arrivals.get((table, record.seq))
        if received is not None:
            result.to_subscriber_ms.append((received - at.timestamp()) * 1000)
            result.subscriber_to_archive_ms.append((committed.timestamp() - received) * 1000)
        result.last_commit = max(result.last_commit or committed, committed)
    _dealing_rate(result, records)


def _dealing_rate(result: Audit, records: list[Record]) -> None:
    events = [event for record in records for event in record_events(record)]
    cards = [parse_at(record.at) for record, count in zip(records, _cards_of(records), strict=True) if count]
    result.rounds += sum(1 for event in events if event.get("event") == "result")
    result.cards += sum(1 for event in events if event.get("event") in ("card", "burn"))
    if len(cards) >= 2 and cards[-1] > cards[0]:
        result.cards_per_second.append((len(cards) - 1) / (cards[-1] - cards[0]).total_seconds())


def _cards_of(records: list[Record]) -> list[int]:
    """How many cards (dealt or burned) each record's events show."""
    return [sum(1 for event in record_events(record) if event.get("event") in ("card", "burn"))
            for record in records]


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (0.5: the median) of ``values`` (nearest rank)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))
    return ordered[rank]


def median(values: list[float]) -> float:
    """The median, or NaN for no values."""
    return statistics.median(values) if values else float("nan")

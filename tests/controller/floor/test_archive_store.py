"""The archive's store against a real PostgreSQL: a batch judges its records exactly as one at a time.

:meth:`ArchiveStore.receive_batch` reads what it needs once, judges the records in memory and writes
them in one pipeline; these tests feed the same messages (real journals' records out of order, twice,
forged, not chaining, not records at all) in batches of every size and in one-record transactions,
and compare every outcome and every row the archive ends with.
"""

from __future__ import annotations

import dataclasses
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from controller.core.exceptions import ArchiveError
from controller.floor import archive_store
from controller.floor.archive_store import ArchiveStore, Decoded, Handled, Outcome, Rejection, connect, record_payload
from controller.journal.store import GENESIS, Record, record_hash
from tests.controller.floor.floorkit import journal_records, make_journal

SITE = "s"


def _records(path: Path) -> list[Record]:
    return [Record(**row) for row in journal_records(path)]


def _forged(record: Record) -> Record:
    """The same record with an edited body and a hash that holds: a rewritten record."""
    body = record.body.replace("}", ',"forged":true}', 1)
    return record._replace(body=body, hash=record_hash(record.seq, record.kind, record.at, record.prev, body))


def _messages(journals: dict[str, list[Record]], seed: int, *, forgeries: bool) -> list[Decoded]:
    """Every record of every table twice, shuffled, and a message that is not a record; with ``forgeries``
    also rewritten records, a record whose hash does not hold and a record 1 that follows something."""
    rng = random.Random(seed)
    items: list[Decoded] = []
    for table, records in journals.items():
        extra: list[Record] = []
        if forgeries:
            extra = [_forged(record) for record in rng.sample(records[1:], 3)]
            extra.append(records[5]._replace(hash="0" * 64))
            orphan = records[0]._replace(prev="f" * 64)
            extra.append(orphan._replace(hash=record_hash(1, orphan.kind, orphan.at, orphan.prev, orphan.body)))
        items.extend(((SITE, table, record), record_payload(record)) for record in records + records + extra)
    items.append((Rejection(SITE, None, None, "the message is not JSON"), "not json"))
    rng.shuffle(items)
    return items


def _rows(database: str) -> dict[str, list[tuple[Any, ...]]]:
    with psycopg.connect(database) as connection:
        return {
            "records": connection.execute("SELECT site, table_id, seq, kind, at, body, prev, hash FROM journal_records "
                                          "ORDER BY site, table_id, seq").fetchall(),
            "pending": connection.execute("SELECT site, table_id, seq, hash FROM journal_pending "
                                          "ORDER BY site, table_id, seq, hash").fetchall(),
            "rejects": connection.execute("SELECT site, table_id, seq, reason, payload FROM journal_rejects "
                                          "ORDER BY id").fetchall(),
        }


def _archive(database: str, messages: list[Decoded], sizes: random.Random | None) -> list[Handled]:
    """Feed ``messages`` in batches of random sizes (``sizes``), or one record a transaction (None)."""
    store = ArchiveStore(psycopg.connect(database))
    store.create_schema()
    handled: list[Handled] = []
    try:
        at = 0
        while at < len(messages):
            size = 1 if sizes is None else sizes.choice([1, 2, 3, 7, 40, 500])
            batch = messages[at:at + size]
            if size == 1:
                (item, payload), = batch
                handled.append(store.reject(item, payload) if isinstance(item, Rejection)
                               else store.receive(*item, payload))
            else:
                handled.extend(store.receive_batch(batch))
            at += size
        store.connection.commit()
    finally:
        store.close()
    return handled


@pytest.fixture(scope="module")
def journals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Record]]:
    directory = tmp_path_factory.mktemp("journals")
    return {f"t{seed}": _records(make_journal(directory / f"t{seed}.journal", seed=seed, rounds=4))
            for seed in (1, 2, 3)}


@pytest.fixture
def second_database(postgres_server: str) -> Iterator[str]:
    """Another fresh database, to archive the same messages a second way."""
    name = f"croupier_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    yield f"{postgres_server.rsplit('/', 1)[0]}/{name}"
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_batches_of_any_size_judge_forgeries_and_duplicates_exactly_as_one_record_at_a_time(
        journals: dict[str, list[Record]], database: str, second_database: str, seed: int) -> None:
    messages = _messages(journals, seed, forgeries=True)
    alone = _archive(database, messages, None)
    together = _archive(second_database, messages, random.Random(seed))
    assert [dataclasses.astuple(outcome) for outcome in together] == [dataclasses.astuple(outcome) for outcome in alone]
    assert _rows(second_database) == _rows(database)
    assert {outcome.outcome for outcome in alone} == set(Outcome) - {Outcome.DEFERRED}, \
        "the messages exercise every outcome (a deferral needs a table's pending records at their bound: below)"


def test_batches_archive_every_table_as_its_journal_whatever_the_order(
        journals: dict[str, list[Record]], database: str, second_database: str) -> None:
    messages = _messages(journals, 4, forgeries=False)
    alone = _archive(database, messages, None)
    together = _archive(second_database, messages, random.Random(4))
    assert [dataclasses.astuple(outcome) for outcome in together] == [dataclasses.astuple(outcome) for outcome in alone]
    rows = _rows(second_database)
    assert rows == _rows(database)
    for table, records in journals.items():
        assert [row[2:] for row in rows["records"] if row[1] == table] == [tuple(record) for record in records]
    assert rows["pending"] == []
    assert rows["rejects"] == [(SITE, None, None, "the message is not JSON", "not json")]


def test_a_record_parked_and_released_in_one_batch_leaves_nothing_pending(
        journals: dict[str, list[Record]], database: str) -> None:
    records = journals["t1"]
    backwards = [((SITE, "t1", record), record_payload(record)) for record in reversed(records)]
    store = ArchiveStore(psycopg.connect(database))
    store.create_schema()
    try:
        handled = store.receive_batch(backwards)
        store.connection.commit()
    finally:
        store.close()
    assert [outcome.outcome for outcome in handled] == [Outcome.PENDING] * (len(records) - 1) + [Outcome.STORED]
    assert handled[-1].stored == len(records)
    rows = _rows(database)
    assert [row[2:] for row in rows["records"]] == [tuple(record) for record in records]
    assert rows["pending"] == [] and rows["rejects"] == []
    assert records[0].prev == GENESIS


def test_the_archive_never_keeps_a_generic_plan_made_while_its_tables_were_small(
        journals: dict[str, list[Record]], database: str) -> None:
    """psycopg prepares what runs five times; a plan PostgreSQL then kept for a small journal_records
    would scan every row archived since on each batch."""
    store = ArchiveStore(connect(database))
    store.create_schema()
    try:
        for record in journals["t1"]:
            for _ in range(2):  # again: a duplicate is looked up among the archived hashes
                store.receive(SITE, "t1", record, record_payload(record))
            store.connection.commit()
        plans = store.connection.execute(
            "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements").fetchall()
    finally:
        store.close()
    lookups = [plan for plan in plans if "FROM journal_records WHERE (site, table_id, seq) IN" in plan[0]]
    assert lookups and all(custom > 5 for _, _, custom in lookups), plans
    assert [statement for statement, generic, _ in plans if generic] == []


def test_a_server_without_plan_cache_mode_is_refused_naming_the_option(
        database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive_store, "MINIMUM_SERVER", 990000)
    with pytest.raises(ArchiveError, match=r"^--archive '.*': PostgreSQL 1\d is too old; the archive needs "
                                           r"PostgreSQL 99 or later \(plan_cache_mode\)$"):
        connect(database, "--archive")


def test_records_before_their_predecessor_are_bounded_per_table_and_the_first_missing_one_is_wanted(
        journals: dict[str, list[Record]], database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive_store, "PENDING_LIMIT", 3)
    records = journals["t2"][:10]
    store = ArchiveStore(psycopg.connect(database))
    store.create_schema()
    try:
        ahead = store.store_batch([((SITE, "t2", record), record_payload(record)) for record in records[4:]])
        store.connection.commit()
        pending = _rows(database)["pending"]
        caught_up = store.store_batch([((SITE, "t2", record), record_payload(record)) for record in records[:4]])
        store.connection.commit()
    finally:
        store.close()
    assert [outcome.outcome for outcome in ahead.handled] == [Outcome.PENDING] * 3 + [Outcome.DEFERRED] * 3
    assert [seq for _, _, seq, _ in pending] == [5, 6, 7], "at most PENDING_LIMIT records wait, the rest deferred"
    assert ahead.progress == {(SITE, "t2"): archive_store.Progress(archive_store.Head(), 1, 3)}, \
        "nothing archived: the archive wants record 1"
    assert [outcome.stored for outcome in caught_up.handled] == [1, 1, 1, 1 + 3]  # record 4 releases 5-7
    head = archive_store.Head(7, records[6].hash)
    assert caught_up.progress == {(SITE, "t2"): archive_store.Progress(head, None, 0)}
    rows = _rows(database)
    assert [row[2] for row in rows["records"]] == list(range(1, 8)) and rows["pending"] == []
    with psycopg.connect(database) as connection:
        assert connection.execute("SELECT seq, hash FROM journal_heads WHERE table_id = 't2'").fetchall() == \
            [(7, records[6].hash)], "the head the archive confirmed is kept"


def test_bad_records_among_good_ones_in_journal_order_are_refused_alone_and_the_good_ones_stored_once(
        journals: dict[str, list[Record]], database: str, second_database: str) -> None:
    """The common case, each table's records in order and the tables' messages interleaved, with a record whose
    hash does not hold, one that does not chain and one sent twice among them, in a batch that starts from the
    heads the one before it stored."""
    t1, t2, t3 = journals["t1"], journals["t2"], journals["t3"]
    wrong_hash = t1[4]._replace(hash="0" * 64)
    elsewhere = t2[3]._replace(prev="e" * 64)
    not_chaining = elsewhere._replace(hash=record_hash(4, elsewhere.kind, elsewhere.at, elsewhere.prev, elsewhere.body))
    sent = {"t1": [*t1[:4], wrong_hash, *t1[4:]], "t2": [*t2[:3], not_chaining, *t2[3:]],
            "t3": [*t3[:2], t3[1], *t3[2:]]}
    messages: list[Decoded] = []
    for index in range(max(len(records) for records in sent.values())):
        messages.extend(((SITE, table, records[index]), record_payload(records[index]))
                        for table, records in sent.items() if index < len(records))
    cut = 8  # the first batch ends after record 3 of t1 and t2; t3's second record 2 starts the second batch
    store = ArchiveStore(psycopg.connect(database))
    store.create_schema()
    try:
        handled = [*store.receive_batch(messages[:cut]), *store.receive_batch(messages[cut:])]
    finally:
        store.close()
    outcomes = {name: [outcome.outcome for (item, _), outcome in zip(messages, handled, strict=True)
                       if not isinstance(item, Rejection) and item[1] == name] for name in sent}
    good = [Outcome.STORED]
    assert outcomes == {"t1": good * 4 + [Outcome.REJECTED] + good * (len(t1) - 4),
                        "t2": good * 3 + [Outcome.REJECTED] + good * (len(t2) - 3),
                        "t3": good * 2 + [Outcome.DUPLICATE] + good * (len(t3) - 2)}
    assert all(outcome.stored == (outcome.outcome is Outcome.STORED) for outcome in handled)
    rows = _rows(database)
    for table, records in journals.items():
        assert [row[2:] for row in rows["records"] if row[1] == table] == [tuple(record) for record in records]
    assert rows["pending"] == []
    assert [(table, seq, reason) for _, table, seq, reason, _ in rows["rejects"]] == [
        ("t2", 4, f"does not chain: its prev {'e' * 16}... is not the hash of the archived record 3 "
                  f"({t2[2].hash[:16]}...)"),
        ("t1", 5, "its hash does not match its contents (edited or forged)")]
    alone = _archive(second_database, messages, None)
    assert [dataclasses.astuple(outcome) for outcome in alone] == [dataclasses.astuple(outcome) for outcome in handled]
    assert _rows(second_database) == rows


def test_a_batch_the_database_refuses_while_its_records_are_copied_in_leaves_nothing_and_the_next_is_stored(
        journals: dict[str, list[Record]], database: str) -> None:
    """A new record PostgreSQL refuses in the middle of the batch's COPY (here a constraint the test adds): the
    whole batch is rolled back, nothing of it stays (no row, no head, nothing pending), and the same connection
    stores the next batch."""
    records = journals["t3"]
    poisoned = records[6]._replace(body=records[6].body.replace("}", ',"poison":1}', 1))
    poisoned = poisoned._replace(hash=record_hash(7, poisoned.kind, poisoned.at, poisoned.prev, poisoned.body))
    store = ArchiveStore(psycopg.connect(database))
    store.create_schema()
    store.connection.execute("ALTER TABLE journal_records ADD CONSTRAINT no_poison CHECK (body NOT LIKE '%poison%')")
    try:
        first = [((SITE, "t3", record), record_payload(record)) for record in [*records[:6], poisoned]]
        with pytest.raises(psycopg.errors.CheckViolation):
            store.store_batch([*first, ((SITE, "t4", records[0]), record_payload(records[0]))])
        assert _rows(database) == {"records": [], "pending": [], "rejects": []}
        with psycopg.connect(database) as connection:
            assert connection.execute("SELECT count(*) FROM journal_heads").fetchone() == (0,)
        again = store.store_batch([((SITE, "t3", record), record_payload(record)) for record in records])
    finally:
        store.close()
    assert [outcome.outcome for outcome in again.handled] == [Outcome.STORED] * len(records)
    assert [row[2:] for row in _rows(database)["records"]] == [tuple(record) for record in records]

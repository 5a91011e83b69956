"""Delivery proven by the archive (issue 27): a table counts a record delivered only once the archive stored it.

Real parts only: a persistent anonymous Mosquitto of the test's own, PostgreSQL, ``croupier simulate
--journal --feed`` tables dealing at a pace and ``croupier archive`` processes. Each test compares the
journal with the archive record by record: every record once, same fields, nothing else.
"""

from __future__ import annotations

import re
import signal
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.controller.floor.floorkit import (
    Archive,
    Table,
    archived_keys,
    assert_archived_exactly,
    croupier,
    holds_every_record,
    journal_records,
    make_journal,
    wait_for,
)
from tests.controller.floor.services import Mosquitto

INTERRUPTED = 130
"""``croupier simulate``'s exit status after Ctrl+C (SIGINT), a clean stop."""
CONTRACT_SECONDS = 60.0
RESUME_RECORDS = 8
"""At most the records a resumed table journals before its feed starts (its resume's notes, a deal under way)."""
"""The contract: every record archived within 60 s of the archive's start, while the table deals."""


def _mark(journal: Path, table: str = "feed_acked") -> int:
    with sqlite3.connect(journal) as connection:
        row = connection.execute(f"SELECT seq FROM {table} WHERE id = 1").fetchone()
    return int(row[0]) if row else 0


def _wait_records(table: Table, count: int) -> None:
    wait_for(lambda: len(table.records()) >= count, f"{count} records journaled")


def _all_archived_while_dealing(table: Table, database: str, site: str, name: str) -> None:
    """Every record the table had journaled when the archive started is archived within the contract's
    60 s, the table still dealing; then, stopped cleanly, its whole journal is archived exactly."""
    started = time.monotonic()
    before = table.records()
    wait_for(lambda: holds_every_record(database, site, name, before), "the records journaled before the archive",
             CONTRACT_SECONDS)
    assert time.monotonic() - started <= CONTRACT_SECONDS
    assert table.running(), "the table must still be dealing"
    wait_for(lambda: holds_every_record(database, site, name, table.records()), "the records journaled since",
             CONTRACT_SECONDS)
    status, stderr = table.stop()
    assert status == INTERRUPTED, stderr
    records = table.records()
    wait_for(lambda: holds_every_record(database, site, name, records), "the whole journal archived")
    assert_archived_exactly(database, site, name, records)


@pytest.mark.slow
def test_a_table_started_before_any_archive_is_archived_whole_once_the_archive_starts(
        tmp_path: Path, own_broker: Mosquitto, database: str, site: str) -> None:
    table = Table(tmp_path / "t.journal", f"mqtt://{own_broker.address}/{site}/t1", seed=3)
    archive = None
    try:
        _wait_records(table, 60)  # published to the broker while no archive has ever subscribed
        archive = Archive(own_broker.address, database, group="")
        _all_archived_while_dealing(table, database, site, "t1")
    finally:
        table.stop()
        if archive is not None:
            archive.stop()
    assert _mark(table.journal) == len(table.records()), "a clean stop waits for the archive's confirmation"


@pytest.mark.slow
def test_records_the_broker_lost_in_a_kill_9_while_no_archive_ran_are_archived_once_it_starts(
        tmp_path: Path, own_broker: Mosquitto, database: str, site: str) -> None:
    client_id = f"test-archive-{uuid.uuid4().hex[:8]}"
    table = Table(tmp_path / "t.journal", f"mqtt://{own_broker.address}/{site}/t1", seed=5)
    archive = None
    try:
        first = Archive(own_broker.address, database, group="", client_id=client_id)
        _wait_records(table, 40)
        wait_for(lambda: holds_every_record(database, site, "t1", table.records()[:30]), "the first records")
        first.stop()  # its persistent session queues what the table publishes now ...
        _wait_records(table, len(table.records()) + 60)
        own_broker.kill()  # ... and the broker loses it: it saves its queues only on a clean stop
        time.sleep(1.0)
        own_broker.start()
        _wait_records(table, len(table.records()) + 20)
        archive = Archive(own_broker.address, database, group="", client_id=client_id)
        _all_archived_while_dealing(table, database, site, "t1")
    finally:
        table.stop()
        if archive is not None:
            archive.stop()


@pytest.mark.slow
def test_a_table_killed_and_restarted_resumes_from_what_the_archive_confirmed(
        tmp_path: Path, own_broker: Mosquitto, database: str, site: str) -> None:
    journal = tmp_path / "t.journal"
    feed = f"mqtt://{own_broker.address}/{site}/t1"
    archive = Archive(own_broker.address, database, group="")
    second = None
    try:
        first = Table(journal, feed, seed=7)
        _wait_records(first, 80)
        wait_for(lambda: _mark(journal) >= 40, "the archive-confirmed mark kept in the journal")
        first.stop(signal.SIGKILL)
        confirmed = _mark(journal)
        stored = dict(archived_keys(database, site, "t1"))
        assert 0 < confirmed <= max(stored), "the mark never runs ahead of the archive"
        assert all(stored.get(int(record["seq"])) == record["hash"] for record in first.records()[:confirmed])
        second = Table(journal, feed, seed=7)
        _wait_records(second, len(first.records()) + 40)
        status, stderr = second.stop()
        assert status == INTERRUPTED, stderr
        records = second.records()
        wait_for(lambda: holds_every_record(database, site, "t1", records), "the whole journal archived")
        assert_archived_exactly(database, site, "t1", records)
    finally:
        if second is not None:
            second.stop()
        archive.stop()


@pytest.mark.slow
def test_an_archive_with_a_new_empty_database_gets_every_record_again(
        tmp_path: Path, own_broker: Mosquitto, database: str, site: str, postgres_server: str) -> None:
    import psycopg

    fresh = f"croupier_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {fresh}")
    second_database = f"{postgres_server.rsplit('/', 1)[0]}/{fresh}"
    table = Table(tmp_path / "t.journal", f"mqtt://{own_broker.address}/{site}/t1", seed=9)
    archive = second = None
    try:
        archive = Archive(own_broker.address, database, group="")
        _wait_records(table, 60)
        wait_for(lambda: holds_every_record(database, site, "t1", table.records()[:50]), "the first archive's")
        archive.stop()
        second = Archive(own_broker.address, second_database, group="")  # another archive, an empty database
        _all_archived_while_dealing(table, second_database, site, "t1")
    finally:
        table.stop()
        for process in (archive, second):
            if process is not None and process.process.poll() is None:
                process.stop()
        with psycopg.connect(postgres_server, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {fresh} WITH (FORCE)")


def first_journal_archived(tmp_path: Path, feed: str, database: str, site: str) -> list[dict[str, Any]]:
    """The records of a first journal of table t1 (``a.journal``, 3 rounds, fed to ``feed``), once the archive
    holds every one of them."""
    first = Table(tmp_path / "a.journal", feed, seed=11, rounds=3, pace=0.01)
    assert first.process.wait(timeout=120) == 0
    records = first.records()
    wait_for(lambda: holds_every_record(database, site, "t1", records), "the first journal archived")
    return records


@pytest.mark.slow
def test_another_journal_under_an_archived_tables_name_is_reported_never_archived(
        tmp_path: Path, own_broker: Mosquitto, database: str, site: str) -> None:
    feed = f"mqtt://{own_broker.address}/{site}/t1"
    archive = Archive(own_broker.address, database, group="")
    try:
        records = first_journal_archived(tmp_path, feed, database, site)
        other = Table(tmp_path / "b.journal", feed, seed=12, rounds=3, pace=0.01,
                      env={"CROUPIER_FEED_DRAIN_TIMEOUT": "3"})
        other.process.wait(timeout=120)
        _, stderr = other.process.communicate(timeout=60)
        assert other.process.returncode == 0, stderr
        assert f"the archive holds another journal as {site}/t1" in stderr, stderr
        archive.wait_line(f"REJECTED {site}/t1 record 1: differs from the archived record 1")
        assert _mark(other.journal) == 0, "nothing of the other journal counts as delivered"
    finally:
        archive.stop()
    assert_archived_exactly(database, site, "t1", records)


@pytest.mark.slow
def test_a_journal_restored_from_an_older_copy_is_said_to_be_one_and_never_forks_the_archive(
        tmp_path: Path, own_broker: Mosquitto, database: str, site: str) -> None:
    """The archive holds records past the end of a journal restored from an older backup (one the archive had
    confirmed records of): its table resumed and was told only that the archive may hold another journal or a longer
    copy, and to give the table a name of its own, which sends the engineer the wrong way. It is told that this
    journal is an older copy, where it ends, where the archive's head is, and what to do; the table deals on, and the
    archive's chain is neither overwritten nor forked by the records it deals meanwhile."""
    journal = tmp_path / "t.journal"
    backup = tmp_path / "t.backup"
    feed = f"mqtt://{own_broker.address}/{site}/t1"
    archive = Archive(own_broker.address, database, group="")
    try:
        first = Table(journal, feed, seed=17)
        _wait_records(first, 60)
        wait_for(lambda: _mark(journal) >= 1, "the archive confirming the first records")
        source, copy = sqlite3.connect(journal), sqlite3.connect(backup)
        source.backup(copy)
        copy.execute("PRAGMA journal_mode=DELETE")  # one file, as a backup is kept
        source.close()
        copy.close()
        _wait_records(first, 160)
        status, stderr = first.stop()
        assert status == INTERRUPTED, stderr
        records = first.records()
        wait_for(lambda: holds_every_record(database, site, "t1", records), "the whole journal archived")
        copy = sqlite3.connect(backup)
        end = copy.execute("SELECT max(seq) FROM records").fetchone()[0]
        copy.close()
        assert 1 <= _mark(backup) <= end < len(records)
        for stale in (journal, journal.with_name(journal.name + "-wal"), journal.with_name(journal.name + "-shm")):
            stale.unlink(missing_ok=True)
        backup.replace(journal)  # restored from the older copy
        again = Table(journal, feed, seed=17, env={"CROUPIER_FEED_DRAIN_TIMEOUT": "3"})
        wait_for(lambda: len(again.records()) > end + 5, "the restored table dealing")
        assert again.running(), "the table deals on"
        status, stderr = again.stop()
        assert status == INTERRUPTED, stderr
    finally:
        archive.stop()
    head = records[-1]["seq"]
    said = [line for line in stderr.splitlines() if "older copy" in line]
    assert len(said) == 1, stderr
    ended = re.search(r"this journal ended at record (\d+) when the table started, the archive's head is record "
                      r"(\d+)", said[0])
    assert ended is not None and f"{site}/t1" in said[0], said
    assert end <= int(ended[1]) <= end + RESUME_RECORDS and int(ended[2]) == head, said
    assert "restore the table's newest journal" in said[0] and "call the supervisor" in said[0], said
    assert "give this table a name of its own" not in stderr, "not another journal: the wrong way"
    assert _mark(journal) <= end, "nothing of the restored journal's new records counts as delivered"
    assert_archived_exactly(database, site, "t1", records)  # neither overwritten nor forked


@pytest.mark.slow
def test_another_chain_under_the_tables_name_is_said_with_both_hashes_and_never_counted(
        tmp_path: Path, own_broker: Mosquitto, database: str, site: str) -> None:
    """The archive's head for the table is a record this journal has, with another hash: the archive refused the
    journal's records (a chain that does not continue), and the table said only that the archive holds another
    journal. It names the record and both hashes, counts nothing delivered, and the archive keeps its own chain."""
    feed = f"mqtt://{own_broker.address}/{site}/t1"
    other = make_journal(tmp_path / "b.journal", seed=12, rounds=8)  # dealt where no broker was, longer than a's
    archive = Archive(own_broker.address, database, group="")
    try:
        records = first_journal_archived(tmp_path, feed, database, site)
        theirs = journal_records(other)
        head = records[-1]["seq"]
        assert len(theirs) > head
        resumed = croupier("simulate", "--seed", "12", "--rounds", "8", "--quiet", "--journal", str(other), "--feed",
                           feed, CROUPIER_FEED_DRAIN_TIMEOUT="3")
        assert resumed.returncode == 0, resumed.stderr
        archive.wait_line(f"REJECTED {site}/t1 record 1: differs from the archived record 1")
    finally:
        archive.stop()
    said = [line for line in resumed.stderr.splitlines() if "does not continue this journal" in line]
    assert len(said) == 1, resumed.stderr
    assert (f"{site}/t1" in said[0] and f"its record {head} has hash {records[-1]['hash'][:16]}..." in said[0]
            and f"this journal's record {head} has hash {theirs[head - 1]['hash'][:16]}..." in said[0]), said
    assert "not counted as delivered" in said[0], said
    assert _mark(other) == 0, "nothing of the other journal counts as delivered"
    assert_archived_exactly(database, site, "t1", records)

"""`croupier report dealers postgresql://...`: the floor archive's copy of a journal (a real PostgreSQL)
gives the same report as the journal itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.floor.archive_store import ArchiveStore, connect, create_schema, record_payload
from controller.journal.store import Journal, Record, record_hash
from tests.controller.reports.journalkit import BADGED_TIMELINE, write_journal
from tests.inprocess import croupier_process

croupier = croupier_process


def test_the_archive_gives_the_journal_s_report(database: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_journal(tmp_path / "t7.journal", BADGED_TIMELINE, monkeypatch)
    store = ArchiveStore(connect(database))
    try:
        create_schema(store)
        journal = Journal.open_existing(path)
        for record in journal.records():
            assert store.receive("casino", "t7", record, record_payload(record)).stored
        journal.close()
    finally:
        store.close()
    from_archive = croupier("report", "dealers", database, "--json")
    from_journal = croupier("report", "dealers", str(path), "--json")
    assert from_archive.returncode == 0, from_archive.stderr
    archived, journaled = json.loads(from_archive.stdout), json.loads(from_journal.stdout)
    assert [shift.pop("table") for shift in archived["shifts"]] == ["casino/t7"] * 3
    for shift in journaled["shifts"]:
        shift.pop("table")
    # Each source names its own journals and their modes (issue 29 item 4): the archive its tables, by their rows'
    # mode (a journal that states none, as this one written by hand, is archived as live); the rest is the same.
    assert archived.pop("journals") == [{"table": "casino/t7", "mode": "live"}]
    assert journaled.pop("journals") == [{"path": str(path), "mode": None}]
    assert archived == journaled
    assert [row["rounds"] for row in archived["dealers"]] == [4, 2]


def test_a_database_without_an_archive_is_one_clear_line(database: str) -> None:
    run = croupier("report", "dealers", database)
    assert run.returncode == 2
    assert "holds no archive" in run.stderr and "Traceback" not in run.stderr


def test_an_archived_events_record_nested_too_deep_is_named_and_the_floor_still_reported(
        database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table may publish any well-hashed record, and the archive stores it: one whose body json.loads cannot read
    (nested too deep) stopped the report of the whole floor with a RecursionError traceback."""
    path = write_journal(tmp_path / "t7.journal", BADGED_TIMELINE, monkeypatch)
    journal = Journal.open_existing(path)
    records = list(journal.records())
    journal.close()
    body = "[" * 100_000 + "]" * 100_000
    deep = Record(2, "events", records[1].at, body, records[0].hash,
                  record_hash(2, "events", records[1].at, records[0].hash, body))
    store = ArchiveStore(connect(database))
    try:
        create_schema(store)
        header = Record(1, "header", records[0].at, body, records[0].prev,
                        record_hash(1, "header", records[0].at, records[0].prev, body))
        for table, chain in (("t7", records), ("deep", [records[0], deep]), ("deep-header", [header])):
            for record in chain:
                assert store.receive("casino", table, record, record_payload(record)).stored
    finally:
        store.close()
    run = croupier("report", "dealers", database, "--json")
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    assert "casino/deep: record 2 is not a valid events record" in run.stderr, run.stderr
    assert [row["rounds"] for row in json.loads(run.stdout)["dealers"]] == [4, 2]

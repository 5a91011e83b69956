"""Issue 29 item 4 (D1): the archive stores each record's mode beside it (``journal_records.mode``: ``live``,
``simulation`` or ``training``, the mode its journal's first record states), so simulated play never passes for
live play on the floor; an archive made before the column gains it, filled from each table's record 1."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from controller.floor.archive_store import ArchiveStore
from tests.controller.floor.floorkit import croupier, journal_records, make_journal
from tests.journals import live_journal as write_live_journal

ROOT = Path(__file__).resolve().parents[3]
OLD_SCHEMA = """
CREATE TABLE journal_records (
    site        TEXT NOT NULL,
    table_id    TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    kind        TEXT NOT NULL,
    at          TEXT NOT NULL,
    body        TEXT NOT NULL,
    prev        TEXT NOT NULL,
    hash        TEXT NOT NULL,
    archived_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (site, table_id, seq)
)
"""
FORMAT1 = ROOT / "tests" / "controller" / "journal" / "fixtures"


def modes(database: str, site: str, table: str) -> list[tuple[int, str]]:
    with psycopg.connect(database) as connection:
        rows = connection.execute("SELECT seq, mode FROM journal_records WHERE site = %s AND table_id = %s "
                                  "ORDER BY seq", (site, table)).fetchall()
    return [(int(seq), str(mode)) for seq, mode in rows]


def live_journal(path: Path) -> Path:
    """A journal of ``croupier run`` on a serial reader (the shoe emulator on a pty): live play."""
    done = write_live_journal(path)
    assert done.returncode == 0, done.stderr
    return path


def test_every_row_states_its_journals_mode(database: str, tmp_path: Path) -> None:
    simulated = make_journal(tmp_path / "sim.journal", seed=4, rounds=2)
    live = live_journal(tmp_path / "live.journal")
    for path, table in ((simulated, "sim"), (live, "live")):
        run = croupier("archive", "import", str(path), "--site", "s", "--table", table, "--db", database)
        assert run.returncode == 0, run.stderr
    simulation_rows = modes(database, "s", "sim")
    assert len(simulation_rows) == len(journal_records(simulated))
    assert {mode for _, mode in simulation_rows} == {"simulation"}
    live_rows = modes(database, "s", "live")
    assert len(live_rows) == len(journal_records(live))
    assert {mode for _, mode in live_rows} == {"live"}


def test_an_archive_made_before_modes_gains_the_column_filled_from_each_tables_first_record(
        database: str, tmp_path: Path) -> None:
    simulated = journal_records(make_journal(tmp_path / "sim.journal", seed=5, rounds=1))
    old = journal_records(sorted(FORMAT1.glob("format1-*.db"))[0])  # written before modes: its table event says
    with psycopg.connect(database, autocommit=True) as connection:
        connection.execute(OLD_SCHEMA)
        for table, records in (("new", simulated), ("old", old)):
            for record in records:
                connection.execute("INSERT INTO journal_records (site, table_id, seq, kind, at, body, prev, hash) "
                                   "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                                   ("s", table, record["seq"], record["kind"], record["at"], record["body"],
                                    record["prev"], record["hash"]))
    for _ in range(2):  # a second start finds the column there and changes nothing
        store = ArchiveStore(psycopg.connect(database))
        try:
            store.create_schema()
        finally:
            store.close()
    with psycopg.connect(database, autocommit=True) as connection, pytest.raises(psycopg.errors.CheckViolation):
        connection.execute("UPDATE journal_records SET mode = 'demo' WHERE site = 's' AND table_id = 'new'")
    assert {mode for _, mode in modes(database, "s", "new")} == {"simulation"}
    assert len(modes(database, "s", "new")) == len(simulated)
    assert {mode for _, mode in modes(database, "s", "old")} == {"simulation"}

"""``croupier archive import`` and ``croupier audit verify --archive`` naming the side that changed (issue 27).

Real journals (``croupier simulate --journal``), a real PostgreSQL, the commands run as processes. The
archive is altered the way an intruder with database access would: a row deleted from the middle or the
end, a row's contents edited (with or without its hash recomputed).
"""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import psycopg
import pytest

from controller.journal.store import record_hash
from tests.controller.floor.floorkit import archived, assert_archived_exactly, croupier, journal_records, make_journal


def _import(database: str, *args: str) -> tuple[int, str, str]:
    run = croupier("archive", "import", *args, "--db", database)
    return run.returncode, run.stdout, run.stderr


def _archived_journal(tmp_path: Path, database: str, site: str,
                      rounds: int = 12) -> tuple[Path, list[dict[str, object]]]:
    path = make_journal(tmp_path / "t.journal", seed=21, rounds=rounds)
    status, stdout, stderr = _import(database, str(path), "--site", site, "--table", "t1")
    assert status == 0, stdout + stderr
    return path, journal_records(path)


def _verify(path: Path, database: str) -> tuple[int, str]:
    run = croupier("audit", "verify", str(path), "--archive", database)
    assert "Traceback" not in run.stderr, run.stderr
    return run.returncode, run.stdout + run.stderr


def _confirm(path: Path, seq: int) -> None:
    """What a table's feed keeps once the archive confirmed records 1-``seq``."""
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS feed_acked (id INTEGER PRIMARY KEY CHECK (id = 1), "
                           "seq INTEGER NOT NULL)")
        connection.execute("INSERT OR REPLACE INTO feed_acked VALUES (1, ?)", (seq,))


@pytest.mark.slow
def test_import_archives_every_record_once_and_a_second_run_stores_nothing_new(
        tmp_path: Path, database: str, site: str) -> None:
    path = make_journal(tmp_path / "t.journal", seed=17, rounds=20)
    records = journal_records(path)
    status, stdout, stderr = _import(database, str(path), "--site", site, "--table", "t1")
    assert status == 0, stdout + stderr
    assert f"{site}/t1 records 1-{len(records)}: {len(records)} stored, 0 already archived, 0 refused" in stdout
    assert_archived_exactly(database, site, "t1", records)
    again, stdout, stderr = _import(database, str(path))  # the table found by its record 1
    assert again == 0, stdout + stderr
    assert f"{site}/t1 records 1-{len(records)}: 0 stored, {len(records)} already archived, 0 refused" in stdout
    assert_archived_exactly(database, site, "t1", records)


@pytest.mark.slow
def test_import_fills_what_the_archive_misses_and_refuses_another_journal(
        tmp_path: Path, database: str, site: str) -> None:
    path, records = _archived_journal(tmp_path, database, site)
    with psycopg.connect(database) as connection:  # a partly archived journal: its second half missing
        connection.execute("DELETE FROM journal_records WHERE site = %s AND seq > %s", (site, len(records) // 2))
    status, stdout, stderr = _import(database, str(path))
    assert status == 0, stdout + stderr
    assert_archived_exactly(database, site, "t1", records)
    other = make_journal(tmp_path / "other.journal", seed=22, rounds=3)
    refused, stdout, stderr = _import(database, str(other), "--site", site, "--table", "t1")
    assert refused == 1, stdout + stderr
    assert f"REJECTED {site}/t1 record 1: differs from the archived record 1" in stdout
    assert_archived_exactly(database, site, "t1", records)


@pytest.mark.slow
def test_import_names_the_records_it_leaves_waiting_behind_a_refused_one(
        tmp_path: Path, database: str, site: str) -> None:
    """A longer journal imported under a table that holds another (or an older copy of it, dealt on): the records
    past the archived ones waited in journal_pending, counted nowhere: the line said 'N stored, N already archived,
    N refused' for fewer records than it names, and the rest went unsaid."""
    _, records = _archived_journal(tmp_path, database, site, rounds=3)
    longer = make_journal(tmp_path / "longer.journal", seed=22, rounds=12)
    total = len(journal_records(longer))
    assert total > len(records) + 2
    status, stdout, stderr = _import(database, str(longer), "--site", site, "--table", "t1")
    assert status == 1, stdout + stderr
    line = (f"{site}/t1 records 1-{total}: 0 stored, 0 already archived, {len(records) + 1} refused, "
            f"{total - len(records) - 1} not stored (each follows a record the archive does not hold)")
    assert line in stdout, stdout
    assert_archived_exactly(database, site, "t1", records)


def _journal_of_table(path: Path, table_id: str, seed: int, rounds: int) -> Path:
    """A real journal of a table whose ``[table] id`` is ``table_id`` (what a feed's SITE/TABLE also gives)."""
    config = path.with_suffix(".toml")
    config.write_text(f'[table]\nid = "{table_id}"\n', encoding="utf-8")
    run = croupier("simulate", "--config", str(config), "--seed", str(seed), "--rounds", str(rounds), "--quiet",
                   "--journal", str(path))
    assert run.returncode == 0, run.stderr
    return path


def _hold_back(database: str, site: str, table: str, path: Path, first: int, last: int) -> None:
    """Have the archive receive records ``first``-``last`` of the journal before their predecessors, as from a
    broker that lost the ones before: they wait in journal_pending."""
    from controller.floor.archive_import import journal_records as verified_records
    from controller.floor.archive_store import ArchiveStore, Outcome, connect, create_schema, record_payload

    store = ArchiveStore(connect(database))
    try:
        create_schema(store)
        held = verified_records(str(path))[first - 1:last]
        result = store.store_batch([((site, table, record), record_payload(record)) for record in held])
        store.connection.commit()
    finally:
        store.close()
    assert [handled.outcome for handled in result.handled] == [Outcome.PENDING] * len(held)


@pytest.mark.slow
def test_import_counts_once_the_records_it_lets_through_from_those_waiting(
        tmp_path: Path, database: str, site: str) -> None:
    """Records the archive held back (waiting for their predecessors) were counted twice: once as stored when the
    import's record before them let them through, again as 'already archived' when the import reached them (in
    the same batch or the next one): the line said more records than the journal has."""
    path = make_journal(tmp_path / "t.journal", seed=17, rounds=110)
    records = journal_records(path)
    total = len(records)
    assert total > 520, "the journal spans two of the import's batches (500 records)"
    _hold_back(database, site, "t1", path, 490, 510)  # across the first batch's end
    status, stdout, stderr = _import(database, str(path), "--site", site, "--table", "t1")
    assert status == 0, stdout + stderr
    assert f"{site}/t1 records 1-{total}: {total} stored, 0 already archived, 0 refused\n" in stdout, stdout
    assert_archived_exactly(database, site, "t1", records)
    again, stdout, stderr = _import(database, str(path))
    assert again == 0, stdout + stderr
    assert f"{site}/t1 records 1-{total}: 0 stored, {total} already archived, 0 refused\n" in stdout, stdout
    assert_archived_exactly(database, site, "t1", records)


@pytest.mark.slow
def test_import_without_a_name_archives_a_fed_journal_as_its_feeds_table(
        tmp_path: Path, database: str, site: str) -> None:
    """The plain form of issue 27's contract: a journal the archive never saw exited 2 asking for --site and
    --table, though its records name the table (the feed's SITE/TABLE, or [table] id)."""
    path = tmp_path / "t.journal"  # a table whose feed found no broker: the journal is all there is of it
    run = croupier("simulate", "--seed", "5", "--rounds", "8", "--quiet", "--journal", str(path), "--feed",
                   f"mqtt://127.0.0.1:1/{site}/t9")
    assert run.returncode == 0, run.stderr
    records = journal_records(path)
    for stored, already in ((len(records), 0), (0, len(records))):  # the second run stores nothing new
        status, stdout, stderr = _import(database, str(path))
        assert status == 0, stdout + stderr
        assert f"{site}/t9 records 1-{len(records)}: {stored} stored, {already} already archived, 0 refused" \
            in stdout, stdout
        assert_archived_exactly(database, site, "t9", records)


@pytest.mark.slow
def test_import_without_a_name_archives_a_journal_without_a_feed_under_the_local_site(
        tmp_path: Path, database: str) -> None:
    """A table that ran without a feed names only itself ([table] id, else its host's name): it is archived as
    that table of the site 'local', and several such journals, each as its own table, in one run."""
    named = _journal_of_table(tmp_path / "named.journal", "t12", seed=6, rounds=3)
    plain = make_journal(tmp_path / "plain.journal", seed=7, rounds=3)  # its id is the host's name
    host = socket.gethostname()
    for stored in (True, False):
        status, stdout, stderr = _import(database, str(named), str(plain))
        assert status == 0, stdout + stderr
        for path, table in ((named, "t12"), (plain, host)):
            records = journal_records(path)
            counts = f"{len(records)} stored, 0" if stored else f"0 stored, {len(records)}"
            assert f"{path}: local/{table} records 1-{len(records)}: {counts} already archived, 0 refused" \
                in stdout, stdout
            assert_archived_exactly(database, "local", table, records)


@pytest.mark.slow
def test_import_without_a_name_refuses_a_journal_whose_id_names_no_table(tmp_path: Path, database: str) -> None:
    path = _journal_of_table(tmp_path / "t.journal", "casino/pit2/t12", seed=8, rounds=1)
    status, stdout, stderr = _import(database, str(path))
    assert status == 2, stdout + stderr
    assert stderr.splitlines() == [
        f"croupier archive import: {path}: the journal's table id 'casino/pit2/t12' is neither SITE/TABLE nor a table "
        "name (1-64 letters, digits, '-', '_' or '.'), and the archive holds no table whose record 1 is this "
        "journal's; name the table it is with --site SITE --table TABLE"], stderr
    assert not archived(database, "casino", "pit2/t12")


def test_import_refuses_a_site_without_its_table(tmp_path: Path) -> None:
    run = croupier("archive", "import", str(tmp_path / "missing.journal"), "--db", "postgresql://127.0.0.1:1/x",
                   "--site", "a")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "--site and --table name a table in the archive together" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_audit_of_an_untouched_archive_exits_0(tmp_path: Path, database: str, site: str) -> None:
    path, records = _archived_journal(tmp_path, database, site)
    _confirm(path, len(records))
    status, said = _verify(path, database)
    assert status == 0, said
    assert f"matches the archive of table {site}/t1: records 1-{len(records)} are the same" in said


@pytest.mark.slow
def test_a_row_deleted_from_the_middle_of_the_archive_is_named_as_the_archive_altered(
        tmp_path: Path, database: str, site: str) -> None:
    path, records = _archived_journal(tmp_path, database, site)
    middle = len(records) // 2
    with psycopg.connect(database) as connection:
        connection.execute("DELETE FROM journal_records WHERE site = %s AND seq = %s", (site, middle))
    status, said = _verify(path, database)
    assert status == 1, said
    assert said.startswith("TAMPERED: ") and f"the archive was altered: records {middle}-{middle} of table " \
        f"{site}/t1 are missing from it (deleted)" in said, said


@pytest.mark.slow
def test_rows_deleted_from_the_end_of_the_archive_are_caught_against_what_the_table_was_told(
        tmp_path: Path, database: str, site: str) -> None:
    path, records = _archived_journal(tmp_path, database, site)
    _confirm(path, len(records))
    with psycopg.connect(database) as connection:
        connection.execute("DELETE FROM journal_records WHERE site = %s AND seq > %s", (site, len(records) - 3))
        connection.execute("DELETE FROM journal_heads WHERE site = %s", (site,))  # the intruder's tracks, too
    status, said = _verify(path, database)
    assert status == 1, said
    assert f"the archive was altered: records {len(records) - 2}-{len(records)} of table {site}/t1, which the " \
        "archive stored and confirmed to the table, are missing from its end" in said, said


@pytest.mark.slow
def test_rows_deleted_from_the_end_are_caught_by_the_archives_own_heads(
        tmp_path: Path, database: str, site: str) -> None:
    path, records = _archived_journal(tmp_path, database, site)  # no local mark: the archive's own record
    with psycopg.connect(database) as connection:
        connection.execute("DELETE FROM journal_records WHERE site = %s AND seq > %s", (site, len(records) - 3))
    status, said = _verify(path, database)
    assert status == 1 and "are missing from its end" in said, said


@pytest.mark.slow
@pytest.mark.parametrize("rehash", [False, True])
def test_an_edited_archived_row_is_blamed_on_the_archive_not_the_intact_journal(
        tmp_path: Path, database: str, site: str, rehash: bool) -> None:
    path, _ = _archived_journal(tmp_path, database, site)
    seq = 7
    row = archived(database, site, "t1")[seq - 1]
    body = str(row["body"]).replace("{", '{"edited":1,', 1)
    digest = record_hash(seq, str(row["kind"]), str(row["at"]), str(row["prev"]), body) if rehash else row["hash"]
    with psycopg.connect(database) as connection:
        connection.execute("UPDATE journal_records SET body = %s, hash = %s WHERE site = %s AND seq = %s",
                           (body, digest, site, seq))
    status, said = _verify(path, database)
    assert status == 1, said
    where = seq + 1 if rehash else seq  # a recomputed hash no longer matches the next row's prev
    assert f"the archive was altered at record {where} of table {site}/t1" in said, said
    assert "local journal was edited" not in said


@pytest.mark.slow
def test_archived_rows_rewritten_with_their_chain_recomputed_are_blamed_on_the_archive_by_its_own_heads(
        tmp_path: Path, database: str, site: str) -> None:
    path, records = _archived_journal(tmp_path, database, site)  # journal_heads keeps the head it confirmed
    seq = 7
    rows = archived(database, site, "t1")
    previous = str(rows[seq - 2]["hash"])
    with psycopg.connect(database) as connection:  # every row from record 7 on rewritten, each hash recomputed
        for row in rows[seq - 1:]:
            body = str(row["body"]).replace("{", '{"edited":1,', 1) if row["seq"] == seq else str(row["body"])
            digest = record_hash(int(str(row["seq"])), str(row["kind"]), str(row["at"]), previous, body)
            connection.execute("UPDATE journal_records SET body = %s, prev = %s, hash = %s WHERE site = %s AND "
                               "seq = %s", (body, previous, digest, site, row["seq"]))
            previous = digest
    status, said = _verify(path, database)
    assert status == 1, said
    assert said.startswith("TAMPERED: "), said
    assert f"the archive was altered from record {seq} of table {site}/t1 on: its rows were rewritten, their " \
        f"hashes recomputed (record {len(records)}, which the archive stored and confirmed to the table, had " \
        f"hash {str(records[-1]['hash'])[:16]}...)" in said, said
    assert "local journal was edited" not in said


@pytest.mark.slow
def test_a_journal_never_archived_is_said_so_not_called_tampered(tmp_path: Path, database: str) -> None:
    created = _import(database, str(make_journal(tmp_path / "a.journal", seed=1, rounds=1)), "--site", "s",
                      "--table", "other")  # an archive with its tables, holding another journal
    assert created[0] == 0, created
    path = make_journal(tmp_path / "t.journal", seed=31, rounds=3)
    status, said = _verify(path, database)
    assert status == 1, said
    assert said.startswith("NOT ARCHIVED: ") and "TAMPERED" not in said, said
    _confirm(path, 5)  # but one the archive confirmed records of: the archive lost them
    status, said = _verify(path, database)
    assert status == 1 and said.startswith("TAMPERED: ") and "the archive was altered" in said, said


@pytest.mark.slow
def test_audit_of_a_table_dealing_on_under_its_archive_says_it_matches(
        tmp_path: Path, broker: str, database: str, site: str) -> None:
    """The audit reads one moment of the journal, and the archive a moment later: the records the table journaled
    and the archive stored meanwhile were reported as 'archived but missing from the local journal ...: it was
    cut' (TAMPERED, exit 1) on every audit of a table that deals on, as a surveillance officer runs it."""
    from tests.controller.floor.floorkit import Archive, Table, archived_keys, wait_for

    journal = tmp_path / "t.journal"
    archive = Archive(broker, database, group="")
    table = Table(journal, f"mqtt://{broker}/{site}/t1", seed=31, pace=0.01)
    try:
        wait_for(lambda: len(archived_keys(database, site, "t1")) >= 600, "600 records archived")
        for _ in range(3):
            assert table.running()
            status, said = _verify(journal, database)
            assert status == 0, said
            assert f"archive: matches the archive of table {site}/t1: records 1-" in said, said
    finally:
        table.stop()
        archive.stop()


def test_a_journal_record_nested_too_deep_is_tampering_for_audit_and_import(tmp_path: Path, database: str,
                                                                           site: str) -> None:
    """A record whose well-hashed body is JSON nested too deep to read stopped croupier audit verify (and the
    import and --archive audit that verify first) with a RecursionError traceback, not TAMPERED naming it."""
    path = make_journal(tmp_path / "t.journal", seed=22, rounds=2)
    body = "[" * 100_000 + "]" * 100_000
    with sqlite3.connect(path) as connection:
        seq, hash_, at = connection.execute("SELECT seq, hash, at FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        connection.execute("INSERT INTO records (seq, kind, at, body, prev, hash) VALUES (?, ?, ?, ?, ?, ?)",
                           (seq + 1, "events", at, body, hash_, record_hash(seq + 1, "events", at, hash_, body)))
    said = f"record {seq + 1} was edited: its body is not JSON"
    for command in (["audit", "verify", str(path)], ["audit", "verify", str(path), "--archive", database],
                    ["archive", "import", str(path), "--site", site, "--table", "t1", "--db", database]):
        run = croupier(*command)
        assert "Traceback" not in run.stderr, (command, run.stderr)
        assert run.returncode == 1 and said in run.stdout + run.stderr, (command, run.stdout, run.stderr)


def test_a_journal_whose_header_is_nested_too_deep_is_tampering_for_audit_and_import(tmp_path: Path, database: str,
                                                                                    site: str) -> None:
    """Opening a journal reads its header's event format: a well-hashed header nested too deep to read stopped
    every command on the journal with a RecursionError traceback before its check could name it."""
    path = make_journal(tmp_path / "t.journal", seed=23, rounds=1)
    body = "[" * 100_000 + "]" * 100_000
    with sqlite3.connect(path) as connection:
        at, prev = connection.execute("SELECT at, prev FROM records WHERE seq = 1").fetchone()
        connection.execute("UPDATE records SET body = ?, hash = ? WHERE seq = 1",
                           (body, record_hash(1, "header", at, prev, body)))
    for command in (["audit", "verify", str(path)], ["audit", "verify", str(path), "--archive", database],
                    ["archive", "import", str(path), "--site", site, "--table", "t1", "--db", database]):
        run = croupier(*command)
        assert "Traceback" not in run.stderr, (command, run.stderr)
        assert run.returncode == 1 and "TAMPERED" in run.stdout + run.stderr, (command, run.stdout, run.stderr)

"""``croupier archive`` and ``audit verify --archive`` against a real Mosquitto and a real PostgreSQL.

The table-side feed is played by a paho publisher that sends a real journal's records (made by
``croupier simulate --journal``) on croupier/SITE/TABLE/journal exactly as stored, QoS 1.
"""

from __future__ import annotations

import json
import random
import re
import signal
import sqlite3
from pathlib import Path

import pytest

from controller.journal.store import record_hash
from tests.controller.floor.floorkit import (
    Archive,
    archived,
    croupier,
    journal_records,
    make_journal,
    publish,
    rejects,
    wait_for,
)
from tests.controller.floor.services import Mosquitto

SENTINEL = b"end of the test's messages"
"""Not a record: the archive reports it, which shows it has handled every message published before it."""


def _archived_count(database: str, site: str, table: str, count: int) -> bool:
    return len(archived(database, site, table)) >= count


@pytest.mark.slow
def test_every_record_is_stored_once_even_when_published_twice_and_out_of_order(
        tmp_path: Path, broker: str, database: str, site: str) -> None:
    records = journal_records(make_journal(tmp_path / "t1.journal", seed=7, rounds=30))
    shuffled = records[:]
    random.Random(18).shuffle(shuffled)
    archive = Archive(broker, database)
    try:
        publish(broker, site, "t1", records)
        publish(broker, site, "t1", shuffled)  # every record again, out of order
        publish(broker, site, "t1", [], raw=[SENTINEL])  # handled after everything before it
        archive.wait_line(f"REJECTED {site}/t1: the message is not JSON")
    finally:
        status, rest, stderr = archive.stop()
    assert status == 0, stderr
    assert archived(database, site, "t1") == records
    assert rejects(database, site) == [("t1", None, "the message is not JSON")]
    stored = re.search(r"stopped: (\d+) records stored, (\d+) duplicates", rest)
    assert stored is not None, rest
    assert (int(stored.group(1)), int(stored.group(2))) == (len(records), len(records))


@pytest.mark.slow
def test_records_published_while_the_archive_is_down_are_stored_once_after_its_restart(
        tmp_path: Path, own_broker: Mosquitto, database: str, site: str) -> None:
    broker = own_broker.address
    records = journal_records(make_journal(tmp_path / "t2.journal", seed=11, rounds=40))
    half = len(records) // 2
    archive = Archive(broker, database)
    publish(broker, site, "t2", records[:half])
    wait_for(lambda: _archived_count(database, site, "t2", half), "the first half archived")
    archive.stop(signal.SIGKILL)  # killed: its persistent session keeps what comes next
    publish(broker, site, "t2", records[half - 5:])  # overlapping the first half: duplicates
    own_broker.stop()  # the broker restarts too, and keeps the session (persistence)
    own_broker.start()
    restarted = Archive(broker, database, client_id=archive.client_id, group=archive.group)
    try:
        wait_for(lambda: _archived_count(database, site, "t2", len(records)), "the rest archived after restart")
        publish(broker, site, "t2", records, raw=[SENTINEL])  # and everything once more
        restarted.wait_line(f"REJECTED {site}/t2: the message is not JSON")
    finally:
        status, _, stderr = restarted.stop()
    assert status == 0, stderr
    assert archived(database, site, "t2") == records
    assert rejects(database, site) == [("t2", None, "the message is not JSON")]


@pytest.mark.slow
def test_records_published_right_after_a_broker_restart_are_all_archived(
        tmp_path: Path, own_broker: Mosquitto, database: str, site: str) -> None:
    # The archive keeps running; the broker restarts, and the tables publish before the archive is back
    # (it reconnects after a second at least): its plain persistent subscription, restored by the broker
    # from its persistence, keeps those messages for it.
    broker = own_broker.address
    records = journal_records(make_journal(tmp_path / "t5.journal", seed=13, rounds=30))
    half = len(records) // 2
    archive = Archive(broker, database, group="")
    try:
        publish(broker, site, "t5", records[:half])
        wait_for(lambda: _archived_count(database, site, "t5", half), "the first half archived")
        for _ in range(2):  # twice: the archive subscribed again after the first restart, too
            own_broker.stop()
            own_broker.start()
            publish(broker, site, "t5", records[half:], raw=[SENTINEL])
            archive.wait_line(f"REJECTED {site}/t5: the message is not JSON")
    finally:
        status, rest, stderr = archive.stop()
    assert status == 0, stderr
    assert archived(database, site, "t5") == records
    kept_apart = rejects(database, site)  # the sentinels, one may come twice (at-least-once over a restart)
    assert len(kept_apart) >= 2 and set(kept_apart) == {("t5", None, "the message is not JSON")}, kept_apart
    stored = re.search(r"stopped: (\d+) records stored, (\d+) duplicates", rest)
    assert stored is not None, rest
    assert int(stored.group(1)) == len(records)  # each record stored once
    assert int(stored.group(2)) >= len(records) - half  # the second half, published twice


@pytest.mark.slow
def test_two_archive_processes_share_the_load_without_a_duplicate_or_a_lost_row(
        tmp_path: Path, broker: str, database: str, site: str) -> None:
    tables = {f"t{n}": journal_records(make_journal(tmp_path / f"t{n}.journal", seed=n, rounds=25))
              for n in range(3)}
    group = f"group-{site}"
    first, second = Archive(broker, database, group=group), Archive(broker, database, group=group)
    try:
        for table, records in tables.items():
            publish(broker, site, table, records)
        for table, records in tables.items():
            wait_for(lambda t=table, r=records: _archived_count(database, site, t, len(r)), f"{table} archived")
    finally:
        outcomes = [first.stop(), second.stop()]
    counts = []
    for status, rest, stderr in outcomes:
        assert status == 0, stderr
        found = re.search(r"stopped: (\d+) records stored", rest)
        assert found is not None, rest
        counts.append(int(found.group(1)))
    for table, records in tables.items():
        assert archived(database, site, table) == records
    assert sum(counts) == sum(len(records) for records in tables.values())
    assert all(count > 0 for count in counts), f"one archive did all the work: {counts}"
    assert rejects(database, site) == []


def _forge(record: dict[str, object], **changes: object) -> dict[str, object]:
    forged = {**record, **changes}
    seq = forged["seq"]
    assert isinstance(seq, int)
    forged["hash"] = record_hash(seq, str(forged["kind"]), str(forged["at"]), str(forged["prev"]),
                                 str(forged["body"]))
    return forged


def test_a_record_that_does_not_chain_is_kept_apart_and_reported(
        tmp_path: Path, broker: str, database: str, site: str) -> None:
    records = journal_records(make_journal(tmp_path / "t3.journal", seed=5, rounds=10))
    last = records[-1]
    next_seq = int(last["seq"]) + 1
    forked = _forge(records[-2], seq=next_seq, prev="f" * 64)  # a well-formed record that names no predecessor
    rewritten = _forge(records[5], body=str(records[5]["body"]).replace("}", ' }', 1))  # seq 6, other content
    edited = {**records[-1], "seq": next_seq, "prev": last["hash"], "body": '{"events":[]}'}  # hash not recomputed
    archive = Archive(broker, database)
    try:
        publish(broker, site, "t3", records)
        wait_for(lambda: _archived_count(database, site, "t3", len(records)), "the genuine records archived")
        publish(broker, site, "t3", [forked, rewritten, edited], raw=[b"not json", b'{"seq": 1}'])
        reports = [archive.wait_line("REJECTED ") for _ in range(5)]
    finally:
        status, _, stderr = archive.stop()
    assert status == 0, stderr
    assert archived(database, site, "t3") == records  # nothing forged is stored as good
    kept_apart = rejects(database, site)
    assert [(table, seq) for table, seq, _ in kept_apart] == [("t3", next_seq), ("t3", 6), ("t3", next_seq),
                                                              ("t3", None), ("t3", 1)]
    assert "does not chain" in kept_apart[0][2]
    assert "differs from the archived record 6" in kept_apart[1][2]
    assert "hash does not match" in kept_apart[2][2]
    assert reports[0].startswith(f"REJECTED {site}/t3 record {next_seq}: does not chain")
    assert reports[1].startswith(f"REJECTED {site}/t3 record 6: differs")


def test_an_archived_record_edited_in_flight_with_its_hash_kept_is_refused_not_counted_a_duplicate(
        tmp_path: Path, broker: str, database: str, site: str) -> None:
    records = journal_records(make_journal(tmp_path / "t6.journal", seed=6, rounds=8))
    edited = {**records[4], "body": str(records[4]["body"]).replace("}", ',"x":1}', 1)}  # the archived hash kept
    archive = Archive(broker, database)
    try:
        publish(broker, site, "t6", records)
        wait_for(lambda: _archived_count(database, site, "t6", len(records)), "the genuine records archived")
        publish(broker, site, "t6", [edited], raw=[SENTINEL])
        archive.wait_line(f"REJECTED {site}/t6: the message is not JSON")  # handled after the edited record
        reports = [line for line in archive.output if line.startswith("REJECTED ")]
    finally:
        status, rest, stderr = archive.stop()
    assert status == 0, stderr
    assert archived(database, site, "t6") == records
    assert reports == [f"REJECTED {site}/t6 record 5: its hash does not match its contents (edited or forged)",
                       f"REJECTED {site}/t6: the message is not JSON"]
    assert [(table, seq) for table, seq, _ in rejects(database, site)] == [("t6", 5), ("t6", None)]
    assert f"{len(records)} records stored, 0 duplicates, 0 waiting for their predecessor, 2 rejected" in rest


def _archive_journal(tmp_path: Path, broker: str, database: str, site: str) -> tuple[Path, list[dict[str, object]]]:
    path = make_journal(tmp_path / "t4.journal", seed=3, rounds=12)
    records = journal_records(path)
    archive = Archive(broker, database)
    try:
        publish(broker, site, "t4", records)
        wait_for(lambda: _archived_count(database, site, "t4", len(records)), "the journal archived")
    finally:
        archive.stop()
    return path, records


def _rewrite_from(path: Path, seq: int, body: str) -> None:
    """Replace record ``seq``'s body and recompute every hash from it on: a chain no local check can fault."""
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE records SET body = ? WHERE seq = ?", (body, seq))
        rows = connection.execute("SELECT seq, kind, at, body, prev FROM records WHERE seq >= ? ORDER BY seq",
                                  (seq,)).fetchall()
        prev = connection.execute("SELECT hash FROM records WHERE seq = ?", (seq - 1,)).fetchone()
        previous = prev[0] if prev else "0" * 64
        for number, kind, at, text, _ in rows:
            digest = record_hash(number, kind, at, previous, text)
            connection.execute("UPDATE records SET prev = ?, hash = ? WHERE seq = ?", (previous, digest, number))
            previous = digest


@pytest.mark.slow
def test_audit_verify_archive_agrees_with_an_untouched_journal(
        tmp_path: Path, broker: str, database: str, site: str) -> None:
    path, records = _archive_journal(tmp_path, broker, database, site)
    run = croupier("audit", "verify", str(path), "--archive", database)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"matches the archive of table {site}/t4: records 1-{len(records)} are the same" in run.stdout
    named = croupier("audit", "verify", str(path), "--archive", database, "--site", site, "--table", "t4")
    assert named.returncode == 0, named.stdout + named.stderr


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["edited", "rewritten", "rewritten_from_1", "cut"])
def test_audit_verify_archive_finds_an_edited_cut_or_rewritten_journal(
        tmp_path: Path, broker: str, database: str, site: str, damage: str) -> None:
    path, records = _archive_journal(tmp_path, broker, database, site)
    target = 9
    body = json.dumps({"events": []}, separators=(",", ":"))
    if damage == "edited":
        with sqlite3.connect(path) as connection:
            connection.execute("UPDATE records SET body = ? WHERE seq = ?", (body, target))
    elif damage == "rewritten":
        _rewrite_from(path, target, str(records[target - 1]["body"]).replace('"card"', '"card" ', 1))
    elif damage == "rewritten_from_1":
        _rewrite_from(path, 1, str(records[0]["body"]).replace("{", "{ ", 1))
    else:
        with sqlite3.connect(path) as connection:
            connection.execute("DELETE FROM records WHERE seq > ?", (len(records) - 6,))
            connection.execute("UPDATE delivered SET seq = (SELECT MAX(seq) FROM records)")
    if damage in ("rewritten", "rewritten_from_1", "cut"):  # the local chain alone finds nothing wrong
        alone = croupier("audit", "verify", str(path))
        assert alone.returncode == 0, alone.stdout + alone.stderr
    named = ["--site", site, "--table", "t4"] if damage == "rewritten_from_1" else []  # else found by record 1
    run = croupier("audit", "verify", str(path), "--archive", database, *named)
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.startswith("TAMPERED: "), run.stdout
    expected = {
        "edited": f"record {target}",
        "rewritten": f"record {target} differs from the archived copy of table {site}/t4",
        "rewritten_from_1": f"record 1 differs from the archived copy of table {site}/t4",
        "cut": f"records {len(records) - 5}-{len(records)} of table {site}/t4 are archived but missing",
    }[damage]
    assert expected in run.stdout, run.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["archive", "--broker", "http://127.0.0.1:1883", "--db", "postgresql://127.0.0.1/x"],
     "--broker 'http://127.0.0.1:1883': scheme 'http://' is not mqtt:// or mqtts://; expected mqtt://"),
    (["archive", "--broker", "mqtt://127.0.0.1:1883/site/table", "--db", "postgresql://127.0.0.1/x"],
     "takes no path or query"),
    (["archive", "--broker", "mqtt://127.0.0.1:99999", "--db", "postgresql://127.0.0.1/x"],
     "the port is not a number from 1 to 65535"),
    (["archive", "--broker", "mqtt://127.0.0.1:1883", "--db", "mysql://127.0.0.1/x"],
     "--db 'mysql://127.0.0.1/x': unknown scheme mysql://; expected postgresql://"),
    (["archive", "--broker", "mqtt://u:secret@127.0.0.1:1883", "--db", "sqlite:///tmp/x"], "unknown scheme"),
    (["audit", "verify", "x.journal", "--archive", "archive.db"], "--archive 'archive.db': unknown scheme (none)"),
    (["archive", "--broker", "mqtt://127.0.0.1:1883", "--db", "postgresql://127.0.0.1/x", "--group", "a/b"],
     "--group 'a/b': a shared-subscription group is one topic level without '/', '+', '#'"),
    # paho could not encode them: a traceback once the database was ready; an empty id was replaced without a word
    (["archive", "--broker", "mqtt://127.0.0.1:1883", "--db", "postgresql://127.0.0.1/x", "--group", "pit\udcff"],
     "--group 'pit\\xff': a shared-subscription group is one topic level of UTF-8 text; give another name"),
    (["archive", "--broker", "mqtt://127.0.0.1:1883", "--db", "postgresql://127.0.0.1/x", "--client-id",
      "archive\udcff"],
     "--client-id 'archive\\xff': expected an MQTT client id of 1-65535 bytes of UTF-8 text without control "
     "characters, e.g. archive-2 (one per archive process; left out: croupier-archive-HOSTNAME)"),
    (["archive", "--broker", "mqtt://127.0.0.1:1883", "--db", "postgresql://127.0.0.1/x", "--client-id", ""],
     "--client-id '': expected an MQTT client id of 1-65535 bytes"),
])
def test_bad_urls_exit_2_with_one_clear_line(args: list[str], message: str) -> None:
    run = croupier(*args)
    assert run.returncode == 2, run.stdout + run.stderr
    assert message in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr
    assert "secret" not in run.stderr


@pytest.mark.slow
def test_an_unreachable_database_or_broker_exits_2_with_one_clear_line(
        tmp_path: Path, broker: str, database: str) -> None:
    from tests.controller.floor.services import free_port

    nowhere = f"postgresql://postgres@127.0.0.1:{free_port()}/floor"
    runs = [
        croupier("archive", "--broker", f"mqtt://{broker}", "--db", nowhere),
        croupier("audit", "verify", str(make_journal(tmp_path / "t.journal", 1, 1)), "--archive", nowhere),
    ]
    for run in runs:
        assert run.returncode == 2, run.stdout + run.stderr
        assert f"'{nowhere}': cannot connect to the database" in run.stderr
        assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr
    no_broker = croupier("archive", "--broker", f"mqtt://127.0.0.1:{free_port()}", "--db", database)
    assert no_broker.returncode == 2, no_broker.stdout + no_broker.stderr
    assert "cannot connect to the broker" in no_broker.stderr
    assert len(no_broker.stderr.strip().splitlines()) == 1 and "Traceback" not in no_broker.stderr


def test_an_unusable_ca_file_exits_2_naming_the_option(tmp_path: Path, database: str) -> None:
    bad = tmp_path / "ca.pem"
    bad.write_text("not a certificate\n", encoding="utf-8")
    run = croupier("archive", "--broker", "mqtts://127.0.0.1:8883", "--db", database, "--ca-file", str(bad))
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"--ca-file '{bad}': not a usable PEM CA file" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr


@pytest.mark.slow
def test_archives_split_the_floor_by_site_each_storing_only_its_own(
        tmp_path: Path, broker: str, database: str, site: str) -> None:
    other = site + "-b"
    records = {name: journal_records(make_journal(tmp_path / f"{name}.journal", seed=seed, rounds=8))
               for name, seed in (("t1", 71), ("t2", 72))}
    first = Archive(broker, database, "--site", site, group="")
    second = Archive(broker, database, "--site", other, group="")
    try:
        assert first.output[-1] == f"archiving croupier/{site}/+/journal from mqtt://{broker}"
        publish(broker, site, "t1", records["t1"])
        publish(broker, other, "t2", records["t2"])
        wait_for(lambda: _archived_count(database, site, "t1", len(records["t1"])), "site one's table")
        wait_for(lambda: _archived_count(database, other, "t2", len(records["t2"])), "site two's table")
    finally:
        outcomes = [first.stop(), second.stop()]
    stored = []
    for status, rest, stderr in outcomes:
        assert status == 0, stderr
        found = re.search(r"stopped: (\d+) records stored, (\d+) duplicates", rest)
        assert found is not None, rest
        stored.append((int(found.group(1)), int(found.group(2))))
    assert stored == [(len(records["t1"]), 0), (len(records["t2"]), 0)], "each its own site, nothing twice"
    assert archived(database, site, "t1") == records["t1"] and archived(database, other, "t2") == records["t2"]

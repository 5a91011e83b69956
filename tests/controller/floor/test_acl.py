"""``croupier floor acl`` and the floor's security against a real Mosquitto (and a real PostgreSQL for the archive).

The broker runs with exactly the files ``croupier floor acl`` wrote (its ``mosquitto-floor.conf``:
``allow_anonymous false``, ``password_file``, ``acl_file``). Each test checks what a receiver with the
archive's (or the pit's) credentials gets, so a refused message is one that never reached anyone.
"""

from __future__ import annotations

import json
import sqlite3
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.journal.store import record_hash
from tests.controller.floor.authkit import Client, credentials, floor_acl, secured_broker
from tests.controller.floor.floorkit import Archive, archived, journal_records, rejects, wait_for
from tests.controller.floor.mosquitto import Mosquitto, free_port
from tests.controller.floor.tlskit import throwaway_ca
from tests.inprocess import croupier_process, environment

REFUSED = "Not authorized"


@pytest.fixture
def floor(tmp_path: Path, site: str) -> Iterator[tuple[Mosquitto, dict[str, str]]]:
    """A started Mosquitto secured for the tables SITE/A and SITE/B; and every account's password."""
    broker, passwords = secured_broker(tmp_path, f"{site}/A", f"{site}/B")
    broker.start()
    try:
        yield broker, passwords
    finally:
        broker.stop()


def _sign_in(broker: Mosquitto, passwords: dict[str, str], user: str, will: tuple[str, str] | None = None) -> Client:
    return Client(broker.address, user, passwords[user], will=will)


def test_the_files_are_written_private_and_a_second_run_keeps_the_passwords(tmp_path: Path) -> None:
    tables = tmp_path / "tables.txt"
    tables.write_text("# the floor\ncasino/t1\n\ncasino/t2=pit-two   # its own user\n")
    out = tmp_path / "floor"
    first = floor_acl("--out", str(out), "--tables", str(tables), "--floor", "pit")
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("wrote 4 accounts (2 tables): ")
    for name in ("passwd", "acl", "mosquitto-floor.conf", "credentials"):
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o600, name
    passwords = credentials(out / "credentials")
    assert sorted(passwords) == ["archive", "casino-t1", "pit", "pit-two"]
    assert all(len(password) >= 32 for password in passwords.values())
    acl = (out / "acl").read_text()
    for user, place in (("casino-t1", "casino/t1"), ("pit-two", "casino/t2")):
        assert f"user {user}\n" + "".join(f"topic write croupier/{place}/{name}\n" for name in
                                          ("journal", "events", "state", "status")) + \
            f"topic read croupier/{place}/archived\n" in acl
    assert ("user archive\ntopic read croupier/+/+/journal\ntopic read croupier/+/+/state\n"
            "topic write croupier/+/+/archived\ntopic write croupier-archive/archive/health\n") in acl
    assert "user pit\ntopic read croupier/+/+/#\ntopic read croupier-archive/+/health\n" in acl
    config = (out / "mosquitto-floor.conf").read_text()
    assert "\n#   use_username_as_clientid true\n" in config and "\nmessage_size_limit 1048576\n" in config
    assert [line.split(":", 1)[0] for line in (out / "passwd").read_text().splitlines()] == list(passwords)
    again = floor_acl("--out", str(out), "--tables", str(tables), "--floor", "pit", "--table", "casino/t3")
    assert again.returncode == 0, again.stderr
    kept = credentials(out / "credentials")
    assert {user: kept[user] for user in passwords} == passwords  # adding a table changes no one's password
    assert "casino-t3" in kept and kept["casino-t3"] not in passwords.values()


def test_nothing_is_granted_to_anonymous_clients(tmp_path: Path) -> None:
    out = tmp_path / "floor"
    assert floor_acl("--out", str(out), "--table", "s/t").returncode == 0
    before_first_user = (out / "acl").read_text().split("\nuser ", 1)[0]
    assert [line for line in before_first_user.splitlines() if line and not line.startswith("#")] == []


def test_anonymous_clients_and_wrong_passwords_are_refused(floor: tuple[Mosquitto, dict[str, str]],
                                                           site: str) -> None:
    broker, passwords = floor
    for user, password in ((None, None), ("archive", "not-the-password"), ("nobody", passwords["archive"])):
        client = Client(broker.address, user, password)
        try:
            assert client.connect_reason == REFUSED, (user, client.connect_reason)
        finally:
            client.close()


def test_a_table_cannot_publish_or_leave_its_will_as_another_table(floor: tuple[Mosquitto, dict[str, str]],
                                                                   site: str) -> None:
    broker, passwords = floor
    archive = _sign_in(broker, passwords, "floor")  # the pit reads every topic of every table
    table_a = _sign_in(broker, passwords, f"{site}-A")
    try:
        assert archive.subscribe("croupier/+/+/#").startswith("Granted QoS")
        for topic in ("journal", "events", "state", "status", "archived"):
            assert table_a.publish(f"croupier/{site}/B/{topic}", b"forged by A", retain=True) == REFUSED
        assert table_a.publish(f"croupier/{site}/A/archived", b"forged by A", retain=True) == REFUSED, \
            "the archive's word on A is the archive's alone"
        for topic in (f"elsewhere/{site}/B", f"croupier/{site}", "croupier/other-site/A/journal"):
            assert table_a.publish(topic, b"forged by A") == REFUSED
        assert table_a.publish(f"croupier/{site}/A/journal", b"A's own") == "Success"
        archive.wait_message(f"croupier/{site}/A/journal", b"A's own")  # handled after everything before it
        table_a.close()
        _leave_will(broker, passwords, site, f"croupier/{site}/B/status")  # a Last Will is no way round it
        _leave_will(broker, passwords, site, f"croupier/{site}/A/status")
        archive.wait_message(f"croupier/{site}/A/status", b"offline")
        assert [message for message in archive.received() if b"forged" in message[1] or "/B/" in message[0]] == []
    finally:
        archive.close()
        table_a.close()


def _leave_will(broker: Mosquitto, passwords: dict[str, str], site: str, topic: str) -> None:
    lost = _sign_in(broker, passwords, f"{site}-A", will=(topic, "offline"))
    assert lost.connect_reason == "Success"
    lost.disconnect_with_will()


def test_a_table_reads_only_the_archives_word_on_itself(floor: tuple[Mosquitto, dict[str, str]], site: str) -> None:
    broker, passwords = floor
    archive = _sign_in(broker, passwords, "archive")
    table_a, table_b = _sign_in(broker, passwords, f"{site}-A"), _sign_in(broker, passwords, f"{site}-B")
    try:
        archive.subscribe("croupier/+/+/#")
        for topic in ("#", "croupier/#", f"croupier/{site}/B/#", f"croupier/{site}/A/#"):
            table_a.subscribe(topic)  # Mosquitto grants it; what matters is what is delivered
        assert archive.publish(f"croupier/{site}/B/archived", b"B's head") == "Success"
        assert archive.publish(f"croupier/{site}/A/archived", b"A's head") == "Success"
        table_a.wait_message(f"croupier/{site}/A/archived", b"A's head")
        assert table_b.publish(f"croupier/{site}/B/journal", b"B's record") == "Success"
        assert table_a.publish(f"croupier/{site}/A/journal", b"A's record") == "Success"
        archive.wait_message(f"croupier/{site}/A/journal", b"A's record")
        archive.wait_message(f"croupier/{site}/B/journal", b"B's record")
        table_b.close()  # its Last Will / offline status is not for A either
        sentinel = _sign_in(broker, passwords, f"{site}-B")
        assert sentinel.publish(f"croupier/{site}/B/state", b"last") == "Success"
        archive.wait_message(f"croupier/{site}/B/state", b"last")
        sentinel.close()
        assert table_a.publish(f"croupier/{site}/A/state", b"ping") == "Success"  # after anything queued for A
        assert set(table_a.received()) == {(f"croupier/{site}/A/archived", b"A's head")}  # once a subscription
    finally:
        for client in (archive, table_a, table_b):
            client.close()


@pytest.mark.parametrize("user", ["archive", "floor"])
def test_the_archive_publishes_only_the_tables_archived_heads_and_the_pit_nothing(
        floor: tuple[Mosquitto, dict[str, str]], site: str, user: str) -> None:
    broker, passwords = floor
    reader = _sign_in(broker, passwords, "floor" if user == "archive" else "archive")
    writer = _sign_in(broker, passwords, user)
    table_a = _sign_in(broker, passwords, f"{site}-A")
    try:
        reader.subscribe("croupier/+/+/#")
        for topic in ("journal", "events", "state", "status"):
            assert writer.publish(f"croupier/{site}/A/{topic}", b"forged by a reader", retain=True) == REFUSED
        # the archive tells a table its archived head and publishes its own health: nothing else
        allowed = {"Success", "No matching subscribers"} if user == "archive" else {REFUSED}
        assert writer.publish(f"croupier/{site}/A/archived", b'{"seq": 0}') in allowed
        assert writer.publish(f"croupier-archive/{user}/health", b"{}") in allowed
        assert writer.publish("croupier-archive/someone-else/health", b"{}") == REFUSED
        assert table_a.publish(f"croupier/{site}/A/state", b"A's own") == "Success"
        reader.wait_message(f"croupier/{site}/A/state", b"A's own")
        assert [message for message in reader.received() if b"forged" in message[1]] == []
    finally:
        for client in (reader, writer, table_a):
            client.close()


def _simulate(feed: str, journal: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    return croupier_process("simulate", "--seed", "29", "--rounds", "8", "--json", "--journal", str(journal), "--feed",
                            feed, timeout=240, env=environment(None, "", **variables))


def _forged_after(records: list[dict[str, object]]) -> dict[str, object]:
    """A well-formed record after the last one that names no predecessor (its own hash recomputed)."""
    forged = {**records[-1], "seq": int(str(records[-1]["seq"])) + 1, "prev": "e" * 64}
    forged["hash"] = record_hash(int(str(forged["seq"])), str(forged["kind"]), str(forged["at"]), "e" * 64,
                                 str(forged["body"]))
    return forged


@pytest.mark.slow
def test_the_archive_signed_in_stores_a_signed_in_table_and_refuses_its_forged_record(
        floor: tuple[Mosquitto, dict[str, str]], site: str, tmp_path: Path, database: str) -> None:
    broker, passwords = floor
    archive = Archive(f"archive:{passwords['archive']}@{broker.address}", database)
    try:
        journal = tmp_path / "a.journal"
        done = _simulate(f"mqtt://{site}-A:{passwords[f'{site}-A']}@{broker.address}/{site}/A", journal)
        assert done.returncode == 0, done.stderr
        assert "without an account" not in done.stderr, "signed in: the archive's word is the archive's"
        records = journal_records(journal)
        wait_for(lambda: len(archived(database, site, "A")) >= len(records), "table A's journal archived")
        table_a = _sign_in(broker, passwords, f"{site}-A")  # a table's credentials can still forge its own
        try:
            assert table_a.publish(f"croupier/{site}/A/journal", json.dumps(_forged_after(records)).encode()) \
                == "Success"
        finally:
            table_a.close()
        report = archive.wait_line("REJECTED ")
    finally:
        status, _, stderr = archive.stop()
    assert status == 0, stderr
    assert archived(database, site, "A") == records
    assert report.startswith(f"REJECTED {site}/A record {len(records) + 1}: does not chain")
    assert [(table, seq) for table, seq, _ in rejects(database, site)] == [("A", len(records) + 1)]
    assert passwords["archive"] not in stderr + "\n".join(archive.output)


@pytest.mark.slow
def test_over_tls_the_table_and_the_archive_sign_in_and_a_wrong_password_or_ca_exits_2(
        tmp_path: Path, site: str, database: str) -> None:
    ca, cert, key = throwaway_ca(tmp_path)
    tls_port = free_port()
    broker, passwords = secured_broker(tmp_path, f"{site}/A", extra=f"listener {tls_port} 127.0.0.1\n"
                                       f"cafile {ca}\ncertfile {cert}\nkeyfile {key}\n")
    broker.start()
    try:
        tls = f"127.0.0.1:{tls_port}"
        archive = Archive(f"archive:{passwords['archive']}@{tls}", database, "--ca-file", str(ca), scheme="mqtts")
        try:
            journal = tmp_path / "a.journal"
            done = _simulate(f"mqtts://{site}-A:{passwords[f'{site}-A']}@{tls}/{site}/A", journal,
                             CROUPIER_FEED_CA_FILE=str(ca))
            assert done.returncode == 0, done.stderr
            records = journal_records(journal)
            wait_for(lambda: archived(database, site, "A") == records, "table A's journal archived over TLS")
        finally:
            status, _, stderr = archive.stop()
        assert status == 0, stderr
        (tmp_path / "other").mkdir()
        other, _, _ = throwaway_ca(tmp_path / "other")
        for url, ca_file, said in ((f"mqtts://archive:wrong@{tls}", ca, "the broker refused the connection"),
                                   (f"mqtts://archive:{passwords['archive']}@{tls}", other,
                                    "cannot connect to the broker")):
            run = croupier_process("archive", "--broker", url, "--db", database, "--ca-file", str(ca_file),
                                   timeout=240)
            assert run.returncode == 2, run.stdout + run.stderr
            assert said in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
            assert passwords["archive"] not in run.stderr and "wrong" not in run.stderr
    finally:
        broker.stop()


@pytest.mark.parametrize(("args", "said"), [
    (["--table", "casino/t+1"], "--table 'casino/t+1': TABLE 't+1' is not 1-64 letters, digits"),
    (["--table", "casino/#"], "TABLE '#' is not 1-64 letters"),
    (["--table", "casino/t1/x"], "--table 'casino/t1/x': 'casino/t1/x' is not SITE/TABLE"),
    (["--table", "casino"], "'casino' is not SITE/TABLE"),
    (["--table", "ca sino/t1"], "SITE 'ca sino' is not 1-64 letters"),
    (["--table", "casino/t1=us:er"], "USER 'us:er' is not 1-129 letters"),
    (["--table", "casino/t1="], "--table 'casino/t1=': USER '' is not 1-129 letters"),  # not the default user
    (["--table", "casino/t1", "--archive", "bad/user"], "--archive: USER 'bad/user' is not"),
    (["--tables", "MISSING"], "--tables 'MISSING': no such file; give a file with one SITE/TABLE a line"),
    (["--table", "casino/t1", "--table", "casino/t1"], "table casino/t1 is listed twice"),
    (["--table", "a-b/c", "--table", "a/b-c"], "table a-b/c and table a/b-c would both be broker user 'a-b-c'"),
    (["--table", "s/t=archive"], "table s/t and the archive user would both be broker user 'archive'"),
    ([], "no tables: give them with --table SITE/TABLE or --tables FILE"),
])
def test_bad_input_exits_2_with_one_clear_line(tmp_path: Path, args: list[str], said: str) -> None:
    args = [str(tmp_path / "missing.txt") if arg == "MISSING" else arg for arg in args]
    said = said.replace("'MISSING'", repr(str(tmp_path / "missing.txt")))
    run = floor_acl("--out", str(tmp_path / "floor"), *args)
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.startswith("croupier floor acl: ") and said in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr
    assert not (tmp_path / "floor").exists()  # nothing half written


def test_a_bad_line_in_the_tables_file_is_named(tmp_path: Path) -> None:
    tables = tmp_path / "tables.txt"
    tables.write_text("casino/t1\ncasino/t 2\n")
    run = floor_acl("--out", str(tmp_path / "floor"), "--tables", str(tables))
    assert run.returncode == 2
    assert f"--tables {str(tables)!r} line 2: TABLE 't 2' is not 1-64 letters" in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def _acked_mark(journal: Path) -> int:
    with sqlite3.connect(journal) as connection:
        row = connection.execute("SELECT seq FROM feed_acked WHERE id = 1").fetchone()
    return int(row[0]) if row else 0


@pytest.mark.slow
def test_a_table_refused_by_the_acl_keeps_its_records_for_the_next_start(
        floor: tuple[Mosquitto, dict[str, str]], site: str, tmp_path: Path) -> None:
    broker, passwords = floor
    archive = _sign_in(broker, passwords, "archive")
    try:
        archive.subscribe("croupier/+/+/#")
        journal = tmp_path / "b.journal"
        as_a = f"mqtt://{site}-A:{passwords[f'{site}-A']}@{broker.address}/{site}/B"  # A's user at B's place
        refused = _simulate(as_a, journal, CROUPIER_FEED_DRAIN_TIMEOUT="1")
        assert refused.returncode == 0, refused.stderr  # the table deals on
        assert f"refused the table's messages on croupier/{site}/B/ (Not authorized)" in refused.stderr
        assert "records from 1 on were not acknowledged" in refused.stderr
        assert _acked_mark(journal) == 0  # a refused record is not a delivered one
        records = journal_records(journal)
        as_b = f"mqtt://{site}-B:{passwords[f'{site}-B']}@{broker.address}/{site}/B"
        again = _simulate(as_b, journal)  # the right credentials: the next start sends what was refused
        assert again.returncode == 0, again.stderr
        wait_for(lambda: len({json.loads(payload)["seq"] for topic, payload in archive.received()
                              if topic == f"croupier/{site}/B/journal"}) >= len(records), "B's records")
        got = {json.loads(payload)["seq"]: json.loads(payload) for topic, payload in archive.received()
               if topic == f"croupier/{site}/B/journal"}
        assert [got[seq] for seq in sorted(got)][:len(records)] == records
    finally:
        archive.close()


@pytest.mark.slow
def test_a_tables_account_can_neither_wipe_the_archives_session_nor_disconnect_another_table(
        floor: tuple[Mosquitto, dict[str, str]], site: str) -> None:
    broker, passwords = floor
    archive_id = "croupier-archive-floor"  # predictable: the archive's default is croupier-archive-HOSTNAME
    archive = Client(broker.address, "archive", passwords["archive"], client_id=archive_id, clean_start=False,
                     session_expiry=3600)
    assert archive.subscribe(f"croupier/{site}/+/journal").startswith("Granted QoS")
    archive.close()  # away: its persistent session queues what the tables publish
    table_a = _sign_in(broker, passwords, f"{site}-A")
    table_b = Client(broker.address, f"{site}-B", passwords[f"{site}-B"], client_id="croupier-table-B")
    try:
        assert table_a.publish(f"croupier/{site}/A/journal", b"queued for the archive") == "Success"
        thief = Client(broker.address, f"{site}-A", passwords[f"{site}-A"], client_id=archive_id, clean_start=True)
        assert thief.connect_reason == "Success"
        thief.close()
        intruder = Client(broker.address, f"{site}-A", passwords[f"{site}-A"], client_id="croupier-table-B")
        assert intruder.connect_reason == "Success"
        assert not table_b.disconnected.wait(2.0), "another account's connection with B's id took B's place"
        assert table_b.publish(f"croupier/{site}/B/journal", b"B still here") == "Success"
        intruder.close()
    finally:
        table_a.close()
        table_b.close()
    back = Client(broker.address, "archive", passwords["archive"], client_id=archive_id, clean_start=False,
                  session_expiry=3600)
    try:
        assert back.session_present, "the archive's session was wiped by a table's account"
        back.wait_message(f"croupier/{site}/A/journal", b"queued for the archive")
    finally:
        back.close()


def test_a_tables_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """A BOM before the first line made its site '\\ufeffcasino', refused as no name."""
    tables = tmp_path / "tables.txt"
    tables.write_bytes(b"\xef\xbb\xbfcasino/t1\n")
    run = floor_acl("--out", str(tmp_path / "floor"), "--tables", str(tables))
    assert run.returncode == 0, run.stderr
    assert "topic write croupier/casino/t1/journal" in (tmp_path / "floor" / "acl").read_text(encoding="utf-8")

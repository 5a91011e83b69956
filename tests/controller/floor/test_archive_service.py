"""``croupier archive`` as a service (issue 27 item 4): it keeps running through every fault and bad message.

Real parts: Mosquitto, PostgreSQL (one of the test's own where the test stops it), ``croupier simulate``
tables and ``croupier archive`` processes; every table's journal compared with the archive record by record.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from controller.floor.messages import TableState
from controller.journal.store import record_hash
from tests.controller.floor.floorkit import (
    DEADLINE,
    Archive,
    Table,
    assert_archived_exactly,
    holds_every_record,
    journal_records,
    make_journal,
    publish,
    publish_on,
    rejects,
    wait_for,
)
from tests.controller.floor.mosquitto import Subscriber
from tests.controller.floor.services import Mosquitto, Postgres

CLEAN_STOP = 130
STALL_SAID = 90.0
"""The archive says a stalled broker after 30 s."""


def _forged(record: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """``record`` with ``fields`` changed and its hash recomputed: well-formed, whatever its text holds."""
    changed = {**record, **fields}
    changed["hash"] = record_hash(int(changed["seq"]), changed["kind"], changed["at"], changed["prev"],
                                  changed["body"])
    return changed


def _json(record: dict[str, Any]) -> bytes:
    return json.dumps(record).encode()


def _poison(records: list[dict[str, Any]]) -> dict[str, bytes]:
    """Each bad message, by what it is: none of them may stop the archive or hold the others back."""
    first = records[0]
    return {
        "a NUL byte": _json(first).replace(b'"kind"', b'"ki\x00nd"'),
        "NUL in a well-hashed body": _json(_forged(first, body=first["body"][:-1] + ',"x":"\u0000"}')),
        "a lone surrogate": _json(first).replace(b'"header"', b'"\\ud800"'),
        "a lone surrogate in a well-hashed body": _json(first).replace(b'"body": "{', b'"body": "{\\udfff'),
        "seq 2^63": _json(_forged(first, seq=2 ** 63)),
        "seq 2^64": _json({**first, "seq": 2 ** 64}),
        "2 MB": _json(_forged(first, body='{"pad":"' + "x" * 2_000_000 + '"}')),
        "invalid UTF-8": b"\xff\xfe\xfd",
        "wrong types": _json({**first, "hash": 5}),
        "seq as text": _json({**first, "seq": "1"}),
        "deep JSON": b"[" * 100_000 + b"]" * 100_000,
    }


@pytest.mark.slow
def test_each_bad_message_is_refused_alone_and_the_other_tables_are_stored(
        tmp_path: Path, broker: str, database: str, site: str) -> None:
    good = {name: journal_records(make_journal(tmp_path / f"{name}.journal", seed=seed, rounds=6))
            for name, seed in (("t1", 41), ("t2", 42))}
    poison = _poison(good["t1"])
    archive = Archive(broker, database, group="")
    try:
        half = {name: len(records) // 2 for name, records in good.items()}
        for name, records in good.items():  # in the same batches as the bad messages
            publish(broker, site, name, records[:half[name]])
        publish(broker, site, "bad", [], raw=list(poison.values()))
        publish(broker, "bad site", "t", [], raw=[_json(good["t1"][0])])  # not a floor name
        for name, records in good.items():
            publish(broker, site, name, records[half[name]:])
        for name, records in good.items():
            wait_for(lambda r=records, n=name: holds_every_record(database, site, n, r), f"{name} archived")
        wait_for(lambda: len(rejects(database, site)) >= len(poison), "every bad message kept apart")
        assert archive.process.poll() is None, "the archive keeps running"
    finally:
        status, _, stderr = archive.stop()
    assert status == 0, stderr
    assert "Traceback" not in stderr, stderr
    for name, records in good.items():
        assert_archived_exactly(database, site, name, records)
    reasons = [reason for table, _, reason in rejects(database, site) if table == "bad"]
    assert len(reasons) == len(poison), reasons
    for fragment in ("not JSON", "contains a NUL character", "contains a lone surrogate", "seq is a record number",
                     "more than the archive takes", "kind, at, body, prev and hash are text"):
        assert any(fragment in reason for reason in reasons), (fragment, reasons)
    with psycopg.connect(database) as connection:
        kept = connection.execute("SELECT length(payload) FROM journal_rejects WHERE table_id = 'bad'").fetchall()
        foreign = connection.execute("SELECT site, reason FROM journal_rejects WHERE reason LIKE 'topic %'").fetchall()
    assert max(length for (length,) in kept) < 10_000, "a refused message's text is kept short"
    assert foreign == [(None, "topic 'croupier/bad site/t/journal': SITE and TABLE are 1-64 letters, digits, '-', "
                              "'_' or '.'")]


@pytest.mark.slow
def test_a_well_hashed_record_1_whose_body_is_nested_too_deep_stops_nothing(
        tmp_path: Path, broker: str, database: str, site: str) -> None:
    """Reading the mode of a table's record 1 raised RecursionError on a body nested too deep: the archive stopped,
    and the broker gave the same unacknowledged record to the next start, which stopped again."""
    records = journal_records(make_journal(tmp_path / "t1.journal", seed=43, rounds=4))
    deep = _forged(records[0], body="[" * 100_000 + "]" * 100_000)
    archive = Archive(broker, database, group="")
    try:
        publish(broker, site, "deep", [deep])
        publish(broker, site, "t1", records)
        wait_for(lambda: holds_every_record(database, site, "t1", records), "t1 archived")
        wait_for(lambda: holds_every_record(database, site, "deep", [deep]), "the deep record 1 archived")
        assert archive.process.poll() is None, "the archive keeps running"
    finally:
        status, _, stderr = archive.stop()
    assert status == 0 and "Traceback" not in stderr, stderr
    assert_archived_exactly(database, site, "t1", records)
    with psycopg.connect(database) as connection:
        modes = connection.execute("SELECT mode FROM journal_records WHERE table_id = 'deep'").fetchall()
    assert modes == [("live",)], "a record 1 that names no mode is live play, as a journal before modes"


def _state(site: str, table: str, seq: int, hash_: str) -> bytes:
    """The retained ``state`` a table publishes (the producer's own message), its journal head ``seq``, ``hash_``."""
    return TableState(site, table, head_seq=seq, head_hash=hash_).message()


def _lines_until(archive: Archive, done: Any, what: str) -> list[str]:
    """Collect the archive's output lines until ``done(lines)`` holds; fail naming ``what`` after the deadline."""
    deadline = time.monotonic() + DEADLINE
    while not done(archive.output):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}: {archive.output}")
        with contextlib.suppress(queue.Empty):
            archive.output.append(archive.lines.get(timeout=0.2))
    return archive.output


@pytest.mark.slow
def test_a_malformed_state_is_refused_alone_reported_and_counted_and_makes_no_table(
        own_broker: Mosquitto, database: str, site: str) -> None:
    broker = own_broker.address
    bad = [  # (table, retained state, why it is refused)
        ("q1", b"this is not json", "the state is not JSON"),
        ("q1", b'{"head": "nope"}', "the state names None/None, not the topic's"),
        ("q1", b"[[[[[[[[", "the state is not JSON"),
        ("q1", b"[" * 100_000 + b"]" * 100_000, "the state is not JSON"),
        ("q1", b"[1]", "the state is not a JSON object"),
        ("q1", json.dumps({"site": site, "table": "q1", "head": "nope"}).encode(), "its head is"),
        ("q1", _state(site, "other", 3, "ab" * 32), f"the state names '{site}'/'other', not the topic's {site}/q1"),
        ("ghost", _state(site, "ghost", 2 ** 70, "abc"), "its head's seq is a record number from 0 to"),
        ("ghost2", _state(site, "ghost2", 5, "abc"), "its head's hash is a SHA-256 hash"),
        ("ghost3", b" " * (300 * 1024), "more than the archive takes"),
    ]
    archive = Archive(broker, database, group="")
    archived = Subscriber(broker, f"croupier/{site}/+/archived")
    health = Subscriber(broker, f"croupier-archive/{archive.client_id}/health")
    try:
        for table, payload, _ in bad:
            publish_on(broker, f"croupier/{site}/{table}/state", [payload], retain=True)
        # a good state, after the bad ones: the archive asks for this table's records (it holds none)
        publish_on(broker, f"croupier/{site}/asked/state", [_state(site, "asked", 3, "ab" * 32)], retain=True)
        publish(broker, site, "q1", [], raw=[b"this is not json"])
        lines = _lines_until(archive, lambda out: sum(line.startswith("REJECTED ") for line in out) >= len(bad) + 1,
                             "every bad state and the bad journal message reported")
        wait_for(lambda: any(json.loads(said) == {"seq": 0, "hash": None, "wants": 1}
                             for said in archived.on("archived")), "the good state's table asked for its records")
        wait_for(lambda: any(said.get("rejected") == len(bad) + 1 and f"{site}/asked" in said.get("tables", {})
                             for said in health.json_on("health")), "the health counting every refusal")
        publish_on(broker, f"croupier/{site}/q1/state", [b""], retain=True)  # clearing a retained state: no error
        publish(broker, site, "q1", [], raw=[b"still not json"])
        lines = _lines_until(archive, lambda out: sum(line.startswith("REJECTED ") for line in out) >= len(bad) + 2,
                             "the second bad journal message reported")
        wait_for(lambda: any(said.get("rejected") == len(bad) + 2 for said in health.json_on("health")),
                 "the health counting the second bad journal message")
        assert archive.process.poll() is None, "the archive keeps running"
    finally:
        archived.close()
        health.close()
        status, rest, stderr = archive.stop()
    assert status == 0, stderr
    assert "Traceback" not in stderr, stderr
    reports = [line for line in lines if line.startswith("REJECTED ")]
    assert reports[-2:] == [f"REJECTED {site}/q1: the message is not JSON"] * 2, reports
    states = reports[:-2]
    assert len(states) == len(bad), states
    for table, _, why in bad:
        prefix = f"REJECTED croupier/{site}/{table}/state: "
        assert any(line.startswith(prefix) and why in line for line in states), (prefix, why, states)
    told = {topic.split("/")[2] for topic, _, _ in archived.messages}
    assert "asked" in told and not told & {"ghost", "ghost2", "ghost3"}, f"a table only a bad state named: {told}"
    last = next(said for said in health.json_on("health") if said.get("rejected") == len(bad) + 2)
    mine = {name: table for name, table in last["tables"].items() if name.startswith(f"{site}/")}
    assert set(mine) == {f"{site}/asked", f"{site}/q1"}, mine
    assert mine[f"{site}/q1"]["rejected"] == 2, "a table counts its refused records only"
    stopped = re.search(r"(\d+) rejected", rest)
    assert stopped is not None and int(stopped.group(1)) == len(bad) + 2, rest
    assert rejects(database, site) == [("q1", None, "the message is not JSON")] * 2, "journal_rejects keeps no state"


@pytest.fixture
def own_floor_database() -> Iterator[tuple[Postgres, str]]:
    """A PostgreSQL of this test's own, which it may halt and resume, and the URL of its empty ``floor``
    database."""
    server = Postgres()
    server.start()
    try:
        with psycopg.connect(server.url(), autocommit=True) as admin:
            admin.execute("CREATE DATABASE floor")
        yield server, server.url("floor")
    finally:
        server.stop()


@contextlib.contextmanager
def database_away(server: Postgres, archive: Archive) -> Iterator[None]:
    """PostgreSQL halted for the block, the archive seen saying it lost the database and, after, that it is back."""
    server.halt()
    archive.wait_line("the archive database is unreachable")
    yield
    server.resume()
    archive.wait_line("the archive database is reachable again")


@pytest.mark.slow
def test_the_archive_rides_out_postgresql_stopped_and_started_again(
        tmp_path: Path, own_broker: Mosquitto, site: str, own_floor_database: tuple[Postgres, str]) -> None:
    server, database = own_floor_database
    archive = Archive(own_broker.address, database, group="")
    table = Table(tmp_path / "t.journal", f"mqtt://{own_broker.address}/{site}/t1", seed=43, pace=0.02)
    try:
        wait_for(lambda: holds_every_record(database, site, "t1", table.records()[:40]), "the first records")
        with database_away(server, archive):
            time.sleep(3.0)  # the table deals on; the archive acknowledges nothing meanwhile
            assert archive.process.poll() is None, "the archive waits for the database"
        wait_for(lambda: holds_every_record(database, site, "t1", table.records()), "the records since")
        status, stderr = table.stop()
        assert status == CLEAN_STOP, stderr
        records = table.records()
        wait_for(lambda: holds_every_record(database, site, "t1", records), "the whole journal")
    finally:
        table.stop()
        stopped, _, stderr = archive.stop()
    assert stopped == 0, stderr
    assert stderr == "", "the outage is said once on the archive's output, nothing on stderr"
    assert_archived_exactly(database, site, "t1", records)


@pytest.mark.slow
def test_an_archive_killed_mid_batch_again_and_again_loses_and_duplicates_nothing(
        tmp_path: Path, own_broker: Mosquitto, database: str, site: str) -> None:
    tables = [Table(tmp_path / f"t{n}.journal", f"mqtt://{own_broker.address}/{site}/t{n}", seed=50 + n, pace=0.005)
              for n in range(3)]
    archive = Archive(own_broker.address, database, group="")
    try:
        for _ in range(4):
            time.sleep(1.5)  # batches of the three tables being stored
            archive.stop(signal.SIGKILL)
            archive = Archive(own_broker.address, database, group="", client_id=archive.client_id)
        for table in tables:
            status, stderr = table.stop()
            assert status == CLEAN_STOP, stderr
        for n, table in enumerate(tables):
            records = table.records()
            wait_for(lambda r=records, name=f"t{n}": holds_every_record(database, site, name, r), f"t{n}")
            assert_archived_exactly(database, site, f"t{n}", records)
    finally:
        for table in tables:
            table.stop()
        archive.stop()


@pytest.mark.slow
def test_an_archive_started_while_the_broker_stalls_waits_for_it(
        tmp_path: Path, own_broker: Mosquitto, database: str, site: str) -> None:
    assert own_broker.process is not None
    pid = own_broker.process.pid
    os.kill(pid, signal.SIGSTOP)  # it accepts connections (the kernel does) but answers nothing
    try:
        stalled = Archive(own_broker.address, database, group="", ready=False)
        stalled.wait_line("--broker mqtt://127.0.0.1:", seconds=STALL_SAID)  # no subscription: said, waited for
        assert "no subscription granted within 30 s; waiting for the broker" in stalled.output[-1]
        assert stalled.process.poll() is None, "the archive waits for a stalled broker"
    finally:
        os.kill(pid, signal.SIGCONT)
    stalled.wait_line("archiving ")
    path = make_journal(tmp_path / "t.journal", seed=44, rounds=3)
    records = journal_records(path)
    publish(own_broker.address, site, "t1", records)
    wait_for(lambda: holds_every_record(database, site, "t1", records), "the records")
    status, _, stderr = stalled.stop()
    assert status == 0, stderr


@pytest.mark.slow
def test_while_postgresql_is_away_the_archive_asks_no_table_to_send_again_what_it_holds_waiting(
        tmp_path: Path, own_broker: Mosquitto, site: str, own_floor_database: tuple[Postgres, str]) -> None:
    """The records a table publishes while the database is away wait at the archive and in the broker's queue for
    it: asking the table for them again (every 5 s) would send its whole backlog again each time, growing with the
    outage until the broker's max_queued_messages drops records."""
    server, database = own_floor_database
    archive = Archive(own_broker.address, database, group="")
    table = Table(tmp_path / "t.journal", f"mqtt://{own_broker.address}/{site}/t1", seed=44, pace=0.05)
    watcher = Subscriber(own_broker.address, f"croupier/{site}/t1/#")
    try:
        def first_archived() -> bool:
            records = table.records()
            return len(records) >= 20 and holds_every_record(database, site, "t1", records[:20])

        wait_for(first_archived, "the first records archived")
        with database_away(server, archive):
            seen = len(watcher.on("journal"))
            time.sleep(15.0)  # three times the archive's request interval, the table dealing
            during = [json.loads(payload)["seq"] for payload in watcher.on("journal")[seen:]]
            asked = [told["wants"] for told in watcher.json_on("archived") if told["wants"] is not None]
        status, stderr = table.stop()
        assert status == CLEAN_STOP, stderr
        records = table.records()
        wait_for(lambda: holds_every_record(database, site, "t1", records), "the whole journal")
    finally:
        watcher.close()
        table.stop()
        archive.stop()
    assert during and len(during) == len(set(during)), f"records sent again while the database was away: {asked}"
    assert_archived_exactly(database, site, "t1", records)

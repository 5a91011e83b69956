"""The table's feed against a real Mosquitto: the contract of issue 18 (docs/floor.md), store and forward.

Each test runs ``croupier`` as a process and listens with a QoS 1 subscriber that has a persistent
session, as a pit or an archive would.
"""

from __future__ import annotations

import functools
import json
import signal
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.controller.floor.mosquitto import DEADLINE, Mosquitto, Subscriber, free_port, read_retained, wait_for
from tests.controller.floor.tlskit import throwaway_ca
from tests.inprocess import croupier_process, start_croupier

FEED_FIELDS = ("site", "table", "seq")


croupier = functools.partial(croupier_process, timeout=240)
start = start_croupier


def names() -> tuple[str, str]:
    """A site and table of this test's own (the suite may share one broker)."""
    return "site-" + uuid.uuid4().hex[:8], "table-1"


def stripped(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events messages without the feed's fields, ordered by seq, duplicates removed."""
    unique = {message["seq"]: message for message in messages}
    return [{key: value for key, value in unique[seq].items() if key not in FEED_FIELDS} for seq in sorted(unique)]


def lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def assert_feed_is_the_stream(messages: list[dict[str, Any]], printed: list[dict[str, Any]],
                              site: str, table: str) -> None:
    seqs = sorted({message["seq"] for message in messages})
    assert seqs == list(range(1, len(printed) + 1)), "seq must run 1..n without gaps"
    assert all(message["site"] == site and message["table"] == table for message in messages)
    assert stripped(messages) == printed


def test_simulate_publishes_every_printed_event_in_order(broker: str, tmp_path: Path) -> None:
    """The first contract bullet, literally."""
    site, table = names()
    subscriber = Subscriber(broker, f"croupier/{site}/{table}/#")
    try:
        done = croupier("simulate", "--seed", "7", "--rounds", "25", "--json", "--journal", str(tmp_path / "t.journal"),
                        "--feed", f"mqtt://{broker}/{site}/{table}")
        assert done.returncode == 0, done.stderr
        printed = lines(done.stdout)
        assert len(printed) > 100
        wait_for(lambda: len({m["seq"] for m in subscriber.json_on("events")}) >= len(printed), "every event")
        assert_feed_is_the_stream(subscriber.json_on("events"), printed, site, table)
    finally:
        subscriber.close()


def test_journal_messages_are_the_records_exactly_as_stored(broker: str, tmp_path: Path) -> None:
    site, table = names()
    journal = tmp_path / "t.journal"
    subscriber = Subscriber(broker, f"croupier/{site}/{table}/journal")
    try:
        done = croupier("simulate", "--seed", "3", "--rounds", "5", "--json", "--journal", str(journal),
                        "--feed", f"mqtt://{broker}/{site}/{table}")
        assert done.returncode == 0, done.stderr
        with sqlite3.connect(journal) as connection:
            stored = [dict(zip(("seq", "kind", "at", "body", "prev", "hash"), row, strict=True)) for row in
                      connection.execute("SELECT seq, kind, at, body, prev, hash FROM records ORDER BY seq")]
            published = connection.execute("SELECT seq FROM feed_published").fetchone()[0]
            confirmed = connection.execute("SELECT seq FROM feed_acked").fetchone()[0]
        wait_for(lambda: len(subscriber.on("journal")) >= len(stored), "every record")
        assert subscriber.json_on("journal") == stored
        assert published == stored[-1]["seq"], "a clean stop delivers everything to the broker and keeps the mark"
        assert confirmed == 0, "no archive runs: nothing counts as delivered (issue 27)"
        assert "no archive confirmed records from 1 on" in done.stderr, done.stderr
        verified = croupier("audit", "verify", str(journal))
        assert verified.returncode == 0, verified.stdout + verified.stderr
    finally:
        subscriber.close()


def test_checkpoint_records_are_published_like_every_record_and_carry_no_events(broker: str,
                                                                                tmp_path: Path) -> None:
    site, table = names()
    journal = tmp_path / "t.journal"
    config = tmp_path / "checkpoints.toml"
    config.write_text("[journal]\ncheckpoint_every = 10\n", encoding="utf-8")
    subscriber = Subscriber(broker, f"croupier/{site}/{table}/#")
    try:
        done = croupier("simulate", "--seed", "3", "--decks", "1", "--rounds", "12", "--json", "--config", str(config),
                        "--journal", str(journal), "--feed", f"mqtt://{broker}/{site}/{table}")
        assert done.returncode == 0, done.stderr
        with sqlite3.connect(journal) as connection:
            stored = [dict(zip(("seq", "kind", "at", "body", "prev", "hash"), row, strict=True)) for row in
                      connection.execute("SELECT seq, kind, at, body, prev, hash FROM records ORDER BY seq")]
        assert sum(1 for record in stored if record["kind"] == "checkpoint") >= 3
        wait_for(lambda: len(subscriber.on("journal")) >= len(stored), "every record")
        assert subscriber.json_on("journal") == stored
        printed = lines(done.stdout)
        wait_for(lambda: len({m["seq"] for m in subscriber.json_on("events")}) >= len(printed), "every event")
        assert_feed_is_the_stream(subscriber.json_on("events"), printed, site, table)
    finally:
        subscriber.close()


def test_status_is_online_while_running_and_offline_after_a_clean_stop(broker: str, tmp_path: Path) -> None:
    site, table = names()
    status = f"croupier/{site}/{table}/status"
    table_run = start("simulate", "--seed", "5", "--rounds", "400", "--pace", "0.05", "--json", "--journal",
                      str(tmp_path / "t.journal"), "--feed", f"mqtt://{broker}/{site}/{table}")
    try:
        wait_for(lambda: read_retained(broker, status) == b"online", "the retained status online")
        state = read_retained(broker, f"croupier/{site}/{table}/state")
        assert state is not None and json.loads(state)["status"] in ("online", "halted", "closed")
        table_run.send_signal(signal.SIGINT)  # a clean stop (Ctrl+C)
        table_run.communicate(timeout=DEADLINE)
    finally:
        if table_run.poll() is None:
            table_run.kill()
            table_run.wait()
    assert read_retained(broker, status) == b"offline"
    state = read_retained(broker, f"croupier/{site}/{table}/state")
    assert state is not None and json.loads(state)["status"] == "offline"


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stop_signal_drains_the_feed_as_ctrl_c_does(stop: signal.Signals, broker: str, tmp_path: Path) -> None:
    """A service manager's stop (SIGTERM) or a hung-up terminal (SIGHUP) killed the table with records still to
    publish and its status left online; now, as on Ctrl+C, every record it journaled is published and it is
    offline (docs/floor.md, "Store and forward")."""
    site, table = names()
    journal = tmp_path / "t.journal"
    status = f"croupier/{site}/{table}/status"
    subscriber = Subscriber(broker, f"croupier/{site}/{table}/#")
    table_run = start("simulate", "--seed", "5", "--rounds", "400", "--pace", "0.05", "--json", "--journal",
                      str(journal), "--feed", f"mqtt://{broker}/{site}/{table}")
    try:
        wait_for(lambda: read_retained(broker, status) == b"online", "the retained status online")
        wait_for(lambda: len(subscriber.on("journal")) >= 20, "the first records")
        table_run.send_signal(stop)
        _, stderr = table_run.communicate(timeout=DEADLINE)
        with sqlite3.connect(journal) as connection:
            stored = [dict(zip(("seq", "kind", "at", "body", "prev", "hash"), row, strict=True)) for row in
                      connection.execute("SELECT seq, kind, at, body, prev, hash FROM records ORDER BY seq")]
        wait_for(lambda: {record["seq"] for record in subscriber.json_on("journal")} >= {r["seq"] for r in stored},
                 "every record journaled")
        published = {record["seq"]: record for record in subscriber.json_on("journal")}
    finally:
        subscriber.close()
        if table_run.poll() is None:
            table_run.kill()
            table_run.wait()
    assert table_run.returncode == 128 + stop, stderr
    assert stderr.splitlines()[-1] == f"croupier simulate: stopped by {stop.name}", stderr
    assert [published[record["seq"]] for record in stored] == stored
    assert read_retained(broker, status) == b"offline"


@pytest.mark.slow
def test_a_broker_restart_mid_run_loses_nothing(own_broker: Mosquitto, tmp_path: Path) -> None:
    """The first contract bullet with the broker stopped and started again during the run."""
    site, table = names()
    subscriber = Subscriber(own_broker.address, f"croupier/{site}/{table}/events")
    table_run = start("simulate", "--seed", "11", "--rounds", "60", "--pace", "0.02", "--json", "--journal",
                      str(tmp_path / "t.journal"), "--feed", f"mqtt://{own_broker.address}/{site}/{table}")
    try:
        wait_for(lambda: len(subscriber.on("events")) >= 50, "the first events")
        own_broker.stop()
        assert table_run.poll() is None, "the broker must stop while the table deals"
        assert (own_broker.directory / "data" / "mosquitto.db").is_file(), "the broker persists its sessions"
        time.sleep(2.0)  # the table deals on while the broker is away
        own_broker.start()
        stdout, stderr = table_run.communicate(timeout=240)
        assert table_run.returncode == 0, stderr
        assert "feed: broker" in stderr, "the outage is reported"
        assert stderr.count("without an account") == 1, "said once a run, not on every connection"
        printed = lines(stdout)
        wait_for(lambda: len({m["seq"] for m in subscriber.json_on("events")}) >= len(printed), "every event")
        assert_feed_is_the_stream(subscriber.json_on("events"), printed, site, table)
    finally:
        if table_run.poll() is None:
            table_run.kill()
            table_run.wait()
        subscriber.close()


def _acked_events(journal: Path) -> int:
    """How many events the records up to the feed's broker-acknowledged mark hold."""
    with sqlite3.connect(journal) as connection:
        row = connection.execute("SELECT seq FROM feed_published").fetchone()
        mark = row[0] if row else 0
        bodies = connection.execute("SELECT body FROM records WHERE seq <= ? AND kind IN ('start', 'events')",
                                    (mark,)).fetchall()
    return sum(len(json.loads(body)["events"]) for (body,) in bodies)


@pytest.mark.slow
def test_kill_9_and_restart_resume_the_feed_from_the_acknowledged_record(broker: str, tmp_path: Path) -> None:
    site, table = names()
    journal = tmp_path / "t.journal"
    arguments = ["simulate", "--seed", "13", "--rounds", "30", "--pace", "0.02", "--json", "--journal", str(journal),
                 "--feed", f"mqtt://{broker}/{site}/{table}"]
    subscriber = Subscriber(broker, f"croupier/{site}/{table}/events")
    first = start(*arguments)
    try:
        wait_for(lambda: len(subscriber.on("events")) >= 60, "the first events")
        time.sleep(0.5)  # let the mark be written
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=DEADLINE)
        assert first.returncode == -signal.SIGKILL, "killed mid-run"
        acknowledged = _acked_events(journal)
        assert acknowledged > 0, "the broker's acknowledgements are kept in the journal"
        second = croupier(*arguments)
        assert second.returncode == 0, second.stderr
        whole = croupier("simulate", "--seed", "13", "--rounds", "30", "--json")
        printed = lines(whole.stdout)
        wait_for(lambda: len({m["seq"] for m in subscriber.json_on("events")}) >= len(printed), "every event")
        messages = subscriber.json_on("events")
        assert_feed_is_the_stream(messages, printed, site, table)
        early = [message["seq"] for message in messages if message["seq"] <= acknowledged]
        assert sorted(early) == list(range(1, acknowledged + 1)), \
            "what the broker acknowledged before the kill is not published again"
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
        subscriber.close()


@pytest.mark.slow
def test_a_table_whose_broker_is_away_deals_on_and_publishes_on_the_next_start(tmp_path: Path) -> None:
    site, table = names()
    broker = Mosquitto(tmp_path / "mosquitto")  # not started yet
    journal = tmp_path / "t.journal"
    arguments = ["simulate", "--seed", "17", "--rounds", "10", "--json", "--journal", str(journal),
                 "--feed", f"mqtt://{broker.address}/{site}/{table}"]
    away = croupier(*arguments, CROUPIER_FEED_DRAIN_TIMEOUT="0.5")
    assert away.returncode == 0, away.stderr
    assert "the journal keeps them and they go out on the next start" in away.stderr
    printed = lines(away.stdout)
    broker.start()
    try:
        subscriber = Subscriber(broker.address, f"croupier/{site}/{table}/events")
        again = croupier(*arguments)
        assert again.returncode == 0, again.stderr
        wait_for(lambda: len({m["seq"] for m in subscriber.json_on("events")}) >= len(printed), "every event")
        assert_feed_is_the_stream(subscriber.json_on("events"), printed, site, table)
        subscriber.close()
    finally:
        broker.stop()


@pytest.mark.parametrize(("url", "said"), [
    ("http://127.0.0.1:1883/s/t", "scheme 'http://' is not mqtt:// or mqtts://"),
    ("not-a-url", "it has no scheme (mqtt:// or mqtts://)"),
    ("mqtt://127.0.0.1:99999/s/t", "the port is not a number from 1 to 65535"),
    ("mqtt://127.0.0.1:1883/s", "the path '/s' is not /SITE/TABLE"),
    ("mqtt://127.0.0.1:1883/s/t/x", "is not /SITE/TABLE"),
    ("mqtt://127.0.0.1:1883/s+/t", "SITE 's+' is not 1-64 letters"),
    ("mqtt://127.0.0.1:1883", "it names no /SITE/TABLE"),
    ("mqtt:///s/t", "it names no HOST"),
    ("mqtt://127.0.0.1:1883/s/t?qos=2", "it takes no ?query"),
    ("", "it is empty"),
])
def test_a_bad_feed_url_is_refused_with_one_clear_line(tmp_path: Path, url: str, said: str) -> None:
    done = croupier("simulate", "--seed", "1", "--rounds", "1", "--journal", str(tmp_path / "t.journal"),
                    "--feed", url)
    assert done.returncode == 2
    message = done.stderr.strip()
    assert "\n" not in message and "Traceback" not in message, message
    assert message.startswith(f"croupier simulate: --feed {url!r}: ") and said in message, message
    assert "expected mqtt://[USER:PASSWORD@]HOST:PORT/SITE/TABLE" in message
    assert not (tmp_path / "t.journal").exists(), "nothing is dealt"


@pytest.mark.parametrize("command", [["simulate", "--seed", "1"], ["run", "--driver", "mock://?seed=1",
                                                                   "--auto-next", "--no-keyboard"]])
def test_a_feed_without_a_journal_is_refused(command: list[str]) -> None:
    done = croupier(*command, "--rounds", "1", "--feed", "mqtt://127.0.0.1:1883/s/t")
    assert done.returncode == 2
    message = done.stderr.strip()
    assert "\n" not in message and "a feed needs a journal" in message and "--journal" in message, message


def test_a_bad_feed_url_in_the_environment_names_the_setting(tmp_path: Path) -> None:
    done = croupier("simulate", "--seed", "1", "--rounds", "1", "--journal", str(tmp_path / "t.journal"),
                    CROUPIER_FEED_URL="mqtt://127.0.0.1:1883/only-site")
    assert done.returncode == 2
    assert "[feed] url 'mqtt://127.0.0.1:1883/only-site': the path '/only-site' is not /SITE/TABLE" in done.stderr


@pytest.mark.slow
def test_mqtts_with_a_ca_file_publishes_over_tls(tmp_path: Path) -> None:
    ca, cert, key = throwaway_ca(tmp_path)
    tls_port = free_port()
    broker = Mosquitto(tmp_path / "mosquitto", extra=f"listener {tls_port} 127.0.0.1\ncafile {ca}\n"
                                                     f"certfile {cert}\nkeyfile {key}\n")
    broker.start()
    site, table = names()
    try:
        subscriber = Subscriber(broker.address, f"croupier/{site}/{table}/events")  # the plain listener
        journal = tmp_path / "t.journal"
        done = croupier("simulate", "--seed", "19", "--rounds", "5", "--json", "--journal", str(journal),
                        "--feed", f"mqtts://127.0.0.1:{tls_port}/{site}/{table}",
                        CROUPIER_FEED_CA_FILE=str(ca))
        assert done.returncode == 0, done.stderr
        printed = lines(done.stdout)
        wait_for(lambda: len({m["seq"] for m in subscriber.json_on("events")}) >= len(printed), "every event")
        assert_feed_is_the_stream(subscriber.json_on("events"), printed, site, table)
        subscriber.close()
        (tmp_path / "other").mkdir()
        other, _, _ = throwaway_ca(tmp_path / "other")  # a CA that did not sign the broker's certificate
        untrusted = croupier("simulate", "--seed", "19", "--rounds", "1", "--json", "--journal",
                             str(tmp_path / "u.journal"), "--feed", f"mqtts://127.0.0.1:{tls_port}/{site}/u",
                             CROUPIER_FEED_CA_FILE=str(other), CROUPIER_FEED_DRAIN_TIMEOUT="1")
        assert untrusted.returncode == 0, untrusted.stderr  # the table deals on; the journal keeps the records
        assert "feed: broker mqtts://127.0.0.1" in untrusted.stderr and "go out on the next start" in untrusted.stderr
    finally:
        broker.stop()


def test_a_missing_ca_file_is_refused(tmp_path: Path) -> None:
    done = croupier("simulate", "--seed", "1", "--rounds", "1", "--journal", str(tmp_path / "t.journal"),
                    "--feed", "mqtts://127.0.0.1:8883/s/t", CROUPIER_FEED_CA_FILE=str(tmp_path / "no.pem"))
    assert done.returncode == 2
    assert done.stderr.strip().endswith("no such file; give the path of a PEM CA file"), done.stderr


@pytest.mark.slow
def test_audit_verify_names_records_cut_after_the_floor_received_them(broker: str, database: str,
                                                                     tmp_path: Path) -> None:
    from tests.controller.floor.floorkit import Archive, holds_every_record, journal_records, wait_for

    site, table = names()
    journal = tmp_path / "t.journal"
    archive = Archive(broker, database, group="")  # the floor received them: the archive confirmed them
    command = ("simulate", "--seed", "23", "--rounds", "3", "--json", "--journal", str(journal),
               "--feed", f"mqtt://{broker}/{site}/{table}")
    try:
        done = croupier(*command)
        assert done.returncode == 0, done.stderr
        wait_for(lambda: holds_every_record(database, site, table, journal_records(journal)),
                 "the archive holds every record of the table")
        # A busy archive may answer only once the table stopped (a stop waits for an archive that answered, not
        # for one that has not yet): the table started again ends at once, hears the archive's word and keeps
        # the mark it confirms (docs/floor.md, "Store and forward").
        done = croupier(*command)
        assert done.returncode == 0, done.stderr
    finally:
        archive.stop()
    with sqlite3.connect(journal) as connection:
        last = connection.execute("SELECT max(seq) FROM records").fetchone()[0]
        assert connection.execute("SELECT seq FROM feed_acked").fetchone()[0] == last
        connection.execute("DELETE FROM records WHERE seq > ?", (last - 2,))
        connection.execute("UPDATE delivered SET seq = ?", (last - 2,))  # the delivered mark no longer tells
    verified = croupier("audit", "verify", str(journal))
    assert verified.returncode == 1, verified.stdout + verified.stderr
    assert (f"record {last - 1} is missing: records {last - 1}-{last} were published to the floor"
            in verified.stdout + verified.stderr)


@pytest.mark.slow
def test_a_forged_archived_head_beyond_any_record_stops_nothing(broker: str, tmp_path: Path) -> None:
    """A retained ``archived`` whose seq is past any record number (published by hand on an open broker) is not
    the archive's word: the feed ignores it and publishes every record (it stopped publishing for the run)."""
    from tests.controller.floor.floorkit import publish_on

    site, table = names()
    journal = tmp_path / "t.journal"
    publish_on(broker, f"croupier/{site}/{table}/archived",
               [b'{"seq": 18446744073709551616, "hash": "' + b"a" * 64 + b'", "wants": null}'], retain=True)
    subscriber = Subscriber(broker, f"croupier/{site}/{table}/journal")
    try:
        done = croupier("simulate", "--seed", "3", "--rounds", "5", "--journal", str(journal),
                        "--feed", f"mqtt://{broker}/{site}/{table}")
        assert done.returncode == 0, done.stderr
        assert "stopped publishing" not in done.stderr, done.stderr
        with sqlite3.connect(journal) as connection:
            stored = connection.execute("SELECT count(*) FROM records").fetchone()[0]
            published = connection.execute("SELECT seq FROM feed_published").fetchone()[0]
        wait_for(lambda: len(subscriber.on("journal")) >= stored, "every record")
        assert published == stored
    finally:
        subscriber.close()
        publish_on(broker, f"croupier/{site}/{table}/archived", [b""], retain=True)


@pytest.mark.slow
def test_an_archived_message_that_is_not_the_archives_head_is_said_once_and_counts_nothing(
        broker: str, tmp_path: Path) -> None:
    """The feed dropped such a message without a word: the table counted nothing delivered and said nothing of why
    (the floor's non-negotiable: never a silent drop of network input)."""
    from tests.controller.floor.floorkit import publish_on

    site, table = names()
    journal = tmp_path / "t.journal"
    topic = f"croupier/{site}/{table}/archived"
    publish_on(broker, topic, [b'{"seq": "all", "hash": null}'], retain=True)
    try:
        done = croupier("simulate", "--seed", "3", "--rounds", "3", "--journal", str(journal),
                        "--feed", f"mqtt://{broker}/{site}/{table}", CROUPIER_FEED_DRAIN_TIMEOUT="2")
        assert done.returncode == 0, done.stderr
    finally:
        publish_on(broker, topic, [b""], retain=True)
    said = [line for line in done.stderr.splitlines() if topic in line and "ignored" in line]
    assert len(said) == 1, done.stderr
    assert "not the archive's head" in said[0] and "nothing counts as delivered by it" in said[0], said
    with sqlite3.connect(journal) as connection:
        assert connection.execute("SELECT seq FROM feed_acked").fetchone()[0] == 0


def test_a_feed_without_an_account_says_once_that_the_archives_word_cannot_be_trusted(broker: str,
                                                                                       tmp_path: Path) -> None:
    """On an anonymous broker anyone may publish a table's ``archived`` head: the table took it as proof of
    delivery without a word."""
    site, table = names()
    done = croupier("simulate", "--seed", "3", "--rounds", "3", "--journal", str(tmp_path / "t.journal"),
                    "--feed", f"mqtt://{broker}/{site}/{table}", CROUPIER_FEED_DRAIN_TIMEOUT="2")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "without an account" in line]
    assert len(said) == 1, done.stderr
    assert "feed: connected without an account (anonymous)" in said[0], said
    assert (f"croupier/{site}/{table}/archived" in said[0] and "cannot be trusted" in said[0]
            and "croupier floor acl" in said[0]), said

"""The property check: a shoe compared, as it is dealt, with the other tables' shoes in the floor archive.

Table A's journal is archived through the archive's own store (real PostgreSQL); table B then deals
with ``croupier simulate --archive`` and must flag the stretch of A's shoe it repeats, naming A.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from controller.floor.archive_store import ArchiveStore, create_schema, record_payload
from controller.journal.store import Journal, compact
from tests.controller.floor.floorkit import croupier
from tests.inprocess import start_croupier

SITE, TABLE = "casino", "t7"


def archive_journal(database: str, journal: Path, site: str = SITE, table: str = TABLE) -> int:
    """Store every record of ``journal`` in the archive as table ``site/table``; returns how many."""
    opened = Journal.open_existing(journal)
    try:
        records = list(opened.records())
    finally:
        opened.close()
    store = ArchiveStore(psycopg.connect(database))
    try:
        create_schema(store)
        store.receive_batch([((site, table, record), record_payload(record)) for record in records])
    finally:
        store.close()
    return len(records)


def shuffled_shoe(seed: int, decks: int = 8) -> list[str]:
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    cards = [rank + suit for rank in ranks for suit in "SHDC"] * decks
    random.Random(seed).shuffle(cards)
    return cards


def events(run_stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in run_stdout.splitlines() if line.startswith("{")]


def sequence_alerts(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [event for event in found if event["event"] == "alert" and event["kind"] == "sequence_repeat"]


def test_a_shoe_carried_from_another_table_is_flagged_naming_that_table_and_replays_without_the_database(
        database: str, tmp_path: Path) -> None:
    shoe_a = shuffled_shoe(1)[:70]
    dealt_a = croupier("simulate", "--cards", " ".join(shoe_a), "--journal", str(tmp_path / "a.db"), "--json")
    assert dealt_a.returncode in (0, 3), dealt_a.stderr
    assert archive_journal(database, tmp_path / "a.db") > 10
    fresh = [card for card in shuffled_shoe(2) if card not in shoe_a[10:45]][:20]
    shoe_b = fresh + shoe_a[10:45]
    dealt_b = croupier("simulate", "--cards", " ".join(shoe_b), "--archive", database,
                       "--journal", str(tmp_path / "b.db"), "--json")
    assert dealt_b.returncode in (0, 3), dealt_b.stderr
    found = events(dealt_b.stdout)
    alerts = sequence_alerts(found)
    assert len(alerts) == 1, alerts
    alert = alerts[0]
    assert (alert["earlier_site"], alert["earlier_table"], alert["earlier_shoe"]) == (SITE, TABLE, 1)
    assert (alert["order"], alert["start"], alert["earlier_start"]) == ("dealt", 21, 11)
    assert 6 <= alert["length"] <= 12, "flagged within a few cards of the run becoming implausible"
    assert alert["threshold"] == pytest.approx(0.5e-6 / (416 * 70)), "half of one in a million, over every alignment"
    assert alert["probability"] < alert["threshold"]
    assert SITE in alert["detail"] and TABLE in alert["detail"]
    cards_before = [event for event in found[:found.index(alert)] if event["event"] == "card"]
    assert len(cards_before) <= 20 + 12
    verified = croupier("audit", "verify", str(tmp_path / "b.db"), "--replay")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "same events" in verified.stdout


def test_a_fresh_seeded_shoe_raises_nothing_against_an_archive_of_several_shoes(database: str, tmp_path: Path) -> None:
    made = croupier("simulate", "--seed", "5", "--rounds", "240", "--quiet", "--journal", str(tmp_path / "a.db"))
    assert made.returncode == 0, made.stderr
    archive_journal(database, tmp_path / "a.db")
    dealt = croupier("simulate", "--seed", "6", "--rounds", "90", "--archive", database, "--json")
    assert dealt.returncode == 0, dealt.stderr
    found = events(dealt.stdout)
    assert sum(event["event"] == "result" for event in found) == 90
    assert sequence_alerts(found) == []
    assert dealt.stderr == ""


def test_this_tables_own_shoes_are_left_to_its_own_check(database: str, tmp_path: Path) -> None:
    shoe = shuffled_shoe(3)[:60]
    first = croupier("simulate", "--cards", " ".join(shoe), "--journal", str(tmp_path / "a.db"), "--json")
    assert first.returncode in (0, 3), first.stderr
    archive_journal(database, tmp_path / "a.db")
    config = tmp_path / "table.toml"
    config.write_text(f'[feed]\nsite = "{SITE}"\ntable = "{TABLE}"\n')
    again = croupier("simulate", "--config", str(config), "--cards", " ".join(shoe), "--archive", database, "--json")
    assert again.returncode in (0, 3), again.stderr
    assert sequence_alerts(events(again.stdout)) == []
    elsewhere = croupier("simulate", "--cards", " ".join(shoe), "--archive", database, "--json")
    assert [alert["earlier_table"] for alert in sequence_alerts(events(elsewhere.stdout))] == [TABLE]


def test_an_unreachable_archive_is_said_in_one_line_and_the_table_deals_on(tmp_path: Path) -> None:
    dealt = croupier("simulate", "--seed", "7", "--rounds", "5", "--archive",
                     "postgresql://croupier:secret@127.0.0.1:9/archive", "--json", "--journal", str(tmp_path / "t.db"))
    assert dealt.returncode == 0, dealt.stderr
    found = events(dealt.stdout)
    assert sum(event["event"] == "result" for event in found) == 5
    lines = dealt.stderr.strip().splitlines()
    assert len(lines) == 1, dealt.stderr
    assert "--archive" in lines[0] and "property check is off" in lines[0] and "secret" not in lines[0]
    assert "Traceback" not in dealt.stderr
    off = [event for event in found if event["event"] == "alert"]
    assert [(alert["kind"], alert["severity"], alert["id"]) for alert in off] == [("property_check_off", "warning",
                                                                                   "A1")]
    assert "secret" not in dealt.stdout
    history = croupier("history", str(tmp_path / "t.db"), "--json")
    assert history.returncode == 0, history.stderr
    assert "property_check_off" in history.stdout and "secret" not in history.stdout
    verified = croupier("audit", "verify", str(tmp_path / "t.db"), "--replay")
    assert verified.returncode == 0 and "same events" in verified.stdout, verified.stdout + verified.stderr


def test_an_archive_url_that_is_not_postgresql_is_refused_in_one_line(tmp_path: Path) -> None:
    refused = croupier("simulate", "--seed", "7", "--rounds", "5", "--archive", "mysql://host/db")
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "--archive" in refused.stderr and "postgresql" in refused.stderr
    config = tmp_path / "table.toml"
    config.write_text('[protection]\narchive = "archive.example"\n')
    refused = croupier("simulate", "--config", str(config), "--rounds", "5")
    assert refused.returncode == 2
    assert "[protection] archive" in refused.stderr and refused.stderr.count("\n") == 1


def test_a_journal_dealt_with_the_property_check_keeps_its_bound_and_replays_without_the_database(
        database: str, tmp_path: Path) -> None:
    """The table's own alert, at half the bound with the property check on, replays exactly from the journal alone:
    the header says the property check was on (never the URL, which may hold a password)."""
    from tests.controller.cli.test_game_protection import whole_rounds

    archive_journal(database, journal_of(tmp_path / "other.db", shuffled_shoe(9)[:40]))
    first = shuffled_shoe(3)
    cards = f"{' '.join(whole_rounds(first, 80))} @close @shoe {' '.join(first[10:40])}"
    dealt = croupier("simulate", "--no-burn", "--json", "--cards", cards, "--archive", database,
                     "--journal", str(tmp_path / "b.db"))
    assert dealt.returncode in (0, 3), dealt.stderr
    own = [alert for alert in sequence_alerts(events(dealt.stdout)) if "earlier_table" not in alert]
    assert [(alert["shoe"], alert["earlier_shoe"]) for alert in own] == [(2, 1)]
    dealt_first = len(whole_rounds(first, 80))
    assert own[0]["threshold"] == pytest.approx(0.5e-6 / (416 * (416 + 2 * dealt_first)))
    journal = Journal.open_existing(tmp_path / "b.db")
    try:
        header = next(iter(journal.records())).body
    finally:
        journal.close()
    assert '"property_check":true' in header and "postgresql" not in header and database not in header
    verified = croupier("audit", "verify", str(tmp_path / "b.db"), "--replay")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "same events" in verified.stdout
    without = croupier("simulate", "--no-burn", "--json", "--cards", cards, "--journal", str(tmp_path / "b.db"))
    assert without.returncode == 2 and "property_check" in without.stderr, "a resume must ask for it again"


def journal_of(path: Path, cards: list[str]) -> Path:
    made = croupier("simulate", "--cards", " ".join(cards), "--journal", str(path), "--json")
    assert made.returncode in (0, 3), made.stderr
    return path


def killed_after(args: list[str], enough: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
    """Run ``croupier ARGS`` and kill it (SIGKILL) once its JSON events so far are ``enough``; those events."""
    process = start_croupier(*args)
    seen: list[dict[str, Any]] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith("{"):
                seen.append(json.loads(line))
            if enough(seen):
                break
        else:
            raise AssertionError(f"the run ended first: {process.wait(timeout=60)}, {seen[-3:]}")
    finally:
        process.kill()
        process.wait(timeout=60)
    return seen


def cards_out(found: list[dict[str, Any]]) -> int:
    """Cards out of the shoe so far, burned ones included (as the sequence check counts them)."""
    return sum(event["event"] in ("card", "burn") for event in found)


def cards_read(found: list[dict[str, Any]]) -> int:
    """Cards read in ``found``: dealt, burned, or refused while a critical alert stops the table."""
    return sum(event["event"] in ("card", "burn") or (event["event"] == "rejected" and event["input"][0] != "@")
               for event in found)


def journaled_alerts(path: Path) -> list[dict[str, Any]]:
    from controller.journal.replay import journaled_events

    journal = Journal.open_existing(path)
    try:
        return sequence_alerts([dict(event) for _, batch in journaled_events(journal) for event in batch])
    finally:
        journal.close()


@pytest.mark.slow
@pytest.mark.parametrize("killed_at", ["before the run is implausible", "after its alert"])
def test_a_table_killed_mid_shoe_and_resumed_reports_the_other_tables_run_exactly_once(
        database: str, tmp_path: Path, killed_at: str) -> None:
    shoe_a = shuffled_shoe(1)[:70]
    archive_journal(database, journal_of(tmp_path / "a.db", shoe_a))
    shoe_b = [card for card in shuffled_shoe(2) if card not in shoe_a[10:45]][:20] + shoe_a[10:45]
    args = ["simulate", "--cards", " ".join(shoe_b), "--archive", database, "--journal", str(tmp_path / "b.db"),
            "--json"]
    if killed_at == "after its alert":
        before = killed_after([*args, "--pace", "0.05"], lambda seen: bool(sequence_alerts(seen))
                              and cards_read(seen[seen.index(sequence_alerts(seen)[0]):]) >= 3)
        assert len(sequence_alerts(before)) == 1
    else:
        before = killed_after([*args, "--pace", "0.05"], lambda seen: cards_out(seen) >= 23)  # 3 cards into the run
        assert sequence_alerts(before) == [], "killed before the run became implausible"
    resumed = croupier(*args)
    assert resumed.returncode in (0, 3), resumed.stderr
    assert "resumed from journal" in resumed.stderr
    after = sequence_alerts(events(resumed.stdout))
    assert len(after) == (1 if killed_at == "before the run is implausible" else 0), after
    alerts = journaled_alerts(tmp_path / "b.db")
    assert [(alert["earlier_table"], alert["start"], alert["earlier_start"]) for alert in alerts] == [(TABLE, 21, 11)]
    verified = croupier("audit", "verify", str(tmp_path / "b.db"), "--replay")
    assert verified.returncode == 0 and "same events" in verified.stdout, verified.stdout + verified.stderr


@pytest.mark.slow
def test_end_to_end_a_shoe_fed_by_table_a_through_the_broker_and_archived_is_caught_at_table_b(
        broker: str, database: str, site: str, tmp_path: Path) -> None:
    """Table A deals and feeds its journal to a real Mosquitto, a real ``croupier archive`` stores it in the
    real PostgreSQL, and table B, dealing 30+ of A's cards in A's order with ``--archive``, is alerted naming A."""
    from tests.controller.floor.floorkit import Archive, archived, journal_records, wait_for

    shoe_a = shuffled_shoe(11)[:80]
    archive = Archive(broker, database)
    try:
        dealt_a = croupier("simulate", "--cards", " ".join(shoe_a), "--journal", str(tmp_path / "a.db"), "--json",
                           "--feed", f"mqtt://{broker}/{site}/a")
        assert dealt_a.returncode in (0, 3), dealt_a.stderr
        stored = journal_records(tmp_path / "a.db")
        wait_for(lambda: len(archived(database, site, "a")) >= len(stored), "table A's records in the archive")
    finally:
        status, _, stderr = archive.stop()
    assert status == 0, stderr
    assert archived(database, site, "a") == stored
    repeated = shoe_a[20:52]
    shoe_b = [card for card in shuffled_shoe(12) if card not in repeated][:15] + repeated
    dealt_b = croupier("simulate", "--cards", " ".join(shoe_b), "--archive", database, "--json",
                       "--journal", str(tmp_path / "b.db"), "--feed", f"mqtt://{broker}/{site}/b")
    assert dealt_b.returncode in (0, 3), dealt_b.stderr
    alerts = sequence_alerts(events(dealt_b.stdout))
    assert [(alert["earlier_site"], alert["earlier_table"], alert["earlier_shoe"]) for alert in alerts] == [
        (site, "a", 1)]
    assert (alerts[0]["start"], alerts[0]["earlier_start"]) == (16, 21)
    assert alerts[0]["length"] <= 12 and f"table a at {site}" in alerts[0]["detail"]


def cut_tail(connection: sqlite3.Connection, seq: int) -> None:
    """Delete the records from ``seq`` on, the delivered mark left where the controller had got to then."""
    connection.execute("DELETE FROM records WHERE seq >= ?", (seq,))
    connection.execute("UPDATE delivered SET seq = (SELECT MAX(seq) FROM records WHERE kind IN ('start', 'events'))")
    connection.commit()


def cut_before(path: Path, kind: str, nth: int = 1) -> int:
    """Cut ``path``'s journal before its ``nth`` input of ``kind`` (what a kill -9 just before that input's commit
    leaves: a valid chain ending with the input before); returns the seq of the first record cut."""
    connection = sqlite3.connect(path)
    try:
        inputs = [(seq, json.loads(body)["input"]["kind"]) for seq, body in connection.execute(
            "SELECT seq, body FROM records WHERE kind = 'input' ORDER BY seq")]
        seq = int([number for number, found in inputs if found == kind][nth - 1])
        cut_tail(connection, seq)
    finally:
        connection.close()
    return seq


def cut_after(path: Path, kind: str) -> int:
    """Cut ``path``'s journal right after its first input of ``kind``, its events and checkpoint (a kill -9 just after
    that commit); returns the seq of the first record cut."""
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute("SELECT seq, kind, body FROM records ORDER BY seq").fetchall()
        at = next(index for index, (_, record_kind, body) in enumerate(rows)
                  if record_kind == "input" and json.loads(body)["input"]["kind"] == kind)
        seq = int(next(number for number, record_kind, _ in rows[at + 1:] if record_kind == "input"))
        cut_tail(connection, seq)
    finally:
        connection.close()
    return seq


def all_journaled(path: Path) -> list[dict[str, Any]]:
    from controller.journal.replay import journaled_events

    journal = Journal.open_existing(path)
    try:
        return [dict(event) for _, batch in journaled_events(journal) for event in batch]
    finally:
        journal.close()


@pytest.mark.slow
@pytest.mark.parametrize("checkpoint_every", [1, 250])
def test_a_table_stopped_between_a_card_and_the_finding_it_completed_raises_that_alert_once_on_resume(
        database: str, tmp_path: Path, checkpoint_every: int) -> None:
    """The kill -9 window between a card's commit and its finding's: the resumed table gives the finding the journal
    lacks, once, and the journal is then the one an uninterrupted run writes (with a checkpoint after every input,
    the resume starts from the card's own checkpoint)."""
    shoe_a = shuffled_shoe(1)[:70]
    archive_journal(database, journal_of(tmp_path / "a.db", shoe_a))
    config = tmp_path / "table.toml"
    config.write_text(f"[journal]\ncheckpoint_every = {checkpoint_every}\n")
    shoe_b = [card for card in shuffled_shoe(2) if card not in shoe_a[10:45]][:20] + shoe_a[10:45]
    args = ["simulate", "--cards", " ".join(shoe_b), "--archive", database, "--json", "--config", str(config)]
    whole = croupier(*args, "--journal", str(tmp_path / "whole.db"))
    assert whole.returncode in (0, 3), whole.stderr
    assert len(sequence_alerts(events(whole.stdout))) == 1
    dealt = croupier(*args, "--journal", str(tmp_path / "b.db"))
    assert dealt.returncode == whole.returncode, dealt.stderr
    cut_before(tmp_path / "b.db", "property_repeat")
    assert journaled_alerts(tmp_path / "b.db") == [], "the finding's commit is lost, its card's is not"
    resumed = croupier(*args, "--journal", str(tmp_path / "b.db"))
    assert resumed.returncode == whole.returncode, resumed.stderr
    assert "resumed from journal" in resumed.stderr
    again = sequence_alerts(events(resumed.stdout))
    assert [(alert["earlier_table"], alert["start"], alert["earlier_start"]) for alert in again] == [(TABLE, 21, 11)]
    assert all_journaled(tmp_path / "b.db") == all_journaled(tmp_path / "whole.db")
    verified = croupier("audit", "verify", str(tmp_path / "b.db"), "--replay")
    assert verified.returncode == 0 and "same events" in verified.stdout, verified.stdout + verified.stderr
    twice = croupier(*args, "--journal", str(tmp_path / "b.db"))
    assert twice.returncode == whole.returncode and sequence_alerts(events(twice.stdout)) == []


def as_written_before_findings_were_kept(path: Path) -> None:
    """Every checkpoint of ``path`` without the table's property findings (the chain made good after each)."""
    from tests.controller.journal.forger import forge_record

    connection = sqlite3.connect(path)
    try:
        checkpoints = connection.execute("SELECT seq, body FROM records WHERE kind = 'checkpoint' ORDER BY seq")
        kept = [(int(seq), json.loads(body)) for seq, body in checkpoints]
    finally:
        connection.close()
    for seq, body in kept:
        del body["state"]["property_findings"]
        forge_record(path, seq, compact(body))


@pytest.mark.slow
@pytest.mark.parametrize(("checkpoint_every", "older"), [(1, False), (250, False), (1, True)])
def test_a_table_stopped_after_its_finding_was_acknowledged_raises_nothing_again_on_resume(
        database: str, tmp_path: Path, checkpoint_every: int, older: bool) -> None:
    """Nor does one resumed from a checkpoint written before tables kept their findings (``older``): it learns them
    from the shoe's journaled alerts."""
    shoe_a = shuffled_shoe(1)[:70]
    archive_journal(database, journal_of(tmp_path / "a.db", shoe_a))
    config = tmp_path / "table.toml"
    config.write_text(f"[journal]\ncheckpoint_every = {checkpoint_every}\n")
    shoe_b = [card for card in shuffled_shoe(2) if card not in shoe_a[10:45]][:20] + shoe_a[10:45]
    script = " ".join([*shoe_b[:40], "@ack A1", *shoe_b[40:]])
    args = ["simulate", "--cards", script, "--archive", database, "--json", "--config", str(config),
            "--journal", str(tmp_path / "b.db")]
    dealt = croupier(*args)
    assert dealt.returncode in (0, 3), dealt.stderr
    acknowledged = [event for event in events(dealt.stdout) if event["event"] == "alert_acknowledged"]
    assert [(event["id"], event["kind"]) for event in acknowledged] == [("A1", "sequence_repeat")]
    whole = all_journaled(tmp_path / "b.db")
    cut_after(tmp_path / "b.db", "ack")
    if older:
        as_written_before_findings_were_kept(tmp_path / "b.db")
    resumed = croupier(*args)
    assert resumed.returncode == dealt.returncode, resumed.stderr
    assert "resumed from journal" in resumed.stderr
    assert [event for event in events(resumed.stdout) if event["event"] in ("alert", "rejected")] == []
    assert all_journaled(tmp_path / "b.db") == whole
    assert len(journaled_alerts(tmp_path / "b.db")) == 1
    verified = croupier("audit", "verify", str(tmp_path / "b.db"), "--replay")
    assert verified.returncode == 0 and "same events" in verified.stdout, verified.stdout + verified.stderr

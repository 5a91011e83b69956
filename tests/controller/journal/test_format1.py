"""Journals written by the previous version (event format 1: alerts without ids, texts without message ids)
are still verified, replayed and read, and an edit of one is still found.

The fixtures were written by Croupier at commit ea6f86a: ``simulate --seed 3 --rounds 12 --quiet --journal``
and ``simulate --no-burn --cards "<the first 30 cards in new-deck order>" --quiet --journal`` (an
unshuffled-shoe alert in round 1).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.inprocess import croupier_in_process

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(params=["format1-seed3.db", "format1-alert.db"])
def old_journal(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    copy = tmp_path / str(request.param)
    shutil.copyfile(FIXTURES / str(request.param), copy)
    return copy


def test_an_old_journal_verifies_and_replays_as_it_was_dealt(old_journal: Path) -> None:
    run = croupier_in_process("audit", "verify", str(old_journal), "--replay")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "head: record" in run.stdout


def test_history_reads_an_old_journals_alert_with_an_id_and_a_severity(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copyfile(FIXTURES / "format1-alert.db", path)
    run = croupier_in_process("history", str(path), "--json")
    assert run.returncode == 0, run.stderr
    alerts = [json.loads(line) for line in run.stdout.splitlines() if json.loads(line)["event"] == "alert"]
    assert [(alert["id"], alert["kind"], alert["severity"]) for alert in alerts] == [
        ("A1", "unshuffled_shoe", "critical")]
    with sqlite3.connect(path) as connection:
        stored = [json.loads(body) for (body,) in connection.execute("SELECT body FROM records WHERE kind = 'events'")]
    assert not any("id" in event for body in stored for event in body["events"] if event["event"] == "alert")


def test_an_edited_old_journal_is_still_caught_by_the_replay(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copyfile(FIXTURES / "format1-seed3.db", path)
    with sqlite3.connect(path) as connection:
        seq, body = connection.execute("SELECT seq, body FROM records WHERE kind = 'events' AND body LIKE ? "
                                       "ORDER BY seq LIMIT 1", ('%"winner":"banker"%',)).fetchone()
        connection.execute("UPDATE records SET body = ? WHERE seq = ?",
                           (body.replace('"winner":"banker"', '"winner":"player"', 1), seq))
    run = croupier_in_process("audit", "verify", str(path), "--replay")
    assert run.returncode != 0
    assert f"record {seq}" in run.stdout + run.stderr


def test_resuming_an_old_journal_says_why_not_in_one_line(old_journal: Path) -> None:
    run = croupier_in_process("simulate", "--seed", "3", "--rounds", "12", "--quiet", "--journal", str(old_journal))
    assert run.returncode == 2
    assert "written by an earlier version of Croupier (event format 1)" in run.stderr
    assert "give a new --journal path" in run.stderr and "Traceback" not in run.stderr

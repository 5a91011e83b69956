"""Issue 29 item 5 through the command line: refused badges journaled with their UIDs, the lockout's critical alert
journaled and shown by ``croupier history``, a supervisor's badge unlocking, and an independent replay that agrees."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.badges import auth_section
from tests.inprocess import croupier_in_process

DEALER = "04A1B2C3D4E5F6"
SUPERVISOR = "04DEADBEEF0001"
STRANGERS = ["0411223301", "0411223302", "0411223303", "0411223304", "0411223305"]


def config(tmp_path: Path) -> Path:
    path = tmp_path / "auth.toml"
    path.write_text('[shoe]\nburn = "none"\n\n' + auth_section(DEALER, SUPERVISOR), encoding="utf-8")
    return path


def journaled_events(path: Path) -> list[dict[str, Any]]:
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute("SELECT body FROM records WHERE kind IN ('start', 'events') ORDER BY seq").fetchall()
    finally:
        connection.close()
    return [event for (body,) in rows for event in json.loads(body)["events"]]


def test_refused_badges_and_the_lockout_are_journaled_and_a_supervisor_unlocks(tmp_path: Path) -> None:
    journal = tmp_path / "table.journal"
    strangers = " ".join(f"@badge {uid}" for uid in STRANGERS)
    cards = f"{strangers} @badge {DEALER} @badge {SUPERVISOR} @badge {DEALER} @shoe 3S KD 5H 9C"
    done = croupier_in_process("simulate", "--config", str(config(tmp_path)), "--cards", cards, "--quiet",
                               "--journal", str(journal))
    assert done.returncode == 0, done.stderr
    events = journaled_events(journal)
    refused = [event for event in events if event["event"] == "sign_in_refused"]
    assert [event["uid"] for event in refused] == [*STRANGERS, DEALER]
    assert "locked" in refused[-1]["reason"]
    (alert,) = [event for event in events if event["event"] == "alert"]
    assert (alert["kind"], alert["severity"]) == ("badge_lockout", "critical")
    (ack,) = [event for event in events if event["event"] == "alert_acknowledged"]
    assert (ack["id"], ack["by"]) == (alert["id"], SUPERVISOR)
    assert [event["name"] for event in events if event["event"] == "dealer_signed_in"] == ["Alice Martin"]
    assert sum(event["event"] == "result" for event in events) == 1

    history = croupier_in_process("history", str(journal))
    assert "badge_lockout A1 critical [acknowledged by Bob Stone at " in history.stdout, history.stdout  # NAME (docs)


def test_a_locked_journal_replays_to_the_same_events(tmp_path: Path) -> None:
    journal = tmp_path / "table.journal"
    strangers = " ".join(f"@badge {uid}" for uid in STRANGERS)
    done = croupier_in_process("simulate", "--config", str(config(tmp_path)), "--cards", f"{strangers} @badge {DEALER}",
                               "--quiet", "--journal", str(journal))
    assert done.returncode == 0, done.stderr
    audit = croupier_in_process("audit", "verify", str(journal), "--replay")
    assert audit.returncode == 0, audit.stdout
    assert not [event for event in journaled_events(journal) if event["event"] == "dealer_signed_in"]

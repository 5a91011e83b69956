"""Alerts with a life: an id, a kind and a severity; open until ``@ack ID``; kept over a restart."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from config.loader import load_config
from controller.core.alerts import SEVERITY, AlertBook
from controller.core.cards import full_deck
from controller.core.events import AlertAcknowledgedEvent, AlertEvent, Event, RejectedEvent, decode_event
from controller.core.exceptions import ScriptError
from controller.core.inputs import Input, InputKind, card_read, parse_tokens
from controller.core.machine import State
from controller.core.table import Table
from controller.journal.replay import replay, settings_from_header
from controller.journal.store import Journal
from controller.journal.verify import verify
from tests.badges import auth_section
from tests.inprocess import CROUPIER, ROOT
from tests.typed_events import every, expect

UNSHUFFLED = [card.code for _ in range(8) for card in reversed(full_deck())]
"""Same-suit neighbours, K Q J ...: the unshuffled-shoe alert, and not the factory order (a sequence alert)."""


def dealt_unshuffled(table: Table, cards: int = 12) -> list[Event]:
    events = table.start() + table.handle(Input(InputKind.SHOE))
    for code in UNSHUFFLED[:cards]:
        events += table.handle(card_read(code))
    return events


def test_every_alert_kind_has_a_severity_and_a_reason() -> None:
    assert set(SEVERITY) >= {"unshuffled_shoe"}
    for kind, (severity, reason) in SEVERITY.items():
        assert severity in ("warning", "critical"), kind
        assert reason.strip(), kind


def test_the_alert_carries_an_id_a_kind_and_its_severity() -> None:
    table = Table(load_config(environ={}))
    alerts = every(dealt_unshuffled(table), AlertEvent)
    assert len(alerts) == 1
    alert = alerts[0]
    assert (alert["id"], alert["kind"], alert["severity"]) == ("A1", "unshuffled_shoe", "critical")
    assert [open_alert["id"] for open_alert in table.open_alerts] == ["A1"]


def test_ack_closes_the_alert_and_says_who_and_when() -> None:
    table = Table(load_config(environ={}))
    dealt_unshuffled(table)
    events = table.handle(Input(InputKind.ACK, "a1"))
    ack = expect(events[0], AlertAcknowledgedEvent)
    assert ack == decode_event({"event": "alert_acknowledged", "id": "A1", "kind": "unshuffled_shoe", "by": None,
                   "round": table.round})
    assert table.open_alerts == []
    assert events[-1]["event"] in ("prompt", "instruction")


@pytest.mark.parametrize(("ack", "reason"), [
    ("A7", "no alert A7; the open alerts are A1"),
    ("A1 A1", "alert A1 was already acknowledged; no alert is open"),
])
def test_an_unknown_or_closed_id_is_rejected_by_name(ack: str, reason: str) -> None:
    table = Table(load_config(environ={}))
    dealt_unshuffled(table)
    events: list[Event] = []
    for item in parse_tokens(" ".join(f"@ack {word}" for word in ack.split())):
        events = table.handle(item)
    refused = expect(events[0], RejectedEvent)
    assert refused["input"] == f"@ack {ack.split()[-1]}"
    assert refused["reason"] == reason


def test_ack_with_no_alert_at_all_is_rejected() -> None:
    table = Table(load_config(environ={}))
    table.start()
    refused = expect(table.handle(Input(InputKind.ACK, "A1"))[0], RejectedEvent)
    assert refused["reason"] == "no alert A1; no alert is open"


def test_ack_is_accepted_while_the_table_is_halted() -> None:
    """The misdeal first, then the alert from the cards read while halted (held): acknowledging it leaves the
    misdeal pending."""
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}}))
    dealt_unshuffled(table, cards=2)
    table.handle(Input(InputKind.UNREADABLE))
    assert table.misdeal is not None
    for code in UNSHUFFLED[2:8]:
        table.handle(card_read(code))
    assert [alert.id for alert in table.open_alerts] == ["A1"]
    events = table.handle(Input(InputKind.ACK, "A1"))
    assert every(events, AlertAcknowledgedEvent)[0]["id"] == "A1"
    assert table.misdeal is not None, "acknowledging an alert does not resolve the misdeal"


def test_ack_token_needs_an_id() -> None:
    assert parse_tokens("@ack A3") == [Input(InputKind.ACK, "A3")]
    assert Input(InputKind.ACK, "A3").token() == "@ack A3"
    with pytest.raises(ScriptError, match="expected an alert id after @ack"):
        parse_tokens("@ack")


def test_ids_run_on_across_shoes_and_stay_open() -> None:
    """Warnings (the property check off) stay open across shoes; the ids run on (a critical alert would stop the
    table until acknowledged: tests/controller/core/test_orders_that_never_contradict.py)."""
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}}))
    events = table.start() + table.handle(Input(InputKind.SHOE))
    events += table.handle(Input(InputKind.PROPERTY_OFF, "the archive is away"))
    for code in ["9S", "8H", "KD", "2C"]:  # a natural: the round is over
        events += table.handle(card_read(code))
    assert table.state is State.ROUND_OVER
    events += table.handle(Input(InputKind.CLOSE))
    events += table.handle(Input(InputKind.SHOE))
    events += table.handle(Input(InputKind.PROPERTY_OFF, "the archive is away again"))
    alerts = every(events, AlertEvent)
    assert [(alert["id"], alert["shoe"]) for alert in alerts] == [("A1", 1), ("A2", 2)]
    assert [alert["id"] for alert in table.open_alerts] == ["A1", "A2"]
    assert AlertBook().next_id() == "A1"


AUTH_CONFIG = auth_section("04A1B2C3D4E5F6", "04DEADBEEF0001", "supervisor_only = []\n")


def test_with_badges_only_a_supervisor_acknowledges(tmp_path: Path) -> None:
    path = tmp_path / "auth.toml"
    path.write_text(AUTH_CONFIG, encoding="utf-8")
    table = Table(load_config(path, environ={}))
    table.start()
    table.handle(Input(InputKind.BADGE, "04A1B2C3D4E5F6"))
    table.handle(Input(InputKind.SHOE))
    for code in UNSHUFFLED[:12]:
        table.handle(card_read(code))
    assert table.open_alerts
    asked = table.handle(Input(InputKind.ACK, "A1"))
    assert asked[0]["event"] == "approval_required"
    refused = table.handle(Input(InputKind.BADGE, "04A1B2C3D4E5F6"))
    assert refused[0]["event"] == "approval_refused"
    assert table.open_alerts
    table.handle(Input(InputKind.ACK, "A1"))
    events = table.handle(Input(InputKind.BADGE, "04DEADBEEF0001"))
    ack = every(events, AlertAcknowledgedEvent)[0]
    assert ack["by"] == "04DEADBEEF0001"
    assert table.open_alerts == []


def cards_to_a_round_end(at_least: int) -> int:
    """How many cards of :data:`UNSHUFFLED` (dealt with auto next, the alert the 12th card raises acknowledged right
    after it: that card is set aside) end a round, at least ``at_least``."""
    table = Table(load_config(environ={}))
    table.start()
    table.handle(Input(InputKind.SHOE))
    for count, code in enumerate(UNSHUFFLED, start=1):
        table.handle(card_read(code))
        if count == 12:
            table.handle(Input(InputKind.ACK, "A1"))
        if table.state is State.ROUND_OVER:
            if count >= at_least:
                return count
            table.handle(Input(InputKind.NEXT))
    raise AssertionError("no round end found")


def simulate(*args: str) -> list[dict[str, object]]:
    done = subprocess.run([*CROUPIER, "simulate", "--json", *args], capture_output=True, cwd=ROOT, timeout=120,
                          text=True)
    assert done.returncode in (0, 3), done.stderr  # 3: stopped mid-round on an alert left open
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_simulate_script_acknowledges_with_at_ack(tmp_path: Path) -> None:
    script = tmp_path / "shoe.txt"
    end = cards_to_a_round_end(20)
    script.write_text(" ".join(UNSHUFFLED[:12]) + " @ack A1 " + " ".join(UNSHUFFLED[12:end]) + "\n",
                      encoding="utf-8")
    events = simulate("--script", str(script))
    names = [event["event"] for event in events]
    alert = events[names.index("alert")]
    assert (alert["id"], alert["kind"], alert["severity"]) == ("A1", "unshuffled_shoe", "critical")
    ack = events[names.index("alert_acknowledged")]
    assert ack["id"] == "A1" and ack["by"] is None
    assert names.index("alert") < names.index("alert_acknowledged")


def test_an_open_alert_survives_a_restart(tmp_path: Path) -> None:
    script = tmp_path / "shoe.txt"
    script.write_text(" ".join(UNSHUFFLED[:14]) + "\n", encoding="utf-8")  # the alert at the 12th, left open
    journal = tmp_path / "table.db"
    simulate("--script", str(script), "--journal", str(journal))
    opened = Journal.open_existing(journal)
    try:
        table = Table(settings_from_header(str(journal), verify(opened).header))
        replay(opened, table)
    finally:
        opened.close()
    assert [(alert["id"], alert["kind"]) for alert in table.open_alerts] == [("A1", "unshuffled_shoe")]
    again = simulate("--script", str(script), "--journal", str(journal))
    assert not [event for event in again if event["event"] == "alert"], "a replay raises no second alert"


def test_the_transcript_names_the_alert_and_its_acknowledgement(tmp_path: Path) -> None:
    cards = " ".join(UNSHUFFLED[:12]) + " @ack A1 " + " ".join(UNSHUFFLED[12:cards_to_a_round_end(20)])
    done = subprocess.run([*CROUPIER, "simulate", "--cards", cards], capture_output=True, cwd=ROOT, timeout=120,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert "!! ALERT A1 unshuffled_shoe (critical): " in done.stdout
    assert "Alert A1 (unshuffled_shoe) acknowledged" in done.stdout


def test_a_typed_dealer_line_acknowledges_an_alert() -> None:
    from controller.ui.keyboard import parse_dealer_line

    assert parse_dealer_line("a a1") == Input(InputKind.ACK, "A1")
    assert parse_dealer_line("@ack A2") == Input(InputKind.ACK, "A2")
    with pytest.raises(ScriptError, match="expected 'a ID' with the alert's id"):
        parse_dealer_line("ack")

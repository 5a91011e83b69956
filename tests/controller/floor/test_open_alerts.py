"""The floor feed's retained state lists the table's open alerts until each is acknowledged."""

from __future__ import annotations

import json
from typing import Any

from config.loader import load_config
from controller.core.cards import full_deck
from controller.core.inputs import Input, InputKind, card_read
from controller.core.table import Table
from controller.floor.messages import TableState

UNSHUFFLED = [card.code for _ in range(8) for card in reversed(full_deck())]
"""Same-suit neighbours K Q J ...: the unshuffled-shoe alert alone (the factory order would also repeat)."""


def followed(events: list[Any], state: TableState) -> dict[str, Any]:
    for event in events:
        state.apply(dict(event), "2026-12-01T10:00:00Z")
    decoded: dict[str, Any] = json.loads(state.message())
    return decoded


def test_retained_state_holds_the_open_alert_until_it_is_acknowledged() -> None:
    table = Table(load_config(environ={}))
    state = TableState(site="casino", table="t1")
    events = table.start() + table.handle(Input(InputKind.SHOE))
    for code in UNSHUFFLED[:12]:
        events += table.handle(card_read(code))
    message = followed(events, state)
    assert [(alert["id"], alert["kind"], alert["severity"]) for alert in message["alerts"]] == [
        ("A1", "unshuffled_shoe", "critical")]
    message = followed(table.handle(Input(InputKind.ACK, "A1")), state)
    assert message["alerts"] == []


def test_an_open_alert_stays_in_the_state_when_a_new_shoe_starts() -> None:
    state = TableState(site="casino", table="t1")
    message = followed([
        {"event": "alert", "id": "A1", "kind": "unshuffled_shoe", "severity": "critical", "shoe": 1, "round": 1,
         "probability": 1e-9, "threshold": 1e-6, "detail": "x"},
        {"event": "shoe", "shoe": 2, "status": "new", "decks": 8},
    ], state)
    assert [alert["id"] for alert in message["alerts"]] == ["A1"]

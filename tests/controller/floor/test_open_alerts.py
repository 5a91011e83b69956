"""The floor feed's retained state lists the table's open alerts until each is acknowledged, as the core says."""

from __future__ import annotations

import json
from typing import Any

from config.loader import load_config
from controller.core.cards import full_deck
from controller.core.inputs import Input, InputKind, card_read, parse_tokens
from controller.core.table import Table
from controller.floor.messages import TableState

UNSHUFFLED = [card.code for _ in range(8) for card in reversed(full_deck())]
"""Same-suit neighbours K Q J ...: the unshuffled-shoe alert alone (the factory order would also repeat)."""


def shown(table: Table, state: TableState) -> dict[str, Any]:
    state.show(table.view)
    decoded: dict[str, Any] = json.loads(state.message())
    return decoded


def test_retained_state_holds_the_open_alert_until_it_is_acknowledged() -> None:
    table = Table(load_config(environ={}))
    state = TableState(site="casino", table="t1")
    table.start()
    table.handle(Input(InputKind.SHOE))
    for code in UNSHUFFLED[:12]:
        table.handle(card_read(code))
    message = shown(table, state)
    assert [(alert["id"], alert["kind"], alert["severity"]) for alert in message["alerts"]] == [
        ("A1", "unshuffled_shoe", "critical")]
    assert message["status"] == "halted", "a critical alert stops the table"
    table.handle(Input(InputKind.ACK, "A1"))
    message = shown(table, state)
    assert message["alerts"] == [] and message["status"] == "online"


def test_an_open_alert_stays_in_the_state_when_a_new_shoe_starts() -> None:
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}}))
    state = TableState(site="casino", table="t1")
    table.start()
    table.handle(Input(InputKind.SHOE))
    table.handle(Input(InputKind.PROPERTY_OFF, "the archive is away"))
    for item in parse_tokens("9S 8H KD 2C @close @shoe"):
        table.handle(item)
    message = shown(table, state)
    assert message["shoe"] == 2
    assert [alert["id"] for alert in message["alerts"]] == ["A1"]

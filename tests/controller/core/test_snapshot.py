"""controller.core.snapshot: snapshot a table at any input, restore it, continue: the same events as one
uninterrupted run (hypothesis over inputs of every kind, with and without badges)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from config.loader import load_config
from config.schema import Settings
from controller.core.events import Event
from controller.core.exceptions import SnapshotError
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.snapshot import restore, snapshot
from controller.core.table import Table

DEALER = "04A1B2C3D4E5F6"
SUPERVISOR = "04DEADBEEF0001"
RANKS = "A23456789TJQK"
SUITS = "SHDC"
CARDS = [rank + suit for rank in RANKS for suit in SUITS]
DEALER_TOKENS = ["@next", "@shoe", "@burn", "@void", "@exposed", "@use", "@cut", "@double", "@offline",
                 "@online", "@close", "??", "@manual 5H", "@manual KD", "@manual ZZ", "@reveal", "@reveal 7",
                 "@ack A1", "@ack A2", "@undo", "@undo"]
BADGE_TOKENS = [f"@badge {DEALER}", f"@badge {SUPERVISOR}", "@badge 0411223344", "@badge_removed", "@sign_out"]


def table_settings(decks: int, burn: str, auth: bool, dealing: str = "face_up") -> Settings:
    layers: dict[str, Any] = {"table": {"decks": decks, "dealing": dealing}, "shoe": {"burn": burn}}
    if auth:
        layers["auth"] = {"enabled": True, "reader": "pcsc://?reader=Virtual PCD 00 01",
                          "badges": {DEALER: {"name": "Alice Martin", "role": "dealer"},
                                     SUPERVISOR: {"name": "Bob Stone", "role": "supervisor"}}}
    return load_config(None, environ={}, overrides=layers)


def token_lists(auth: bool) -> st.SearchStrategy[list[str]]:
    """Mostly cards (so rounds are played through), with dealer inputs, misdeals and badges between."""
    cards = st.sampled_from(CARDS)
    others = st.sampled_from(DEALER_TOKENS + (BADGE_TOKENS if auth else []))
    token = st.one_of(cards, cards, cards, others)
    return st.lists(token, min_size=1, max_size=120)


def played(table: Table, inputs: list[Input]) -> list[list[Event]]:
    return [table.handle(item) for item in inputs]


def leading(auth: bool) -> list[Input]:
    """A start that gets dealing going: a dealer signed in (with badges), the shoe confirmed."""
    return parse_tokens((f"@badge {DEALER} " if auth else "") + "@shoe")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), decks=st.sampled_from([1, 8]), burn=st.sampled_from(["first_card", "none"]),
       auth=st.booleans(), dealing=st.sampled_from(["face_up", "face_down"]))
def test_snapshot_at_any_input_then_restore_continues_identically(data: st.DataObject, decks: int, burn: str,
                                                                   auth: bool, dealing: str) -> None:
    config = table_settings(decks, burn, auth, dealing)
    inputs = leading(auth) + [item for token in data.draw(token_lists(auth)) for item in parse_tokens(token)]
    cut = data.draw(st.integers(min_value=0, max_value=len(inputs)), label="snapshot after input")
    uninterrupted = Table(config)
    start = uninterrupted.start()
    reference = played(uninterrupted, inputs)

    first = Table(config)
    assert first.start() == start
    assert played(first, inputs[:cut]) == reference[:cut]
    state = json.loads(json.dumps(snapshot(first)))  # it is plain JSON, and survives the trip
    resumed = restore(config, state)
    assert snapshot(resumed) == state
    assert played(resumed, inputs[cut:]) == reference[cut:]
    assert snapshot(resumed) == snapshot(uninterrupted)


def test_a_whole_seeded_shoe_snapshotted_after_every_input() -> None:
    from controller.core.shoe import shoe_with_cut_card

    config = table_settings(8, "first_card", False)
    inputs: list[Input] = []
    for shoe in range(2):
        inputs += parse_tokens("@shoe " + " ".join(shoe_with_cut_card(7, 8, shoe)))
    table = Table(config)
    table.start()
    for item in inputs:
        copy = restore(config, json.loads(json.dumps(snapshot(table))))
        assert copy.handle(item) == table.handle(item)


def test_alerts_reveals_and_earlier_shoes_survive_a_snapshot_after_every_input() -> None:
    """New-deck order (the unshuffled-shoe and the factory-order alerts), acknowledged; a second shoe that
    repeats the first (a sequence alert against an earlier shoe); dealt face down."""
    from controller.core.cards import full_deck

    config = table_settings(1, "none", False, "face_down")
    order = " ".join(card.code for card in full_deck())
    script = (f"@shoe {order} @ack A1 @ack A2 @close @shoe {order}"
              " @reveal @reveal @reveal @reveal @reveal @reveal @next")
    table = Table(config)
    table.start()
    kinds: list[str] = []
    for item in parse_tokens(script):
        copy = restore(config, json.loads(json.dumps(snapshot(table))))
        events = table.handle(item)
        assert copy.handle(item) == events
        kinds += [str(event["kind"]) for event in events if event["event"] == "alert"]
    assert "sequence_repeat" in kinds and "unshuffled_shoe" in kinds
    assert [alert["id"] for alert in table.alerts.open_alerts] == [f"A{n}" for n in range(3, len(kinds) + 1)]


def test_a_table_keeps_nothing_beside_its_state_value() -> None:
    """The table's state is one value (``Table.value``); the settings, what the table reads of them and a resume's
    hint of known edges are all it holds beside it (and the view it last made of the value, kept with that value),
    so a snapshot of the value is a snapshot of the table."""
    table = Table(table_settings(1, "none", True))
    assert set(vars(table)) == {"settings", "context", "value", "known_edges", "_view"}
    table.start()
    view = table.view
    assert table._view == (table.value, view)


@pytest.mark.parametrize("damage", [
    lambda state: state.pop("ledger"),
    lambda state: state.update(state="NOWHERE"),
    lambda state: state["round"].update(player=["ZZ"]),
    lambda state: state.update(rounds_dealt="3"),
    lambda state: state.update(format=99),
])
def test_a_damaged_snapshot_is_refused_with_a_clear_error(damage: Any) -> None:
    config = table_settings(1, "none", False)
    table = Table(config)
    table.start()
    for item in parse_tokens("@shoe 5H 2C 3D 4S"):
        table.handle(item)
    state = snapshot(table)
    damage(state)
    with pytest.raises(SnapshotError, match="not a table state"):
        restore(config, state)


def test_badges_on_one_side_only_are_refused() -> None:
    state = snapshot(Table(table_settings(1, "none", True)))
    with pytest.raises(SnapshotError, match=r"\[auth\] enabled"):
        restore(table_settings(1, "none", False), state)


def test_an_unread_card_input_survives() -> None:
    config = table_settings(1, "none", False)
    table = Table(config)
    table.start()
    for item in [Input(InputKind.SHOE), *parse_tokens("5H ??")]:
        table.handle(item)
    copy = restore(config, snapshot(table))
    assert copy.handle(Input(InputKind.MANUAL, "7C")) == table.handle(Input(InputKind.MANUAL, "7C"))


def test_an_advantage_followed_across_a_snapshot_after_every_input() -> None:
    """An advantage alert in progress (opened, updated, acknowledged while it lasts, cleared when it ends) is part of
    the state: a table restored between any two inputs follows it as the uninterrupted one does (a resume once
    cleared an alert the restored table did not know it followed, and refused its own journal)."""
    from controller.core.shoe import shoe_with_cut_card

    config = load_config(None, environ={}, overrides={
        "table": {"decks": 1}, "shoe": {"burn": "none"},
        "bets": {"live_edge": True, "alert_above": {"banker": -0.0107, "player": -0.0125}}})
    table = Table(config)
    table.start()
    seen: list[str] = []
    acknowledged = False
    pending = parse_tokens("@shoe " + " ".join(shoe_with_cut_card(1, 1, 0)))
    while pending:
        item = pending.pop(0)
        copy = restore(config, json.loads(json.dumps(snapshot(table))))
        events = table.handle(item)
        assert copy.handle(item) == events
        assert snapshot(copy) == snapshot(table)
        seen += [str(event["event"]) for event in events]
        if any(event["event"] == "instruction" and event["action"] == "next_round" for event in events):
            pending[:0] = parse_tokens("@next")
        if "alert_updated" in seen and not acknowledged:  # acknowledged while the advantage lasts
            pending[:0] = parse_tokens("@ack A1")
            acknowledged = True
    assert acknowledged and {"alert", "alert_updated", "alert_cleared"} <= set(seen)

"""``@undo`` through the table core: each case the house rules allow, exactly undone, and each refusal,
with its reason and nothing changed."""

from __future__ import annotations

import json
from typing import Any

import msgspec.structs
import pytest

from config.loader import load_config
from config.schema import Settings
from controller.core.events import Event
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.snapshot import restore, snapshot
from controller.core.table import Table
from controller.core.tally import count_events
from controller.core.undo import FROM_THE_SHOE, NOTHING
from tests.typed_events import plain

DEALER = "04A1B2C3D4E5F6"
SUPERVISOR = "04DEADBEEF0001"
OTHER_DEALER = "04A1B2C3D4E5F7"
UNDO = Input(InputKind.UNDO)
UNSHUFFLED = "KS QS JS TS 9S 8S"
"""Cards in new-deck order: the unshuffled-shoe alert A1 opens."""


def settings(auth: bool = False, dealing: str = "face_up") -> Settings:
    layers: dict[str, Any] = {"shoe": {"burn": "none"}, "table": {"dealing": dealing},
                              "simulation": {"auto_next": False}}
    if auth:
        layers["auth"] = {"enabled": True, "reader": "pcsc://?reader=Virtual PCD 00 01",
                          "badges": {DEALER: {"name": "Alice Martin", "role": "dealer"},
                                     OTHER_DEALER: {"name": "Carl Wood", "role": "dealer"},
                                     SUPERVISOR: {"name": "Bob Stone", "role": "supervisor"}}}
    return load_config(None, environ={}, overrides=layers)


def played(tokens: str, config: Settings | None = None) -> tuple[Table, list[Event]]:
    table = Table(config or settings())
    events = table.start()
    for item in parse_tokens(tokens):
        events = table.handle(item)
    return table, events


def without_undo(state: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in state.items() if key != "undo"}


def undone_in(events: list[Event]) -> dict[str, Any]:
    found = [event for event in events if event["event"] == "undone"]
    assert len(found) == 1, events
    return dict(found[0])


def refusal(events: list[Event]) -> str:
    assert [event["event"] for event in events] == ["rejected", events[-1]["event"]], events
    assert events[0]["event"] == "rejected" and events[0]["input"] == "@undo"
    return str(events[0]["reason"])


# -- a hand-entered card ------------------------------------------------------------------------------------------
def test_a_hand_entered_card_is_offered_for_undo_and_taken_back_exactly() -> None:
    table, before_events = played("@shoe 5H ??")
    before, seen = snapshot(table), table.cards_seen
    after_manual = table.handle(Input(InputKind.MANUAL, "4D"))
    assert after_manual[-1]["event"] == "prompt" and after_manual[-1]["slot"] == "P2"
    assert after_manual[-1].get("undo") == "@manual 4D"
    assert table.inventory["4D"] == 1

    events = table.handle(UNDO)
    assert undone_in(events) == {"event": "undone", "input": "@manual 4D", "round": 1, "slot": "B1", "card": "4D",
                                 "say": "4D taken back from B1: enter the card again", "say_id": "undone.manual",
                                 "say_params": {"card": "4D", "slot": "B1"}}
    assert plain(events[-1]) == plain(before_events[-1]), "the halt is back, as before"
    assert "undo" not in events[-1]
    assert without_undo(snapshot(table)) == without_undo(before)
    assert table.inventory["4D"] == 0 and table.cards_seen == seen


def test_after_the_undo_the_right_card_plays_as_if_the_wrong_one_was_never_keyed() -> None:
    keyed_wrong, _ = played("@shoe 5H ?? @manual 4D @undo")
    straight, _ = played("@shoe 5H ??")
    rest = parse_tokens("@manual 4H 2C 3S")
    assert [keyed_wrong.handle(item) for item in rest] == [straight.handle(item) for item in rest]
    assert snapshot(keyed_wrong) == snapshot(straight)


def test_undo_takes_back_a_pending_third_card_decision() -> None:
    # P1 5H, B1 2C, P2 KD; B2 unread: 9S gives banker a natural, 4S makes the player draw
    table, _ = played("@shoe 5H 2C KD ?? @manual 4S")
    assert table.due_slot == "P3"
    events = table.handle(UNDO)
    assert undone_in(events)["slot"] == "B2"
    assert table.due_slot == "B2" and table.misdeal is not None
    events = table.handle(Input(InputKind.MANUAL, "7S"))
    assert [event["event"] for event in events if event["event"] == "result"] == ["result"]
    result = next(event for event in events if event["event"] == "result")
    assert result["banker"]["cards"] == ["2C", "7S"] and result["natural"]


def test_a_hand_entered_card_that_gives_the_result_cannot_be_undone() -> None:
    table, _ = played("@shoe 5H 2C KD ?? @manual 7S")
    before = snapshot(table)
    reason = refusal(table.handle(UNDO))
    assert reason == "round 1 has its result; a settled round cannot be undone: call the supervisor"
    assert snapshot(table) == before


def test_a_card_read_after_the_hand_entered_one_ends_the_undo() -> None:
    table, events = played("@shoe 5H ?? @manual 4D 2C")
    assert "undo" not in events[-1]
    before = snapshot(table)
    assert refusal(table.handle(UNDO)) == FROM_THE_SHOE
    assert snapshot(table) == before


def test_undo_twice_is_refused_the_second_time() -> None:
    table, _ = played("@shoe 5H ?? @manual 4D @undo")
    before = snapshot(table)
    assert refusal(table.handle(UNDO)) == "@manual 4D was already undone; only the last input can be undone"
    assert snapshot(table) == before


def test_a_refused_hand_entered_card_leaves_nothing_to_undo() -> None:
    table, _ = played("@shoe 5H ?? @manual ZZ")
    assert refusal(table.handle(UNDO)) == "@manual ZZ was not accepted, so there is nothing to undo"


def test_a_hand_entered_burn_card_is_taken_back_too() -> None:
    table, _ = played("@shoe ??", msgspec.structs.replace(settings(), shoe=msgspec.structs.replace(
        settings().shoe, burn="first_card")))
    before = snapshot(table)
    table.handle(Input(InputKind.MANUAL, "3D"))
    events = table.handle(UNDO)
    assert undone_in(events)["slot"] is None and undone_in(events)["card"] == "3D"
    assert without_undo(snapshot(table)) == without_undo(before)


# -- an exposed-card call -----------------------------------------------------------------------------------------
def test_an_exposed_call_pressed_in_error_is_taken_back_and_play_goes_on() -> None:
    table, _ = played("@shoe 5H 3C")
    before = snapshot(table)
    halted = table.handle(Input(InputKind.EXPOSED))
    assert halted[-1].get("undo") == "@exposed"
    events = table.handle(UNDO)
    assert undone_in(events) == {"event": "undone", "input": "@exposed", "round": 1, "slot": "B1", "card": "3C",
                                 "say": "Exposed call taken back: 3C stays in B1; play on",
                                 "say_id": "undone.exposed", "say_params": {"card": "3C", "slot": "B1"}}
    assert events[-1]["event"] == "prompt" and events[-1]["slot"] == "P2"
    assert without_undo(snapshot(table)) == without_undo(before)
    straight, _ = played("@shoe 5H 3C")
    rest = parse_tokens("2D 4S 9H")
    assert [table.handle(item) for item in rest] == [straight.handle(item) for item in rest]


def test_an_undone_exposed_call_is_not_counted_as_a_misdeal() -> None:
    table = Table(settings())
    totals: Any = __import__("collections").Counter()
    count_events(totals, table.start())
    for item in parse_tokens("@shoe 5H 3C @exposed @undo 2D 4S"):
        count_events(totals, table.handle(item))
    assert totals["misdeal"] == 0
    assert table.ledger.stats.misdeal == 0


def test_an_exposed_call_once_resolved_cannot_be_undone() -> None:
    table, _ = played("@shoe 5H 3C @exposed @use")
    assert refusal(table.handle(UNDO)) == ("@use cannot be undone: only a hand-entered card (@manual XX) or an "
                                           "exposed-card call (@exposed) can be undone, as the very next input")


# -- nothing, or another input -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("tokens", "reason"), [
    ("", NOTHING),
    ("@shoe 5H", FROM_THE_SHOE),
    ("@shoe 5H ??", FROM_THE_SHOE),
    ("@shoe 5H 3C 4D 5C", "round 1 has its result; a settled round cannot be undone: call the supervisor"),
    ("@shoe 5H 3C 4D 5C @next", "@next cannot be undone: only a hand-entered card (@manual XX) or an "
                                "exposed-card call (@exposed) can be undone, as the very next input"),
    (f"@shoe {UNSHUFFLED} @ack A1", "@ack A1 cannot be undone: only a hand-entered card (@manual XX) or an "
                                    "exposed-card call (@exposed) can be undone, as the very next input"),
])
def test_anything_else_is_refused_with_the_reason_and_nothing_changes(tokens: str, reason: str) -> None:
    table, _ = played(tokens)
    before = snapshot(table)
    assert refusal(table.handle(UNDO)) == reason
    assert snapshot(table) == before


@pytest.mark.parametrize("tokens", ["@shoe 5H @next", "@shoe 5H @close", "@shoe 5H 3C 4D 5C @next @next",
                                    "@shoe 5H ?? @manual 4D @ack A9", "@shoe 5H @use"])
def test_after_a_rejected_input_there_is_nothing_to_undo(tokens: str) -> None:
    table, events = played(tokens)
    assert events[0]["event"] == "rejected", events
    before = snapshot(table)
    token = parse_tokens(tokens)[-1].token()
    assert refusal(table.handle(UNDO)) == f"{token} was not accepted, so there is nothing to undo"
    assert snapshot(table) == before


def test_undo_is_a_script_token() -> None:
    assert parse_tokens("@undo") == [UNDO]
    assert UNDO.token() == "@undo"


# -- badges --------------------------------------------------------------------------------------------------------
def test_with_badges_the_signed_in_dealer_undoes_without_a_supervisor() -> None:
    table, _ = played(f"@badge {DEALER} @shoe 5H ?? @manual 4D @badge {SUPERVISOR}", settings(auth=True))
    events = table.handle(UNDO)
    assert undone_in(events)["input"] == "@manual 4D"
    assert not any(event["event"] == "approval_required" for event in events)
    assert table.authority is not None and table.authority.dealer is not None
    assert table.authority.dealer.name == "Alice Martin", "the sign-in is not undone"


def test_with_badges_a_dealer_change_between_ends_the_undo() -> None:
    table, _ = played(f"@badge {DEALER} @shoe 5H ?? @manual 4D @badge {SUPERVISOR} @sign_out @badge {OTHER_DEALER}",
                      settings(auth=True))
    reason = refusal(table.handle(UNDO))
    assert reason.startswith(f"@badge {OTHER_DEALER} cannot be undone")


def test_with_badges_nobody_signed_in_cannot_undo() -> None:
    table, _ = played(f"@badge {DEALER} @shoe 5H ?? @manual 4D @badge {SUPERVISOR} @sign_out", settings(auth=True))
    events = table.handle(UNDO)
    assert events[0]["event"] == "rejected"
    assert events[0]["reason"] == "no dealer is signed in; present a dealer badge first"


def test_a_supervisor_approved_hand_entered_card_is_undone_back_to_the_halt() -> None:
    table, events = played(f"@badge {DEALER} @shoe 5H ?? @manual 4D", settings(auth=True))
    assert events[0]["event"] == "approval_required" and "undo" not in events[-1]
    assert refusal(table.handle(UNDO)).startswith("@manual 4D waits for a supervisor's badge")
    table.handle(Input(InputKind.MANUAL, "4D"))
    events = table.handle(Input(InputKind.BADGE, SUPERVISOR))
    assert events[-1].get("undo") == "@manual 4D", events
    events = table.handle(UNDO)
    assert undone_in(events)["slot"] == "B1"
    assert table.misdeal is not None and table.pending_approval is None


# -- face down -----------------------------------------------------------------------------------------------------
def test_face_down_a_hand_entered_last_card_before_the_reveals_can_be_undone() -> None:
    table, _ = played("@shoe 5H 2C KD ?? @manual 7S", settings(dealing="face_down"))
    assert table.view.state == "hands_down"  # a squeeze game: the hands are down, the reveals come next
    events = table.handle(UNDO)
    assert undone_in(events)["slot"] == "B2"
    assert table.view.state == "halted" and table.phase.value == "B2" and table.misdeal is not None


# -- the undo point is state: a snapshot between the input and its undo --------------------------------------------
@pytest.mark.parametrize("tokens", ["@shoe 5H ?? @manual 4D", "@shoe 5H 3C @exposed", "@shoe 5H ?? @manual 4D 2C"])
def test_a_snapshot_between_the_input_and_the_undo_allows_or_forbids_it_alike(tokens: str) -> None:
    table, _ = played(tokens)
    state = json.loads(json.dumps(snapshot(table)))
    resumed = restore(settings(), state)
    assert snapshot(resumed) == state
    rest = parse_tokens("@undo @manual 4H 2C 3S 9H")
    assert [resumed.handle(item) for item in rest] == [table.handle(item) for item in rest]

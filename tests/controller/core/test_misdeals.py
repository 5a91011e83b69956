"""The misdeal policy table, and the round flow that reads it."""

from __future__ import annotations

import pytest

from config.loader import load_config
from config.schema import APPROVAL_ACTIONS, DEFAULT_SUPERVISOR_ONLY, ProcedureSettings
from controller.core.events import MisdealEvent
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.machine import State
from controller.core.misdeals import POLICIES, approval_action, needs_supervisor
from controller.core.table import Table
from controller.terms import MisdealKind
from tests.typed_events import expect


def test_the_house_option_moves_its_choice_first() -> None:
    assert POLICIES["extra_card"].resolutions_for(ProcedureSettings()) == ["burn", "void"]
    assert POLICIES["extra_card"].resolutions_for(ProcedureSettings(extra_card="void")) == ["void", "burn"]
    assert POLICIES["exposed_card"].resolutions_for(ProcedureSettings(exposed_card="use")) == ["use", "burn", "void"]
    assert POLICIES["two_cards"].resolutions_for(ProcedureSettings(extra_card="void")) == ["void"]


@pytest.mark.parametrize(("resolution", "kind", "action"), [
    ("void", "foreign_card", "foreign_card"),
    ("void", "two_cards", "void"),
    ("manual", "unreadable_card", "manual"),
    ("close_shoe", None, "close_shoe"),
])
def test_approval_actions(resolution: str, kind: str | None, action: str) -> None:
    assert approval_action(resolution, kind) == action
    assert needs_supervisor(resolution, kind, DEFAULT_SUPERVISOR_ONLY)


def test_burn_never_needs_a_supervisor_by_default() -> None:
    assert not any(needs_supervisor("burn", kind, DEFAULT_SUPERVISOR_ONLY) for kind in POLICIES)


def test_every_misdeal_event_offers_what_the_policy_says() -> None:
    t = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}}))
    t.start()
    t.handle(Input(InputKind.SHOE))
    seen: dict[MisdealKind, MisdealEvent] = {}
    for tokens in ("3S ?? @burn", "4D ZZ @burn", "@double @void @next", "3S @exposed @burn", "@offline @online"):
        for item in parse_tokens(tokens):
            for event in t.handle(item):
                if isinstance(event, MisdealEvent):
                    seen[event.kind] = event
    for kind, event in seen.items():
        assert tuple(event["resolutions"]) == POLICIES[kind].resolutions, kind
    assert set(seen) == {"unreadable_card", "unknown_card", "two_cards", "exposed_card", "reader_offline"}


def test_exposed_cards_are_taken_back_last_dealt_first() -> None:
    t = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}}))
    t.start()
    t.handle(Input(InputKind.SHOE))
    for item in parse_tokens("3S 4D 5H"):
        t.handle(item)
    first = expect(t.handle(Input(InputKind.EXPOSED))[0], MisdealEvent)
    assert first["card"] == "5H" and "P2" in first["detail"]
    t.handle(Input(InputKind.BURN))
    second = expect(t.handle(Input(InputKind.EXPOSED))[0], MisdealEvent)
    assert second["card"] == "4D" and "B1" in second["detail"]
    t.handle(Input(InputKind.BURN))
    assert t.state is State.B1 and t.discarded == ["5H", "4D"]


def test_every_action_an_approval_is_asked_for_can_be_configured() -> None:
    """``[auth] supervisor_only`` accepts exactly the actions the table can ask a supervisor to approve."""
    asked = {approval_action(resolution, kind)
             for kind, policy in POLICIES.items() for resolution in policy.resolutions}
    asked.add("close_shoe")
    assert asked == set(APPROVAL_ACTIONS)
    assert set(DEFAULT_SUPERVISOR_ONLY) <= set(APPROVAL_ACTIONS)

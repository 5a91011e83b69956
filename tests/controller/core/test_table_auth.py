"""Badges at the table: sign-in, dealer identity on results, supervisor approvals."""

from __future__ import annotations

from pathlib import Path

import pytest

from config.loader import load_config
from controller.core.events import (
    ApprovalEvent,
    ApprovalRefusedEvent,
    ApprovalRequiredEvent,
    CardEvent,
    DealerSignedInEvent,
    DealerSignedOutEvent,
    InstructionEvent,
    MisdealEvent,
    ResolvedEvent,
    ResultEvent,
    RoundVoidedEvent,
    ShoeClosedEvent,
    ShoeClosingEvent,
)
from controller.core.inputs import Input, InputKind
from controller.core.machine import State
from controller.core.table import Table
from tests.badges import auth_section
from tests.tokens import feed
from tests.typed_events import every, expect

DEALER = "04A1B2C3D4E5F6"
SUPERVISOR = "04DEADBEEF0001"
STRANGER = "0411223344"

AUTH_CONFIG = """
[shoe]
burn = "none"

""" + auth_section(DEALER, SUPERVISOR)


@pytest.fixture
def table(tmp_path: Path) -> Table:
    path = tmp_path / "auth.toml"
    path.write_text(AUTH_CONFIG, encoding="utf-8")
    t = Table(load_config(path, environ={}))
    t.start()
    return t


def test_no_dealing_until_a_dealer_signs_in(table: Table) -> None:
    events = table.handle(Input(InputKind.SHOE))
    assert events[0]["event"] == "rejected"
    assert "no dealer is signed in" in events[0]["reason"]
    assert expect(events[-1], InstructionEvent)["action"] == "sign_in"
    events = feed(table, "9S")
    assert every(events, MisdealEvent)[0]["kind"] == "no_dealer"
    assert table.state is State.HALTED


def test_signed_in_dealer_is_on_results_and_misdeals(table: Table) -> None:
    events = feed(table, f"@badge {DEALER} @shoe 3S KD 5H 9C @next 4H ??")
    assert every(events, DealerSignedInEvent)[0]["name"] == "Alice Martin"
    result = every(events, ResultEvent)[0]
    assert result["dealer"] == {"name": "Alice Martin", "uid": DEALER, "role": "dealer"}
    misdeal_dealer = every(events, MisdealEvent)[0]["dealer"]
    assert misdeal_dealer is not None and misdeal_dealer["name"] == "Alice Martin"


def test_removing_the_badge_signs_out_and_stops_dealing(table: Table) -> None:
    feed(table, f"@badge {DEALER} @shoe 3S")
    events = feed(table, "@badge_removed")
    assert every(events, DealerSignedOutEvent)[0]["reason"] == "badge removed"
    assert expect(events[-1], InstructionEvent)["action"] == "sign_in"
    events = feed(table, "KD")
    assert every(events, MisdealEvent)[0]["kind"] == "no_dealer"


def test_idle_sign_out_arrives_as_an_input(table: Table) -> None:
    feed(table, f"@badge {DEALER}")
    events = table.handle(Input(InputKind.SIGN_OUT, "idle"))
    assert every(events, DealerSignedOutEvent)[0]["reason"] == "idle"


def test_void_waits_for_a_supervisor_badge(table: Table) -> None:
    feed(table, f"@badge {DEALER} @shoe 3S @double")
    assert table.state is State.HALTED
    events = feed(table, "@void")
    required = every(events, ApprovalRequiredEvent)[0]
    assert required["action"] == "void"
    assert expect(events[-1], InstructionEvent)["action"] == "approval"
    assert table.state is State.HALTED
    events = feed(table, f"@badge {STRANGER}")
    assert every(events, ApprovalRefusedEvent)[0]["reason"] == "unknown badge"
    assert table.state is State.HALTED
    events = feed(table, f"@badge {DEALER}")
    assert "cannot approve void" in every(events, ApprovalRefusedEvent)[0]["reason"]
    assert table.state is State.HALTED
    events = feed(table, f"@badge {SUPERVISOR}")
    approval = every(events, ApprovalEvent)[0]
    assert approval["by"] == "Bob Stone" and approval["action"] == "void"
    assert every(events, ResolvedEvent)[0]["approved_by"] == "Bob Stone"
    assert every(events, RoundVoidedEvent)
    assert table.state is State.ROUND_OVER  # type: ignore[comparison-overlap]  # mypy keeps "is HALTED" past feed()
    assert table.authority is not None and table.authority.dealer is not None
    assert table.authority.dealer.name == "Alice Martin"


def test_foreign_card_resumes_only_with_supervisor(tmp_path: Path) -> None:
    path = tmp_path / "auth.toml"
    path.write_text(AUTH_CONFIG, encoding="utf-8")
    table = Table(load_config(path, environ={"CROUPIER_TABLE_DECKS": "1"}))
    table.start()
    feed(table, f"@badge {DEALER} @shoe AS AS")
    misdeal = table.misdeal
    assert misdeal is not None and misdeal.kind == "foreign_card"
    assert misdeal.supervisor == ("void",)
    events = feed(table, "@void")
    assert every(events, ApprovalRequiredEvent)[0]["action"] == "foreign_card"


def test_burn_needs_no_approval(table: Table) -> None:
    feed(table, f"@badge {DEALER} @shoe 3S ??")
    events = feed(table, "@burn")
    assert every(events, ResolvedEvent)[0]["resolution"] == "burn"
    assert events[-1]["event"] == "prompt"


def test_manual_entry_needs_a_supervisor(table: Table) -> None:
    feed(table, f"@badge {DEALER} @shoe 3S ??")
    events = feed(table, f"@manual 9C @badge {SUPERVISOR}")
    card = every(events, CardEvent)[0]
    assert card["card"] == "9C" and card["manual"] is True
    assert every(events, ResolvedEvent)[0]["approved_by"] == "Bob Stone"


def test_closing_the_shoe_early_needs_a_supervisor(table: Table) -> None:
    feed(table, f"@badge {DEALER} @shoe 3S KD 5H 9C")
    events = feed(table, "@close")
    assert every(events, ApprovalRequiredEvent)[0]["action"] == "close_shoe"
    events = feed(table, f"@badge {SUPERVISOR}")
    assert every(events, ShoeClosingEvent)[0]["approved_by"] == "Bob Stone"
    assert every(events, ShoeClosedEvent)[0]["rounds"] == 1
    assert table.state is State.SHOE_CLOSED


def test_without_auth_close_is_immediate_and_supervisor_marks_are_default() -> None:
    t = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}}))
    t.start()
    events = feed(t, "@shoe 3S KD 5H 9C @close")
    assert every(events, ShoeClosedEvent)
    feed(t, "@shoe 3S ??")
    assert t.misdeal is not None and t.misdeal.supervisor == ("manual", "void")


def test_taking_a_supervisor_badge_off_keeps_the_dealer_signed_in(table: Table) -> None:
    feed(table, f"@badge {DEALER} @shoe 3S @double @void @badge {SUPERVISOR}")
    assert table.state is State.ROUND_OVER
    events = table.handle(Input(InputKind.BADGE_REMOVED, SUPERVISOR))
    assert not every(events, DealerSignedOutEvent)
    assert table.authority is not None and table.authority.dealer is not None
    events = table.handle(Input(InputKind.BADGE_REMOVED, DEALER))
    assert every(events, DealerSignedOutEvent)[0]["name"] == "Alice Martin"


def test_a_supervisor_dealing_cannot_approve_their_own_void(tmp_path: Path) -> None:
    second = "04C0C0C0C0C0C0"
    path = tmp_path / "auth.toml"
    path.write_text(AUTH_CONFIG + f'\n[auth.badges.{second}]\nname = "Carol Reed"\nrole = "supervisor"\n',
                    encoding="utf-8")
    table = Table(load_config(path, environ={}))
    table.start()
    feed(table, f"@badge {SUPERVISOR} @shoe 3S ?? @void")
    assert table.pending_approval is not None
    events = feed(table, f"@badge {SUPERVISOR}")
    refused = every(events, ApprovalRefusedEvent)[0]
    assert refused["rule"] == "two_person" and refused["action"] == "void"
    assert "Bob Stone is the dealer signed in and cannot approve their own void" in refused["reason"]
    assert not every(events, ApprovalEvent) and not every(events, RoundVoidedEvent)
    assert table.state is State.HALTED and table.pending_approval is not None
    assert expect(events[-1], InstructionEvent)["action"] == "approval"
    events = feed(table, f"@badge {second}")
    assert every(events, ResolvedEvent)[0]["approved_by"] == "Carol Reed"
    assert every(events, RoundVoidedEvent)
    assert table.state is State.ROUND_OVER  # type: ignore[comparison-overlap]  # mypy keeps "is HALTED" past feed()


def test_two_person_false_lets_the_dealer_approve(tmp_path: Path) -> None:
    path = tmp_path / "auth.toml"
    path.write_text(AUTH_CONFIG.replace("[auth]\n", "[auth]\ntwo_person = false\n"), encoding="utf-8")
    table = Table(load_config(path, environ={}))
    table.start()
    events = feed(table, f"@badge {SUPERVISOR} @shoe 3S ?? @void @badge {SUPERVISOR}")
    assert every(events, ResolvedEvent)[0]["approved_by"] == "Bob Stone"

"""Misdeals, resolutions, burn and cut card through the table core."""

from __future__ import annotations

from typing import Any

import pytest

from config.loader import load_config
from controller.core.events import (
    BurnEvent,
    CardEvent,
    CutCardEvent,
    Event,
    MisdealEvent,
    PromptEvent,
    RejectedEvent,
    ResolvedEvent,
    ResultEvent,
    RoundVoidedEvent,
    ShoeClosedEvent,
    ShoeEvent,
    decode_event,
)
from controller.core.inputs import Input, InputKind, card_read, parse_tokens
from controller.core.machine import State
from controller.core.table import Table
from tests.tokens import dealt
from tests.typed_events import every, expect


def table(**overrides: dict[str, Any]) -> Table:
    sections: dict[str, dict[str, Any]] = {"shoe": {"burn": "none"}}
    for section, values in overrides.items():
        sections.setdefault(section, {}).update(values)
    return Table(load_config(overrides=sections))


def play(t: Table, tokens: str, confirm: bool = True) -> list[Event]:
    return dealt(tokens, t, confirm)


def test_every_call_ends_with_what_the_dealer_does_next() -> None:
    t = table()
    calls = [t.start(), t.handle(Input(InputKind.SHOE))]
    for item in parse_tokens("3S KD 5H 9C ?? @burn 4H @next 1X @manual 2D"):
        calls.append(t.handle(item))
    for events in calls:
        assert events[-1]["event"] in ("prompt", "instruction"), events


def test_extra_card_after_round_halts_until_burned() -> None:
    t = table(simulation={"auto_next": False})
    events = play(t, "3S KD 5H 9C 5H")
    misdeal = every(events, MisdealEvent)[-1]
    assert misdeal["kind"] == "extra_card"
    assert misdeal["card"] == "5H"
    assert misdeal["round"] == 2, "a card before the next round started belongs to that round"
    assert misdeal["resolutions"] == ["burn", "void"]
    assert "burn" in misdeal["instruction"]
    assert t.state is State.HALTED
    rejected = t.handle(Input(InputKind.NEXT))
    assert rejected[0]["event"] == "rejected"
    assert "@burn" in rejected[0]["reason"]
    assert t.state is State.HALTED
    resolved = t.handle(Input(InputKind.BURN))
    assert resolved[0] == decode_event({"event": "resolved", "round": 2, "kind": "extra_card", "resolution": "burn",
                           "cards": ["5H"]})
    assert t.state is State.ROUND_OVER  # type: ignore[comparison-overlap]  # mypy keeps "is HALTED" past handle()
    assert expect(t.handle(Input(InputKind.NEXT))[-1], PromptEvent)["slot"] == "P1"


def test_unreadable_card_burn_keeps_the_slot_due() -> None:
    t = table()
    events = play(t, "3S ??")
    misdeal = every(events, MisdealEvent)[0]
    assert misdeal["kind"] == "unreadable_card"
    assert misdeal["card"] is None
    assert "B1" in misdeal["detail"]
    events = t.handle(Input(InputKind.BURN))
    assert events[-1]["event"] == "prompt" and events[-1]["slot"] == "B1"
    events = t.handle(parse_tokens("KD")[0])
    assert every(events, CardEvent)[0]["slot"] == "B1"


def test_unreadable_card_entered_by_hand_is_marked_manual() -> None:
    t = table()
    events = play(t, "3S ?? @manual 9c 5H 9D")
    card = next(e for e in every(events, CardEvent) if e["slot"] == "B1")
    assert card == decode_event({"event": "card", "round": 1, "slot": "B1", "card": "9C", "manual": True})
    result = every(events, ResultEvent)[0]
    assert result["manual"] == ["B1"]
    assert result["banker"]["cards"] == ["9C", "9D"]


def test_manual_entry_of_a_non_card_is_rejected_and_the_table_stays_halted() -> None:
    t = table()
    play(t, "3S ??")
    events = t.handle(Input(InputKind.MANUAL, "ZZ"))
    assert events[0]["event"] == "rejected"
    assert "'ZZ' is not a card" in events[0]["reason"]
    assert t.state is State.HALTED


def test_unknown_card_code_is_a_misdeal_naming_the_code() -> None:
    t = table()
    events = play(t, "3S 1X")
    misdeal = every(events, MisdealEvent)[0]
    assert misdeal["kind"] == "unknown_card"
    assert misdeal["card"] == "1X"
    assert "'1X' is not a card" in misdeal["detail"]


def test_foreign_card_only_void_resolves_it_and_bets_are_returned() -> None:
    t = table(table={"decks": 1})
    events = play(t, "AS AS")
    misdeal = every(events, MisdealEvent)[0]
    assert misdeal["kind"] == "foreign_card"
    assert misdeal["resolutions"] == ["void"]
    assert misdeal["supervisor"] == ["void"]
    assert t.handle(Input(InputKind.BURN))[0]["event"] == "rejected"
    events = t.handle(Input(InputKind.VOID))
    assert every(events, ResolvedEvent)[0]["resolution"] == "void"
    voided = every(events, RoundVoidedEvent)[0]
    assert voided == decode_event({"event": "round_voided", "round": 1, "cards": ["AS"], "bets": "returned"})
    assert t.state is State.ROUND_OVER
    assert t.foreign == ["AS"]
    assert t.inventory["AS"] == 1


def test_card_while_halted_is_recorded_not_dropped() -> None:
    t = table()
    play(t, "3S ??")
    events = t.handle(parse_tokens("4H")[0])
    assert every(events, MisdealEvent)[0]["kind"] == "extra_card"
    assert t.state is State.HALTED
    events = t.handle(Input(InputKind.BURN))
    assert every(events, ResolvedEvent)[0]["cards"] == ["??", "4H"]
    assert expect(events[-1], PromptEvent)["slot"] == "B1"
    assert t.discarded == ["??", "4H"] and t.unidentified == 1


def test_exposed_card_burned_reopens_its_slot() -> None:
    t = table()
    events = play(t, "3S 5H @exposed")
    misdeal = every(events, MisdealEvent)[0]
    assert misdeal["kind"] == "exposed_card" and misdeal["card"] == "5H"
    assert misdeal["resolutions"][0] == "burn"
    events = t.handle(Input(InputKind.BURN))
    assert expect(events[-1], PromptEvent)["slot"] == "B1"
    events = t.handle(parse_tokens("KD")[0]) + t.handle(parse_tokens("4C")[0]) + t.handle(parse_tokens("9C")[0])
    result = every(events, ResultEvent)[0]
    assert result["banker"]["cards"] == ["KD", "9C"]
    assert "5H" in t.discarded


def test_exposed_card_used_when_the_house_allows() -> None:
    t = table(procedures={"exposed_card": "use"})
    events = play(t, "3S 5H @exposed")
    assert every(events, MisdealEvent)[0]["resolutions"][0] == "use"
    events = t.handle(Input(InputKind.USE))
    assert every(events, CardEvent)[0] == decode_event({"event": "card", "round": 1, "slot": "B1", "card": "5H"})
    assert expect(events[-1], PromptEvent)["slot"] == "P2"


def test_exposed_after_the_round_is_settled_is_refused() -> None:
    t = table(simulation={"auto_next": False})
    play(t, "3S KD 5H 9C")
    events = t.handle(Input(InputKind.EXPOSED))
    assert events[0]["event"] == "rejected"
    assert t.state is State.ROUND_OVER


def test_reader_offline_mid_round_resumes_with_nothing_lost() -> None:
    t = table()
    events = play(t, "3S @offline")
    assert every(events, MisdealEvent)[0]["kind"] == "reader_offline"
    assert t.handle(Input(InputKind.NEXT))[0]["event"] == "rejected"
    events = t.handle(Input(InputKind.ONLINE))
    assert expect(events[-1], PromptEvent)["slot"] == "B1"
    events = t.handle(parse_tokens("5H")[0])
    assert every(events, CardEvent)[0]["slot"] == "B1"


def test_two_cards_out_together_voids_the_round() -> None:
    t = table()
    events = play(t, "3S @double")
    misdeal = every(events, MisdealEvent)[0]
    assert misdeal["kind"] == "two_cards" and misdeal["resolutions"] == ["void"]
    events = t.handle(Input(InputKind.VOID))
    assert every(events, RoundVoidedEvent)[0]["cards"] == ["3S"]


def test_first_card_burn_turns_and_burns_its_value_with_tens_as_ten() -> None:
    t = Table(load_config())
    events = play(t, "KH 2C 7D 4S 9H 6C QD 8S 3H TC JD 9S")
    burns = every(events, BurnEvent)
    assert burns[0] == decode_event({"event": "burn", "card": "KH", "turned": True, "burn": 10})
    assert len(burns) == 11
    assert every(events, CardEvent)[0]["slot"] == "P1"


def test_fixed_burn() -> None:
    t = table(shoe={"burn": "fixed", "burn_cards": 2})
    events = play(t, "2C 3C 9S")
    assert [b["card"] for b in every(events, BurnEvent)] == ["2C", "3C"]
    assert every(events, CardEvent)[0] == decode_event({"event": "card", "round": 1, "slot": "P1", "card": "9S"})


def test_card_before_shoe_confirmed_is_extra() -> None:
    t = table()
    events = play(t, "9S", confirm=False)
    assert every(events, MisdealEvent)[0]["kind"] == "extra_card"


NATURAL = "9S 8H KD 2C"


@pytest.mark.parametrize("option, rounds", [("one_more", 2), ("this_round", 1)])
def test_cut_card_mid_round_finishes_round_then_applies_option(option: str, rounds: int) -> None:
    t = table(shoe={"cut_card": option})
    events = play(t, "9S 8H @cut KD 2C @next " + " @next ".join([NATURAL] * 3))
    assert len(every(events, CutCardEvent)) == 1
    assert len(every(events, ResultEvent)) == rounds
    closed = every(events, ShoeClosedEvent)
    assert len(closed) == 1 and closed[0]["rounds"] == rounds
    misdeal = every(events, MisdealEvent)[0]
    assert misdeal["kind"] == "card_after_shoe_closed"


def test_cut_card_before_first_card_of_a_round_counts_that_round() -> None:
    t = table(shoe={"cut_card": "this_round"})
    events = play(t, NATURAL + " @next @cut " + NATURAL)
    assert len(every(events, ResultEvent)) == 2
    assert len(every(events, ShoeClosedEvent)) == 1


def test_shoe_report_accounts_for_every_card() -> None:
    t = table(shoe={"cut_card": "this_round", "burn": "fixed", "burn_cards": 1},
              table={"decks": 1})
    events = play(t, "7D " + NATURAL + " @next 3S @cut ?? @burn 5H 4H 2D")
    report = every(events, ShoeClosedEvent)[0]
    assert report["burned"] == 1
    assert report["cards_seen"] == 1 + 4 + 1 + 4, "the unreadable card burned left the shoe too"
    assert report["cards_remaining"] == 52 - 10
    assert report["unidentified"] == 1
    assert report["burned"] + report["dealt"] + report["discarded"] == report["cards_seen"]
    assert report["misdeals"] == 1
    assert report["rounds"] == 2


def test_new_shoe_after_close_resets_inventory() -> None:
    t = table(shoe={"cut_card": "this_round"}, table={"decks": 1})
    play(t, "@cut " + NATURAL)
    assert t.state is State.SHOE_CLOSED
    events = t.handle(Input(InputKind.SHOE))
    assert every(events, ShoeEvent)[0]["shoe"] == 2
    events = t.handle(parse_tokens("9S")[0])
    assert every(events, CardEvent)[0]["card"] == "9S"
    assert t.inventory["9S"] == 1


def test_replaying_inputs_gives_the_same_events() -> None:
    tokens = "3S ?? @manual 9c 5H 9D 4C @exposed @burn 4C 2H @offline @online 6C 7C"
    first, second = table(), table()
    assert play(first, tokens) == play(second, tokens)


def test_non_ascii_lookalike_is_not_a_card() -> None:
    t = table()
    events = play(t, "Aſ")
    assert every(events, MisdealEvent)[0]["kind"] == "unknown_card"


@pytest.mark.parametrize("text, expected", [
    ("@count", [Input(InputKind.COUNT)]),
    ("@count 312", [Input(InputKind.COUNT, "312")]),
    ("@COUNT 0 9S", [Input(InputKind.COUNT, "0"), card_read("9S")]),
    ("@count 7H", [Input(InputKind.COUNT), card_read("7H")]),
    ("@count ²", [Input(InputKind.COUNT), card_read("²")]),  # '²' is a digit to str.isdigit(), no number to int()
])
def test_count_tokens(text: str, expected: list[Input]) -> None:
    """``@count`` confirms the count the table shows; a whole number right after it is the count keyed, never a card."""
    assert parse_tokens(text) == expected
    assert " ".join(item.token() for item in expected).lower() == text.lower()


@pytest.mark.parametrize("keyed", ["²", "3²", "¹²"])
def test_a_count_keyed_in_digit_signs_that_are_no_number_is_rejected_not_a_crash(keyed: str) -> None:
    """An Input(COUNT, '²') (the plain console's 'k ²', a journal or a plugin) raised ValueError out of the table:
    the live table stopped with a traceback. It is rejected as any count that is no number."""
    t = table(procedures={"count_every": 1})
    play(t, "9S 8H KD 2C")
    events = t.handle(Input(InputKind.COUNT, keyed))
    (refused,) = every(events, RejectedEvent)
    assert refused["reason"] == f"{keyed!r} is not a count: key the number of cards in the stub, e.g. @count 312"
    assert t.stub_count_due
    counted = t.handle(Input(InputKind.COUNT, str(8 * 52 - 4)))
    assert not every(counted, RejectedEvent) and not t.stub_count_due


def test_a_reveal_total_in_digit_signs_that_are_no_number_is_no_total_not_a_crash() -> None:
    t = table(table={"dealing": "face_down", "reveal_confirm": "total"})
    play(t, "9S 8H KD 2C")
    events = t.handle(Input(InputKind.REVEAL, "²"))
    assert every(events, RejectedEvent), events

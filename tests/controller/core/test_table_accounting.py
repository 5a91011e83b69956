"""Every card that leaves the shoe is accounted for, whatever misdeals and resolutions happen."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from config.loader import load_config
from controller.core.cards import full_deck
from controller.core.events import CardEvent, Event, PromptEvent, decode_event
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.machine import State
from controller.core.table import FOREIGN, Table
from tests.inprocess import croupier_in_process
from tests.tokens import feed
from tests.typed_events import expect, plain


def table(decks: int = 1, **shoe: Any) -> Table:
    t = Table(load_config(environ={}, overrides={"table": {"decks": decks}, "shoe": {"burn": "none", **shoe}}))
    t.start()
    return t


def physically_out(t: Table) -> int:
    """Cards of the shoe that left it, by where they are now: burned, in hands, set aside, or held."""
    held = 0
    if t.misdeal is not None:
        held = sum(1 for _, status in t.misdeal.held if status != FOREIGN) + (t.misdeal.exposed is not None)
    return len(t.burned) + t.dealt + len(t.discarded) + held


def identified_pending(t: Table) -> int:
    if t.misdeal is None:
        return 0
    return sum(1 for _, status in t.misdeal.held if status == "unidentified")


TOKENS = ["AS", "2H", "3D", "4C", "5S", "6H", "7D", "8C", "9S", "TH", "JD", "QC", "KS", "ZZ", "??",
          "@double", "@exposed", "@burn", "@void", "@use", "@manual 7H", "@manual 2C", "@offline", "@online",
          "@next", "@cut", "@shoe"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=60), st.sampled_from(["none", "fixed", "first_card"]))
def test_cards_out_of_the_shoe_always_add_up(tokens: list[str], burn: str) -> None:
    t = table(decks=2, burn=burn)
    t.handle(Input(InputKind.SHOE))
    for token in tokens:
        for item in parse_tokens(token):
            t.handle(item)
            assert physically_out(t) == t.cards_seen + identified_pending(t), token
            assert t.cards_seen <= 104


def test_manual_use_and_online_set_aside_the_cards_read_while_halted() -> None:
    for tokens in ("?? 5H @manual 2C 3C 4C 5C", "2C 3C @exposed 9D @use 4C 5C", "2C @offline 9D @online 3C 4C 5C"):
        t = table()
        events = feed(t, "@shoe " + tokens)
        assert physically_out(t) == t.cards_seen, tokens
        resolved = next(e for e in events if e["event"] == "resolved")
        assert "9D" in resolved["cards"] or "5H" in resolved["cards"], tokens


def test_unknown_and_foreign_cards_in_the_report() -> None:
    t = table(cut_card="this_round")
    feed(t, "@shoe 2C XX @void @next AS AS @void @next @cut 3H 4H 5H 6H")
    report = t.misdeal is None and t.state is State.SHOE_CLOSED
    assert report
    assert t.foreign == ["AS"]
    assert t.unidentified == 1
    assert len(t.burned) + t.dealt + len(t.discarded) == t.cards_seen == 7


def test_a_foreign_copy_names_the_shoe_right_for_every_deck_count() -> None:
    """'AS would be copy 9 of AS in a 8-deck shoe': the detail reads right for one deck and for eight; the message
    id and its parameters, which the journal keeps, stay as they were."""
    for decks in range(1, 9):
        t = table(decks)
        feed(t, "@shoe")
        misdeals: list[Event] = []
        while not misdeals:
            events = feed(t, "AS")
            misdeals = [e for e in events if e["event"] == "misdeal"]
            if any(e["event"] == "result" for e in events):
                feed(t, "@next")
        (misdeal,) = misdeals
        assert misdeal["kind"] == "foreign_card"
        assert misdeal["detail"] == f"AS would be copy {decks + 1} of AS in the {decks}-deck shoe, which holds {decks}"
        assert (misdeal["say_id"], misdeal["say_params"]) == (
            "misdeal.foreign_copy", {"card": "AS", "copy": decks + 1, "decks": decks})


def test_extra_card_void_voids_the_round_it_was_dealt_for() -> None:
    t = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}, "procedures": {"extra_card": "void"}}))
    t.start()
    feed(t, "@shoe 3S KD 5H 9C")
    events = feed(t, "4D")
    misdeal = next(e for e in events if e["event"] == "misdeal")
    assert misdeal["round"] == 2 and misdeal["resolutions"][0] == "void"
    events = feed(t, "@void")
    assert plain(next(e for e in events if e["event"] == "round_voided")) == {
        "event": "round_voided", "round": 2, "cards": [], "bets": "returned"}
    assert t.state is State.ROUND_OVER
    events = feed(t, "@next")
    prompt = expect(events[-1], PromptEvent)
    assert prompt["round"] == 3 and prompt["slot"] == "P1"
    assert "4D" in t.discarded


def test_an_unreadable_burn_card_is_burned_and_counts() -> None:
    t = table(decks=8, burn="fixed", burn_cards=3)
    events = feed(t, "@shoe 2C ?? 3C 9S")
    burns = [e for e in events if e["event"] == "burn"]
    assert [b["card"] for b in burns] == ["2C", None, "3C"]
    assert not [e for e in events if e["event"] == "misdeal"]
    assert next(e for e in events if e["event"] == "card")["card"] == "9S"
    assert t.unidentified == 1 and t.cards_seen == 4


def test_an_unreadable_turned_card_needs_its_value() -> None:
    t = table(decks=8, burn="first_card")
    events = feed(t, "@shoe ?? @manual 2C 3C 4C 9S")
    assert [e["card"] for e in events if e["event"] == "burn"] == ["2C", "3C", "4C"]
    assert next(e for e in events if e["event"] == "card")["card"] == "9S"


def test_exposed_card_burned_is_named_in_the_resolution() -> None:
    t = table(decks=8)
    events = feed(t, "@shoe 2C 3C @exposed @burn")
    assert next(e for e in events if e["event"] == "resolved")["cards"] == ["3C"]


def test_a_hand_entered_card_stays_manual_when_exposed_and_used() -> None:
    t = table(decks=8)
    events = feed(t, "@shoe 2C 3C ?? @manual 4C @exposed @use 5C")
    result = next(e for e in events if e["event"] == "result")
    assert result["manual"] == ["P2"]


def test_two_cards_while_halted_are_recorded() -> None:
    t = table(decks=8)
    feed(t, "@shoe 2C ??")
    events = feed(t, "@double")
    assert next(e for e in events if e["event"] == "misdeal")["kind"] == "two_cards"
    events = feed(t, "@burn")
    assert next(e for e in events if e["event"] == "resolved")["cards"] == ["??", "??", "??"]
    assert t.unidentified == 3


def test_a_lapsed_approval_is_cancelled(tmp_path: Path) -> None:
    path = tmp_path / "auth.toml"
    path.write_text('[shoe]\nburn = "none"\n[auth]\nenabled = true\nreader = "pcsc://?reader=R"\n'
                    '[auth.badges.04A1]\nname = "Alice"\nrole = "dealer"\n'
                    '[auth.badges.04B2]\nname = "Bob"\nrole = "supervisor"\n', encoding="utf-8")
    t = Table(load_config(path, environ={}))
    t.start()
    feed(t, "@badge 04A1 @shoe 3S @offline @void")
    assert t.pending_approval is not None
    events = feed(t, "@online")
    assert next(e for e in events if e["event"] == "approval_cancelled")["action"] == "void"
    assert events[-1]["event"] == "prompt"
    events = feed(t, "?? @badge 04B2")
    assert not [e for e in events if e["event"] in ("round_voided", "approval")]
    assert t.misdeal is not None and t.misdeal.kind == "unreadable_card"


def test_foreign_card_with_no_dealer_is_a_foreign_card(tmp_path: Path) -> None:
    path = tmp_path / "auth.toml"
    path.write_text('[table]\ndecks = 1\n[shoe]\nburn = "none"\n[auth]\nenabled = true\nreader = "pcsc://?reader=R"\n'
                    '[auth.badges.04A1]\nname = "Alice"\nrole = "dealer"\n', encoding="utf-8")
    t = Table(load_config(path, environ={}))
    t.start()
    feed(t, "@badge 04A1 @shoe AS @badge_removed")
    events = feed(t, "AS")
    assert next(e for e in events if e["event"] == "misdeal")["kind"] == "foreign_card"
    assert t.foreign == ["AS"]


def test_two_cards_that_halt_the_table_are_counted() -> None:
    t = table(decks=1)
    feed(t, "@shoe 3S KD")
    events = feed(t, "@double @void")
    assert next(e for e in events if e["event"] == "resolved")["cards"] == ["??", "??"]
    assert t.unidentified == 2 and t.cards_seen == 4


def test_an_unread_card_beyond_the_shoes_size_is_not_the_shoes() -> None:
    t = table(decks=1)
    codes = [f"{rank}{suit}" for suit in "SHDC" for rank in "A23456789TJQK"]
    t.handle(Input(InputKind.SHOE))
    for code in codes:
        t.handle(Input(InputKind.CARD, code))
        if t.state is State.ROUND_OVER:
            t.handle(Input(InputKind.NEXT))
    assert t.cards_seen == 52
    feed(t, "?? @burn")
    assert t.cards_seen == 52 and t.cards_left == 0
    assert t.foreign == ["??"]


def test_an_unreadable_turned_burn_card_is_named_as_such() -> None:
    t = table(decks=8, burn="first_card")
    events = feed(t, "@shoe ??")
    assert next(e for e in events if e["event"] == "misdeal")["detail"] == \
        "the reader could not read the turned burn card"


def test_a_card_placed_by_a_resolution_is_prompted_again() -> None:
    for tokens in ("2C ?? @manual 3C", "2C 3C @exposed @use"):
        t = table(decks=8)
        events = feed(t, "@shoe " + tokens)
        card = max(i for i, e in enumerate(events) if e["event"] == "card")
        prompt, placed = events[card - 1], expect(events[card], CardEvent)
        assert prompt["event"] == "prompt" and prompt["slot"] == placed["slot"]


def in_rounds(order: list[str]) -> str:
    """``order`` as a script: ``@next`` wherever a round is over (no burn, nothing unread)."""
    dealt = table(decks=1)
    feed(dealt, "@shoe")
    tokens = []
    for code in order:
        if "next" in dealt.view.accepts:
            tokens.append("@next")
            feed(dealt, "@next")
        tokens.append(code)
        feed(dealt, code)
    return " ".join(tokens)


ONE_DECK = [card.code for card in full_deck()]
random.Random(2026).shuffle(ONE_DECK)
ONE_DECK_IN_ROUNDS = in_rounds(ONE_DECK)
"""All 52 cards of one shuffled deck, with ``@next`` wherever a round is over (no burn, nothing unread)."""


def simulate_one_deck(cards: str) -> list[Event]:
    done = croupier_in_process("simulate", "--decks", "1", "--no-burn", "--manual-next", "--json", "--cards", cards)
    assert done.returncode in (0, 3, 4), done.stderr
    return [decode_event(json.loads(line)) for line in done.stdout.splitlines()]


def test_no_card_is_dealt_once_every_card_has_left_the_shoe_read_or_not() -> None:
    for unread, last_of_shoe, after in (("?? @burn", ONE_DECK[50], ONE_DECK[51]),
                                        ("@double @void @next", ONE_DECK[49], ONE_DECK[50])):
        cards = ONE_DECK_IN_ROUNDS[:ONE_DECK_IN_ROUNDS.index(after) + 2]
        events = simulate_one_deck(f"{unread} {cards} @void @close")
        placed = [e["card"] for e in events if e["event"] == "card"]
        assert placed[-1] == last_of_shoe, unread
        misdeal = [e for e in events if e["event"] == "misdeal"][-1]
        assert (misdeal["kind"], misdeal["card"]) == ("foreign_card", after), unread
        assert after not in [c for e in events if e["event"] == "result"
                             for c in e["player"]["cards"] + e["banker"]["cards"]], unread
        report = next(e for e in events if e["event"] == "shoe_closed")
        assert (report["cards_seen"], report["cards_remaining"], report["foreign"]) == (52, 0, [after]), unread
        remaining = [value for e in events for key, value in e.items() if key == "cards_remaining"]
        assert all(isinstance(count, int) and count >= 0 for count in remaining), unread


def test_a_hand_entered_card_is_refused_once_every_card_has_left_the_shoe() -> None:
    t = table(decks=1)
    feed(t, "@shoe ?? @burn " + ONE_DECK_IN_ROUNDS.rsplit(" ", 1)[0])
    assert t.cards_seen == 52
    events = feed(t, f"?? @manual {ONE_DECK[51]}")
    assert [e["event"] for e in events if e["event"] == "rejected"] == ["rejected"]
    assert "all 52 cards of the shoe have already left it" in str(events)
    feed(t, "@burn")
    assert t.cards_seen == 52 and t.foreign == ["??"]

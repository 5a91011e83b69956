"""The short way of the most common step (controller/core/fastlane.py) gives exactly what the general step gives:
the same state and the same events, on random tables (every misdeal kind, alerts, badges off, face up or down)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from config.loader import load_config
from controller.core.events import encode_line
from controller.core.fastlane import dealt_card, started_round
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.snapshot import state_data
from controller.core.state import Context, TableState
from controller.core.step import general_step
from controller.core.table import Table
from tests.hypothesis_profile import examples

CODES = [rank + suit for rank in "A23456789TJQK" for suit in "SHDC"]
OTHER = ["??", "@double", "ZZ", "@exposed", "@burn", "@void", "@use", "@next", "@cut", "@offline", "@online",
         "@undo", "@reveal", "@close", "@shoe", "@manual 5H", "@ack A1"]


@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(20, 300), decks=st.sampled_from([1, 8]),
       dealing=st.sampled_from(["face_up", "face_up", "face_down"]), burn=st.sampled_from(["none", "first_card"]))
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_short_way_gives_what_the_general_step_gives(seed: int, steps: int, decks: int, dealing: str,
                                                         burn: str) -> None:
    rng = random.Random(seed)
    shoe = CODES * decks
    rng.shuffle(shoe)
    table = Table(load_config(environ={}, overrides={
        "table": {"decks": decks, "dealing": dealing}, "shoe": {"burn": burn}, "bets": {"live_edge": False}}))
    table.start()
    table.handle(parse_tokens("@shoe")[0])
    short = 0
    for _ in range(steps):
        token = shoe.pop() if shoe and rng.random() < 0.93 else rng.choice(OTHER)
        if rng.random() < 0.5 and "next" in table.view.accepts:
            token = "@next"  # as a dealer would, between rounds
        for item in parse_tokens(token):
            for short_way in (dealt_card, started_round):
                fast = short_way(table.value, item, table.context)
                general = general_step(table.value, item, table.context)
                if fast is not None:
                    short += 1
                    assert [encode_line(event) for event in fast[1]] == [encode_line(event) for event in general[1]]
                    assert state_data(fast[0]) == state_data(general[0])
                    assert fast[0] == general[0]
            table.handle(item)


def plain_shoe() -> Iterator[tuple[TableState, Context, Input]]:
    """A seeded 8-deck shoe's first 300 cards dealt without incident, the dealer starting each round: each input with
    the table's state it comes to."""
    rng = random.Random(7)
    shoe = CODES * 8
    rng.shuffle(shoe)
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}, "bets": {"live_edge": False}}))
    table.start()
    table.handle(parse_tokens("@shoe")[0])
    for code in shoe[:300]:
        for token in (["@next"] if "next" in table.view.accepts else []) + [code]:
            item = parse_tokens(token)[0]
            yield table.value, table.context, item
            table.handle(item)


def test_most_cards_of_a_plain_shoe_go_the_short_way() -> None:
    """The comparison above is not vacuous: a shoe dealt without incident takes the short way for most cards."""
    short = [dealt_card(state, item, context) is not None for state, context, item in plain_shoe()
             if item.kind is InputKind.CARD]
    assert sum(short) > len(short) // 2


def test_most_rounds_of_a_plain_shoe_start_the_short_way() -> None:
    """The comparison above is not vacuous for @next either: between rounds of a shoe dealt without incident, the
    next round starts the short way."""
    short = [started_round(state, item, context) is not None for state, context, item in plain_shoe()
             if item.kind is InputKind.NEXT]
    assert len(short) > 20 and all(short)

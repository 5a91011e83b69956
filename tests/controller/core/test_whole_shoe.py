"""Whole shoes through the runner: every card accounted for, none dealt twice."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from config.loader import load_config
from controller.app.runner import Runner
from controller.core.cards import full_deck
from controller.core.events import Event
from controller.core.inputs import parse_tokens
from controller.core.table import Table
from drivers.mock import MockShoe
from tests.hypothesis_profile import examples


def deal_shoe(order: list[str], cut_from_end: int, **shoe: Any) -> list[Event]:
    position = len(order) - cut_from_end
    tokens = [*order[:position], "@cut", *order[position:]]
    events: list[Event] = []
    table = Table(load_config(environ={}, overrides={"shoe": shoe}))
    source = MockShoe("mock://", inputs=parse_tokens(" ".join(tokens)))
    runner = Runner(table, source, events.extend)
    events.extend(table.start())
    runner.run()
    return events


@settings(max_examples=examples(40), deadline=None)
@given(order=st.permutations([c.code for _ in range(8) for c in full_deck()]),
       cut_from_end=st.integers(min_value=12, max_value=60),
       option=st.sampled_from(["one_more", "this_round"]))
def test_burn_plus_dealt_plus_remaining_is_416(order: list[str], cut_from_end: int, option: str) -> None:
    events = deal_shoe(order, cut_from_end, cut_card=option)
    assume(not [e for e in events if e["event"] == "alert" and e["severity"] == "critical"])  # a stopped table
    burned = [e["card"] for e in events if e["event"] == "burn"]
    dealt = [e["card"] for e in events if e["event"] == "card"]
    closed = [e for e in events if e["event"] == "shoe_closed"]
    assert len(closed) == 1, "the shoe must close after the cut card"
    report = closed[0]
    assert not [e for e in events if e["event"] == "misdeal"]
    assert len(burned) + len(dealt) + report["cards_remaining"] == 416
    assert report["burned"] == len(burned)
    assert report["cards_seen"] == len(burned) + len(dealt)
    # the cards taken are exactly the top of the shoe, in order: nothing skipped, doubled or reordered
    assert [*burned, *dealt] == order[:len(burned) + len(dealt)]
    counts = Counter([*burned, *dealt])
    assert max(counts.values()) <= 8
    assert report["inventory"] == dict(sorted(counts.items()))
    turned = burned[0]
    assert turned is not None, "every card of this shoe is readable"
    value = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}.get(turned[0]) or int(turned[0])
    assert len(burned) == 1 + value
    results = [e for e in events if e["event"] == "result"]
    assert report["rounds"] == len(results)
    cut_round = next(e for e in events if e["event"] == "cut_card")["last_round"]
    assert results[-1]["round"] == cut_round


def test_seeded_mock_whole_shoe_and_next_shoe_continue() -> None:
    events: list[Event] = []
    table = Table(load_config(environ={}))
    source = MockShoe("mock://?seed=9&decks=8")
    runner = Runner(table, source, events.extend, rounds=150, new_shoes=True)
    events.extend(table.start())
    assert runner.run() == 0
    shoes = [e for e in events if e["event"] == "shoe_closed"]
    assert len(shoes) == 1
    assert len([e for e in events if e["event"] == "result"]) == 150
    second_shoe_cards = [e["card"] for e in events if e["event"] in ("burn", "card")][
        shoes[0]["cards_seen"]:]
    assert table.inventory == Counter(second_shoe_cards)

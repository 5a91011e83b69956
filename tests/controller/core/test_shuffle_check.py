"""The unshuffled-shoe alert: catches new-deck order early, never fires on random shoes."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

from config.loader import load_config
from controller.core.cards import Card, full_deck
from controller.core.editions import EDITIONS
from controller.core.inputs import Input, InputKind, card_read
from controller.core.shuffle_check import ALERT_PROBABILITY, ShuffleMonitor, chernoff_tail, exact_tail
from controller.core.table import Table


def first_alert(cards: list[Card], decks: int, monitor: ShuffleMonitor | None = None) -> int | None:
    monitor = monitor or ShuffleMonitor(decks)
    seen: Counter[str] = Counter()
    for index, card in enumerate(cards):
        if monitor.observe(card, seen, index) is not None:
            return index
        seen[card.code] += 1
    return None


def test_exact_tail_matches_brute_force() -> None:
    probabilities = [0.1, 0.25, 0.5, 0.05]
    for hits in range(5):
        brute = Fraction(0)
        for outcome in product((0, 1), repeat=4):
            if sum(outcome) >= hits:
                weight = Fraction(1)
                for bit, p in zip(outcome, probabilities, strict=True):
                    weight *= Fraction(p) if bit else 1 - Fraction(p)
                brute += weight
        assert abs(exact_tail(probabilities, hits) - float(brute)) < 1e-12


def test_chernoff_bound_is_above_the_exact_tail() -> None:
    probabilities = [1 / 26] * 40
    for hits in range(3, 15):
        assert chernoff_tail(hits, sum(probabilities)) >= exact_tail(probabilities, hits)


def test_new_deck_order_alerts_within_the_first_five_cards() -> None:
    shoe = [card for _ in range(8) for card in full_deck()]
    index = first_alert(shoe, 8)
    assert index is not None and index <= 4


def test_descending_new_deck_order_alerts_too() -> None:
    shoe = list(reversed([card for _ in range(6) for card in full_deck()]))
    index = first_alert(shoe, 6)
    assert index is not None and index <= 4


def test_one_unshuffled_deck_inside_a_shuffled_shoe_is_caught() -> None:
    rest = [card for _ in range(7) for card in full_deck()]
    random.Random(5).shuffle(rest)
    shoe = rest[:100] + full_deck() + rest[100:]
    index = first_alert(shoe, 8)
    assert index is not None and 100 <= index < 152


@pytest.mark.slow
def test_no_false_alert_in_10000_random_shoes() -> None:
    deck = [card for _ in range(8) for card in full_deck()]
    lowest = 1.0
    for seed in range(10_000):
        shoe = deck[:]
        random.Random(seed).shuffle(shoe)
        monitor = ShuffleMonitor(8)
        assert first_alert(shoe, 8, monitor) is None, f"false alert on seed {seed}"
        lowest = min(lowest, monitor.lowest)
    assert ALERT_PROBABILITY <= lowest < 1.0


def test_table_emits_the_alert_before_the_first_round_ends() -> None:
    """A factory-order shoe: the alert comes in round 1, and the round goes no further (the table stops)."""
    table = Table(load_config(environ={}))
    events = table.start() + table.handle(Input(InputKind.SHOE))
    shoe = [card for _ in range(8) for card in full_deck()]
    for card in shoe[:20]:
        events += table.handle(card_read(card.code))
    alert = next(e for e in events if e["event"] == "alert")
    assert alert["kind"] == "unshuffled_shoe" and alert["round"] == 1
    assert alert["probability"] < ALERT_PROBABILITY
    after = events[events.index(alert):]
    assert not [e for e in after if e["event"] in ("card", "burn", "result")]
    assert [e for e in after if e["event"] == "rejected"]


def test_under_the_earlier_edition_the_round_ended_after_the_alert() -> None:
    table = Table(load_config(environ={}), EDITIONS[2])
    events = table.start() + table.handle(Input(InputKind.SHOE))
    shoe = [card for _ in range(8) for card in full_deck()]
    alert_at = result_at = None
    for card in shoe[:20]:
        events += table.handle(card_read(card.code))
        names = [e["event"] for e in events]
        if alert_at is None and "alert" in names:
            alert_at = len(events)
        if result_at is None and "result" in names:
            result_at = len(events)
            break
    assert alert_at is not None and result_at is not None and alert_at < result_at



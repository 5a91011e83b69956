"""The live edge's packed fast path against the reference enumeration (``bet_odds`` through
``position_weights``): every bet's value, exactly, for every deck count and many partial shoes."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.core.bets.exact import Shoe, ShoeTooShort, bet_odds, position_weights
from controller.core.bets.live import exact_text
from controller.core.bets.packed import default_evs, packed_position_weights

CODES = [rank + suit for rank in "A23456789TJQK" for suit in "SHDC"]


def reference_evs(shoe: Shoe) -> dict[str, str]:
    return {name: exact_text(odds.ev) for name, odds in bet_odds(shoe).items()}


def fast_evs(shoe: Shoe) -> dict[str, str]:
    return {name: exact_text(ev) for name, ev in default_evs(shoe).items()}


@pytest.mark.parametrize("decks", range(1, 9))
def test_fresh_shoes_match_the_reference_for_every_deck_count(decks: int) -> None:
    shoe = Shoe.of(decks)
    assert fast_evs(shoe) == reference_evs(shoe)
    assert packed_position_weights(list(shoe.values)) == position_weights(list(shoe.values))


def test_many_seeded_partial_shoes_match_the_reference_card_for_card() -> None:
    generator = random.Random(20261201)
    for _ in range(60):
        decks = generator.randint(1, 8)
        shoe_cards = [code for code in CODES for _ in range(decks)]
        gone = Counter(generator.sample(shoe_cards, generator.randint(0, len(shoe_cards) - 6)))
        shoe = Shoe.of(decks, gone)
        assert list(default_evs(shoe)) == list(bet_odds(shoe))
        assert fast_evs(shoe) == reference_evs(shoe), (decks, sorted(gone.items()))


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 8), st.lists(st.sampled_from(CODES), max_size=400))
def test_hypothesis_partial_shoes_match_the_reference(decks: int, seen: list[str]) -> None:
    shoe = Shoe.of(decks, Counter(seen))
    if shoe.size < 6:
        with pytest.raises(ShoeTooShort):
            default_evs(shoe)
        return
    assert fast_evs(shoe) == reference_evs(shoe)
    assert packed_position_weights(list(shoe.values)) == position_weights(list(shoe.values))


def test_a_shoe_too_large_for_the_narrow_lanes_is_still_exact() -> None:
    shoe = Shoe.of(40)
    assert fast_evs(shoe) == reference_evs(shoe)

"""The pure-Python packed position sums (the live edge's path where the compiled kernel cannot be loaded)
against the reference enumeration (``position_weights``): every deck count and many partial shoes."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.core.bets.exact import Shoe, position_weights
from controller.core.bets.packed import packed_position_weights

CODES = [rank + suit for rank in "A23456789TJQK" for suit in "SHDC"]


@pytest.mark.parametrize("decks", range(1, 9))
def test_fresh_shoes_match_the_reference_for_every_deck_count(decks: int) -> None:
    shoe = Shoe.of(decks)
    assert packed_position_weights(list(shoe.values)) == position_weights(list(shoe.values))


def test_many_seeded_partial_shoes_match_the_reference() -> None:
    generator = random.Random(20261201)
    for _ in range(60):
        decks = generator.randint(1, 8)
        shoe_cards = [code for code in CODES for _ in range(decks)]
        gone = Counter(generator.sample(shoe_cards, generator.randint(0, len(shoe_cards) - 6)))
        shoe = Shoe.of(decks, gone)
        assert packed_position_weights(list(shoe.values)) == position_weights(list(shoe.values)), decks


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 8), st.lists(st.sampled_from(CODES), max_size=400))
def test_hypothesis_partial_shoes_match_the_reference(decks: int, seen: list[str]) -> None:
    shoe = Shoe.of(decks, Counter(seen))
    if shoe.size >= 6:
        assert packed_position_weights(list(shoe.values)) == position_weights(list(shoe.values))


def test_a_shoe_too_large_for_the_narrow_lanes_is_still_exact() -> None:
    shoe = Shoe.of(40)
    assert packed_position_weights(list(shoe.values)) == position_weights(list(shoe.values))

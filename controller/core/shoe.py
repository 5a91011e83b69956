"""Seeded shoes: the same seed always gives the same shoes, in the mock and the emulator."""

from __future__ import annotations

import random

from config.schema import DEFAULT_CUT_FROM_END
from controller.core.cards import full_deck


def shuffled_shoe(seed: int, decks: int, shoe_index: int = 0) -> list[str]:
    """The card codes of shoe number ``shoe_index`` (0-based) for ``seed``, top first."""
    cards = [card.code for _ in range(decks) for card in full_deck()]
    random.Random(f"croupier:{seed}:{decks}:{shoe_index}").shuffle(cards)
    return cards


def shoe_with_cut_card(seed: int, decks: int, shoe_index: int = 0,
                       cut_from_end: int = DEFAULT_CUT_FROM_END) -> list[str]:
    """The reader tokens of a seeded shoe: its cards with ``@cut`` placed
    ``cut_from_end`` cards before the bottom."""
    cards = shuffled_shoe(seed, decks, shoe_index)
    position = max(0, len(cards) - cut_from_end)
    return [*cards[:position], "@cut", *cards[position:]]

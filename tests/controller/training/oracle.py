"""The drawing rules as a dealer learns them, written out independently of controller/core/rules.py,
so the drill's answers are checked against a second statement of the rules (N.J.A.C. 13:69F-3.9)."""

from __future__ import annotations

RANK_OF_VALUE = {0: "T", 1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9"}
VALUE_OF_RANK = {rank: value for value, rank in RANK_OF_VALUE.items()} | {"J": 0, "Q": 0, "K": 0}

BANKER_DRAWS_ON_THIRD = {
    0: set(range(10)),
    1: set(range(10)),
    2: set(range(10)),
    3: set(range(10)) - {8},
    4: {2, 3, 4, 5, 6, 7},
    5: {4, 5, 6, 7},
    6: {6, 7},
    7: set(),
}
"""Banker two-card total -> the player's third-card values on which the banker draws."""


def total(cards: list[str]) -> int:
    return sum(VALUE_OF_RANK[card[0]] for card in cards) % 10


def player_call(player: list[str], banker: list[str]) -> str:
    if total(player[:2]) >= 8 or total(banker[:2]) >= 8:
        return "natural"
    return "draw" if total(player[:2]) <= 5 else "stand"


def banker_call(banker: list[str], player_third: str | None) -> str:
    banker_total = total(banker[:2])
    if player_third is None:
        return "draw" if banker_total <= 5 else "stand"
    return "draw" if VALUE_OF_RANK[player_third[0]] in BANKER_DRAWS_ON_THIRD[banker_total] else "stand"


def winner(player: list[str], banker: list[str]) -> str:
    player_total, banker_total = total(player), total(banker)
    return "player" if player_total > banker_total else "banker" if banker_total > player_total else "tie"


def two_cards(value: int, suit: str) -> list[str]:
    """Two cards (not a pair) of two-card total ``value``."""
    if value == 0:
        return ["T" + suit, "K" + suit]
    if value == 1:
        return ["A" + suit, "Q" + suit]
    return ["A" + suit, RANK_OF_VALUE[value - 1] + suit]

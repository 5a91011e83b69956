"""Exact odds: published combination counts, seed 002's figures, and an independent enumerator."""

from __future__ import annotations

from fractions import Fraction
from math import perm

import pytest

from controller.core.odds import compute_odds

# Combination counts (ordered 6-card draws) published with Thorp's and the Wizard of Odds' tables.
PUBLISHED_COMBINATIONS = {
    8: {"banker": 2_292_252_566_437_888, "player": 2_230_518_282_592_256, "tie": 475_627_426_473_216},
    6: {"banker": 403_095_751_234_560, "player": 392_220_492_728_832, "tie": 83_552_962_932_288},
}
PUBLISHED_EDGES = {  # percent, 5% commission, tie 8:1
    8: {"banker": 1.0579, "player": 1.2351, "tie": 14.3596},
    6: {"banker": 1.0558, "player": 1.2374, "tie": 14.4382},
}


@pytest.mark.parametrize("decks", sorted(PUBLISHED_COMBINATIONS))
def test_published_combination_counts(decks: int) -> None:
    odds = compute_odds(decks)
    total = perm(52 * decks, 6)
    for outcome, count in PUBLISHED_COMBINATIONS[decks].items():
        assert getattr(odds, outcome) == Fraction(count, total)


@pytest.mark.parametrize("decks", sorted(PUBLISHED_EDGES))
def test_published_house_edges(decks: int) -> None:
    odds = compute_odds(decks)
    for bet, percent in PUBLISHED_EDGES[decks].items():
        assert round(float(odds.house_edge(bet)) * 100, 4) == percent


def test_issue_figures_for_eight_decks() -> None:
    odds = compute_odds(8)
    assert round(float(odds.banker), 6) == 0.458597
    assert round(float(odds.player), 6) == 0.446247
    assert round(float(odds.tie), 6) == 0.095156
    assert odds.player_pair == odds.banker_pair == Fraction(31, 415)


def test_seed_002_eight_deck_frequencies() -> None:
    odds = compute_odds(8)
    assert round(float(odds.natural) * 100, 1) == 34.3
    assert round(float(odds.player_draws) * 100, 1) == 50.3
    assert round(float(odds.banker_draws) * 100, 1) == 43.5
    assert [round(float(x) * 100, 2) for x in (odds.banker, odds.player, odds.tie)] == [45.86, 44.62, 9.52]
    assert round(float(odds.player_pair) * 100, 2) == 7.47


def test_probabilities_add_up_for_every_deck_count() -> None:
    for decks in range(1, 9):
        odds = compute_odds(decks)
        assert odds.banker + odds.player + odds.tie == 1
        assert 0 < odds.banker_wins_with_six < odds.banker
        assert odds.player_pair == Fraction(4 * decks - 1, 52 * decks - 1)


def test_no_commission_edge_uses_the_banker_six_rule() -> None:
    odds = compute_odds(8)
    expected = odds.player - (odds.banker - odds.banker_wins_with_six) - odds.banker_wins_with_six / 2
    assert odds.house_edge("banker", "no_commission") == expected
    assert round(float(expected) * 100, 4) == 1.4581


def test_a_banker_these_probabilities_cannot_price_is_refused_not_priced_as_another() -> None:
    with pytest.raises(ValueError, match="'ez'"):  # its three-card 7 push is not among them
        compute_odds(8).house_edge("banker", "ez")


def _value(rank: int) -> int:
    return rank if rank < 10 else 0


def _banker_takes(banker: int, third: int | None) -> bool:
    if third is None:
        return banker <= 5
    return {0: True, 1: True, 2: True, 3: third != 8, 4: 2 <= third <= 7, 5: 4 <= third <= 7,
            6: third in (6, 7), 7: False}[banker]


class _RankEnumeration:
    """A second enumerator, written from seed 003's wording, over the 13 ranks rather than values."""

    def __init__(self, decks: int) -> None:
        self.counts = {rank: 4 * decks for rank in range(1, 14)}
        self.wins = {"banker": 0, "player": 0, "tie": 0}

    def draw(self, depth: int, weight: int, hands: tuple[list[int], list[int]]) -> None:
        counts = self.counts
        player, banker = hands
        if depth < 4:
            for rank in range(1, 14):
                if counts[rank]:
                    w = weight * counts[rank]
                    counts[rank] -= 1
                    (player if depth % 2 == 0 else banker).append(_value(rank))
                    self.draw(depth + 1, w, hands)
                    (player if depth % 2 == 0 else banker).pop()
                    counts[rank] += 1
            return
        p, b = sum(player[:2]) % 10, sum(banker[:2]) % 10
        remaining = sum(counts.values())
        if p >= 8 or b >= 8:
            self.finish(p, b, weight * remaining * (remaining - 1))
            return
        if p <= 5:
            self.player_draws(p, b, weight, remaining)
        elif _banker_takes(b, None):
            for rank2 in range(1, 14):
                if counts[rank2]:
                    self.finish(p, (b + _value(rank2)) % 10, weight * counts[rank2] * (remaining - 1))
        else:
            self.finish(p, b, weight * remaining * (remaining - 1))

    def player_draws(self, p: int, b: int, weight: int, remaining: int) -> None:
        counts = self.counts
        for rank in range(1, 14):
            if not counts[rank]:
                continue
            third = _value(rank)
            w = weight * counts[rank]
            counts[rank] -= 1
            pf = (p + third) % 10
            if _banker_takes(b, third):
                for rank2 in range(1, 14):
                    if counts[rank2]:
                        self.finish(pf, (b + _value(rank2)) % 10, w * counts[rank2])
            else:
                self.finish(pf, b, w * (remaining - 1))
            counts[rank] += 1

    def finish(self, p: int, b: int, weight: int) -> None:
        self.wins["player" if p > b else "banker" if b > p else "tie"] += weight


def independent_odds(decks: int) -> tuple[Fraction, Fraction, Fraction]:
    """Banker, player and tie by :class:`_RankEnumeration`."""
    enumeration = _RankEnumeration(decks)
    enumeration.draw(0, 1, ([], []))
    wins = enumeration.wins
    total = perm(52 * decks, 6)
    return Fraction(wins["banker"], total), Fraction(wins["player"], total), Fraction(wins["tie"], total)


def test_one_deck_matches_an_independent_rank_level_enumeration() -> None:
    odds = compute_odds(1)
    assert (odds.banker, odds.player, odds.tie) == independent_odds(1)

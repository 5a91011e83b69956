"""The exact edge of every bet: the published house edges, a second enumerator written here from the
issue's table (not from the catalogue), and hypothesis-drawn partial shoes."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import permutations, product
from math import perm
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.core.bets.catalogue import BETS, CATALOGUE
from controller.core.bets.exact import Shoe, ShoeTooShort, bet_evs, bet_odds
from tests.hypothesis_profile import examples

RANKS = "A23456789TJQK"
SUITS = "SHDC"
CODES = [rank + suit for rank in RANKS for suit in SUITS]

PUBLISHED_EIGHT_DECK_EDGES = {  # percent, default pays (Wizard of Odds; Jacobson for EZ Baccarat)
    "banker": 1.0579, "player": 1.2351, "tie": 14.3596, "player_pair": 10.3614, "banker_pair": 10.3614,
    "banker_ez": 1.0183, "banker_no_commission": 1.4581, "dragon_7": 7.6113, "panda_8": 10.1876,
}


def test_published_eight_deck_house_edges() -> None:
    odds = bet_odds(Shoe.of(8))
    for bet, percent in PUBLISHED_EIGHT_DECK_EDGES.items():
        assert round(float(odds[bet].house_edge) * 100, 4) == percent, bet


def test_every_catalogue_bet_has_odds_and_the_value_bets_add_up() -> None:
    odds = bet_odds(Shoe.of(6))
    assert list(odds) == [bet.name for bet in CATALOGUE]
    outcomes = odds["player"].classes
    assert outcomes["win"] + odds["banker"].classes["win"] + outcomes["push"] == 1
    assert odds["big"].classes["big"] + odds["small"].classes["small"] == 1


# -- the second enumerator: the rules, written again -----------------------------------
def value(rank: str) -> int:
    return RANKS.index(rank) + 1 if rank in "A23456789" else 0


def banker_takes(banker: int, third: int | None) -> bool:
    if third is None:
        return banker <= 5
    return {0: True, 1: True, 2: True, 3: third != 8, 4: 2 <= third <= 7, 5: 4 <= third <= 7,
            6: third in (6, 7), 7: False}[banker]


def play(p1: int, b1: int, p2: int, b2: int, p3: int | None, b3: int | None) -> tuple[int, int, int, int]:
    """(player total, banker total, player cards, banker cards); p3 and b3 are the next two cards."""
    pt, bt = (p1 + p2) % 10, (b1 + b2) % 10
    if pt >= 8 or bt >= 8:
        return pt, bt, 2, 2
    if pt >= 6:
        if bt <= 5:
            assert p3 is not None  # the banker takes the next card
            return pt, (bt + p3) % 10, 2, 3
        return pt, bt, 2, 2
    assert p3 is not None
    pf = (pt + p3) % 10
    if banker_takes(bt, p3):
        assert b3 is not None
        return pf, (bt + b3) % 10, 3, 3
    return pf, bt, 3, 2


def value_bets_net(pt: int, bt: int, pn: int, bn: int) -> dict[str, Fraction]:
    """Net win per unit of every value bet, under the issue's default pays."""
    lose = Fraction(-1)
    player_wins, banker_wins, tie = pt > bt, bt > pt, pt == bt
    natural = pn == bn == 2 and max(pt, bt) >= 8
    margin = abs(pt - bt)

    def side(wins: bool) -> Fraction:
        return Fraction(1) if wins else Fraction(0) if tie else lose

    def dragon_bonus(wins: bool) -> Fraction:
        if natural and tie:
            return Fraction(0)
        if not wins:
            return lose
        if natural:
            return Fraction(1)
        return Fraction({9: 30, 8: 10, 7: 6, 6: 4, 5: 2, 4: 1}.get(margin, -1))

    banker_7 = banker_wins and bt == 7 and bn == 3
    return {
        "player": side(player_wins),
        "banker": Fraction(19, 20) if banker_wins else side(False),
        "banker_no_commission": (Fraction(1, 2) if bt == 6 else Fraction(1)) if banker_wins else side(False),
        "banker_ez": Fraction(0) if banker_7 else side(banker_wins),
        "tie": Fraction(8) if tie else lose,
        "dragon_7": Fraction(40) if banker_7 else lose,
        "panda_8": Fraction(25) if player_wins and pt == 8 and pn == 3 else lose,
        "dragon_bonus_player": dragon_bonus(player_wins),
        "dragon_bonus_banker": dragon_bonus(banker_wins),
        "big": Fraction(27, 50) if pn + bn >= 5 else lose,
        "small": Fraction(3, 2) if pn + bn == 4 else lose,
        "lucky_6": Fraction(12 if bn == 2 else 20) if banker_wins and bt == 6 else lose,
    }


PAIR_PAYS = {"player_pair": 11, "banker_pair": 11, "either_pair": 5, "perfect_pair": 25}


def pair_bets_net(p1: str, b1: str, p2: str, b2: str) -> dict[str, Fraction]:
    player, banker = p1[0] == p2[0], b1[0] == b2[0]
    won = {"player_pair": player, "banker_pair": banker, "either_pair": player or banker,
           "perfect_pair": p1 == p2 or b1 == b2}
    return {bet: Fraction(PAIR_PAYS[bet]) if won[bet] else Fraction(-1) for bet in won}


def brute_force(cards: list[str]) -> dict[str, Fraction]:
    """Every ordered deal of six of ``cards`` (a small shoe), card by card."""
    totals: Counter[str] = Counter()
    deals = 0
    for p1, b1, p2, b2, c5, c6 in permutations(cards, 6):
        values = [value(card[0]) for card in (p1, b1, p2, b2, c5, c6)]
        nets = value_bets_net(*play(*values)) | pair_bets_net(p1, b1, p2, b2)
        for bet, net in nets.items():
            totals[bet] += net  # type: ignore[assignment]
        deals += 1
    return {bet: Fraction(total, deals) for bet, total in totals.items()}


def another_card(cards: list[int]) -> bool:
    """Does the round dealt so far (``cards`` in deal order) take another card?"""
    if len(cards) < 4:
        return True
    pt, bt = (cards[0] + cards[2]) % 10, (cards[1] + cards[3]) % 10
    if pt >= 8 or bt >= 8 or len(cards) == 6:
        return False
    if len(cards) == 4:
        return pt <= 5 or bt <= 5
    return pt <= 5 and banker_takes(bt, cards[4])


def value_enumeration(values: list[int]) -> dict[str, Fraction]:
    """Every ordered deal by value, one card at a time, weighted by the ways to draw it without replacement
    (a deal of fewer than six cards times the ways to draw the rest of the six)."""
    left = sum(values)
    outcomes: Counter[tuple[int, int, int, int]] = Counter()
    counts = list(values)

    def deal(taken: list[int], weight: int) -> None:
        if not another_card(taken):
            padded: list[int | None] = [*taken, None, None]
            outcome = play(*padded[:6])  # type: ignore[arg-type]  # the first four are always cards
            outcomes[outcome] += weight * perm(left - len(taken), 6 - len(taken))
            return
        for v in range(10):
            if counts[v] > 0:
                counts[v] -= 1
                deal([*taken, v], weight * (counts[v] + 1))
                counts[v] += 1

    deal([], 1)
    totals: dict[str, Fraction] = {}
    for outcome, weight in outcomes.items():
        for bet, net in value_bets_net(*outcome).items():
            totals[bet] = totals.get(bet, Fraction(0)) + weight * net
    return {bet: total / perm(left, 6) for bet, total in totals.items()}


def rank_pairs(ranks: list[int]) -> dict[str, Fraction]:
    """The rank-pair bets by enumerating the first four cards' ranks."""
    totals: Counter[str] = Counter()
    for p1, b1, p2, b2 in product(range(13), repeat=4):
        weight, taken = 1, Counter[int]()
        for rank in (p1, b1, p2, b2):
            weight *= max(0, ranks[rank] - taken[rank])
            taken[rank] += 1
        if weight:
            player, banker = p1 == p2, b1 == b2
            for bet, won in (("player_pair", player), ("banker_pair", banker), ("either_pair", player or banker)):
                totals[bet] += weight * (PAIR_PAYS[bet] if won else -1)
    return {bet: Fraction(total, perm(sum(ranks), 4)) for bet, total in totals.items()}


def test_play_matches_three_card_shapes() -> None:
    assert play(9, 0, 0, 0, None, None) == (9, 0, 2, 2)
    assert play(6, 1, 1, 1, 5, None) == (7, 7, 2, 3)


@pytest.mark.parametrize("decks", [1, 8])
def test_value_bets_agree_with_a_second_enumerator_on_fresh_shoes(decks: int) -> None:
    shoe = Shoe.of(decks)
    expected = value_enumeration(list(shoe.values))
    assert {bet: ev for bet, ev in bet_evs(shoe).items() if bet in expected} == expected


def _gone(codes: list[str]) -> dict[str, int]:
    return dict(Counter(codes))


@settings(max_examples=examples(8, least=4), deadline=None)
@given(st.lists(st.sampled_from(CODES), min_size=1, max_size=300), st.integers(6, 8))
def test_partial_shoes_agree_with_the_second_enumerator(seen: list[str], decks: int) -> None:
    shoe = Shoe.of(decks, _gone(seen))
    evs = bet_evs(shoe)
    expected = value_enumeration(list(shoe.values)) | rank_pairs(list(shoe.ranks))
    assert {bet: evs[bet] for bet in expected} == expected


@st.composite
def small_shoes(draw: st.DrawFn) -> list[str]:
    """Six to eight cards of a two-deck shoe, every rank and suit possible, duplicates included."""
    return draw(st.lists(st.sampled_from(CODES * 2), min_size=6, max_size=8))


@settings(max_examples=examples(12, least=6), deadline=None)
@given(small_shoes())
def test_tiny_shoes_agree_card_by_card_with_every_deal(cards: list[str]) -> None:
    remaining = Counter(cards)
    gone = {code: 2 - remaining[code] for code in CODES}
    assert bet_evs(Shoe.of(2, gone)) == brute_force(cards)


def test_perfect_pairs_from_identical_cards_left() -> None:
    cards = ["AS", "AS", "AH", "KD", "KD", "2C", "3C"]
    gone = {code: 2 - Counter(cards)[code] for code in CODES}
    evs = bet_evs(Shoe.of(2, gone))
    assert evs["perfect_pair"] == brute_force(cards)["perfect_pair"]
    assert evs["perfect_pair"] > 0


def test_fewer_than_six_cards_left_is_refused() -> None:
    gone = {code: 1 for code in CODES[5:]}
    with pytest.raises(ShoeTooShort, match="5 cards left"):
        bet_odds(Shoe.of(1, gone))


def test_the_catalogue_names_match_the_config_schema() -> None:
    from config.schema import BET_PAY_CLASSES
    assert {name: tuple(bet.pays) for name, bet in BETS.items()} == BET_PAY_CLASSES


@pytest.mark.parametrize("variant", ["commission", "no_commission", "ez"])
def test_the_house_values_are_the_odds_values_under_the_house_pays(tmp_path: Path, variant: str) -> None:
    """The summary's expected values (:func:`house_evs`, from the kernel) are :func:`bet_odds`' under the same pays,
    on a fresh shoe and on a used one."""
    from config.loader import load_config
    from controller.core.bets.exact import house_evs
    from controller.core.bets.settle import bet_for, house_pays

    config = tmp_path / "house.toml"
    config.write_text('[bets.pays]\ntie = { win = 9 }\nplayer_pair = { pair = 12 }\nbanker_ez = { win = 2 }\n'
                      'banker_no_commission = { win_with_6 = 0.25 }\n', encoding="utf-8")
    settings = load_config(config).bets
    names = ("banker", "player", "tie", "player_pair", "banker_pair")
    bets = {name: bet_for(name, variant) for name in names}
    for shoe in (Shoe.of(8), Shoe.of(1, {code: 1 for code in CODES[::3]})):
        odds = bet_odds(shoe, {bet.name: house_pays(bet, settings) for bet in bets.values()})
        assert house_evs(shoe, names, variant, settings) == {name: odds[bet.name].ev for name, bet in bets.items()}

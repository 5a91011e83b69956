"""The exact value of every bet from the cards left in the shoe, fast enough to run before every round.

A round's outcome for the value bets (player, banker, tie, Dragon 7, ...) depends only on the
baccarat values (0-9) of its four to six cards, in deal order (P1 B1 P2 B2, then the third cards).
The probability of one ordered value sequence is a product of falling factorials of the counts
left, so it depends only on the sequence's *multiset* of values. The tables list, for every
multiset of 4, 5 or 6 values, how many of its orderings end in each final position (player total,
banker total, player cards, banker cards); they are classified through the rules table by
:func:`build_table_data` and shipped as a compact data file (:mod:`controller.core.bets.tables`,
``exact_tables.bin``, checked against it by a test). For a shoe, the
weight of every multiset is then built level by level (a multiset of ``n`` values is its largest
value added to a multiset of ``n - 1``), all in whole numbers, and each final position sums its
multisets' weights. Pair bets depend only on the first two cards of each hand and are counted in
closed form from the rank (and rank-and-suit) counts left. Every result is an exact fraction.

:func:`position_weights` here is the reference, in plain Python; the commands compute the same whole numbers
with the compiled kernel (:mod:`controller.core.bets.kernel`), or the packed pure-Python path where the
kernel cannot be loaded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement, product, repeat
from math import perm
from operator import itemgetter, mul

import msgspec

from config.schema import BetsSettings
from controller.core import rules
from controller.core.bets import kernel
from controller.core.bets.catalogue import BETS, CATALOGUE, PUSH, Bet, RoundFacts
from controller.core.bets.settle import bet_for, house_pays
from controller.core.bets.tables import Position, TableData, load
from controller.core.cards import RANK_VALUES, RANKS, SUITS

MAX_CARDS = 6
"""The cards of the longest round: three a hand."""
MIN_CARDS = 4
"""The cards of the shortest round: two a hand."""


class _Tables(msgspec.Struct, frozen=True):
    parents: tuple[tuple[int, ...], ...]
    """``parents[n]``: for each multiset of ``n + 1`` values, the index of its multiset less its largest value."""
    factors: tuple[tuple[int, ...], ...]
    """``factors[n]``: for each multiset of ``n + 1`` values, ``10 * j + v``: its largest value ``v``, of which
    the parent holds ``j``; the weight grows by the ``j``-th falling factor of the count of ``v``."""
    positions: tuple[tuple[Position, int, Callable[[list[int]], tuple[int, ...]], tuple[int, ...]], ...]
    """Each final position, its number of cards, a getter of the weights of the multisets (of that many
    values) that can end there, and their counts of orderings ending there."""


def _ending(values: tuple[int, ...]) -> list[tuple[Position, tuple[int, ...]]]:
    """Every way the four cards ``values`` (P1 B1 P2 B2) can end, with the third cards drawn."""
    p1, b1, p2, b2 = values
    pt, bt = (p1 + p2) % 10, (b1 + b2) % 10
    if rules.is_natural(pt) or rules.is_natural(bt):
        return [((pt, bt, 2, 2), values)]
    if not rules.player_draws(pt, bt):
        if not rules.banker_draws(bt, None):
            return [((pt, bt, 2, 2), values)]
        return [((pt, (bt + b3) % 10, 2, 3), (*values, b3)) for b3 in range(10)]
    endings: list[tuple[Position, tuple[int, ...]]] = []
    for p3 in range(10):
        pf = (pt + p3) % 10
        if rules.banker_draws(bt, p3):
            endings.extend(((pf, (bt + b3) % 10, 3, 3), (*values, p3, b3)) for b3 in range(10))
        else:
            endings.append(((pf, bt, 3, 2), (*values, p3)))
    return endings


def _getter(indices: tuple[int, ...]) -> Callable[[list[int]], tuple[int, ...]]:
    """``itemgetter(*indices)``, always giving a tuple."""
    if len(indices) == 1:
        (only,) = indices
        return lambda items: (items[only],)
    return itemgetter(*indices)


def build_table_data() -> TableData:
    """Classify every deal of four to six values through the rules table (about 0.3 s); the result is shipped
    as ``exact_tables.bin`` (:mod:`controller.core.bets.tables`), written from this function by
    ``python -m controller.cli.gendata`` and checked against it by a test."""
    multisets = [[()]] + [list(combinations_with_replacement(range(10), n)) for n in range(1, MAX_CARDS + 1)]
    index = [{m: i for i, m in enumerate(level)} for level in multisets]
    parents = tuple(tuple(index[n - 1][m[:-1]] for m in multisets[n]) for n in range(1, MAX_CARDS + 1))
    factors = tuple(tuple(10 * m[:-1].count(m[-1]) + m[-1] for m in multisets[n]) for n in range(1, MAX_CARDS + 1))
    counts: dict[Position, Counter[int]] = {}
    for p1, p2 in combinations_with_replacement(range(10), 2):
        for b1, b2 in combinations_with_replacement(range(10), 2):
            orderings = (1 if p1 == p2 else 2) * (1 if b1 == b2 else 2)
            for position, cards in _ending((p1, b1, p2, b2)):
                counts.setdefault(position, Counter())[index[len(cards)][tuple(sorted(cards))]] += orderings
    positions = tuple((position, tuple(found), tuple(found.values())) for position, found in sorted(counts.items()))
    return parents, factors, positions


@cache
def _tables() -> _Tables:
    parents, factors, shipped = load()
    positions = tuple((position, position[2] + position[3], _getter(found), orderings)
                      for position, found, orderings in shipped)
    return _Tables(parents, factors, positions)


def position_weights(values: list[int]) -> dict[Position, int]:
    """Each final position's number of ordered deals of six cards from a shoe with ``values[v]`` cards of
    each value ``v`` (the rounds that end in fewer cards are counted with every way to draw the rest)."""
    tables = _tables()
    falling = [values[v] - j for j in range(MAX_CARDS) for v in range(10)]
    weights: list[list[int]] = [[1]]
    for parents, factors in zip(tables.parents, tables.factors, strict=True):
        weights.append(list(map(mul, itemgetter(*parents)(weights[-1]), itemgetter(*factors)(falling))))
    left = sum(values)
    fill = {4: (left - 4) * (left - 5), 5: left - 5, 6: 1}
    result: dict[Position, int] = {}
    for position, cards, found, orderings in tables.positions:
        total = sum(map(mul, found(weights[cards]), orderings))
        if total:
            result[position] = total * fill[cards]
    return result


class Shoe(msgspec.Struct, frozen=True, gc=False):
    """The cards left, as the counts the bets need: by value, by rank, by card (rank and suit)."""

    values: tuple[int, ...]
    ranks: tuple[int, ...]
    cards: tuple[int, ...]

    @property
    def size(self) -> int:
        return sum(self.values)

    @classmethod
    def of(cls, decks: int, gone: Mapping[str, int] | None = None) -> Shoe:
        """A ``decks``-deck shoe less the ``gone`` cards (normalised codes and how many of each)."""
        left = [decks] * len(_CODES)
        if gone:
            index = _INDEX.get
            for code, count in gone.items():
                at = index(code)
                if at is not None:
                    left[at] = decks - count if count < decks else 0
        cards = tuple(left)
        ranks = tuple(map(sum, zip(*[iter(cards)] * len(SUITS), strict=True)))
        values = [0] * 10
        for value, count in zip(_RANK_VALUE_LIST, ranks, strict=True):
            values[value] += count
        return cls(tuple(values), ranks, cards)


_CODES = tuple(rank + suit for rank in RANKS for suit in SUITS)
_INDEX = {code: at for at, code in enumerate(_CODES)}
_RANK_VALUE_LIST = tuple(RANK_VALUES[rank] for rank in RANKS)


def _same_twice(counts: tuple[int, ...]) -> int:
    """Ordered draws of two cards alike (by the classes ``counts`` counts)."""
    return sum(n * (n - 1) for n in counts)


def _both_hands_alike(counts: tuple[int, ...]) -> int:
    """Ordered draws of four cards, the first two alike and the last two alike."""
    twice = _same_twice(counts)
    return sum(n * (n - 1) * (twice - n * (n - 1) + (n - 2) * (n - 3)) for n in counts)


def pair_probabilities(shoe: Shoe) -> dict[str, Fraction]:
    """The probability of each pair event for the next round: player, banker, either, perfect (either hand)."""
    left = shoe.size
    two, four = perm(left, 2), perm(left, 4)
    pair = Fraction(_same_twice(shoe.ranks), two)
    identical = Fraction(_same_twice(shoe.cards), two)
    return {
        "player": pair,
        "banker": pair,
        "either": 2 * pair - Fraction(_both_hands_alike(shoe.ranks), four),
        "perfect": 2 * identical - Fraction(_both_hands_alike(shoe.cards), four),
    }


class BetOdds(msgspec.Struct, frozen=True):
    """One bet's exact odds: the probability of each pay class, and the expected net win per unit."""

    name: str
    classes: dict[str, Fraction]
    ev: Fraction

    @property
    def house_edge(self) -> Fraction:
        return -self.ev


@cache
def _every_position() -> tuple[tuple[Position, RoundFacts], ...]:
    """Every final position (totals 0-9, two or three cards a hand) and its facts, made once for all bets."""
    return tuple(((pt, bt, pn, bn), RoundFacts(pt, bt, pn, bn))
                 for pt, bt, pn, bn in product(range(10), range(10), (2, 3), (2, 3)))


@cache
def _class_positions(name: str) -> dict[str | None, tuple[Position, ...]]:
    """The final positions in each pay class of the value bet ``name`` (None: it loses)."""
    classify = BETS[name].classify
    grouped: dict[str | None, list[Position]] = {}
    for position, facts in _every_position():
        grouped.setdefault(classify(facts), []).append(position)
    return {pay_class: tuple(found) for pay_class, found in grouped.items()}


@cache
def _fraction(amount: Decimal) -> Fraction:
    return Fraction(amount)


def _odds(bet: Bet, classes: dict[str | None, Fraction], pays: Mapping[str, Decimal]) -> BetOdds:
    ev = sum((probability * _fraction(bet.net(pay_class, pays)) for pay_class, probability in classes.items()),
             Fraction(0))
    return BetOdds(bet.name, {c: p for c, p in classes.items() if c is not None}, ev)


class ShoeTooShort(ValueError):
    """Fewer cards are left than a round may need: the odds enumerate every order of the next
    :data:`MAX_CARDS` cards, so they are not defined for such a shoe."""

    def __init__(self, left: int) -> None:
        super().__init__(f"{left} cards left: a round may need {MAX_CARDS}")
        self.left = left
        """The cards left in the shoe."""

    @property
    def no_round(self) -> bool:
        """Not even the shortest round (:data:`MIN_CARDS`) can be dealt from what is left."""
        return self.left < MIN_CARDS


def cards_for_a_round(shoe: Shoe) -> int:
    """The cards left in ``shoe``; :class:`ShoeTooShort` when a round may need more."""
    left = shoe.size
    if left < MAX_CARDS:
        raise ShoeTooShort(left)
    return left


def bet_odds(shoe: Shoe, pays: Mapping[str, Mapping[str, Decimal]] | None = None) -> dict[str, BetOdds]:
    """Every bet of the catalogue, under ``pays`` (default: each bet's default pays), for the next round: the
    probability of each pay class and the expected value (the positions' weights from the kernel)."""
    return _bet_odds(shoe, pays, kernel.position_weights)


def reference_bet_odds(shoe: Shoe, pays: Mapping[str, Mapping[str, Decimal]] | None = None) -> dict[str, BetOdds]:
    """:func:`bet_odds` through the reference :func:`position_weights` (plain Python, one sum per position and
    multiset): what the tests and the benchmarks hold the kernel to."""
    return _bet_odds(shoe, pays, lambda values: position_weights(list(values)))


def _bet_odds(shoe: Shoe, pays: Mapping[str, Mapping[str, Decimal]] | None,
              weighed: Callable[[tuple[int, ...]], Mapping[Position, int]]) -> dict[str, BetOdds]:
    left = cards_for_a_round(shoe)
    weights = weighed(shoe.values)
    denominator = perm(left, MAX_CARDS)
    pairs = pair_probabilities(shoe)
    result: dict[str, BetOdds] = {}
    for bet in CATALOGUE:
        bet_pays = (pays or {}).get(bet.name, bet.pays)
        if bet.pair_event is not None:
            won = pairs[bet.pair_event]
            classes: dict[str | None, Fraction] = {"pair": won, None: 1 - won}
        else:
            classes = {pay_class: Fraction(sum(map(weights.get, found, repeat(0))), denominator)
                       for pay_class, found in _class_positions(bet.name).items()}
        result[bet.name] = _odds(bet, classes, bet_pays)
    return result


def house_evs(shoe: Shoe, names: Iterable[str], variant: str, settings: BetsSettings | None) -> dict[str, Fraction]:
    """The expected net win per unit of each bet of ``names`` (``banker`` follows ``variant``) under the house's
    pay tables (``[bets.pays]`` over the defaults), for the next round from ``shoe``: exactly :func:`bet_odds`'
    values of these bets, from the kernel (:class:`~controller.core.bets.kernel.BetValues`, whose pay classes
    the live edge has classified already)."""
    cards_for_a_round(shoe)
    chosen = [(name, bet_for(name, variant)) for name in names]
    values = kernel.BetValues([(name, bet, house_pays(bet, settings)) for name, bet in chosen])
    return values.evs(shoe.values, shoe.ranks, shoe.cards)


def round_probabilities(shoe: Shoe) -> dict[str, Fraction]:
    """The next round's outcome: banker, player, tie, player_draws, banker_draws, natural (either side),
    player_pair, banker_pair."""
    left = cards_for_a_round(shoe)
    tally = dict.fromkeys(("banker", "player", "tie", "player_draws", "banker_draws", "natural"), 0)
    for (pt, bt, pn, bn), weight in kernel.position_weights(shoe.values).items():
        tally[RoundFacts(pt, bt, pn, bn).winner] += weight
        tally["player_draws"] += weight if pn == 3 else 0
        tally["banker_draws"] += weight if bn == 3 else 0
        tally["natural"] += weight if pn == bn == 2 and max(pt, bt) >= 8 else 0
    denominator = perm(left, MAX_CARDS)
    pairs = pair_probabilities(shoe)
    return {**{name: Fraction(weight, denominator) for name, weight in tally.items()},
            "player_pair": pairs["player"], "banker_pair": pairs["banker"]}


def bet_evs(shoe: Shoe) -> dict[str, Fraction]:
    """Every bet's expected net win per unit under its default pays: exactly ``bet_odds(shoe)``'s values,
    from the compiled kernel where it is loaded (:mod:`controller.core.bets.kernel`)."""
    cards_for_a_round(shoe)
    return kernel.default_values().evs(shoe.values, shoe.ranks, shoe.cards)


__all__ = ["PUSH", "BetOdds", "Shoe", "ShoeTooShort", "bet_evs", "bet_odds", "pair_probabilities",
           "position_weights", "reference_bet_odds", "round_probabilities"]

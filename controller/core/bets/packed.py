"""The position sums in pure Python, packed into big integers: the live edge's path where the compiled kernel
(:mod:`controller.core.bets.kernel`) cannot be loaded.

Same arithmetic as :func:`controller.core.bets.exact.position_weights` (the reference, kept as the
slow path and compared by the tests), reorganised so the interpreter does about five times fewer
operations. The values of a multiset fix the sum of the two final totals (mod 10), so every final
position a multiset of ``n`` values can end in lies among ten (twenty for five cards: either hand
drew) *lanes* of its *sum class*. Each multiset's orderings per lane are packed, ``bits`` bits a
lane, into one integer (its column); a class's position sums are then one ``sum(map(mul, ...))``
of the weights times the columns, with no lane carrying into the next because no sum exceeds
``perm(cards left, 6)`` and the lanes are wider than that.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from math import perm
from operator import itemgetter, mul

from controller.core.bets.tables import LEVELS as MAX_CARDS
from controller.core.bets.tables import Position, load

NARROW_BITS = 53
"""The lane width for shoes of up to 416 cards (8 decks): ``perm(416, 6)`` is below ``2 ** 53``."""

Gather = Callable[[Sequence[int]], tuple[int, ...]]


@dataclass(frozen=True)
class _Group:
    """The multisets of one size and sum class that end anywhere: how to make their weights (from their
    parents' weights and the falling factors), their packed columns, and the final position of each lane."""

    cards: int
    parents: Gather
    factors: Gather
    columns: tuple[int, ...]
    lanes: tuple[tuple[int, Position], ...]


@dataclass(frozen=True)
class _Packed:
    bits: int
    parents: tuple[Gather, ...]
    """The weights of the multisets of one to five values, level by level, as in the reference."""
    factors: tuple[Gather, ...]
    groups: tuple[_Group, ...]


def _gather(indices: Sequence[int]) -> Gather:
    if len(indices) == 1:
        (only,) = indices
        return lambda items: (items[only],)
    return itemgetter(*indices)


def _lane(position: Position) -> int:
    player_total, _, player_cards, banker_cards = position
    if player_cards + banker_cards == 5:
        return player_total if player_cards == 3 else 10 + player_total
    return player_total


@cache
def _packed(bits: int) -> _Packed:
    parents_by_level, factors_by_level, positions = load()

    sums: list[list[int]] = [[0]]
    for parents, factors in zip(parents_by_level, factors_by_level, strict=True):
        sums.append([(sums[-1][parent] + factor % 10) % 10 for parent, factor in zip(parents, factors, strict=True)])
    columns: dict[tuple[int, int], dict[int, int]] = {}
    lanes: dict[tuple[int, int], dict[int, Position]] = {}
    for position, found, orderings in positions:
        cards = position[2] + position[3]
        lane = _lane(position)
        for index, count in zip(found, orderings, strict=True):
            key = (cards, sums[cards][index])
            column = columns.setdefault(key, {})
            column[index] = column.get(index, 0) | count << (bits * lane)
            lanes.setdefault(key, {})[lane] = position
    groups = tuple(
        _Group(cards, _gather([parents_by_level[cards - 1][i] for i in column]),
               _gather([factors_by_level[cards - 1][i] for i in column]), tuple(column.values()),
               tuple(sorted(lanes[cards, sum_class].items())))
        for (cards, sum_class), column in sorted(columns.items()))
    return _Packed(bits, tuple(map(_gather, parents_by_level[:MAX_CARDS - 1])),
                   tuple(map(_gather, factors_by_level[:MAX_CARDS - 1])), groups)


def packed_position_weights(values: list[int]) -> dict[Position, int]:
    """Exactly :func:`controller.core.bets.exact.position_weights` of ``values``, computed packed."""
    left = sum(values)
    packed = _packed(max(NARROW_BITS, perm(left, MAX_CARDS).bit_length()))
    falling = [values[v] - j for j in range(MAX_CARDS) for v in range(10)]
    weights: list[list[int]] = [[1]]
    for parents, factors in zip(packed.parents, packed.factors, strict=True):
        weights.append(list(map(mul, parents(weights[-1]), factors(falling))))
    fill = {4: (left - 4) * (left - 5), 5: left - 5, 6: 1}
    mask = (1 << packed.bits) - 1
    result: dict[Position, int] = {}
    for group in packed.groups:
        level = weights[group.cards - 1]
        total = sum(map(mul, map(mul, group.parents(level), group.factors(falling)), group.columns))
        for lane, position in group.lanes:
            weight = total >> (packed.bits * lane) & mask
            if weight:
                result[position] = weight * fill[group.cards]
    return result


__all__ = ["packed_position_weights"]

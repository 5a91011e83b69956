"""Every bet's exact value for the next round at compiled speed, under any pay tables.

The compiled kernel (``_kernel.c``, built with the package: ``.ci/setup``, ``pip install``) sums, for a shoe's
counts of the ten baccarat values, the ordered six-card deals ending in each group of final positions, in
64-bit whole numbers that cannot overflow for the shoes it takes (up to :data:`MAX_CARDS_LEFT` cards; no
sum exceeds ``perm(cards left, 6)``). Where it cannot be loaded (no C compiler at install, a foreign
platform) the same whole numbers come from the packed pure-Python path
(:func:`controller.core.bets.packed.packed_position_weights`); :data:`UNAVAILABLE` then says why, and
:data:`fallback_notice` (set by the command line) is called once, the first time the slower path is used.
The reference, written plainly, is :func:`controller.core.bets.exact.position_weights`; the tests hold
all three equal.

:class:`BetValues` turns the sums into each bet's expected net win per unit: the value bets from their pay
classes' positions (:mod:`controller.core.bets.catalogue` classifies the positions), the pair bets in closed
form from the rank and rank-and-suit counts, every result a whole-number numerator over a whole-number
denominator, hence an exact fraction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from functools import cache
from math import lcm, perm

import msgspec

from controller.core.bets.catalogue import CATALOGUE, Bet, RoundFacts
from controller.core.bets.tables import Position, blob, position_order

try:
    from controller.core.bets import _kernel  # type: ignore[attr-defined]
except ImportError as error:  # the pure-Python path below gives the same numbers
    _kernel = None
    UNAVAILABLE: str | None = str(error) or type(error).__name__
else:
    UNAVAILABLE = None

MAX_CARDS = 6
MAX_CARDS_LEFT = 1500
"""The largest shoe the kernel takes: ``perm(1500, 6)`` is below ``2 ** 64`` (eight decks are 416 cards)."""

fallback_notice: Callable[[str], None] | None = None
"""Told :data:`UNAVAILABLE` the first time a sum is computed without the kernel (the command line prints a
one-line notice); None: nobody is told."""
_noticed = False


def compiled() -> bool:
    """Whether the compiled kernel is loaded."""
    return _kernel is not None


class PositionSums:
    """For fixed groups of final positions (indices into :func:`~controller.core.bets.tables.position_order`):
    the number of ordered six-card deals from a shoe that end in each group."""

    def __init__(self, groups: Iterable[Iterable[int]], use_kernel: bool = True) -> None:
        self.groups = tuple(tuple(group) for group in groups)
        self._kernel = _kernel.Kernel(blob(), self.groups) if use_kernel and _kernel is not None else None

    @property
    def compiled(self) -> bool:
        return self._kernel is not None

    def __call__(self, values: Sequence[int]) -> list[int]:
        """The sums for a shoe holding ``values[v]`` cards of each baccarat value ``v`` (at least six cards)."""
        if self._kernel is not None and sum(values) <= MAX_CARDS_LEFT:
            sums: list[int] = self._kernel.sums(values)
            return sums
        return self._python(values)

    def _python(self, values: Sequence[int]) -> list[int]:
        global _noticed
        if self._kernel is None and _kernel is None and not _noticed and fallback_notice is not None:
            _noticed = True
            fallback_notice(UNAVAILABLE or "")
        from controller.core.bets.packed import packed_position_weights

        weights = packed_position_weights(list(values))
        order = position_order()
        return [sum(weights.get(order[index], 0) for index in group) for group in self.groups]


@cache
def _singletons() -> PositionSums:
    return PositionSums([index] for index in range(len(position_order())))


def position_weights(values: Sequence[int]) -> dict[Position, int]:
    """Exactly :func:`controller.core.bets.exact.position_weights` of ``values`` (positions no deal ends in
    left out), from the kernel where it is loaded."""
    return {position: weight for position, weight in zip(position_order(), _singletons()(values), strict=True)
            if weight}


@cache
def _position_facts() -> tuple[RoundFacts, ...]:
    """Each final position's facts, in :func:`position_order`, made once for every bet."""
    return tuple(RoundFacts(pt, bt, pn, bn) for pt, bt, pn, bn in position_order())


@cache
def _positions_by_class(classify: Callable[[RoundFacts], str | None]) -> dict[str | None, tuple[int, ...]]:
    """The indices of the final positions in each pay class of the value bet ``classify`` (None: it loses)."""
    grouped: dict[str | None, list[int]] = {}
    for index, facts in enumerate(_position_facts()):
        grouped.setdefault(classify(facts), []).append(index)
    return {pay_class: tuple(found) for pay_class, found in grouped.items()}


class _ValueBet(msgspec.Struct, frozen=True, gc=False):
    """A value bet as whole numbers: its groups' first index, and per winning or pushing pay class its net
    plus one, scaled by ``scale`` (the rest lose the stake)."""

    first: int
    returns: tuple[int, ...]
    scale: int


class _PairBet(msgspec.Struct, frozen=True, gc=False):
    """A pair bet: which pair it wins on, and its net plus one (``returned / scale``) when it wins."""

    event: str
    returned: int
    scale: int


def _scaled(nets: Sequence[Fraction]) -> tuple[tuple[int, ...], int]:
    scale = lcm(1, *(net.denominator for net in nets))
    return tuple(int((net + 1) * scale) for net in nets), scale


class BetValues:
    """Each of a fixed list of bets' expected net win per unit for the next round, under fixed pay tables."""

    def __init__(self, bets: Sequence[tuple[str, Bet, Mapping[str, Decimal]]], use_kernel: bool = True) -> None:
        """``bets``: each bet's name (the key of the results), its catalogue entry and its pay table."""
        self.names = tuple(name for name, _, _ in bets)
        groups: list[tuple[int, ...]] = []
        self._plans: list[_ValueBet | _PairBet] = []
        for _, bet, pays in bets:
            if bet.pair_event is not None:
                (returned,), scale = _scaled([Fraction(bet.net("pair", pays))])
                self._plans.append(_PairBet(bet.pair_event, returned, scale))
                continue
            classes = {pay_class: found for pay_class, found in _positions_by_class(bet.classify).items()
                       if pay_class is not None}
            returns, scale = _scaled([Fraction(bet.net(pay_class, pays)) for pay_class in classes])
            self._plans.append(_ValueBet(len(groups), returns, scale))
            groups.extend(classes.values())
        self._sums = PositionSums(groups, use_kernel)
        self._pairs = any(isinstance(plan, _PairBet) for plan in self._plans)
        self._alike = _kernel.pairs if self._sums.compiled else _alike

    @property
    def compiled(self) -> bool:
        """Whether the sums come from the compiled kernel."""
        return self._sums.compiled

    def parts(self, values: Sequence[int], ranks: Sequence[int], cards: Sequence[int]) -> list[tuple[int, int]]:
        """Each bet's expected net win per unit as ``(numerator, denominator)``, whole numbers, the denominator
        positive, not reduced; for a shoe with these counts by value (10), by rank (13) and by card (52)."""
        left = sum(values)
        if left < MAX_CARDS:
            raise ValueError(f"{left} cards left: a round may need {MAX_CARDS}")
        sums = self._sums(values)
        every = perm(left, MAX_CARDS)
        pairs = _pair_counts(left, *self._alike(ranks, cards)) if self._pairs else {}
        result: list[tuple[int, int]] = []
        append = result.append
        for plan in self._plans:
            if type(plan) is _ValueBet:
                first, scale = plan.first, plan.scale
                won = 0
                for offset, returned in enumerate(plan.returns, first):
                    won += returned * sums[offset]
                append((won - every * scale, every * scale))
            else:
                hits, deals = pairs[plan.event]  # type: ignore[union-attr]
                append((hits * plan.returned - deals * plan.scale, deals * plan.scale))  # type: ignore[union-attr]
        return result

    def evs(self, values: Sequence[int], ranks: Sequence[int], cards: Sequence[int]) -> dict[str, Fraction]:
        """Each bet's expected net win per unit, an exact fraction, keyed by its name."""
        return {name: Fraction(numerator, denominator)
                for name, (numerator, denominator) in zip(self.names, self.parts(values, ranks, cards), strict=True)}


def _same_twice(counts: Sequence[int]) -> int:
    """Ordered draws of two cards alike (by the classes ``counts`` counts)."""
    return sum(n * (n - 1) for n in counts)


def _both_hands_alike(counts: Sequence[int], twice: int) -> int:
    """Ordered draws of four cards, the first two alike and the last two alike (``twice``: :func:`_same_twice`)."""
    return sum(n * (n - 1) * (twice - n * (n - 1) + (n - 2) * (n - 3)) for n in counts if n > 1)


def _alike(ranks: Sequence[int], cards: Sequence[int]) -> tuple[int, int, int, int]:
    """Draws of two cards alike and of two pairs in a row, by rank and by card (the kernel's ``pairs``)."""
    same_rank, same_card = _same_twice(ranks), _same_twice(cards)
    return same_rank, _both_hands_alike(ranks, same_rank), same_card, _both_hands_alike(cards, same_card)


def _pair_counts(left: int, same_rank: int, both_ranks: int, same_card: int,
                 both_cards: int) -> dict[str, tuple[int, int]]:
    """Each pair event's winning deals and all deals, of the first two cards of a hand (``player``,
    ``banker``) or of the first four (``either``, ``perfect``): the closed forms of
    :func:`controller.core.bets.exact.pair_probabilities`."""
    two, four = perm(left, 2), perm(left, 4)
    after_two = (left - 2) * (left - 3)
    return {
        "player": (same_rank, two),
        "banker": (same_rank, two),
        "either": (2 * same_rank * after_two - both_ranks, four),
        "perfect": (2 * same_card * after_two - both_cards, four),
    }


def bets_under(pays: Mapping[str, Mapping[str, Decimal]] | None = None,
               bets: Iterable[Bet] = CATALOGUE) -> list[tuple[str, Bet, Mapping[str, Decimal]]]:
    """``bets`` (default: the catalogue) each with its pay table: its default one, or ``pays[name]``."""
    return [(bet.name, bet, (pays or {}).get(bet.name, bet.pays)) for bet in bets]


@cache
def default_values() -> BetValues:
    """Every catalogue bet under its default pays (what the ``edge`` event reports)."""
    return BetValues(bets_under())


__all__ = ["MAX_CARDS_LEFT", "UNAVAILABLE", "BetValues", "PositionSums", "bets_under", "compiled",
           "default_values", "fallback_notice", "position_weights"]

"""The unshuffled-shoe alert: flag a card sequence that a random shuffle would almost never give.

The 2012 Golden Nugget case: 41 hands dealt from decks that were never
shuffled. New decks come in suit order, so an unshuffled shoe deals runs of
same-suit neighbours (A 2 3 ... or K Q J ...). For each card after the first,
the monitor knows the exact probability, under a random shuffle and given the
cards already seen, that it is a same-suit rank neighbour of the card before
(``p_i`` = unseen copies of the two neighbours / unseen cards). The number of
such "hits" is then a sum of independent-looking Bernoulli(p_i) trials; the
score is the probability of at least as many hits as observed (an exact
Poisson-binomial tail). The alert fires when the score drops below one in a
million. A cheap Chernoff bound screens every hit, and the exact tail is
computed only when the bound is already small, so a normal shoe costs a few
operations per card.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import msgspec

from controller.core.cards import RANKS, Card
from controller.core.chain import Chain
from controller.core.gram_index import CARD_CODES, CARD_NUMBERS

ALERT_PROBABILITY = 1e-6
"""Alert when a random shuffle would give this many neighbour pairs less often than this."""
SCREEN_BOUND = 1e-3
"""Compute the exact tail only when the Chernoff bound is below this."""

_NEIGHBOURS: dict[str, tuple[str, ...]] = {}
for _suit in "SHDC":
    for _index, _rank in enumerate(RANKS):
        _near = [RANKS[i] + _suit for i in (_index - 1, _index + 1) if 0 <= i < len(RANKS)]
        _NEIGHBOURS[_rank + _suit] = tuple(_near)
_NEIGHBOUR_NUMBERS: dict[str, tuple[int, ...]] = {
    code: tuple(CARD_NUMBERS[near] for near in nears) for code, nears in _NEIGHBOURS.items()}


def chernoff_tail(hits: int, expected: float) -> float:
    """An upper bound on P(X >= hits) for a sum of independent Bernoullis with mean ``expected``."""
    if hits <= expected:
        return 1.0
    return math.exp(-expected + hits - hits * math.log(hits / expected))


def exact_tail(probabilities: list[float], hits: int) -> float:
    """P(X >= hits) for X a sum of independent Bernoulli(p) over ``probabilities`` (exact DP)."""
    dist = [1.0] + [0.0] * hits
    for p in probabilities:
        q = 1.0 - p
        dist[hits] += dist[hits - 1] * p if hits else 0.0
        for j in range(hits - 1, 0, -1):
            dist[j] = dist[j] * q + dist[j - 1] * p
        if hits:
            dist[0] *= q
    return dist[hits] if hits else 1.0


class ShuffleScore(msgspec.Struct, frozen=True, gc=False):
    """One shoe's score so far, as a value: :func:`observe` gives the next one."""

    previous: Card | None = None
    probabilities: Chain[float] = msgspec.field(default_factory=Chain)
    expected: float = 0.0
    hits: int = 0
    score: float = 1.0
    lowest: float = 1.0
    """The lowest exact score computed so far in this shoe."""
    alerted: bool = False


def observe(state: ShuffleScore, card: Card, seen: Sequence[int], seen_total: int,
            decks: int) -> tuple[ShuffleScore, float | None]:
    """The score after ``card``; ``seen`` counts the shoe's cards before it by card number
    (:data:`~controller.core.gram_index.CARD_NUMBERS`), ``seen_total`` all of them.

    The second value is the score when it first falls below :data:`ALERT_PROBABILITY`, else None.
    """
    previous = state.previous
    if previous is None or state.alerted:
        return msgspec.structs.replace(state, previous=card), None
    unseen = 52 * decks - seen_total
    if unseen <= 0:
        return msgspec.structs.replace(state, previous=card), None
    neighbours = _NEIGHBOUR_NUMBERS[previous.code]
    copies = decks * len(neighbours) - sum(map(seen.__getitem__, neighbours))
    p = copies / unseen
    probabilities = state.probabilities.plus(p)
    expected = state.expected + p
    if card.code not in _NEIGHBOURS[previous.code]:
        return ShuffleScore(card, probabilities, expected, state.hits, state.score, state.lowest, False), None
    hits = state.hits + 1
    if chernoff_tail(hits, expected) > SCREEN_BOUND:
        return ShuffleScore(card, probabilities, expected, hits, state.score, state.lowest, False), None
    score = exact_tail(list(probabilities), hits)
    lowest = min(state.lowest, score)
    alerted = score < ALERT_PROBABILITY
    return ShuffleScore(card, probabilities, expected, hits, score, lowest, alerted), score if alerted else None


class ShuffleMonitor:
    """Scores one shoe's card sequence; :meth:`observe` returns an alert once, when it is due (a mutable holder
    of a :class:`ShuffleScore`)."""

    def __init__(self, decks: int) -> None:
        self.decks = decks
        self.state = ShuffleScore()

    @property
    def hits(self) -> int:
        return self.state.hits

    @property
    def lowest(self) -> float:
        return self.state.lowest

    @property
    def alerted(self) -> bool:
        return self.state.alerted

    def observe(self, card: Card, seen: Mapping[str, int], seen_total: int) -> float | None:
        """Record ``card``; ``seen`` and ``seen_total`` count the shoe's cards before it.

        Returns the score when it first falls below :data:`ALERT_PROBABILITY`, else None.
        """
        counts = [seen.get(code, 0) for code in CARD_CODES]
        self.state, score = observe(self.state, card, counts, seen_total, self.decks)
        return score

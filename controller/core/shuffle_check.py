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
from collections.abc import Mapping

from controller.core.cards import RANKS, Card

ALERT_PROBABILITY = 1e-6
"""Alert when a random shuffle would give this many neighbour pairs less often than this."""
SCREEN_BOUND = 1e-3
"""Compute the exact tail only when the Chernoff bound is below this."""

_NEIGHBOURS: dict[str, tuple[str, ...]] = {}
for _suit in "SHDC":
    for _index, _rank in enumerate(RANKS):
        _near = [RANKS[i] + _suit for i in (_index - 1, _index + 1) if 0 <= i < len(RANKS)]
        _NEIGHBOURS[_rank + _suit] = tuple(_near)


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


class ShuffleMonitor:
    """Scores one shoe's card sequence; :meth:`observe` returns an alert once, when it is due."""

    def __init__(self, decks: int) -> None:
        self.decks = decks
        self.total = 52 * decks
        self.previous: Card | None = None
        self.probabilities: list[float] = []
        self.expected = 0.0
        self.hits = 0
        self.score = 1.0
        self.lowest = 1.0
        """The lowest exact score computed so far in this shoe."""
        self.alerted = False

    def observe(self, card: Card, seen: Mapping[str, int], seen_total: int) -> float | None:
        """Record ``card``; ``seen`` and ``seen_total`` count the shoe's cards before it.

        Returns the score when it first falls below :data:`ALERT_PROBABILITY`, else None.
        """
        previous = self.previous
        self.previous = card
        if previous is None or self.alerted:
            return None
        unseen = self.total - seen_total
        if unseen <= 0:
            return None
        neighbours = _NEIGHBOURS[previous.code]
        copies = sum(self.decks - seen.get(code, 0) for code in neighbours)
        p = copies / unseen
        self.probabilities.append(p)
        self.expected += p
        if card.code not in neighbours:
            return None
        self.hits += 1
        if chernoff_tail(self.hits, self.expected) > SCREEN_BOUND:
            return None
        self.score = exact_tail(self.probabilities, self.hits)
        self.lowest = min(self.lowest, self.score)
        if self.score < ALERT_PROBABILITY:
            self.alerted = True
            return self.score
        return None

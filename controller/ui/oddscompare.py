"""The end of ``croupier simulate``: observed frequencies and the net per bet, set against the exact figures
of ``croupier odds`` (its enumeration, :func:`controller.core.odds.compute_odds`, shipped as
:func:`controller.core.odds.fresh_odds`).

An event sink: feed it the table's events, then read :meth:`OddsComparison.text` (or draw it with
:mod:`controller.ui.oddsplot`). Each frequency comes with its z-score, the difference in standard errors
(sqrt(p(1 - p) / n)), so a reader can tell chance from a fault; the net per unit bet is each bet's settled
``net`` summed over the rounds with a result, divided by them, next to the expected value, minus the house edge.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from controller.core.events import Event
from controller.core.odds import fresh_odds
from controller.core.tally import NET_UNITS, net_key

FREQUENCIES = (("banker", "banker wins"), ("player", "player wins"), ("tie", "tie"),
               ("natural", "natural"), ("player_pair", "player pair"), ("banker_pair", "banker pair"))
BETS = ("banker", "player", "tie", "player_pair", "banker_pair")
UNUSUAL_Z = 3.0
"""A frequency further than this many standard errors from the exact odds is called out."""


@dataclass(frozen=True, slots=True)
class Frequency:
    """One observed frequency and its exact probability."""

    name: str
    label: str
    count: int
    rounds: int
    exact: Fraction

    @property
    def observed(self) -> float:
        return self.count / self.rounds if self.rounds else 0.0

    @property
    def z(self) -> float:
        """(observed - exact) in standard errors; 0 with no rounds or a certain outcome."""
        p = float(self.exact)
        if not self.rounds or p in (0.0, 1.0):
            return 0.0
        return (self.count - p * self.rounds) / math.sqrt(self.rounds * p * (1 - p))


@dataclass(frozen=True, slots=True)
class BetNet:
    """One bet's net per unit bet over the rounds, and its expected value (minus the house edge)."""

    bet: str
    net: Decimal
    rounds: int
    expected: Fraction

    @property
    def per_unit(self) -> float:
        return float(self.net) / self.rounds if self.rounds else 0.0


class OddsComparison:
    """Counts results and settled nets; compares them with the exact odds of ``decks`` decks and ``variant``."""

    def __init__(self, decks: int, variant: str) -> None:
        self.decks = decks
        self.variant = variant
        self.counts: Counter[str] = Counter()
        self.nets: dict[str, Decimal] = {bet: Decimal(0) for bet in BETS}
        self.settled = 0

    def __call__(self, events: list[Event]) -> None:
        for event in events:
            if event["event"] == "result":
                self.counts["rounds"] += 1
                self.counts[event["winner"]] += 1
                for flag in ("natural", "player_pair", "banker_pair"):
                    self.counts[flag] += bool(event[flag])
            elif event["event"] == "settlement":
                self.settled += 1
                for bet, outcome in event["bets"].items():
                    if bet in self.nets:
                        self.nets[bet] += Decimal(outcome["net"])

    def restore(self, earlier: Mapping[str, int]) -> None:
        """Add the results and settlements a resume from a checkpoint did not replay (their totals)."""
        for name in ("rounds", "banker", "player", "tie", "natural", "player_pair", "banker_pair"):
            self.counts[name] += earlier.get(name, 0)
        self.settled += earlier.get("settled", 0)
        for bet in self.nets:
            self.nets[bet] += Decimal(earlier.get(net_key(bet), 0)) / NET_UNITS

    def add_totals(self, counts: Mapping[str, int], pays: Mapping[str, Decimal]) -> None:
        """Results dealt without their events (the fast path), commission variant: their counts, and the
        nets they settle to under ``pays`` (each offered standard bet's winning pay)."""
        self.restore(counts)
        rounds = counts.get("rounds", 0)
        self.settled += rounds
        wins = {"player": counts.get("player", 0), "banker": counts.get("banker", 0), "tie": counts.get("tie", 0),
                "player_pair": counts.get("player_pair", 0), "banker_pair": counts.get("banker_pair", 0)}
        pushed = {"player": wins["tie"], "banker": wins["tie"]}
        for bet, pay in pays.items():
            won = wins[bet]
            self.nets[bet] += won * pay - (rounds - won - pushed.get(bet, 0))

    def frequencies(self) -> list[Frequency]:
        odds = fresh_odds(self.decks)
        return [Frequency(name, label, self.counts[name], self.counts["rounds"], getattr(odds, name))
                for name, label in FREQUENCIES]

    def bet_nets(self) -> list[BetNet]:
        odds = fresh_odds(self.decks)
        return [BetNet(bet, self.nets[bet], self.settled, -odds.house_edge(bet, self.variant)) for bet in BETS]

    def text(self) -> str:
        """The comparison as lines of text (nothing to compare without a result)."""
        rounds = self.counts["rounds"]
        if not rounds:
            return "Compared with croupier odds: no round with a result to compare"
        lines = [f"Compared with croupier odds --decks {self.decks} --variant {self.variant} "
                 f"(exact), over {rounds} rounds:",
                 f"  {'':<13} {'observed':>9} {'exact':>9} {'difference':>11} {'z':>6}"]
        unusual = []
        for row in self.frequencies():
            lines.append(f"  {row.label:<13} {row.observed * 100:8.2f}% {float(row.exact) * 100:8.4f}% "
                         f"{(row.observed - float(row.exact)) * 100:+9.2f}pt {row.z:+6.2f}")
            if abs(row.z) > UNUSUAL_Z:
                unusual.append(row.label)
        lines.append(f"  {'net per unit':<13} {'observed':>9} {'expected':>9} {'difference':>11}")
        for bet in self.bet_nets():
            lines.append(f"  {bet.bet.replace('_', ' '):<13} {bet.per_unit:+9.4f} {float(bet.expected):+9.4f} "
                         f"{bet.per_unit - float(bet.expected):+11.4f}")
        if unusual:
            lines.append(f"  UNUSUAL: {', '.join(unusual)} more than {UNUSUAL_Z:g} standard errors from the exact "
                         "odds; check the shoe and the rules")
        else:
            lines.append(f"  every frequency is within {UNUSUAL_Z:g} standard errors of the exact odds")
        return "\n".join(lines)

"""The end of ``croupier simulate``: observed frequencies and the net per bet, set against the exact figures
of ``croupier odds`` (its enumeration, :func:`controller.core.odds.compute_odds`, shipped as
:func:`controller.core.odds.fresh_odds`).

An event sink: feed it the table's events, then read :meth:`OddsComparison.text` (or draw it with
:mod:`controller.ui.oddsplot`). Each frequency comes with its z-score, the difference in standard errors
(sqrt(p(1 - p) / n)), so a reader can tell chance from a fault; the net per unit bet is each bet's settled
``net`` summed over the rounds with a result, divided by them, next to the expected value under the house's pay
tables (``[bets.pays]``; with the default pays, minus the house edge of ``croupier odds``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

import msgspec

from config.schema import BetsSettings
from controller.core.bets.catalogue import BETS as CATALOGUE_BETS
from controller.core.bets.exact import Shoe, house_evs
from controller.core.bets.names import bet_name as side_bet_name
from controller.core.bets.settle import bet_for, house_pays
from controller.core.events import Event, ResultEvent, SettlementEvent
from controller.core.odds import fresh_odds
from controller.core.tally import NET_UNITS, count_result, net_key
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.counts import rounds as counted_rounds
from controller.i18n.numbers import format_decimal_text, format_fixed
from controller.terms import STANDARD_BETS
from controller.ui.bigtext import cells, pad_cells

FREQUENCIES = (("banker", "banker wins"), ("player", "player wins"), ("tie", "tie"),
               ("natural", "natural"), ("player_pair", "player pair"), ("banker_pair", "banker pair"))
BETS = ("banker", "player", "tie", "player_pair", "banker_pair")
"""The bets the summary compares, those of them the house offers (``[bets] offered``): a bet not offered is never
settled, so it has no net to compare."""
UNUSUAL_Z = 3.0
"""A frequency further than this many standard errors from the exact odds is called out."""
MIN_EXPECTED = 5
"""A frequency is judged by its z-score only over enough rounds that at least this many are expected both to
have it and not to (the textbook condition for the normal approximation of a binomial count): a pair in one round
is 3.5 standard errors out, and means nothing."""


_decimal: Callable[[str], Decimal] = lru_cache(maxsize=256)(Decimal)
"""A settled net as a number, each made once (a game settles to a handful of nets, thousands of times)."""


class Frequency(msgspec.Struct, frozen=True, gc=False):
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
    def rounds_needed(self) -> int:
        """The rounds over which this frequency is judged: :data:`MIN_EXPECTED` of them expected either way."""
        p = float(self.exact)
        rarer = min(p, 1 - p)
        return math.ceil(MIN_EXPECTED / rarer) if rarer > 0 else 0

    @property
    def judged(self) -> bool:
        """Are there rounds enough for the z-score to say anything (:attr:`rounds_needed`)?"""
        return self.rounds >= self.rounds_needed

    @property
    def z(self) -> float:
        """(observed - exact) in standard errors; 0 with no rounds or a certain outcome."""
        p = float(self.exact)
        if not self.rounds or p in (0.0, 1.0):
            return 0.0
        return (self.count - p * self.rounds) / math.sqrt(self.rounds * p * (1 - p))


class BetNet(msgspec.Struct, frozen=True, gc=False):
    """One bet's net per unit bet over the rounds, and its expected value (minus the house edge)."""

    bet: str
    net: Decimal
    rounds: int
    expected: Fraction

    @property
    def per_unit(self) -> float:
        return float(self.net) / self.rounds if self.rounds else 0.0


class OddsComparison:
    """Counts results and settled nets; compares them with the exact odds of ``decks`` decks and ``variant``, the
    nets with each bet's expected value under the house's pay tables (``bets``: ``[bets.pays]``; None: the default
    pays)."""

    def __init__(self, decks: int, variant: str, bets: BetsSettings | None = None) -> None:
        self.decks = decks
        self.variant = variant
        self.bets = bets
        self._expected: dict[str, Fraction] | None = None
        offered = bets.offered if bets is not None else STANDARD_BETS
        self.compared = tuple(bet for bet in BETS if bet in offered)
        """The bets whose net per unit is compared: :data:`BETS` the house offers."""
        self.counts: Counter[str] = Counter()
        self.nets: dict[str, Decimal] = {bet: Decimal(0) for bet in BETS}
        self.settled = 0

    def __call__(self, events: list[Event]) -> None:
        counts, nets = self.counts, self.nets
        for event in events:
            if isinstance(event, ResultEvent):
                count_result(counts, event)
            elif isinstance(event, SettlementEvent):
                self.settled += 1
                for bet, outcome in event.bets.items():
                    if bet in nets:
                        nets[bet] += _decimal(outcome.net)

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

    def expected(self) -> dict[str, Fraction]:
        """Each bet's exact expected net win per unit from a fresh shoe, under the house's pay tables."""
        if self._expected is None:
            self._expected = house_evs(Shoe.of(self.decks), self.compared, self.variant, self.bets)
        return self._expected

    def bet_nets(self) -> list[BetNet]:
        expected = self.expected()
        return [BetNet(bet, self.nets[bet], self.settled, expected[bet]) for bet in self.compared]

    def house_pays(self) -> list[tuple[str, str, Decimal]]:
        """(bet, pay class, pays) of each pay of the compared bets the house sets apart from the default."""
        changed = []
        for name in self.compared:
            bet = bet_for(name, self.variant)
            pays = house_pays(bet, self.bets)
            changed += [(bet.name, pay_class, pay) for pay_class, pay in pays.items()
                        if pay != CATALOGUE_BETS[bet.name].pays.get(pay_class)]
        return changed

    def text(self, words: Catalogue = ENGLISH) -> str:
        """The comparison as lines of text in ``words``' language (nothing to compare without a result)."""
        rounds = self.counts["rounds"]
        say, language = words.say, words.language
        if not rounds:
            return say("comparison.none", "Compared with croupier odds: no round with a result to compare")
        observed, difference = say("comparison.observed", "observed"), say("comparison.difference", "difference")
        frequencies: list[list[str]] = [["", observed, say("comparison.exact", "exact"), difference, "z"]]
        unusual, unjudged, needed = [], [], 0
        for row in self.frequencies():
            label = frequency_label(row.name, words)
            frequencies.append([
                label, format_fixed(row.observed * 100, 2, language) + "%",
                format_fixed(float(row.exact) * 100, 4, language) + "%",
                say("comparison.points", "{difference}pt", difference=format_fixed(
                    (row.observed - float(row.exact)) * 100, 2, language, signed=True)),
                format_fixed(row.z, 2, language, signed=True)])
            if not row.judged:
                unjudged.append(label)
                needed = max(needed, row.rounds_needed)
            elif abs(row.z) > UNUSUAL_Z:
                unusual.append(label)
        nets: list[list[str]] = [[say("comparison.net_per_unit", "net per unit"), observed,
                                  say("comparison.expected", "expected"), difference]]
        for bet in self.bet_nets():
            nets.append([bet_label(bet.bet, words), format_fixed(bet.per_unit, 4, language, True),
                         format_fixed(float(bet.expected), 4, language, True),
                         format_fixed(bet.per_unit - float(bet.expected), 4, language, True)])
        first = max(13, *(cells(row[0]) for row in frequencies + nets))
        lines = [say("comparison.header", "Compared with croupier odds --decks {decks} --variant {variant} (exact), "
                     "over {rounds}:", decks=self.decks, variant=self.variant, rounds=counted_rounds(rounds))]
        lines += table(frequencies, [first, 9, 9, 11, 6])
        if self.compared:
            lines += self._house_pays_note(words) + table(nets, [first, 9, 9, 11])
        return "\n".join(lines + verdict(unusual, unjudged, needed, words))


    def _house_pays_note(self, words: Catalogue) -> list[str]:
        """The line that says the expected values are the house's pays, not croupier odds' defaults (none when
        the house pays the defaults)."""
        changed = self.house_pays()
        if not changed:
            return []
        pays = words.say("comparison.list_separator", ", ").join(
            f"{bet}.{pay_class} {format_decimal_text(str(pay), words.language)}" for bet, pay_class, pay in changed)
        return [words.say("comparison.house_pays", "  expected under this house's pay tables ([bets.pays] {pays}); "
                          "croupier odds shows the default pays", pays=pays)]


def verdict(unusual: list[str], unjudged: list[str], needed: int, words: Catalogue) -> list[str]:
    """The lines under the frequencies: those further than :data:`UNUSUAL_Z` standard errors out, or that every
    one is within; and those there are too few rounds to judge yet (``needed``: the rounds the last of them
    needs)."""
    say, language = words.say, words.language
    z = format_fixed(UNUSUAL_Z, 0, language) if int(UNUSUAL_Z) == UNUSUAL_Z else str(UNUSUAL_Z)
    names = say("comparison.list_separator", ", ")
    if len(unjudged) == len(FREQUENCIES):
        return [say("comparison.too_few", "  too few rounds to judge the frequencies against the exact odds: about "
                    "{needed} are needed", needed=str(needed))]
    if unusual:
        lines = [say("comparison.unusual", "  UNUSUAL: {names} more than {z} standard errors from the exact odds; "
                     "check the shoe and the rules", names=names.join(unusual), z=z)]
    elif unjudged:
        lines = [say("comparison.usual_judged", "  every frequency judged is within {z} standard errors of the exact "
                     "odds", z=z)]
    else:
        lines = [say("comparison.usual", "  every frequency is within {z} standard errors of the exact odds", z=z)]
    if unjudged:
        lines.append(say("comparison.too_few_for", "  too few rounds to judge {names} yet: about {needed} are needed",
                         names=names.join(unjudged), needed=str(needed)))
    return lines


def table(rows: list[list[str]], widths: list[int]) -> list[str]:
    """``rows`` as lines indented two spaces: the first column left-aligned, the others right-aligned, each at
    least its width in ``widths`` and as wide as its widest cell (in terminal cells)."""
    sized = [max(width, *(cells(row[column]) for row in rows)) for column, width in enumerate(widths)]
    return ["  " + " ".join([pad_cells(row[0], sized[0]), *(right(cell, width) for cell, width
                                                             in zip(row[1:], sized[1:], strict=True))])
            for row in rows]


def right(text: str, width: int) -> str:
    """``text`` right-aligned in ``width`` terminal cells (a full-width character takes two)."""
    return " " * max(0, width - cells(text)) + text


def frequency_label(name: str, words: Catalogue = ENGLISH) -> str:
    """The row label of a frequency (``banker``: "banker wins") in ``words``' language."""
    labels = {
        "banker": words.say("comparison.banker_wins", "banker wins"),
        "player": words.say("comparison.player_wins", "player wins"),
        "tie": words.say("comparison.tie", "tie"), "natural": words.say("comparison.natural", "natural"),
        "player_pair": words.say("comparison.player_pair", "player pair"),
        "banker_pair": words.say("comparison.banker_pair", "banker pair"),
    }
    return labels[name]


def bet_label(bet: str, words: Catalogue = ENGLISH) -> str:
    """A bet's name (``player_pair``: "player pair") in ``words``' language."""
    labels = {
        "banker": words.say("comparison.bet_banker", "banker"), "player": words.say("comparison.bet_player", "player"),
        "tie": words.say("comparison.tie", "tie"), "player_pair": words.say("comparison.player_pair", "player pair"),
        "banker_pair": words.say("comparison.banker_pair", "banker pair"),
    }
    return labels.get(bet) or words.text(side_bet_name(bet))

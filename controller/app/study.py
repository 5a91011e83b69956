"""The side-bet risk study: seeded shoes dealt under the house's rules with every studied bet's exact edge before
every round, what a perfect counter and the published counts win, and where an alert threshold separates them
from honest play (``croupier study``, docs/bets.md "Risk study").

The shoes are the ones ``croupier simulate --seed N`` deals (:mod:`controller.app.fastsim`: the same shuffle, the
burn, the cut card and its procedure), dealt card by card with their suits; before each round the cards the
players could have seen (the turned burn card, every card of the rounds before) are gone from the shoe, and the
compiled kernel (:mod:`controller.core.bets.kernel`) gives each bet's expected value under the house's pay table
as an exact fraction. Shoes are independent: ``workers`` processes deal fixed chunks of them and the chunks'
tallies add up in shoe order, so the figures do not depend on the number of workers.

Per bet and per player:

- *perfect*: bets one unit exactly when the edge is positive;
- *counts*: the published count systems for the bet (:data:`COUNT_SYSTEMS`), betting when their count says so.

For alert thresholds ``t`` on a grid of :data:`GRID` steps: the rounds whose edge is above ``t``; the alerts an
honest table raises (an alert opens when the edge rises above ``t`` and closes when it falls back: one per run of
rounds above it); the shoes with at least one; and the share of the perfect counter's expected win that the
rounds above ``t`` carry. Every comparison with ``t`` is made on the exact fraction.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING

from controller.app.fastsim import (
    PADDING,
    SHUFFLE_IS_RANDOMS,
    Procedure,
    _shuffle,
    check_overrun,
    deal_rounds,
    held_stops,
    worker_pool,
)
from controller.core import rules
from controller.core.bets.catalogue import BETS, REFERENCE_BETS, Bet, RoundFacts
from controller.core.bets.kernel import BetValues
from controller.core.bets.tables import position_order
from controller.core.cards import RANK_VALUES, RANKS, SUITS

if TYPE_CHECKING:
    from concurrent.futures import Future

GRID = 1000
"""Alert thresholds are studied from 0 to 1 (100%) in steps of 1/GRID (0.1%)."""
THRESHOLDS = (Fraction(0), Fraction(5, 1000), Fraction(1, 100), Fraction(2, 100), Fraction(5, 100),
              Fraction(10, 100), Fraction(20, 100), Fraction(50, 100))
"""The thresholds the report lists (the recommendation is searched on the whole grid)."""
DEFAULT_TARGET = 0.05
"""False alerts per shoe and bet the recommended threshold allows by default (one in twenty shoes)."""
CHUNK = 25
"""Shoes per task: the tallies of a chunk add up in shoe order whatever the number of workers."""
AHEAD = 2
"""Chunks a worker may have dealt, or have in hand, ahead of the one the command adds up."""
DEPTHS = 8
"""The distribution of the edge through the shoe is kept for this many equal parts of the shoe."""
EDGE_BINS = 400
EDGE_LOW, EDGE_HIGH = Fraction(-6, 10), Fraction(1)
"""The edge distribution's histogram: :data:`EDGE_BINS` bins from ``EDGE_LOW`` to ``EDGE_HIGH`` (clipped)."""


@dataclass(frozen=True)
class CountSystem:
    """A published card count for a bet: a tag per rank, a running count from ``start_per_deck`` times the decks,
    and the bet made when the count (true count: per deck unseen) reaches ``threshold``."""

    name: str
    source: str
    tags: Mapping[str, int]
    threshold: float
    true_count: bool = True
    start_per_deck: int = 0

    def tag_of_card(self) -> tuple[int, ...]:
        """Each card index's tag (rank-major, as :class:`~controller.core.bets.exact.Shoe` counts cards)."""
        return tuple(self.tags.get(rank, 0) for rank in RANKS for _ in SUITS)


DRAGON_TAGS = {"4": -1, "5": -1, "6": -1, "7": -1, "8": 2, "9": 2}
COUNT_SYSTEMS: dict[str, tuple[CountSystem, ...]] = {
    "dragon_7": (
        CountSystem("jacobson_2011", "Eliot Jacobson, Card Counting the Dragon Side Bet in EZ Baccarat (Wizard of "
                    "Odds, 2011): 4 5 6 7 count -1, 8 9 count +2, bet at a true count of +4 or more",
                    DRAGON_TAGS, 4.0),
        CountSystem("how_unbalanced_2012", "Stephen How, Unbalanced Dragon 7 Count (discountgambling.net, 2012): "
                    "the same tags and aces +1, from -4 a deck, bet at a running count of 0 or more",
                    {**DRAGON_TAGS, "A": 1}, 0.0, true_count=False, start_per_deck=-4),
    ),
    "panda_8": (
        CountSystem("how_co_count_2013", "Stephen How, Two-Person Panda-8 Co-Count (discountgambling.net, 2013): "
                    "the unbalanced Dragon 7 count from 0 plus 6 7 Q K +1, 3 -1, 8 -3, bet at 35 or more",
                    {"A": 1, "3": -1, "4": -1, "5": -1, "6": 0, "7": 0, "8": -1, "9": 2, "Q": 1, "K": 1}, 35.0,
                    true_count=False),
    ),
}
"""The published count systems the study plays beside the perfect counter, by bet."""


def card_order(decks: int) -> tuple[int, ...]:
    """A new shoe's cards as indexes (rank-major: ``4 * rank + suit``) in the order
    :func:`controller.core.shoe.shuffled_shoe` lays them out before its shuffle."""
    return tuple(4 * rank + suit for _ in range(decks) for suit in range(len(SUITS)) for rank in range(len(RANKS)))


def shoe_cards(seed: int, decks: int, shoe_index: int) -> list[int]:
    """Seeded shoe ``shoe_index`` (0-based) as card indexes, top first: the cards ``croupier simulate --seed``
    deals, in the same order."""
    cards = list(card_order(decks))
    generator = random.Random(f"croupier:{seed}:{decks}:{shoe_index}")
    if SHUFFLE_IS_RANDOMS:
        _shuffle(generator, cards)
    else:
        generator.shuffle(cards)
    return cards


REFERENCE = {bet.name: bet for bet in REFERENCE_BETS}
CODES = tuple(rank + suit for rank in RANKS for suit in SUITS)
VALUE_OF_CARD = bytes([RANK_VALUES[RANKS[card // 4]] for card in range(len(CODES))] + [0] * (256 - len(CODES)))


@cache
def _position_table() -> tuple[int, ...]:
    """``TABLE[(p1 + p2) * 1900 + (b1 + b2) * 100 + c5 * 10 + c6]``: the index (in
    :func:`~controller.core.bets.tables.position_order`) of the final position of the round whose first four
    cards' values sum so and whose fifth and sixth cards have values ``c5`` and ``c6``; from the rules."""
    index = {position: at for at, position in enumerate(position_order())}
    table = []
    for player_sum in range(19):
        for banker_sum in range(19):
            player, banker = player_sum % 10, banker_sum % 10
            for fifth in range(10):
                for sixth in range(10):
                    pt, bt, pn, bn = player, banker, 2, 2
                    third: int | None = None
                    if rules.player_draws(player, banker):
                        third, pt, pn = fifth, (player + fifth) % 10, 3
                    if not rules.is_natural(player) and not rules.is_natural(banker) and \
                            rules.banker_draws(banker, third):
                        bt, bn = (banker + (fifth if third is None else sixth)) % 10, 3
                    table.append(index.get((pt, bt, pn, bn), -1))
    return tuple(table)


@dataclass(frozen=True)
class StudiedBet:
    """A bet as the study plays it: its name in the report, the catalogue (or reference) bet that settles it, by
    name (what a worker process is sent), and the house's pay table."""

    name: str
    settled_as: str
    pays: Mapping[str, Decimal]

    @property
    def bet(self) -> Bet:
        return BETS.get(self.settled_as) or REFERENCE[self.settled_as]

    def scale(self) -> int:
        """The whole number every net of this bet's pay table is a multiple of the inverse of."""
        return math.lcm(1, *(Fraction(amount).denominator for amount in self.pays.values()))

    def scaled_nets(self) -> tuple[int, ...]:
        """The net (times :meth:`scale`) of a round ending in each final position (value bets)."""
        scale = self.scale()
        return tuple(int(Fraction(self.bet.net(self.bet.classify(RoundFacts(*position)), self.pays)) * scale)
                     for position in position_order())


@dataclass(frozen=True)
class Plan:
    """What every worker needs: the shoes' procedure and the bets studied."""

    procedure: Procedure
    bets: tuple[StudiedBet, ...]
    trace: bool = False
    use_kernel: bool = True
    """False: the pure-Python path (what the benchmark compares the kernel with)."""


def _grid_above(numerator: int, denominator: int) -> int:
    """The largest grid step ``k`` with ``k / GRID`` below the edge ``numerator / denominator`` (-1: none), at
    most :data:`GRID`."""
    if numerator <= 0:
        return -1
    return min(GRID, (GRID * numerator - 1) // denominator)


def _grid_at_or_above(numerator: int, denominator: int) -> int:
    """The smallest grid step ``k >= 0`` with ``k / GRID`` at or above ``numerator / denominator``."""
    return max(0, -((-GRID * numerator) // denominator))


_BIN_LOW = float(EDGE_LOW)
_BINS_PER_UNIT = EDGE_BINS / float(EDGE_HIGH - EDGE_LOW)


def _edge_bin(edge: float) -> int:
    at = int((edge - _BIN_LOW) * _BINS_PER_UNIT)
    return 0 if at < 0 else EDGE_BINS - 1 if at >= EDGE_BINS else at


@dataclass
class Play:
    """One way of choosing the rounds to bet: what it bet and won, per shoe and in all."""

    rounds_bet: int = 0
    edge_sum: float = 0.0
    observed: int = 0
    """Net units won, times the bet's scale."""
    expected_by_shoe: list[float] = field(default_factory=list)
    observed_by_shoe: list[int] = field(default_factory=list)
    _shoe_expected: float = 0.0
    _shoe_observed: int = 0

    def bet(self, edge: float, net: int) -> None:
        self.rounds_bet += 1
        self.edge_sum += edge
        self.observed += net
        self._shoe_expected += edge
        self._shoe_observed += net

    def end_shoe(self) -> None:
        self.expected_by_shoe.append(self._shoe_expected)
        self.observed_by_shoe.append(self._shoe_observed)
        self._shoe_expected, self._shoe_observed = 0.0, 0

    def add(self, other: Play) -> None:
        self.rounds_bet += other.rounds_bet
        self.edge_sum += other.edge_sum
        self.observed += other.observed
        self.expected_by_shoe += other.expected_by_shoe
        self.observed_by_shoe += other.observed_by_shoe


def _zeros(size: int) -> list[int]:
    return [0] * size


@dataclass
class BetTally:
    """Everything the study keeps of one bet (added chunk by chunk)."""

    perfect: Play = field(default_factory=Play)
    counts: dict[str, Play] = field(default_factory=dict)
    above: list[int] = field(default_factory=lambda: _zeros(GRID + 2))
    """Difference array over the grid: rounds whose edge is above each threshold."""
    alerts: list[int] = field(default_factory=lambda: _zeros(GRID + 2))
    """Difference array: alerts (runs of rounds above the threshold) raised."""
    shoes_alerted: list[int] = field(default_factory=lambda: _zeros(GRID + 2))
    """Difference array: shoes with at least one round above."""
    win_above: list[int] = field(default_factory=lambda: _zeros(GRID + 2))
    """Difference array: the perfect counter's expected win (in 1e-12 units) from the rounds above."""
    depth_sum: list[float] = field(default_factory=lambda: [0.0] * DEPTHS)
    depth_rounds: list[int] = field(default_factory=lambda: _zeros(DEPTHS))
    depth_positive: list[int] = field(default_factory=lambda: _zeros(DEPTHS))
    histogram: list[list[int]] = field(default_factory=lambda: [_zeros(EDGE_BINS) for _ in range(DEPTHS)])

    def add(self, other: BetTally) -> None:
        self.perfect.add(other.perfect)
        for name, play in other.counts.items():
            self.counts.setdefault(name, Play()).add(play)
        for mine, theirs in ((self.above, other.above), (self.alerts, other.alerts),
                             (self.shoes_alerted, other.shoes_alerted), (self.win_above, other.win_above),
                             (self.depth_rounds, other.depth_rounds), (self.depth_positive, other.depth_positive)):
            for at, value in enumerate(theirs):
                mine[at] += value
        self.depth_sum = [mine + theirs for mine, theirs in zip(self.depth_sum, other.depth_sum, strict=True)]
        for mine_row, their_row in zip(self.histogram, other.histogram, strict=True):
            for at, value in enumerate(their_row):
                mine_row[at] += value


@dataclass
class Tally:
    """A chunk's (or the whole study's) tallies."""

    shoes: int = 0
    rounds: int = 0
    bets: dict[str, BetTally] = field(default_factory=dict)
    trace: list[dict[str, object]] = field(default_factory=list)
    interrupt: KeyboardInterrupt | None = None
    """The stop that ended the dealing before every shoe was dealt (None: the study was finished)."""

    def add(self, other: Tally) -> None:
        self.shoes += other.shoes
        self.rounds += other.rounds
        for name, tally in other.bets.items():
            self.bets.setdefault(name, BetTally()).add(tally)
        self.trace += other.trace


class _Shoe:
    """The counts left of the shoe the players could have seen, kept as cards are seen."""

    def __init__(self, decks: int) -> None:
        self.values = [16 * decks] + [4 * decks] * 9
        self.ranks = [4 * decks] * len(RANKS)
        self.cards = [decks] * len(CODES)
        self.left = 52 * decks

    def see(self, card: int) -> None:
        self.cards[card] -= 1
        self.ranks[card // 4] -= 1
        self.values[VALUE_OF_CARD[card]] -= 1
        self.left -= 1


@dataclass
class _Counter:
    system: CountSystem
    tags: tuple[int, ...]
    count: int = 0


def _burned(procedure: Procedure, cards: Sequence[int]) -> tuple[int, list[int]]:
    """The cards the burn takes, and those of them the players see (the turned first card)."""
    if procedure.burn == "none":
        return 0, []
    if procedure.burn == "fixed":
        return procedure.burn_cards, []
    first = VALUE_OF_CARD[cards[0]]
    return 1 + (first or 10), [cards[0]]


class _Studier:
    """Plays the shoes of one chunk."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.values = BetValues([(bet.name, bet.bet, bet.pays) for bet in plan.bets], plan.use_kernel)
        self.positions = _position_table()
        self.settle: list[tuple[tuple[int, ...] | None, str, int, int]] = []
        """Per bet: its net (times its scale) by final position, or its pair event and its win and loss."""
        for bet in plan.bets:
            event = bet.bet.pair_event
            if event is None:
                self.settle.append((bet.scaled_nets(), "", 0, 0))
            else:
                self.settle.append((None, event, int(Fraction(bet.bet.net("pair", bet.pays)) * bet.scale()),
                                    -bet.scale()))

    def chunk(self, first: int, count: int) -> Tally:
        tally = Tally()
        for bet in self.plan.bets:
            tally.bets[bet.name] = BetTally(counts={system.name: Play()
                                                    for system in COUNT_SYSTEMS.get(bet.bet.name, ())})
        for index in range(first, first + count):
            self.shoe(index, tally)
        return tally

    def shoe(self, index: int, tally: Tally) -> None:  # noqa: C901  (one pass over the rounds, kept together)
        procedure = self.plan.procedure
        cards = shoe_cards(procedure.seed, procedure.decks, index)
        size = len(cards)
        padded = [*cards, *([len(CODES) + 1] * PADDING)]
        values = bytes(padded).translate(VALUE_OF_CARD)
        starts, codes = deal_rounds(procedure, values, size)
        check_overrun(starts, codes, size, index)
        seen = _Shoe(procedure.decks)
        _, shown = _burned(procedure, cards)
        for card in shown:
            seen.see(card)
        bets = self.plan.bets
        counters = [[_Counter(system, system.tag_of_card(), system.start_per_deck * procedure.decks)
                     for system in COUNT_SYSTEMS.get(bet.bet.name, ())] for bet in bets]
        for row in counters:
            for counter in row:
                counter.count += sum(counter.tags[card] for card in shown)
        previous: list[tuple[int, int] | None] = [None] * len(bets)
        highest = [-1] * len(bets)
        tallies = [tally.bets[bet.name] for bet in bets]
        total = 52 * procedure.decks
        for number, (at, code) in enumerate(zip(starts, codes, strict=True)):
            used = code >> 4
            parts = self.values.parts(seen.values, seen.ranks, seen.cards)
            position = self.positions[(values[at] + values[at + 2]) * 1900 + (values[at + 1] + values[at + 3]) * 100
                                      + values[at + 4] * 10 + values[at + 5]]
            player_pair = cards[at] // 4 == cards[at + 2] // 4
            banker_pair = cards[at + 1] // 4 == cards[at + 3] // 4
            perfect_pair = cards[at] == cards[at + 2] or cards[at + 1] == cards[at + 3]
            depth = min(DEPTHS - 1, DEPTHS * (total - seen.left) // total)
            if self.plan.trace:
                tally.trace.append(self._trace(index, number, seen, cards[at:at + used], parts))
            won = {"player": player_pair, "banker": banker_pair, "either": player_pair or banker_pair,
                   "perfect": perfect_pair}
            for slot, (numerator, denominator) in enumerate(parts):
                edge = numerator / denominator
                nets, event, win, lose = self.settle[slot]
                net = nets[position] if nets is not None else win if won[event] else lose
                bet_tally = tallies[slot]
                bet_tally.depth_sum[depth] += edge
                bet_tally.depth_rounds[depth] += 1
                bet_tally.histogram[depth][_edge_bin(edge)] += 1
                if numerator > 0:
                    self._positive(bet_tally, slot, numerator, denominator, edge, net, previous[slot], depth, highest)
                previous[slot] = (numerator, denominator)
                for counter in counters[slot]:
                    level = counter.count * 52 / seen.left if counter.system.true_count else counter.count
                    if level >= counter.system.threshold:
                        bet_tally.counts[counter.system.name].bet(edge, net)
            for card in cards[at:at + used]:
                seen.see(card)
                for row in counters:
                    for counter in row:
                        counter.count += counter.tags[card]
        for slot, bet_tally in enumerate(tallies):
            bet_tally.perfect.end_shoe()
            for play in bet_tally.counts.values():
                play.end_shoe()
            if highest[slot] >= 0:
                bet_tally.shoes_alerted[0] += 1
                bet_tally.shoes_alerted[highest[slot] + 1] -= 1
        tally.shoes += 1
        tally.rounds += len(starts)

    @staticmethod
    def _positive(bet_tally: BetTally, slot: int, numerator: int, denominator: int, edge: float, net: int,
                  previous: tuple[int, int] | None, depth: int, highest: list[int]) -> None:
        """A round whose edge is positive: the perfect counter bets it, and the grid's tallies count it."""
        bet_tally.depth_positive[depth] += 1
        bet_tally.perfect.bet(edge, net)
        top = _grid_above(numerator, denominator)
        low = 0 if previous is None else _grid_at_or_above(*previous)
        bet_tally.above[0] += 1
        bet_tally.above[top + 1] -= 1
        if low <= top:
            bet_tally.alerts[low] += 1
            bet_tally.alerts[top + 1] -= 1
        share = round(edge * 1e12)
        bet_tally.win_above[0] += share
        bet_tally.win_above[top + 1] -= share
        if top > highest[slot]:
            highest[slot] = top

    def _trace(self, index: int, number: int, seen: _Shoe, dealt: Sequence[int],
               parts: Sequence[tuple[int, int]]) -> dict[str, object]:
        total = 52 * self.plan.procedure.decks
        evs = {bet.name: Fraction(numerator, denominator)
               for bet, (numerator, denominator) in zip(self.plan.bets, parts, strict=True)}
        return {"shoe": index + 1, "round_in_shoe": number + 1, "seen": total - seen.left,
                "cards": [CODES[card] for card in dealt],
                "bets": {name: f"{ev.numerator}/{ev.denominator}" for name, ev in evs.items()}}


_STUDIER: _Studier | None = None


def _chunk(plan: Plan, first: int, count: int) -> Tally:
    """A worker's task: the tallies of ``count`` shoes from ``first`` (the studier is made once a process)."""
    global _STUDIER
    if _STUDIER is None or _STUDIER.plan != plan:
        _STUDIER = _Studier(plan)
    return _STUDIER.chunk(first, count)


def _chunks(shoes: int) -> list[tuple[int, int]]:
    return [(first, min(CHUNK, shoes - first)) for first in range(0, shoes, CHUNK)]


def _tallies(plan: Plan, shoes: int, workers: int) -> Generator[Tally, None, None]:
    """Each chunk's tallies, in shoe order, dealt by ``workers`` processes at most :data:`AHEAD` chunks each ahead
    of the one taken (a bounded queue: a slow reader does not keep the whole study in memory). The workers leave
    the stop signals to the command (:func:`~controller.app.fastsim.worker_pool`); when the reader stops (an
    interrupt, or the generator closed), the chunks queued are cancelled and the pool ends once the ones in hand
    are dealt."""
    chunks = _chunks(shoes)
    if workers <= 1 or len(chunks) == 1:
        for first, count in chunks:
            yield _chunk(plan, first, count)
        return
    pending: deque[Future[Tally]] = deque()
    with worker_pool(workers) as pool:
        try:
            for first, count in chunks:
                if len(pending) >= AHEAD * workers:
                    yield pending.popleft().result()
                with held_stops():  # a submit may fork a worker
                    pending.append(pool.submit(_chunk, plan, first, count))
            while pending:
                yield pending.popleft().result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def run(plan: Plan, shoes: int, workers: int = 1, progress: Callable[[int], None] | None = None,
        trace: Callable[[list[dict[str, object]]], None] | None = None) -> Tally:
    """The study's tallies of ``shoes`` seeded shoes; ``progress`` is told the shoes done so far, ``trace`` each
    chunk's traced rounds in shoe order (they are not kept in the tally).

    A stop (Ctrl+C, or a stop signal taken as one: :mod:`controller.cli.stopping`) while the shoes are dealt ends
    the dealing: the tally returned is that of the shoes done, the first ones in order (what a study of as many
    shoes gives), with the stop in :attr:`Tally.interrupt`."""
    total = Tally()
    chunks = _tallies(plan, shoes, workers)
    try:
        for chunk in chunks:
            with held_stops():  # a chunk is added up whole or not at all: a stop halfway left shoes without bets
                if trace is not None:
                    trace(chunk.trace)
                    chunk.trace = []
                total.add(chunk)
            if progress is not None:
                progress(total.shoes)
    except KeyboardInterrupt as interrupt:
        chunks.close()
        total.interrupt = interrupt
    return total


def _prefix(differences: Sequence[int]) -> list[int]:
    """The running sums of a difference array: the value at each grid step."""
    found, running = [], 0
    for difference in differences[:GRID + 1]:
        running += difference
        found.append(running)
    return found


def _mean_and_error(samples: Sequence[float]) -> tuple[float, float]:
    """The mean of per-shoe figures and its standard error."""
    count = len(samples)
    if count == 0:
        return 0.0, 0.0
    mean = math.fsum(samples) / count
    if count == 1:
        return mean, 0.0
    variance = math.fsum((sample - mean) ** 2 for sample in samples) / (count - 1)
    return mean, math.sqrt(variance / count)


def play_report(play: Play, shoes: int, scale: int) -> dict[str, float]:
    """A player's figures: rounds bet per shoe, mean edge when betting, units won per shoe (expected and observed)
    with their standard errors."""
    expected, expected_error = _mean_and_error(play.expected_by_shoe)
    observed, observed_error = _mean_and_error([units / scale for units in play.observed_by_shoe])
    return {
        "rounds_per_shoe": play.rounds_bet / shoes if shoes else 0.0,
        "mean_edge": play.edge_sum / play.rounds_bet if play.rounds_bet else 0.0,
        "units_per_shoe": expected,
        "units_per_shoe_se": expected_error,
        "observed_units_per_shoe": observed,
        "observed_units_per_shoe_se": observed_error,
    }


def _quantile(histogram: Sequence[int], share: float) -> float:
    """The edge below which ``share`` of the histogram's rounds lie (a bin's middle)."""
    total = sum(histogram)
    if not total:
        return 0.0
    running = 0
    width = (EDGE_HIGH - EDGE_LOW) / EDGE_BINS
    for at, count in enumerate(histogram):
        running += count
        if running >= share * total:
            return float(EDGE_LOW + width * at + width / 2)
    return float(EDGE_HIGH)


def recommended(alerts: Sequence[int], shoes: int, target: float) -> int:
    """The lowest grid step whose alerts per shoe are at most ``target`` (:data:`GRID` if none is), compared exactly
    with the decimal ``target`` stands for (``0.29 * 100`` is 28.999999999999996 in floating point)."""
    most = Fraction(repr(target)) * shoes
    for step, count in enumerate(alerts):
        if count <= most:
            return step
    return GRID


def bet_report(bet: StudiedBet, tally: BetTally, shoes: int, target: float) -> dict[str, object]:
    """One bet's figures for the report (``croupier study --json``: ``bets`` maps each name to this)."""
    scale = bet.scale()
    above, alerts = _prefix(tally.above), _prefix(tally.alerts)
    shoes_alerted, win = _prefix(tally.shoes_alerted), _prefix(tally.win_above)
    whole = win[0] or 1

    def at(step: int) -> dict[str, float]:
        return {"above": step / GRID, "alerts_per_shoe": alerts[step] / shoes,
                "share_of_win": win[step] / whole if win[0] else 0.0,
                "rounds_above_per_shoe": above[step] / shoes, "shoes_alerted": shoes_alerted[step] / shoes}

    chosen = recommended(alerts, shoes, target)
    systems = {system.name: system for system in COUNT_SYSTEMS.get(bet.bet.name, ())}
    return {
        "settled_as": bet.bet.name,
        "pays": {name: float(amount) for name, amount in bet.pays.items()},
        "perfect": play_report(tally.perfect, shoes, scale),
        "counts": {name: {**play_report(play, shoes, scale), "source": systems[name].source,
                          "threshold": systems[name].threshold,
                          "true_count": systems[name].true_count} for name, play in tally.counts.items()},
        "thresholds": [at(int(threshold * GRID)) for threshold in THRESHOLDS],
        "recommended_alert_above": {**at(chosen), "target_alerts_per_shoe": target},
        "through_the_shoe": [
            {"part": part + 1, "rounds": tally.depth_rounds[part],
             "mean_edge": tally.depth_sum[part] / tally.depth_rounds[part] if tally.depth_rounds[part] else 0.0,
             "share_positive": tally.depth_positive[part] / tally.depth_rounds[part] if tally.depth_rounds[part]
             else 0.0,
             "p05": _quantile(tally.histogram[part], 0.05), "p50": _quantile(tally.histogram[part], 0.5),
             "p95": _quantile(tally.histogram[part], 0.95)}
            for part in range(DEPTHS)],
        "by_threshold": {"above": [step / GRID for step in range(GRID + 1)],
                         "alerts_per_shoe": [count / shoes for count in alerts],
                         "units_per_shoe": [value / 1e12 / shoes for value in win]},
    }

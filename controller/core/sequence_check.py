"""The repeated-sequence alert: a shoe dealt in the same order as an earlier one.

A pre-sequenced shoe carried out and brought back, a false shuffle, a shoe put
back into play, decks dealt in their factory order: each makes this shoe's
dealt order repeat a stretch of an order the table has seen before. Every
shoe's cards are compared, as they come out, with **references**: every earlier
shoe's dealt order (the previous one included), the previous shoe's discard
order (its dealt order reversed: the tray's top card was dealt last) and the
new-deck factory order.

A run is a stretch of consecutive cards of this shoe equal, card for card, to a
stretch of one reference. Runs are found through a map from every three cards
in a row of the references (a trigram, :data:`Gram`) to where they occur (a
compact :class:`~controller.core.gram_index.GramIndex`), so a card costs one
look-up plus the rare positions its trigram has.

The alert threshold is a computed false-alarm bound (docs/game-protection.md).
Under a random shuffle, given the cards already out, the probability that a
given alignment (a start in this shoe, a start in a reference) matches the next
``k`` cards is exactly the product of ``unseen copies of that code / unseen
cards`` over those cards: the reference is fixed, so the run is one event and
the shoe's composition (eight copies of each card in eight decks, fewer near
the end) is counted exactly. Stopping a run when that product first falls below
``t`` therefore fires with probability at most ``t`` per alignment; there are at
most ``shoe cards x reference cards`` alignments, so a threshold of
``FALSE_ALARM / alignments`` keeps the chance of any false alarm in a shoe
below :data:`FALSE_ALARM` (one in a million).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from math import log
from typing import Literal

import msgspec

from controller.core.alerts import severity_of
from controller.core.cards import RANKS, Card
from controller.core.chain import Chain
from controller.core.events import AlertEvent
from controller.core.gram_index import BUCKET_BITS, CARD_CODES, CARD_NUMBERS, LOW_MASK, GramIndex, decode, encode
from controller.i18n.message import Param, message

FALSE_ALARM = 1e-6
"""The chance, under a random shuffle, that a shoe raises a sequence alert (an upper bound)."""

PROPERTY_SHARE = 0.5
"""The part of :data:`FALSE_ALARM` the property check takes when it is on (the table's own check keeps the rest)."""


def false_alarm_budgets(property_check: bool) -> tuple[float, float]:
    """(the table's own check's, the property check's) false-alarm bound per shoe; together :data:`FALSE_ALARM`."""
    if not property_check:
        return FALSE_ALARM, 0.0
    return FALSE_ALARM * (1 - PROPERTY_SHARE), FALSE_ALARM * PROPERTY_SHARE

FACTORY_SUITS = "SHDC"
"""New decks come in suit order, each suit ace to king."""

Gram = int
"""Three cards in a row, as one key (:func:`~controller.core.gram_index.gram_key`): what runs are found by.

Three, not two: a run of three cards is never implausible on its own (its chance
is at least ``1 / N**3`` for a shoe of ``N`` cards, above every threshold, which is
at most ``FALSE_ALARM / N**2``), so no alert is missed, and a three-card key has 52
times fewer chance matches to follow than a pair.
"""


def factory_order(decks: int) -> list[str]:
    """The codes of ``decks`` new decks laid one after another, each in its factory order."""
    deck = [rank + suit for suit in FACTORY_SUITS for rank in RANKS]
    return deck * decks


@dataclass(frozen=True, slots=True, init=False)
class Reference:
    """One order a shoe is compared with: which shoe it came from and how.

    The cards are kept as their numbers (:attr:`numbers`, one byte a card); :attr:`cards` gives their codes.
    """

    shoe: int | None
    """The earlier shoe's number (None for the factory order)."""
    order: Literal["dealt", "discard", "factory"]
    numbers: bytes
    """The cards' numbers (:data:`~controller.core.gram_index.CARD_NUMBERS`), in order."""

    def __init__(self, shoe: int | None, order: Literal["dealt", "discard", "factory"],
                 cards: Iterable[str] | bytes) -> None:
        """``cards``: codes (``TH``), or their numbers as :func:`~controller.core.gram_index.encode` gives."""
        object.__setattr__(self, "shoe", shoe)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "numbers", cards if isinstance(cards, bytes) else encode(cards))

    @property
    def cards(self) -> tuple[str, ...]:
        """The cards' codes, in order."""
        return decode(self.numbers)


class SequenceRepeat(msgspec.Struct, frozen=True, gc=False):
    """A run long enough to be implausible under a random shuffle."""

    reference: Reference
    start: int
    """Where the run starts in this shoe (1 = the shoe's first identified card)."""
    earlier_start: int
    """Where it starts in the reference (1 = its first card)."""
    length: int
    probability: float
    """The chance of this alignment matching so far under a random shuffle."""
    threshold: float


DISCARD_BASE = 1 << 48
"""Where the previous shoe's discard order is numbered from (apart from the archive's positions)."""


class SequenceArchive(msgspec.Struct):
    """The orders the table has seen: every earlier shoe's dealt order and the factory order.

    The table keeps one for its whole life (a journal replay rebuilds it), so every
    shoe is compared with all earlier ones. The references are numbered one after
    another (a card's *position*); :attr:`index` maps each trigram to the positions of
    its last card (see :data:`Gram`), compactly (:class:`~controller.core.gram_index.GramIndex`:
    about seven bytes a card). Pure data.
    """

    decks: int
    references: list[Reference] = msgspec.field(default_factory=list)
    starts: list[int] = msgspec.field(default_factory=list)
    """The position of each reference's first card."""
    index: GramIndex = msgspec.field(default_factory=GramIndex)
    size: int = 0
    """Cards in all references."""
    previous: Reference | None = None
    """The last shoe's dealt order (its reverse is the discard reference)."""
    factory: bool = True
    """Whether the factory order is a reference (the property check's archive leaves it to the table's)."""

    def __post_init__(self) -> None:
        if self.factory:
            self._add(Reference(None, "factory", factory_order(self.decks)))

    def add_reference(self, reference: Reference) -> None:
        """Compare later shoes with ``reference`` too (it does not become the previous shoe)."""
        self._add(reference)

    def _add(self, reference: Reference) -> None:
        if self.index.end > self.size:  # a later archive grew the index it shares with this one: keep to ours
            self.index = self.index.below(self.size)
        self.references.append(reference)
        self.starts.append(self.size)
        self.index.add(reference.numbers, self.size)
        self.size += len(reference.numbers)

    def add_shoe(self, shoe: int, cards: Iterable[str]) -> None:
        """Keep the dealt order of ``shoe``, which has just ended."""
        reference = Reference(shoe, "dealt", cards)
        self._add(reference)
        self.previous = reference

    def with_shoe(self, shoe: int, cards: Iterable[str]) -> SequenceArchive:
        """A copy of this archive that keeps the dealt order of ``shoe`` too (this one stays as it is: a table's
        state holds its archive as a value). The copy shares the index, whose positions past this archive's
        :attr:`size` this one never reads (the index is copied only when this one grows in turn)."""
        grown = SequenceArchive(self.decks, list(self.references), list(self.starts), self.index, self.size,
                                self.previous, factory=False)
        grown.factory = self.factory
        grown.add_shoe(shoe, cards)
        return grown

    @property
    def cards(self) -> int:
        """Cards in all references, the previous shoe's discard order included."""
        return self.size + (len(self.previous.numbers) if self.previous is not None else 0)

    def locate(self, position: int) -> tuple[int, int]:
        """The reference number holding archive ``position``, and its 0-based place there."""
        number = bisect.bisect_right(self.starts, position) - 1
        return number, position - self.starts[number]


class SequenceShoe:
    """What stays the same while one shoe is compared with an archive: the archive's index, the previous shoe's
    discard order and the threshold (built when the shoe starts; shared by every :class:`SequenceState` of it)."""

    __slots__ = ("_archive_lows", "_discard_lows", "_lookups", "alignments", "archive", "decks", "discard",
                 "discard_reference", "index", "log_threshold", "threshold", "total")

    def __init__(self, archive: SequenceArchive, decks: int, false_alarm: float = FALSE_ALARM) -> None:
        self.archive = archive
        self.total = 52 * decks
        self.decks = decks
        self.index = archive.index
        self.discard_reference: Reference | None = None
        self.discard = GramIndex()
        if archive.previous is not None:
            self.discard_reference = Reference(archive.previous.shoe, "discard", archive.previous.numbers[::-1])
            self.discard.add(self.discard_reference.numbers, 0)
        self._lookups = ((self.index.lows, self.index.positions, 0, archive.size),
                         (self.discard.lows, self.discard.positions, DISCARD_BASE, len(self.discard_reference.numbers)
                          if self.discard_reference is not None else 0))
        """Per index: its buckets, what its positions are numbered from, and the positions it holds (the archive's
        index, shared with later archives, may hold more)."""
        self._archive_lows, self._discard_lows = self.index.lows, self.discard.lows
        self.alignments = max(1, self.total * archive.cards)
        self.threshold = false_alarm / self.alignments
        self.log_threshold = math.log(self.threshold)


class SequenceState(msgspec.Struct, frozen=True, gc=False):
    """One shoe's comparison so far, as a value: :meth:`observe` gives the next one."""

    cards: Chain[str] = msgspec.field(default_factory=Chain)
    """This shoe's identified cards, in the order they came out."""
    key: int = 0
    previous_log_probabilities: tuple[float, float] = (0.0, 0.0)
    runs: Mapping[int, tuple[int, float]] = msgspec.field(default_factory=dict)
    """Each run ending at the last card: its reference position -> (its start here, its log probability)."""
    alerted: frozenset[int] = frozenset()
    """The references (numbers; -1 for the discard order) already alerted on in this shoe."""

    @classmethod
    def of(cls, cards: list[str], previous_log_probabilities: tuple[float, float] = (0.0, 0.0),
           runs: Mapping[int, tuple[int, float]] | None = None, alerted: frozenset[int] = frozenset()) -> SequenceState:
        """The state after ``cards`` (with the run bookkeeping given), its key computed from them."""
        key = 0
        for code in cards[-2:]:
            key = key % 2704 * 52 + CARD_NUMBERS[code]
        return cls(Chain(cards), key, previous_log_probabilities, dict(runs or {}), alerted)

    def observe(self, shoe: SequenceShoe, card: Card, seen: Sequence[int],
                seen_total: int) -> tuple[SequenceState, SequenceRepeat | None]:
        """The state after ``card``; ``seen`` counts the shoe's cards before it by card number
        (:data:`~controller.core.gram_index.CARD_NUMBERS`), ``seen_total`` all of them. The second value is the
        first implausible run against a reference not alerted on yet, if the card made one."""
        code = card.code
        number = CARD_NUMBERS[code]
        unseen = shoe.total - seen_total
        copies = shoe.decks - seen[number]
        log_probability = log(copies / unseen) if copies > 0 and unseen > 0 else 0.0
        cards = self.cards.plus(code)
        key = self.key % 2704 * 52 + number
        found: SequenceRepeat | None = None
        runs = self.runs
        alerted = self.alerted
        earlier, last = self.previous_log_probabilities
        if len(cards) > 2:
            bucket, low = key >> BUCKET_BITS, key & LOW_MASK
            if shoe._archive_lows[bucket].find(low) >= 0 or shoe._discard_lows[bucket].find(low) >= 0:
                runs, found, alerted = _follow(shoe, runs, alerted, len(cards), bucket, low, log_probability,
                                               earlier + last + log_probability)
            elif runs:
                runs = {}
        return SequenceState(cards, key, (last, log_probability), runs, alerted), found


def _follow(shoe: SequenceShoe, before: Mapping[int, tuple[int, float]], alerted: frozenset[int], count: int,
            bucket: int, low: int, log_probability: float,
            start_log: float) -> tuple[dict[int, tuple[int, float]], SequenceRepeat | None, frozenset[int]]:
    """Extend or start the runs through every position of the last three cards' key (``bucket``, ``low``)."""
    runs: dict[int, tuple[int, float]] = {}
    start_here = count - 2
    found: SequenceRepeat | None = None
    for lows, positions, offset, limit in shoe._lookups:
        entries, places = lows[bucket], positions[bucket]
        entry = entries.find(low)
        while entry >= 0:
            place = places[entry]
            if place >= limit:  # an entry a later archive added (a bucket's positions ascend)
                break
            at = place + offset
            run = before.get(at - 1)
            run = (run[0], run[1] + log_probability) if run is not None else (start_here, start_log)
            runs[at] = run
            if run[1] < shoe.log_threshold and found is None:
                found, alerted = _repeat(shoe, alerted, count, at, run)
            entry = entries.find(low, entry + 1)
    return runs, found, alerted


def _repeat(shoe: SequenceShoe, alerted: frozenset[int], count: int, at: int,
            run: tuple[int, float]) -> tuple[SequenceRepeat | None, frozenset[int]]:
    """The alert for the run ending at reference position ``at``, unless its reference had one."""
    if at >= DISCARD_BASE:
        number, place = -1, at - DISCARD_BASE
        reference = shoe.discard_reference
    else:
        number, place = shoe.archive.locate(at)
        reference = shoe.archive.references[number]
    if number in alerted or reference is None:
        return None, alerted
    start, log_probability = run
    length = count - start + 1
    return SequenceRepeat(reference, start, place - length + 2, length, math.exp(log_probability),
                          shoe.threshold), alerted | {number}


class SequenceMonitor:
    """Compares one shoe's cards, as they come, with an archive's references (a mutable holder of a
    :class:`SequenceState`, for the property check).

    :meth:`observe` returns a :class:`SequenceRepeat` the first time a run against
    a reference becomes implausible (at most once per reference).
    """

    def __init__(self, archive: SequenceArchive, decks: int, false_alarm: float = FALSE_ALARM) -> None:
        self.shoe = SequenceShoe(archive, decks, false_alarm)
        self.state = SequenceState()

    @property
    def threshold(self) -> float:
        return self.shoe.threshold

    @property
    def cards(self) -> list[str]:
        """This shoe's identified cards, in the order they came out."""
        return self.state.cards.to_list()

    @cards.setter
    def cards(self, cards: list[str]) -> None:
        self.state = SequenceState.of(cards, self.state.previous_log_probabilities, self.state.runs,
                                      self.state.alerted)

    @property
    def runs(self) -> Mapping[int, tuple[int, float]]:
        return self.state.runs

    @property
    def alerted(self) -> frozenset[int]:
        return self.state.alerted

    def observe(self, card: Card, seen: Mapping[str, int], seen_total: int) -> SequenceRepeat | None:
        """Record ``card``; ``seen`` and ``seen_total`` count the shoe's cards before it."""
        counts = [seen.get(code, 0) for code in CARD_CODES]
        self.state, found = self.state.observe(self.shoe, card, counts, seen_total)
        return found


def sequence_alert(repeat: SequenceRepeat, shoe: int, round_number: int, alert_id: str) -> AlertEvent:
    """The ``alert`` event ``alert_id`` (``kind: "sequence_repeat"``) for ``repeat``, found in ``shoe``."""
    reference = repeat.reference
    where: dict[str, Param] = {"length": repeat.length, "start": repeat.start, "shoe": shoe,
                               "earlier_start": repeat.earlier_start, "probability": f"{repeat.probability:.1e}"}
    if reference.order == "factory":
        detail = message("alert.sequence_repeat.factory",
                         "{length} cards from card {start} of shoe {shoe} repeat, in the same order, the factory "
                         "order of new decks from its card {earlier_start}; a random shuffle gives this with "
                         "probability {probability}. Stop and call surveillance: the shoe may be pre-sequenced or "
                         "falsely shuffled", **where)
    elif reference.order == "discard":
        detail = message("alert.sequence_repeat.discard",
                         "{length} cards from card {start} of shoe {shoe} repeat, in the same order, shoe "
                         "{earlier_shoe}'s discard order (its dealt order reversed) from its card {earlier_start}; "
                         "a random shuffle gives this with probability {probability}. Stop and call surveillance: the "
                         "shoe may be pre-sequenced or falsely shuffled",
                         earlier_shoe=reference.shoe or 0, **where)
    else:
        detail = message("alert.sequence_repeat.dealt",
                         "{length} cards from card {start} of shoe {shoe} repeat, in the same order, shoe "
                         "{earlier_shoe}'s dealt order from its card {earlier_start}; a random shuffle gives this "
                         "with probability {probability}. Stop and call surveillance: the shoe may be pre-sequenced "
                         "or falsely shuffled", earlier_shoe=reference.shoe or 0, **where)
    return AlertEvent(
        id=alert_id, kind="sequence_repeat", severity=severity_of("sequence_repeat"), shoe=shoe, round=round_number,
        probability=repeat.probability, threshold=repeat.threshold, earlier_shoe=reference.shoe,
        order=reference.order, start=repeat.start, earlier_start=repeat.earlier_start, length=repeat.length,
        detail=detail.english(), say_id=detail.id, say_params=detail.params)

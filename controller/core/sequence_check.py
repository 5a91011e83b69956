"""The repeated-sequence alert: a shoe dealt in the same order as an earlier one.

A pre-sequenced shoe carried out and brought back, a false shuffle, a shoe put
back into play, decks dealt in their factory order: each makes this shoe's
dealt order repeat a stretch of an order the table has seen before. Every
shoe's cards are compared, as they come out, with **references**: every earlier
shoe's dealt order (the previous one included), the previous shoe's discard
order (its dealt order reversed: the tray's top card was dealt last) and the
new-deck factory order.

A run is a stretch of consecutive cards of this shoe equal, card for card, to a
stretch of one reference. Runs are found through a map from each card-pair
bigram of the references to where it occurs, so a card costs one dictionary
look-up plus the handful of positions that bigram has.

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

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from controller.core.cards import RANKS, Card
from controller.core.events import AlertEvent

FALSE_ALARM = 1e-6
"""The chance, under a random shuffle, that a shoe raises a sequence alert (an upper bound)."""

FACTORY_SUITS = "SHDC"
"""New decks come in suit order, each suit ace to king."""

Bigram = tuple[str, str]


def factory_order(decks: int) -> list[str]:
    """The codes of ``decks`` new decks laid one after another, each in its factory order."""
    deck = [rank + suit for suit in FACTORY_SUITS for rank in RANKS]
    return deck * decks


@dataclass(frozen=True, slots=True)
class Reference:
    """One order a shoe is compared with: which shoe it came from and how."""

    shoe: int | None
    """The earlier shoe's number (None for the factory order)."""
    order: Literal["dealt", "discard", "factory"]
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SequenceRepeat:
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


@dataclass(slots=True)
class _Run:
    start: int
    earlier_start: int
    length: int
    log_probability: float


@dataclass
class SequenceArchive:
    """The orders the table has seen: every earlier shoe's dealt order and the factory order.

    The table keeps one for its whole life (a journal replay rebuilds it), so every
    shoe is compared with all earlier ones. Pure data.
    """

    decks: int
    references: list[Reference] = field(default_factory=list)
    index: dict[Bigram, list[tuple[int, int]]] = field(default_factory=dict)
    """Each bigram of the references: (reference number, position of its second card)."""
    previous: Reference | None = None
    """The last shoe's dealt order (its reverse is the discard reference)."""

    def __post_init__(self) -> None:
        self._add(Reference(None, "factory", tuple(factory_order(self.decks))))

    def _add(self, reference: Reference) -> None:
        number = len(self.references)
        self.references.append(reference)
        cards = reference.cards
        for position in range(1, len(cards)):
            self.index.setdefault((cards[position - 1], cards[position]), []).append((number, position))

    def add_shoe(self, shoe: int, cards: list[str]) -> None:
        """Keep the dealt order of ``shoe``, which has just ended."""
        reference = Reference(shoe, "dealt", tuple(cards))
        self._add(reference)
        self.previous = reference

    @property
    def cards(self) -> int:
        """Cards in all references, the previous shoe's discard order included."""
        total = sum(len(reference.cards) for reference in self.references)
        return total + (len(self.previous.cards) if self.previous is not None else 0)


class SequenceMonitor:
    """Compares one shoe's cards, as they come, with an archive's references.

    :meth:`observe` returns a :class:`SequenceRepeat` the first time a run against
    a reference becomes implausible (at most once per reference).
    """

    def __init__(self, archive: SequenceArchive, decks: int) -> None:
        self.archive = archive
        self.total = 52 * decks
        self.decks = decks
        self.references = list(archive.references)
        self.index = archive.index
        self.discard: dict[Bigram, list[int]] = {}
        if archive.previous is not None:
            self.references.append(Reference(archive.previous.shoe, "discard",
                                             tuple(reversed(archive.previous.cards))))
            cards = self.references[-1].cards
            for position in range(1, len(cards)):
                self.discard.setdefault((cards[position - 1], cards[position]), []).append(position)
        self.discard_number = len(self.references) - 1
        self.alignments = max(1, self.total * archive.cards)
        self.threshold = FALSE_ALARM / self.alignments
        self.log_threshold = math.log(self.threshold)
        self.cards: list[str] = []
        """This shoe's identified cards, in the order they came out."""
        self.previous_log_probability = 0.0
        self.runs: dict[tuple[int, int], _Run] = {}
        self.alerted: set[int] = set()

    def observe(self, card: Card, seen: Mapping[str, int], seen_total: int) -> SequenceRepeat | None:
        """Record ``card``; ``seen`` and ``seen_total`` count the shoe's cards before it."""
        unseen = self.total - seen_total
        copies = self.decks - seen.get(card.code, 0)
        log_probability = math.log(copies / unseen) if copies > 0 and unseen > 0 else 0.0
        self.cards.append(card.code)
        position = len(self.cards)
        found: SequenceRepeat | None = None
        if position > 1:
            runs: dict[tuple[int, int], _Run] = {}
            bigram = (self.cards[-2], card.code)
            candidates = self.index.get(bigram, [])
            if self.discard:
                candidates = candidates + [(self.discard_number, at) for at in self.discard.get(bigram, [])]
            for key in candidates:
                run = self._extend(key, position, log_probability)
                runs[key] = run
                if run.log_probability < self.log_threshold and key[0] not in self.alerted and found is None:
                    self.alerted.add(key[0])
                    found = SequenceRepeat(self.references[key[0]], run.start, run.earlier_start, run.length,
                                           math.exp(run.log_probability), self.threshold)
            self.runs = runs
        self.previous_log_probability = log_probability
        return found

    def _extend(self, key: tuple[int, int], position: int, log_probability: float) -> _Run:
        """The run ending at this card and at ``key``'s reference position: one card longer, or new."""
        number, at = key
        before = self.runs.get((number, at - 1))
        if before is not None:
            return _Run(before.start, before.earlier_start, before.length + 1,
                        before.log_probability + log_probability)
        return _Run(position - 1, at, 2, self.previous_log_probability + log_probability)


def sequence_alert(repeat: SequenceRepeat, shoe: int, round_number: int) -> AlertEvent:
    """The ``alert`` event (``kind: "sequence_repeat"``) for ``repeat``, found in ``shoe``."""
    reference = repeat.reference
    if reference.order == "factory":
        earlier = "the factory order of new decks"
    elif reference.order == "discard":
        earlier = f"shoe {reference.shoe}'s discard order (its dealt order reversed)"
    else:
        earlier = f"shoe {reference.shoe}'s dealt order"
    return {
        "event": "alert", "kind": "sequence_repeat", "shoe": shoe, "round": round_number,
        "probability": repeat.probability, "threshold": repeat.threshold,
        "earlier_shoe": reference.shoe, "order": reference.order, "start": repeat.start,
        "earlier_start": repeat.earlier_start, "length": repeat.length,
        "detail": f"{repeat.length} cards from card {repeat.start} of shoe {shoe} repeat, in the same order, "
                  f"{earlier} from its card {repeat.earlier_start}; a random shuffle gives this with "
                  f"probability {repeat.probability:.1e}. Stop and call surveillance: the shoe may be "
                  f"pre-sequenced or falsely shuffled",
    }

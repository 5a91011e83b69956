"""The shoe's bookkeeping, as a value: every card out of the shoe, where it went, and the shoe's counters.

A :class:`ShoeLedger` never changes; each function here returns the ledger after what happened to a card.
It decides nothing about the round: the table tells it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

import msgspec

from controller.core.cards import Card
from controller.core.chain import Chain
from controller.core.events import ResultCounts, ResultEvent, ShoeClosedEvent, SideCounts
from controller.core.gram_index import CARD_CODES, CARD_NUMBERS
from controller.core.misdeals import SHOE_CARD, UNIDENTIFIED, Held
from controller.core.property_check import FindingKey
from controller.core.sequence_check import SequenceRepeat, SequenceShoe, SequenceState
from controller.core.shuffle_check import ShuffleScore
from controller.core.shuffle_check import observe as observe_shuffle

NO_CARDS = (0,) * 52
"""A count of zero of every card (by card number)."""


class Stats(msgspec.Struct, frozen=True, gc=False):
    """Results, naturals, pairs, misdeals and voided rounds of a shoe."""

    banker: int = 0
    player: int = 0
    tie: int = 0
    natural: int = 0
    player_pair: int = 0
    banker_pair: int = 0
    misdeal: int = 0
    voided: int = 0

    def plus(self, **counts: int) -> Stats:
        """These counters with ``counts`` added."""
        return msgspec.structs.replace(self, **{name: getattr(self, name) + count for name, count in counts.items()})

    def added(self, other: Stats) -> Stats:
        """These counters and ``other``'s, summed."""
        return Stats(*(mine + theirs for mine, theirs in zip(msgspec.structs.astuple(self),
                                                             msgspec.structs.astuple(other), strict=True)))


def counted(counts: tuple[int, ...], code: str, by: int = 1) -> tuple[int, ...]:
    """``counts`` (by card number) with ``by`` more of ``code``."""
    changed = list(counts)
    changed[CARD_NUMBERS[code]] += by
    return tuple(changed)


def as_mapping(counts: tuple[int, ...]) -> dict[str, int]:
    """The non-zero counts by card code, in card-number order."""
    return {code: count for code, count in zip(CARD_CODES, counts, strict=True) if count}


class ShoeLedger(msgspec.Struct, frozen=True, gc=False):
    """One shoe's cards and counters: inventory, burned, discarded, foreign, results, the shuffle score and the
    repeated-sequence comparison."""

    decks: int
    inventory_counts: tuple[int, ...] = NO_CARDS
    """Cards of this shoe seen, by card number."""
    seen_total: int = 0
    """Cards of this shoe identified as they left it."""
    shuffle: ShuffleScore = msgspec.field(default_factory=ShuffleScore)
    sequence: SequenceState = msgspec.field(default_factory=SequenceState)
    """This shoe's order compared with the earlier orders (the repeated-sequence alert)."""
    sequence_shoe: SequenceShoe | None = None
    """What the comparison reads (the archive's index); None when ``[protection] sequence_check`` is off."""
    burned: Chain[str] = msgspec.field(default_factory=Chain)
    discarded: Chain[str] = msgspec.field(default_factory=Chain)
    dealt: int = 0
    """Cards placed in slots this shoe (voided rounds included; exposed cards taken back are not)."""
    unidentified: int = 0
    """Cards of this shoe that left it and were set aside without ever being identified."""
    foreign: Chain[str] = msgspec.field(default_factory=Chain)
    results: Chain[ResultEvent] = msgspec.field(default_factory=Chain)
    """This shoe's result events, in order."""
    stats: Stats = msgspec.field(default_factory=Stats)
    property_findings: Mapping[FindingKey, str] = msgspec.field(default_factory=dict)
    """The property check's findings given this shoe (``PropertyRepeat.key``), each with the id of the alert it
    opened: a finding given again is refused, and a resumed property check gives only those not here."""
    shown_counts: tuple[int, ...] = NO_CARDS
    """Cards the players could have seen, by card number: dealt to the layout, the turned burn card, cards exposed
    or set aside face up (face-down burns are not among them)."""

    @property
    def total(self) -> int:
        return 52 * self.decks

    @property
    def cards_seen(self) -> int:
        """Cards of this shoe that have left it: identified ones plus those set aside unread."""
        return self.seen_total + self.unidentified

    @property
    def inventory(self) -> Counter[str]:
        """Cards of this shoe seen, by code."""
        return Counter(as_mapping(self.inventory_counts))

    @property
    def shown(self) -> Counter[str]:
        """Cards the players could have seen, by code."""
        return Counter(as_mapping(self.shown_counts))

    @property
    def sequence_cards(self) -> list[str]:
        """This shoe's identified cards in the order they came out, as the repeated-sequence check saw them."""
        return self.sequence.cards.to_list()

    def seen(self, code: str) -> int:
        """Copies of ``code`` seen in this shoe."""
        return self.inventory_counts[CARD_NUMBERS[code]]

    def count(self, card: Card) -> tuple[ShoeLedger, float | None, SequenceRepeat | None]:
        """The ledger with ``card`` counted as seen in the shoe; the unshuffled-shoe score when it calls for an
        alert, and the run it made implausible, if it did."""
        counts, seen_total = self.inventory_counts, self.seen_total
        shuffle, score = observe_shuffle(self.shuffle, card, counts, seen_total, self.decks)
        sequence, repeat = self.sequence, None
        if self.sequence_shoe is not None:
            sequence, repeat = sequence.observe(self.sequence_shoe, card, counts, seen_total)
        ledger = msgspec.structs.replace(self, inventory_counts=counted(counts, card.code), seen_total=seen_total + 1,
                                         shuffle=shuffle, sequence=sequence)
        return ledger, score, repeat

    def is_foreign(self, card: Card, unread_held: int = 0) -> bool:
        """No copy of ``card`` can still be in the shoe: all its copies were seen, or every card has left
        (``unread_held``: unread cards set aside by a pending misdeal, which left the shoe too)."""
        return (self.inventory_counts[CARD_NUMBERS[card.code]] >= self.decks
                or self.seen_total + self.unidentified + unread_held >= self.total)

    def all_copies_seen(self, card: Card) -> bool:
        """Every copy of ``card`` the decks hold has been seen."""
        return self.inventory_counts[CARD_NUMBERS[card.code]] >= self.decks

    def placed(self, card: Card) -> ShoeLedger:
        """``card`` went to a slot of the layout (the players see it)."""
        return msgspec.structs.replace(self, dealt=self.dealt + 1, shown_counts=counted(self.shown_counts, card.code))

    def taken_back(self, card: Card) -> ShoeLedger:
        """``card`` was taken back from its slot (exposed): counted again where it goes."""
        return msgspec.structs.replace(self, dealt=self.dealt - 1,
                                       shown_counts=counted(self.shown_counts, card.code, -1))

    def burned_card(self, card: Card, turned: bool) -> ShoeLedger:
        """``card`` was burned (``turned``: the turned first card, which the players see)."""
        shown = counted(self.shown_counts, card.code) if turned else self.shown_counts
        return msgspec.structs.replace(self, burned=self.burned.plus(card.code), shown_counts=shown)

    def burn_unidentified(self, text: str, unread_held: int) -> ShoeLedger:
        """A burn card the reader could not identify is burned all the same."""
        if self.cards_seen + unread_held >= self.total:
            return msgspec.structs.replace(self, foreign=self.foreign.plus(text), burned=self.burned.plus("??"))
        return msgspec.structs.replace(self, unidentified=self.unidentified + 1, burned=self.burned.plus("??"))

    def with_foreign(self, code: str) -> ShoeLedger:
        """``code`` was read and cannot be of this shoe."""
        return msgspec.structs.replace(self, foreign=self.foreign.plus(code))

    def discarding(self, code: str) -> ShoeLedger:
        """``code`` (an exposed card taken back) goes to the discards, face up."""
        return msgspec.structs.replace(self, discarded=self.discarded.plus(code),
                                       shown_counts=counted(self.shown_counts, code))

    def set_aside(self, held: Iterable[Held]) -> tuple[ShoeLedger, list[str]]:
        """Put held cards aside for good: shoe cards to the discards, unread ones counted, foreign ones kept
        apart (they are already listed in :attr:`foreign`). Returns the ledger and what was read of each."""
        discarded, foreign = self.discarded, self.foreign
        shown, unidentified = self.shown_counts, self.unidentified
        cards_seen, total = self.seen_total + unidentified, self.total
        read: list[str] = []
        shown_more: list[str] = []
        for text, status in held:
            read.append(text)
            if status == SHOE_CARD:
                discarded = discarded.plus(text)
                shown_more.append(text)
            elif status == UNIDENTIFIED and cards_seen >= total:
                foreign = foreign.plus(text)  # every card of the shoe is already accounted for
            elif status == UNIDENTIFIED:
                discarded = discarded.plus("??")
                unidentified += 1
                cards_seen += 1
        if shown_more:
            numbers = list(shown)
            for text in shown_more:
                numbers[CARD_NUMBERS[text]] += 1
            shown = tuple(numbers)
        ledger = msgspec.structs.replace(self, discarded=discarded, foreign=foreign, shown_counts=shown,
                                         unidentified=unidentified)
        return ledger, read

    def with_result(self, result: ResultEvent) -> ShoeLedger:
        """A settled round's result and its counters."""
        stats = self.stats.plus(**{result.winner: 1}, natural=int(result.natural),
                                player_pair=int(result.player_pair), banker_pair=int(result.banker_pair))
        return msgspec.structs.replace(self, results=self.results.plus(result), stats=stats)

    def with_finding(self, key: FindingKey, alert_id: str) -> ShoeLedger:
        """The property check's finding ``key`` was given this shoe and opened alert ``alert_id``."""
        return msgspec.structs.replace(self, property_findings={**self.property_findings, key: alert_id})

    def report(self, shoe_number: int) -> ShoeClosedEvent:
        """The ``shoe_closed`` event: the whole shoe's accounts."""
        total = self.total
        seen = self.cards_seen
        stats = self.stats
        return ShoeClosedEvent(
            shoe=shoe_number, rounds=stats.banker + stats.player + stats.tie,
            results=ResultCounts(banker=stats.banker, player=stats.player, tie=stats.tie),
            naturals=stats.natural, pairs=SideCounts(player=stats.player_pair, banker=stats.banker_pair),
            misdeals=stats.misdeal, voided=stats.voided, cards_seen=seen, cards_remaining=total - seen,
            burned=len(self.burned), dealt=self.dealt, discarded=len(self.discarded), unidentified=self.unidentified,
            foreign=list(self.foreign), inventory=dict(sorted(as_mapping(self.inventory_counts).items())))

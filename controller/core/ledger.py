"""The shoe's bookkeeping: every card out of the shoe, where it went, and the shoe's counters."""

from __future__ import annotations

from collections import Counter

from controller.core.cards import Card
from controller.core.events import ResultEvent, ShoeClosedEvent
from controller.core.misdeals import SHOE_CARD, UNIDENTIFIED, Held
from controller.core.property_check import FindingKey
from controller.core.sequence_check import FALSE_ALARM, SequenceArchive, SequenceMonitor, SequenceRepeat
from controller.core.shuffle_check import ShuffleMonitor


class ShoeLedger:
    """One shoe's cards and counters: inventory, burned, discarded, foreign, results, shuffle monitor.

    A new shoe gets a new ledger. Pure bookkeeping: it decides nothing about
    the round; the table tells it what happened to each card.
    """

    def __init__(self, decks: int, archive: SequenceArchive | None = None, sequence_check: bool = True,
                 false_alarm: float = FALSE_ALARM) -> None:
        self.decks = decks
        self.total = 52 * decks
        self.inventory: Counter[str] = Counter()
        self.seen_total = 0
        """Cards of this shoe identified as they left it."""
        self.monitor = ShuffleMonitor(decks)
        self.sequence = SequenceMonitor(archive if archive is not None else SequenceArchive(decks), decks,
                                        false_alarm)
        """This shoe's order compared with the earlier orders (the repeated-sequence alert)."""
        self.sequence_check = sequence_check
        """Whether :attr:`sequence` watches this shoe (``[protection] sequence_check``)."""
        self.repeat: SequenceRepeat | None = None
        """The run the last counted card made implausible, if it did."""
        self.burned: list[str] = []
        self.discarded: list[str] = []
        self.dealt = 0
        """Cards placed in slots this shoe (voided rounds included; exposed cards taken back are not)."""
        self.unidentified = 0
        """Cards of this shoe that left it and were set aside without ever being identified."""
        self.foreign: list[str] = []
        self.results: list[ResultEvent] = []
        """This shoe's result events, in order."""
        self.stats: Counter[str] = Counter()
        """Results, naturals, pairs, misdeals and voided rounds of this shoe."""
        self.property_findings: dict[FindingKey, str] = {}
        """The property check's findings given this shoe (``PropertyRepeat.key``), each with the id of the alert it
        opened: a finding given again is refused, and a resumed property check gives only those not here."""
        self.shown: Counter[str] = Counter()
        """Cards the players could have seen: dealt to the layout, the turned burn card, cards exposed or set
        aside face up (face-down burns are not among them)."""

    @property
    def cards_seen(self) -> int:
        """Cards of this shoe that have left it: identified ones plus those set aside unread."""
        return self.seen_total + self.unidentified

    def count(self, card: Card) -> float | None:
        """Count a card seen in the shoe; the unshuffled-shoe score when it calls for an alert (and set
        :attr:`repeat` when the card makes a repeated run implausible)."""
        score = self.monitor.observe(card, self.inventory, self.seen_total)
        if self.sequence_check:
            self.repeat = self.sequence.observe(card, self.inventory, self.seen_total)
        self.inventory[card.code] += 1
        self.seen_total += 1
        return score

    def is_foreign(self, card: Card, unread_held: int = 0) -> bool:
        """No copy of ``card`` can still be in the shoe: all its copies were seen, or every card has left
        (``unread_held``: unread cards set aside by a pending misdeal, which left the shoe too)."""
        return (self.inventory[card.code] >= self.decks
                or self.seen_total + self.unidentified + unread_held >= self.total)

    def all_copies_seen(self, card: Card) -> bool:
        """Every copy of ``card`` the decks hold has been seen."""
        return self.inventory[card.code] >= self.decks

    def burn_unidentified(self, text: str, unread_held: int) -> None:
        """A burn card the reader could not identify is burned all the same."""
        if self.cards_seen + unread_held >= self.total:
            self.foreign.append(text)
        else:
            self.unidentified += 1
        self.burned.append("??")

    def set_aside(self, held: list[Held]) -> list[str]:
        """Put held cards aside for good: shoe cards to the discards, unread ones counted, foreign ones kept
        apart (they are already listed in :attr:`foreign`). Returns what was read of each."""
        for text, status in held:
            if status == SHOE_CARD:
                self.discarded.append(text)
                self.shown[text] += 1
            elif status == UNIDENTIFIED and self.cards_seen >= self.total:
                self.foreign.append(text)  # every card of the shoe is already accounted for
            elif status == UNIDENTIFIED:
                self.discarded.append("??")
                self.unidentified += 1
        return [text for text, _ in held]

    def record_result(self, result: ResultEvent, winner: str, natural: bool, player_pair: bool,
                      banker_pair: bool) -> None:
        """A settled round's result and its counters."""
        self.results.append(result)
        stats = self.stats
        stats[winner] += 1
        stats["natural"] += natural
        stats["player_pair"] += player_pair
        stats["banker_pair"] += banker_pair

    def report(self, shoe_number: int) -> ShoeClosedEvent:
        """The ``shoe_closed`` event: the whole shoe's accounts."""
        total = self.total
        seen = self.cards_seen
        stats = self.stats
        return {
            "event": "shoe_closed",
            "shoe": shoe_number,
            "rounds": stats["banker"] + stats["player"] + stats["tie"],
            "results": {"banker": stats["banker"], "player": stats["player"], "tie": stats["tie"]},
            "naturals": stats["natural"],
            "pairs": {"player": stats["player_pair"], "banker": stats["banker_pair"]},
            "misdeals": stats["misdeal"],
            "voided": stats["voided"],
            "cards_seen": seen,
            "cards_remaining": total - seen,
            "burned": len(self.burned),
            "dealt": self.dealt,
            "discarded": len(self.discarded),
            "unidentified": self.unidentified,
            "foreign": list(self.foreign),
            "inventory": dict(sorted(self.inventory.items())),
        }

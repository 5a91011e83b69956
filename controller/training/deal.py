"""Rounds for the drill, dealt by the real table core from a card source (the mock shoe).

The table decides every card's slot and plays the dealer's own inputs (confirm the shoe, next
round, a new shoe at the cut card); the drill only sees the finished rounds' cards in deal order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from controller.core.cards import Card, parse_card
from controller.core.events import CardEvent, Event, InstructionEvent, ResultEvent, RoundVoidedEvent
from controller.core.exceptions import CroupierError
from controller.core.inputs import Input, InputKind
from controller.core.table import Table
from drivers.base import CardSource, Indication


class TrainingDealError(CroupierError):
    """The cards given to the drill stopped the table (a misdeal in a script, say)."""


@dataclass(frozen=True, slots=True)
class DealtRound:
    """One round as the table dealt it: each card with its slot (``P1`` ... ``B3``), in deal order."""

    cards: tuple[tuple[str, Card], ...]
    variant: str

    @property
    def player(self) -> list[Card]:
        return [card for slot, card in self.cards if slot.startswith("P")]

    @property
    def banker(self) -> list[Card]:
        return [card for slot, card in self.cards if slot.startswith("B")]

    @property
    def player_third(self) -> Card | None:
        return next((card for slot, card in self.cards if slot == "P3"), None)


def dealt_rounds(table: Table, source: CardSource) -> Iterator[DealtRound]:
    """Each round the table completes from ``source``'s inputs, until the source runs out.

    A reader that goes offline in the cards (``@offline``) halts the table, as at a live table, until the
    cards bring it back (``@online``); a source that runs out first, or any other misdeal, is a
    :class:`TrainingDealError`.
    """
    last = table.start()[-1]
    cards: list[tuple[str, Card]] = []
    while True:
        dealer_input = _dealer_input(last, source)
        item = dealer_input or source.recv(0)
        if item is None:
            _check_reader_back(table)
            return
        events = table.handle(item)
        for event in events:
            if isinstance(event, CardEvent):
                cards.append((event.slot, parse_card(event.card)))
            elif isinstance(event, ResultEvent):
                yield DealtRound(tuple(cards), table.variant)
                cards = []
            elif isinstance(event, RoundVoidedEvent):
                cards = []
        last = events[-1]
        _check_running(table)


def _dealer_input(last: Event, source: CardSource) -> Input | None:
    """What the simulated dealer does on the table's instruction ``last``, if anything."""
    if not isinstance(last, InstructionEvent):
        return None
    action = last.action
    if action == "next_round":
        return Input(InputKind.NEXT)
    if action == "confirm_shoe":
        return Input(InputKind.SHOE)
    if action == "new_shoe":
        source.indicate(Indication.NEW_SHOE)
        return Input(InputKind.SHOE)
    return None


def _check_running(table: Table) -> None:
    """A misdeal the cards made stops the drill; the reader offline waits for the cards to bring it back."""
    misdeal = table.view.misdeal
    if misdeal is not None and misdeal.kind != "reader_offline":
        raise TrainingDealError(f"the cards stopped the table with a misdeal ({misdeal.kind}: {misdeal.detail}); "
                                "the drill needs cards that deal cleanly: fix the script or use --seed")


def _check_reader_back(table: Table) -> None:
    if table.view.misdeal is not None:
        raise TrainingDealError("the card reader went offline in the cards (@offline) and the cards ended before it "
                                "came back; add @online after it in the script or --cards")

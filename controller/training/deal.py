"""Rounds for the drill, dealt by the real table core from a card source (the mock shoe).

The table decides every card's slot and plays the dealer's own inputs (confirm the shoe, next
round, a new shoe at the cut card); the drill only sees the finished rounds' cards in deal order, each with the
table's view just after it was dealt. Everything is read from the table's view after each input (what the dealer
must do next, the cards on the layout, a round's result, a misdeal), never followed from its events (issue 26
item 2): a table handed over in the middle of a round (restored from a checkpoint) gives that round whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from config.schema import BetsSettings
from controller.core.cards import Card, parse_card
from controller.core.events import InstructionEvent
from controller.core.exceptions import CroupierError
from controller.core.inputs import Input, InputKind
from controller.core.published import DEAL_ORDER, View
from controller.core.table import Table
from drivers.base import CardSource, Indication


class TrainingDealError(CroupierError):
    """The cards given to the drill stopped the table (a misdeal in a script, say)."""


@dataclass(frozen=True, slots=True)
class DealtRound:
    """One round as the table dealt it: each card with its slot (``P1`` ... ``B3``), in deal order, and the table's
    view just after each was dealt."""

    cards: tuple[tuple[str, Card], ...]
    variant: str
    views: tuple[View, ...] = ()
    """The table's view just after each of :attr:`cards` was dealt (its layout and totals then), in the same order;
    for cards dealt before the table was handed over, the view it was handed over in."""
    bets: BetsSettings | None = None
    """The table's ``[bets]`` settings: its pay tables (``[bets.pays]``), which its settlement pays."""

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
    :class:`TrainingDealError`. A voided round is no round of the drill.
    """
    table.start()
    view = table.view
    results, round_number = view.totals.rounds, view.round
    dealt = {card.slot: view for card in view.cards}  # each card on the layout -> the view just after it was dealt
    while True:
        item = _dealer_input(view, source) or source.recv(0)
        if item is None:
            _check_reader_back(view)
            return
        table.handle(item)
        view = table.view
        if view.round != round_number:
            dealt, round_number = {}, view.round
        dealt = {card.slot: dealt.get(card.slot, view) for card in view.cards}
        if view.totals.rounds > results:
            results = view.totals.rounds
            yield _dealt_round(view, dealt, table.variant, table.settings.bets)
        _check_running(view)


def _dealt_round(view: View, dealt: dict[str, View], variant: str, bets: BetsSettings) -> DealtRound:
    """The round ``view`` shows with its result: its cards in deal order, each with the view it was dealt in."""
    cards = {card.slot: card.card for card in view.cards}
    order = [slot for slot in DEAL_ORDER if slot in cards]
    codes = [cards[slot] for slot in order]
    if not all(codes):
        raise TrainingDealError("a round ended with its cards face down; the drill deals face up")
    return DealtRound(tuple((slot, parse_card(str(code))) for slot, code in zip(order, codes, strict=True)), variant,
                      tuple(dealt[slot] for slot in order), bets)


def _dealer_input(view: View, source: CardSource) -> Input | None:
    """What the simulated dealer does on what the table's view says is next, if anything."""
    instruction = view.next
    if not isinstance(instruction, InstructionEvent):
        return None
    action = instruction.action
    if action == "next_round":
        return Input(InputKind.NEXT)
    if action == "confirm_shoe":
        return Input(InputKind.SHOE)
    if action == "new_shoe":
        source.indicate(Indication.NEW_SHOE)
        return Input(InputKind.SHOE)
    return None


def _check_running(view: View) -> None:
    """A misdeal the cards made stops the drill, and so does a critical alert that stopped the table (cards in
    order look unshuffled: it deals nothing more until acknowledged); the reader offline waits for the cards to
    bring it back."""
    misdeal = view.misdeal
    if misdeal is not None and misdeal.kind != "reader_offline":
        raise TrainingDealError(f"the cards stopped the table with a misdeal ({misdeal.kind}: {misdeal.detail}); "
                                "the drill needs cards that deal cleanly: fix the script or use --seed")
    if view.stopped_by is not None:
        alert = next((alert for alert in view.alerts if alert.id == view.stopped_by), None)
        kind = f"{alert.kind}: {alert.detail}" if alert is not None else view.stopped_by
        raise TrainingDealError(f"the cards stopped the table with a critical alert ({kind}); the drill needs cards "
                                "that deal cleanly: fix the script or use --seed")


def _check_reader_back(view: View) -> None:
    if view.misdeal is not None:
        raise TrainingDealError("the card reader went offline in the cards (@offline) and the cards ended before it "
                                "came back; add @online after it in the script or --cards")

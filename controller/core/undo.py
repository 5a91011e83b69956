"""Undo: the dealer takes back their last input, where the house rules allow it.

The house rules (``dealing-procedures``) let a dealer's own fault be corrected "without prejudice to
either side", and a card placed in the wrong position be moved "while no later card has been dealt".
A card read from the shoe is a physical fact and is never taken back. So ``@undo`` applies only as
the very next input after:

- a hand-entered card (``@manual XX``) that was accepted, raised no misdeal or alert and gave no result:
  the table goes back to the state before it (the halt it resolved is back; the card is due again);
- an ``@exposed`` call, before it is resolved: the card stays where it was dealt.

The table's state keeps an :class:`UndoBook`: the undo point (the state before the input, itself a value) or why
there is none. The book is part of the table's state, so checkpoints, replays and resumes allow or refuse an undo
alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from controller.core.events import BurnEvent, CardEvent, Event, MisdealEvent, ResolvedEvent, ResultEvent, UndoneEvent
from controller.core.inputs import Input, InputKind
from controller.core.state import TableState
from controller.i18n.message import Message, message

UNDOABLE_EVENTS: dict[InputKind, frozenset[str]] = {
    InputKind.MANUAL: frozenset({"resolved", "card", "burn", "prompt", "instruction", "approval"}),
    InputKind.EXPOSED: frozenset({"misdeal", "prompt", "instruction"}),
}
"""The inputs that may be undone, and the only events they may have caused for that."""
NOTHING_YET = message("rejected.undo.nothing", "there is nothing to undo yet")
NOTHING = NOTHING_YET.english()
ONLY = "only a hand-entered card (@manual XX) or an exposed-card call (@exposed) can be undone, as the very next input"
SHOE_CARD = message("rejected.undo.from_the_shoe", "a card read from the shoe cannot be taken back; if it was exposed "
                    "in error, report it (@exposed); if it went to the wrong place, call the supervisor")
FROM_THE_SHOE = SHOE_CARD.english()


class UndoPoint(msgspec.Struct, frozen=True, gc=False):
    """An input that may be undone now, and the table's state before it (without its own undo book)."""

    input: str
    """The input's token (``"@manual 4D"``, ``"@exposed"``)."""
    round: int
    slot: str | None
    card: str | None
    state: TableState


class UndoBook(msgspec.Struct, frozen=True, gc=False):
    """What ``@undo`` would do now: put back :attr:`point`, or be refused for :attr:`refusal`."""

    point: UndoPoint | None = None
    refusal: Message = NOTHING_YET
    """Why ``@undo`` is refused now (when there is no :attr:`point`)."""

    @property
    def why_not(self) -> str:
        """The refusal's English text."""
        return self.refusal.english()

    def after(self, item: Input, events: list[Event], before: TableState | None) -> UndoBook:
        """The book after the table applied ``item`` (from the state ``before``, for an undoable kind)
        and emitted ``events``."""
        point = _point(item, events, before)
        return UndoBook(point) if point is not None else UndoBook(None, _why_not(item, events))


def capture(state: TableState) -> TableState:
    """The table's state now, as an undo point keeps it (without its own undo book)."""
    return msgspec.structs.replace(state, undo=None)


def roll_back(state: TableState, point: UndoPoint) -> tuple[TableState, UndoneEvent]:
    """The state before ``point``'s input (badges and sign-in stay as they are now), and the ``undone`` event
    that says so."""
    before = msgspec.structs.replace(point.state, gate=state.gate, halts=state.halts,
                                     undo=UndoBook(None, already_undone(point)))
    if point.input == "@exposed":
        say = message("undone.exposed", "Exposed call taken back: {card} stays in {slot}; play on",
                      card=point.card or "?", slot=point.slot or "?")
    else:
        say = message("undone.manual", "{card} taken back from {slot}: enter the card again",
                      card=point.card or "?", slot=point.slot or "the burn")
    return before, UndoneEvent(input=point.input, round=point.round, slot=point.slot, card=point.card,
                               say=say.english(), say_id=say.id, say_params=say.params)


def _point(item: Input, events: list[Event], before: TableState | None) -> UndoPoint | None:
    allowed = UNDOABLE_EVENTS.get(item.kind)
    if allowed is None or before is None or any(event.event not in allowed for event in events):
        return None
    if item.kind is InputKind.EXPOSED:
        misdeal = next((event for event in events if isinstance(event, MisdealEvent)), None)
        if misdeal is None or misdeal.kind != "exposed_card":
            return None
        slot = before.slots_dealt[-1].value if before.slots_dealt and misdeal.card is not None else None
        return UndoPoint(item.token(), misdeal.round, slot, misdeal.card, before)
    placed = next((event for event in events if isinstance(event, CardEvent | BurnEvent)), None)
    if placed is None or placed.card is None or not any(isinstance(event, ResolvedEvent) for event in events):
        return None
    slot = placed.slot if isinstance(placed, CardEvent) else None
    return UndoPoint(Input(InputKind.MANUAL, placed.card).token(), before.round.number, slot, placed.card, before)


def stored_refusal(data: Mapping[str, Any]) -> Message:
    """The refusal a snapshot keeps (one written before refusals had ids keeps its English text only)."""
    say = data.get("why_not_say")
    if isinstance(say, Mapping):
        return Message(str(say["id"]), str(say["text"]), dict(say["params"]))
    return Message("rejected.undo.stored", "{reason}", {"reason": str(data["why_not"])})


def already_undone(point: UndoPoint) -> Message:
    """Why ``@undo`` is refused right after ``point`` was undone."""
    return message("rejected.undo.again", "{input} was already undone; only the last input can be undone",
                   input=point.input)


def _why_not(item: Input, events: list[Event]) -> Message:
    result = next((event for event in events if isinstance(event, ResultEvent)), None)
    token = item.token()
    if result is not None:
        return message("rejected.undo.settled", "round {round} has its result; a settled round cannot be undone: "
                       "call the supervisor", round=result.round)
    if item.kind in (InputKind.CARD, InputKind.UNREADABLE, InputKind.DOUBLE):
        return SHOE_CARD
    names = {event.event for event in events}
    if "rejected" in names:  # whatever the input, it had no effect
        return message("rejected.undo.not_accepted", "{input} was not accepted, so there is nothing to undo",
                       input=token)
    if item.kind in UNDOABLE_EVENTS:
        if "alert" in names:
            return message("rejected.undo.alert", "{input} raised an alert, which stays open: call the supervisor",
                           input=token)
        if "misdeal" in names:
            return message("rejected.undo.misdeal", "{input} raised a misdeal: resolve it as the table says",
                           input=token)
        if "approval_required" in names:
            return message("rejected.undo.approval", "{input} waits for a supervisor's badge and has not taken "
                           "effect", input=token)
    return message("rejected.undo.only", "{input} cannot be undone: only a hand-entered card (@manual XX) or an "
                   "exposed-card call (@exposed) can be undone, as the very next input", input=token)

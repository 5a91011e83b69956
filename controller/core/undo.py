"""Undo: the dealer takes back their last input, where the house rules allow it.

The house rules (``dealing-procedures``) let a dealer's own fault be corrected "without prejudice to
either side", and a card placed in the wrong position be moved "while no later card has been dealt".
A card read from the shoe is a physical fact and is never taken back. So ``@undo`` applies only as
the very next input after:

- a hand-entered card (``@manual XX``) that was accepted, raised no misdeal or alert and gave no result:
  the table goes back to the state before it (the halt it resolved is back; the card is due again);
- an ``@exposed`` call, before it is resolved: the card stays where it was dealt.

The table keeps an :class:`UndoBook`: the undo point (its state before the input, as
:func:`controller.core.snapshot.snapshot` data) or why there is none. The book is part of the table's
state, so checkpoints, replays and resumes allow or refuse an undo alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from controller.core.events import Event, UndoneEvent
from controller.core.inputs import Input, InputKind
from controller.i18n.message import Message, message

if TYPE_CHECKING:
    from controller.core.table import Table

UNDOABLE_EVENTS: dict[InputKind, frozenset[str]] = {
    InputKind.MANUAL: frozenset({"resolved", "card", "burn", "prompt", "instruction", "approval"}),
    InputKind.EXPOSED: frozenset({"misdeal", "prompt", "instruction"}),
}
"""The inputs that may be undone, and the only events they may have caused for that."""
STATE_FIELDS = ("shoe_number", "manual_slots", "slots_dealt", "cut_out", "reader_online", "rounds_dealt",
                "rounds_voided", "misdeal", "archive", "ledger", "alerts", "revealed", "result_due")
"""The table's attributes an undo puts back (badges and sign-in stay as they are now)."""
MODEL_FIELDS = ("player", "banker", "burn_remaining", "round_number", "last_round", "resume_state")
"""The round model's attributes an undo puts back, besides the machine's state."""
NOTHING_YET = message("rejected.undo.nothing", "there is nothing to undo yet")
NOTHING = NOTHING_YET.english()
ONLY = "only a hand-entered card (@manual XX) or an exposed-card call (@exposed) can be undone, as the very next input"
SHOE_CARD = message("rejected.undo.from_the_shoe", "a card read from the shoe cannot be taken back; if it was exposed "
                    "in error, report it (@exposed); if it went to the wrong place, call the supervisor")
FROM_THE_SHOE = SHOE_CARD.english()


@dataclass(frozen=True)
class UndoPoint:
    """An input that may be undone now, and the table's state before it."""

    input: str
    """The input's token (``"@manual 4D"``, ``"@exposed"``)."""
    round: int
    slot: str | None
    card: str | None
    state: dict[str, Any]

    def to_data(self) -> dict[str, Any]:
        return {"input": self.input, "round": self.round, "slot": self.slot, "card": self.card, "state": self.state}


@dataclass(frozen=True)
class UndoBook:
    """What ``@undo`` would do now: put back :attr:`point`, or be refused for :attr:`why_not`."""

    point: UndoPoint | None = None
    refusal: Message = NOTHING_YET
    """Why ``@undo`` is refused now (when there is no :attr:`point`)."""

    @property
    def why_not(self) -> str:
        """The refusal's English text."""
        return self.refusal.english()

    def to_data(self) -> dict[str, Any]:
        refusal = self.refusal
        return {"point": None if self.point is None else self.point.to_data(), "why_not": refusal.english(),
                "why_not_say": {"id": refusal.id, "text": refusal.text, "params": dict(refusal.params)}}

    @classmethod
    def from_data(cls, data: Mapping[str, Any] | None) -> UndoBook:
        """The book :meth:`to_data` gave (a snapshot without one: nothing to undo)."""
        if data is None:
            return cls()
        point = data["point"]
        if point is None:
            return cls(None, _stored_refusal(data))
        slot, card = point["slot"], point["card"]
        if not isinstance(point["round"], int) or not isinstance(point["state"], dict):
            raise TypeError(f"{point!r} is not an undo point")
        return cls(UndoPoint(str(point["input"]), point["round"], None if slot is None else str(slot),
                             None if card is None else str(card), dict(point["state"])), _stored_refusal(data))

    def after(self, item: Input, events: list[Event], before: dict[str, Any] | None) -> UndoBook:
        """The book after the table applied ``item`` (from the state ``before``, for an undoable kind)
        and emitted ``events``."""
        point = _point(item, events, before)
        return UndoBook(point) if point is not None else UndoBook(None, _why_not(item, events))


def capture(table: Table) -> dict[str, Any]:
    """The table's state now, as an undo point keeps it (without its own undo book)."""
    from controller.core.snapshot import snapshot  # the snapshot module builds on the table

    state = snapshot(table)
    state.pop("undo", None)
    return state


def roll_back(table: Table, point: UndoPoint) -> UndoneEvent:
    """Put ``table`` back in the state before ``point``'s input; the ``undone`` event that says so."""
    from controller.core.snapshot import restore

    before = restore(table.settings, point.state)
    for name in STATE_FIELDS:
        setattr(table, name, getattr(before, name))
    for name in MODEL_FIELDS:
        setattr(table.model, name, getattr(before.model, name))
    table.machine.set_state(before.model.state)
    if point.input == "@exposed":
        say = message("undone.exposed", "Exposed call taken back: {card} stays in {slot}; play on",
                      card=point.card or "?", slot=point.slot or "?")
    else:
        say = message("undone.manual", "{card} taken back from {slot}: enter the card again",
                      card=point.card or "?", slot=point.slot or "the burn")
    return {"event": "undone", "input": point.input, "round": point.round, "slot": point.slot, "card": point.card,
            "say": say.english(), "say_id": say.id, "say_params": say.params}


def _point(item: Input, events: list[Event], before: dict[str, Any] | None) -> UndoPoint | None:
    allowed = UNDOABLE_EVENTS.get(item.kind)
    if allowed is None or before is None or any(event["event"] not in allowed for event in events):
        return None
    if item.kind is InputKind.EXPOSED:
        misdeal = next((event for event in events if event["event"] == "misdeal"), None)
        if misdeal is None or misdeal["kind"] != "exposed_card":
            return None
        return UndoPoint(item.token(), misdeal["round"], _slot_of(before, misdeal["card"]), misdeal["card"], before)
    placed = next((event for event in events if event["event"] in ("card", "burn")), None)
    if placed is None or not any(event["event"] == "resolved" for event in events):
        return None
    slot = placed["slot"] if placed["event"] == "card" else None
    return UndoPoint(Input(InputKind.MANUAL, placed["card"]).token(), before["round"]["round_number"], slot,
                     placed["card"], before)


def _slot_of(before: Mapping[str, Any], card: str | None) -> str | None:
    """The slot the exposed ``card`` was dealt to: the last one dealt before the call."""
    dealt = before["slots_dealt"]
    return str(dealt[-1]) if dealt and card is not None else None


def _stored_refusal(data: Mapping[str, Any]) -> Message:
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
    result = next((event for event in events if event["event"] == "result"), None)
    token = item.token()
    if result is not None:
        return message("rejected.undo.settled", "round {round} has its result; a settled round cannot be undone: "
                       "call the supervisor", round=result["round"])
    if item.kind in (InputKind.CARD, InputKind.UNREADABLE, InputKind.DOUBLE):
        return SHOE_CARD
    names = {event["event"] for event in events}
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

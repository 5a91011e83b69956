"""The steps of the most common inputs, made short: a card read from the shoe for the slot due, and the next round
started.

At a table with nothing pending (no misdeal, no badge gate, no critical alert, the reader online), dealing face up,
a card that is not foreign, raises no alert and does not end the round only goes to its slot, moves the machine,
and tells the dealer what is next. :func:`dealt_card` does exactly that and gives exactly what the general step
(:func:`controller.core.step.step`) gives for it; :func:`started_round` does the same for ``@next`` between rounds
(``tests/controller/core/test_fastlane.py`` compares both with the general step on random tables); for anything
else they give None and the general step runs.
"""

from __future__ import annotations

from msgspec.structs import replace

from controller.core import machine
from controller.core.cards import parse_card
from controller.core.events import CardEvent, Event, InstructionEvent, PromptEvent, RoundEvent
from controller.core.exceptions import CardCodeError
from controller.core.inputs import Input, InputKind
from controller.core.machine import State
from controller.core.state import Context, TableState
from controller.core.stopping import stopping_alert
from controller.core.undo import SHOE_CARD, UndoBook
from controller.core.view import PROMPTS, stands_said

DEALT = UndoBook(None, SHOE_CARD)
"""The undo book after a card read from the shoe: nothing to undo, and why."""
SAID = {state: text.english() for state, (_, _, text) in PROMPTS.items()}
"""Each slot's prompt in English, worded once."""


def dealt_card(state: TableState, item: Input, context: Context) -> tuple[TableState, list[Event]] | None:
    """The state and events after ``item``, a card the reader read for the slot due; None when the general step
    must decide (anything pending, face down, a foreign or unreadable card, an alert, the round's last card)."""
    round_state = state.round
    due = PROMPTS.get(round_state.state)
    if (due is None or item.kind is not InputKind.CARD or state.misdeal is not None or state.gate is not None
            or not state.reader_online or context.face_down
            or (state.alerts.open and stopping_alert(state, context) is not None)):
        return None
    try:
        card = parse_card(item.card or "")
    except CardCodeError:
        return None
    ledger = state.ledger
    if ledger.is_foreign(card):
        return None
    slot, side, _ = due
    dealt = (replace(round_state, player=(*round_state.player, card)) if side == "player"
             else replace(round_state, banker=(*round_state.banker, card)))
    row = machine.fire("card", dealt, context.rules)
    if row is None:
        return None
    after = PROMPTS.get(row.dest)
    if after is None:  # the round is over (or waits for reveals): the general step settles it (and counts the card)
        return None
    ledger, score, repeat = ledger.count(card)
    if score is not None or repeat is not None:
        return None
    dealt = replace(dealt, state=row.dest)
    number = dealt.number
    events: list[Event] = [CardEvent(round=number, slot=slot, card=card.code)]
    for action, text in stands_said(dealt, round_state.state, row.dest):
        events.append(InstructionEvent(round=number, action=action, say=text.english(), say_id=text.id,
                                       say_params=text.params))
    next_slot, to, text = after
    events.append(PromptEvent(round=number, slot=next_slot, to=to, say=SAID[row.dest], say_id=text.id,
                              say_params=text.params))
    value = replace(state, round=dealt, ledger=ledger.placed(card), slots_dealt=(*state.slots_dealt, round_state.state),
                    undo=DEALT)
    return value, events


def started_round(state: TableState, item: Input, context: Context) -> tuple[TableState, list[Event]] | None:
    """The state and events after ``item``, the dealer's ``@next`` at a table with nothing pending between rounds
    (no live edge to give, face up, no open alert, the reader there); None when the general step must decide."""
    if (item.kind is not InputKind.NEXT or state.misdeal is not None or state.gate is not None
            or not state.reader_online or state.result_due or state.alerts.open or context.face_down
            or context.settings.bets.live_edge):
        return None
    round_state = state.round
    row = machine.fire("next_round", round_state, context.rules)
    if row is None or not row.starts_round:
        return None
    after = PROMPTS.get(row.dest)
    if after is None:
        return None
    number = round_state.number + 1
    events: list[Event] = [RoundEvent(round=number, shoe=state.shoe_number)]
    undo = UndoBook().after(item, events, None)
    slot, to, text = after
    events.append(PromptEvent(round=number, slot=slot, to=to, say=SAID[row.dest], say_id=text.id,
                              say_params=text.params))
    started = replace(round_state, state=row.dest, player=(), banker=(), number=number)
    value = replace(state, round=started, manual_slots=frozenset(), slots_dealt=(), revealed=0, result_due=False,
                    undo=undo)
    return value, events


__all__ = ["DEALT", "State", "dealt_card", "started_round"]

"""What a table's state shows: the slot due, what the shoe's indicator says, and the dealer's next instruction.

Pure functions of a :class:`~controller.core.state.TableState` (or of the :class:`~controller.core.step.Draft` a
step is making, which has the same parts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from controller.core.approvals import instruction as gate_instruction
from controller.core.cards import parse_card
from controller.core.events import Event, InstructionEvent, PromptEvent
from controller.core.exceptions import CardCodeError
from controller.core.inputs import Input, InputKind
from controller.core.machine import BURN_STATES, IN_ROUND, SLOT_SET, SLOT_SIDE, SQUEEZE_STATES, RoundState, State
from controller.core.misdeals import FOREIGN, HALT, SHOE_CARD, UNIDENTIFIED, Held, Misdeal
from controller.core.revealing import reveal_instruction, squeeze_instruction
from controller.core.stopping import stopped_instruction, stopping_alert
from controller.i18n.message import Message, message

if TYPE_CHECKING:
    from controller.core.alerts import AlertBook
    from controller.core.approvals import GateState
    from controller.core.state import Context
    from controller.core.step import Draft

CARD_TO = {"player": message("prompt.player", "Card to PLAYER"), "banker": message("prompt.banker", "Card to BANKER")}
"""What the dealer is told when a card is due to a side."""
PROMPTS = {state: (state.value, side, CARD_TO[side]) for state, side in SLOT_SIDE.items()}
"""Each slot's prompt: (slot name, side, what the dealer is told)."""


class Shown(Protocol):
    """The parts of a table's state the view reads (a :class:`TableState` or a step's draft)."""

    @property
    def round(self) -> RoundState: ...

    @property
    def misdeal(self) -> Misdeal | None: ...

    @property
    def shoe_number(self) -> int: ...

    @property
    def result_due(self) -> bool: ...

    @property
    def gate(self) -> GateState | None: ...

    @property
    def state(self) -> State: ...

    @property
    def revealed(self) -> int: ...

    @property
    def slots_dealt(self) -> tuple[State, ...]: ...

    @property
    def cut_out(self) -> bool: ...

    @property
    def alerts(self) -> AlertBook: ...

    @property
    def reader_online(self) -> bool: ...


def due_slot(shown: Shown) -> str | None:
    """The slot whose card is due (P1..B3), or None (while halted, the slot due when the table goes on)."""
    state = shown.round.state
    return state.value if state in SLOT_SET else None


def in_round(shown: Shown) -> bool:
    """A round has started and is not over (cards may still be due, or reveals before the next one)."""
    return shown.round.state in IN_ROUND


def expecting(shown: Shown, context: Context) -> str:
    """What the shoe's indicator should show: player, banker, burn or hold (a critical alert holds the shoe)."""
    if stopping_alert(shown, context) is not None:
        return "hold"
    state = shown.state
    if state in SLOT_SET:
        return SLOT_SIDE[state]
    if state in BURN_STATES:
        return "burn"
    return "hold"


def instruction_event(shown: Shown, action: str, text: Message,
                      round_number: int | None = None) -> InstructionEvent:
    """An ``instruction`` event: ``action`` and what the dealer is told."""
    return InstructionEvent(round=shown.round.number if round_number is None else round_number, action=action,
                            say=text.english(), say_id=text.id, say_params=text.params)


def stands_said(round_state: RoundState, dealt: State, new: State) -> list[tuple[str, Message]]:
    """What the dealer is told after the card ``dealt`` when the machine went to ``new``: a natural, or the hands
    that stand (each an instruction's action and its words)."""
    said: list[tuple[str, Message]] = []
    if dealt is State.B2:
        player, banker = round_state.player_two_card_total, round_state.banker_two_card_total
        if round_state.natural:
            said.append(("natural", message("natural", "Natural: player {player}, banker {banker}; no more cards",
                                            player=player, banker=banker)))
        elif new is not State.P3:
            said.append(("player_stands", message("player_stands", "Player stands on {total}", total=player)))
            if new is not State.B3:
                said.append(("banker_stands", message("banker_stands", "Banker stands on {total}", total=banker)))
    elif dealt is State.P3 and new is not State.B3:
        said.append(("banker_stands", message("banker_stands", "Banker stands on {total}",
                                              total=round_state.banker_two_card_total)))
    return said


def next_instruction(draft: Draft) -> Event:
    """What the dealer must do next: a ``prompt`` for a card slot, otherwise an ``instruction``."""
    state = draft.state
    round_state = draft.round
    gate = draft.gate
    misdeal = draft.misdeal
    if gate is not None:
        waiting = gate_instruction(gate, misdeal is not None, due_slot(draft))
        if waiting is not None:
            return instruction_event(draft, *waiting)
    stop = stopping_alert(draft, draft.context)
    if stop is not None:
        return stopped_instruction(draft, stop)
    prompt = PROMPTS.get(state)
    if prompt is not None:
        slot, side, text = prompt
        return PromptEvent(round=round_state.number, slot=slot, to=side, say=text.english(), say_id=text.id,
                           say_params=text.params)
    if misdeal is not None:
        return InstructionEvent(round=misdeal.round, action="resolve", say=misdeal.instruction, say_id=HALT.id,
                                say_params={"resolutions": " ".join(misdeal.resolutions)})
    if draft.result_due:
        return instruction_event(draft, "reveal", reveal_instruction(draft.context))
    if state in SQUEEZE_STATES:
        return instruction_event(draft, "reveal", squeeze_instruction(draft.context))
    return _between_cards(draft, state)


def _between_cards(draft: Draft, state: State) -> InstructionEvent:
    from controller.core.published import cards_left
    from controller.core.shoeflow import READER_AWAY, reader_waited_for, stub_count_due

    round_state = draft.round
    if state in (State.ROUND_OVER, State.NEW_SHOE, State.SHOE_CLOSED) and reader_waited_for(draft, draft.context):
        return instruction_event(draft, "reconnect_reader", READER_AWAY)
    if state is State.BURN_TURN:
        return instruction_event(draft, "burn", message("burn.turn", "Turn the first card for the burn"))
    if state is State.BURNING:
        left = round_state.burn_remaining
        burn = (message("burn.more_one", "Burn {left} more card", left=left) if left == 1
                else message("burn.more", "Burn {left} more cards", left=left))
        return instruction_event(draft, "burn", burn)
    if state is State.NEW_SHOE:
        return instruction_event(draft, "confirm_shoe", message("shoe.confirm", "Shuffle, cut and load shoe {shoe}; "
                                                  "confirm when ready", shoe=draft.shoe_number))
    if state is State.SHOE_CLOSED:
        return instruction_event(draft, "new_shoe", message("shoe.closed", "Shoe {shoe} is closed; load a new shoe",
                                              shoe=draft.shoe_number))
    if stub_count_due(draft, draft.context):
        return instruction_event(draft, "count_stub", message(
            "stub.count", "Count the stub: the table expects {expected} cards; confirm it (@count) or key the count "
            "(@count 312)", expected=cards_left(draft)))
    return instruction_event(draft, "next_round", message("round.over", "Round {round} is over; start the next round",
                                            round=round_state.number))


def reader_card_without_dealer(draft: Draft, item: Input) -> None:
    """A card came out of the shoe with no dealer signed in: the ``no_dealer`` misdeal, the card held."""
    from controller.core.dealing import count, reader_card
    from controller.core.halting import raise_misdeal

    code = item.card if item.kind is InputKind.CARD else None
    held: list[Held] = [("??", UNIDENTIFIED)] * (2 if item.kind is InputKind.DOUBLE else 1)
    if code is not None:
        try:
            card = parse_card(code)
        except CardCodeError:
            held = [(code, UNIDENTIFIED)]
        else:
            if draft.ledger.is_foreign(card, draft.unread_held()):
                reader_card(draft, code)
                return
            count(draft, card)
            held = [(card.code, SHOE_CARD)]
    raise_misdeal(draft, "no_dealer", code,
                  message("misdeal.no_dealer", "a card came out of the shoe with no dealer signed in"), held=held)


def context_of(draft: Draft) -> Context:
    return draft.context


__all__ = ["CARD_TO", "FOREIGN", "PROMPTS", "due_slot", "expecting", "in_round", "instruction_event",
           "next_instruction"]

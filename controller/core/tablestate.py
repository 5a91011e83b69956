"""What a table holds and shows: the round machine's state, the shoe's ledger, the pending misdeal,
and the instruction for the dealer. :class:`~controller.core.table.Table` builds on it."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from config.schema import DEFAULT_SUPERVISOR_ONLY, Settings
from controller.core.alerts import AlertBook
from controller.core.approvals import ApprovalGate
from controller.core.auth import Authority
from controller.core.bets.live import edge_events
from controller.core.bets.settle import Settler
from controller.core.events import AlertEvent, Event, InstructionEvent, ResultEvent
from controller.core.inputs import Input
from controller.core.ledger import ShoeLedger
from controller.core.machine import BURN_STATES, SLOT_SIDE, SLOTS, RoundModel, State, build_machine
from controller.core.misdeals import (
    HALT,
    POLICIES,
    Held,
    Misdeal,
    approval_action,
    instruction,
    needs_supervisor,
)
from controller.core.sequence_check import SequenceArchive, false_alarm_budgets
from controller.i18n.message import Message, message

CARD_TO = {"player": message("prompt.player", "Card to PLAYER"), "banker": message("prompt.banker", "Card to BANKER")}
"""What the dealer is told when a card is due to a side."""
PROMPTS = {state: (state.value, side, CARD_TO[side]) for state, side in SLOT_SIDE.items()}
"""Each slot's prompt: (slot name, side, what the dealer is told)."""


class TableState:
    """One table's state: the round machine and its model, the shoe's ledger, the approval gate, the
    pending misdeal; what it shows (the view properties and the next instruction) and how it halts."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings if settings is not None else Settings()
        self.decks = self.settings.table.decks
        self.variant = self.settings.table.variant
        self.settler = Settler(self.settings.bets.offered, self.variant, self.settings.bets)
        """Settles the offered bets under the house pay tables (``[bets]``)."""
        self.model = RoundModel(self.settings.shoe.burn)
        self.machine = build_machine(self.model, on_round_start=self._round_started)
        self.shoe_number = 1
        self.archive = SequenceArchive(self.decks)
        """Every earlier shoe's dealt order, for the repeated-sequence alert."""
        self.ledger = self.new_ledger()
        self.manual_slots: set[State] = set()
        self.slots_dealt: list[State] = []
        """The slots dealt so far in the round in play, in order (an exposed card is taken off the end)."""
        self.cut_out = False
        self.reader_online = True
        self.misdeal: Misdeal | None = None
        self.rounds_dealt = 0
        self.face_down = self.settings.table.dealing == "face_down"
        self.revealed = 0
        """Face down: the reveals made in the round in play."""
        self.result_due = False
        """Face down: the round's cards are all down and its result waits for the last reveal."""
        self.rounds_voided = 0
        auth = self.settings.auth
        self.gate: ApprovalGate | None = ApprovalGate(Authority(auth, clock=lambda: 0.0)) if auth.enabled else None
        """Badges and approvals, when ``[auth] enabled``; idle sign-out arrives as a SIGN_OUT input."""
        self.authority: Authority | None = self.gate.authority if self.gate is not None else None
        """Badges and sign-in, when ``[auth] enabled`` (the gate's)."""
        self.alerts = AlertBook()
        """The table's alerts, open until acknowledged (``@ack ID``)."""
        self._events: list[Event] = []
        self.known_edges: dict[tuple[int, int], dict[str, Fraction]] = {}
        """(shoe, round) -> each bet's expected value, known before that round starts (a resume reads them
        from the journal's ``edge`` events instead of computing them again); taken when the round starts,
        never part of the table's state (:mod:`controller.core.snapshot`)."""

    def new_ledger(self) -> ShoeLedger:
        """A fresh shoe's ledger, its sequence check within this table's share of the false-alarm bound."""
        protection = self.settings.protection
        own, _ = false_alarm_budgets(protection.property_check)
        return ShoeLedger(self.decks, self.archive, protection.sequence_check, own)

    @property
    def state(self) -> State:
        return self.model.state

    def current_state(self) -> State:
        """The machine's state now (a call, so type checkers do not narrow it)."""
        return self.model.state

    @property
    def round(self) -> int:
        return self.model.round_number

    @property
    def due_slot(self) -> str | None:
        """The slot whose card is due (P1..B3), or None."""
        state = self.state
        if state is State.HALTED:
            state = self.model.resume_state or state
        return state.value if state in SLOTS else None

    @property
    def in_round(self) -> bool:
        """A round has started and is not over (cards may still be due)."""
        state = self.model.resume_state if self.state is State.HALTED else self.state
        return state in SLOTS

    @property
    def expecting(self) -> str:
        """What the shoe's indicator should show: player, banker, burn or hold."""
        state = self.model.state
        if state in SLOTS:
            return SLOT_SIDE[state]
        if state in BURN_STATES:
            return "burn"
        return "hold"

    @property
    def cards_seen(self) -> int:
        """Cards of this shoe that have left it: identified ones plus those set aside unread."""
        return self.ledger.cards_seen

    @property
    def cards_left(self) -> int:
        return 52 * self.decks - self.cards_seen

    @property
    def inventory(self) -> Counter[str]:
        """Cards of this shoe seen, by code."""
        return self.ledger.inventory

    @property
    def foreign(self) -> list[str]:
        """Cards read this shoe that cannot be of it."""
        return self.ledger.foreign

    @property
    def held_or_foreign(self) -> int:
        """Cards the pending misdeal holds plus those read this shoe that cannot be of it: the only cards the
        table keeps that the shoe's size does not bound (a reader that floods a halted table grows them)."""
        return (len(self.misdeal.held) if self.misdeal is not None else 0) + len(self.ledger.foreign)

    @property
    def burned(self) -> list[str]:
        """Cards burned this shoe (``??`` for those not identified)."""
        return self.ledger.burned

    @property
    def discarded(self) -> list[str]:
        """Cards set aside this shoe by misdeal resolutions."""
        return self.ledger.discarded

    @property
    def dealt(self) -> int:
        """Cards placed in slots this shoe (voided rounds included; exposed cards taken back are not)."""
        return self.ledger.dealt

    @property
    def unidentified(self) -> int:
        """Cards of this shoe that left it and were set aside without ever being identified."""
        return self.ledger.unidentified

    @property
    def results(self) -> list[ResultEvent]:
        """This shoe's result events, in order (cleared when the next shoe starts)."""
        return self.ledger.results

    @property
    def open_alerts(self) -> list[AlertEvent]:
        """The alerts raised at this table and not yet acknowledged, oldest first."""
        return self.alerts.open_alerts

    @property
    def pending_approval(self) -> tuple[Input, str, Misdeal | None] | None:
        """A dealer input waiting for a supervisor's badge (see :attr:`ApprovalGate.pending`)."""
        return self.gate.pending if self.gate is not None else None

    def needs_supervisor(self, resolution: str, kind: str | None = None) -> bool:
        """Does ``resolution`` (of a misdeal of ``kind``) need a supervisor's approval?"""
        if self.gate is not None:
            return self.gate.needs_supervisor(resolution, kind)
        return needs_supervisor(resolution, kind, DEFAULT_SUPERVISOR_ONLY)

    approval_action = staticmethod(approval_action)

    def _round_started(self) -> None:
        """The machine began a round (its ``on_round_start`` callback)."""
        model = self.model
        model.player = []
        model.banker = []
        self.manual_slots = set()
        self.slots_dealt = []
        self.revealed = 0
        self.result_due = False
        model.round_number += 1
        self._events.append({"event": "round", "round": model.round_number, "shoe": self.shoe_number})
        known = self.known_edges.pop((self.shoe_number, model.round_number), None)
        self._events.extend(edge_events(self.settings.bets, self.decks, self.shoe_number, model.round_number,
                                        self.ledger.shown, self.alerts, known))

    def _misdeal_round(self) -> int:
        """The round a misdeal belongs to: the one in play (its cards down and not all revealed, face down, is
        still in play), or the next one between rounds."""
        state = self.state
        if state in SLOTS or state is State.SHOE_CLOSED or self.result_due:
            return self.round
        return self.round + 1

    def _raise_misdeal(self, events: list[Event], kind: str, card: str | None, detail: Message,
                       resume: State | None = None, held: list[Held] | None = None) -> None:
        """Halt on a misdeal of ``kind``, resolved as :data:`~controller.core.misdeals.POLICIES` says; while
        already halted, report it and hold its cards with the pending misdeal."""
        if self.state is State.HALTED:
            assert self.misdeal is not None
            self.misdeal.hold(held or [])
            extra = Misdeal(kind, self.misdeal.round, card, detail, self.misdeal.instruction,
                            self.misdeal.resolutions, supervisor=self.misdeal.supervisor, while_halted=True)
            events.append(extra.event())
            self.ledger.stats["misdeal"] += 1
            return
        policy = POLICIES[kind]
        resolutions = policy.resolutions_for(self.settings.procedures)
        voidable = self.in_round or self.result_due or (kind == "extra_card" and self.state is State.ROUND_OVER)
        if not voidable:
            resolutions = [r for r in resolutions if r != "void"] or ["burn"]
        misdeal = Misdeal(kind, self._misdeal_round(), card, detail, instruction(resolutions), resolutions,
                          supervisor=[r for r in resolutions if self.needs_supervisor(r, kind)],
                          held=list(held or []), replaces_due_card=policy.replaces_due_card)
        self.misdeal = misdeal
        self.model.resume_state = resume or self.state
        self.model.halt()
        self.ledger.stats["misdeal"] += 1
        events.append(misdeal.event())

    def _unread_held(self, stands_for_held: bool = False) -> int:
        """Unread cards set aside by the pending misdeal (they left the shoe too).

        ``stands_for_held``: a manual entry stands for the first of them, which then does not count.
        """
        return self.misdeal.unread_left(stands_for_held) if self.misdeal is not None else 0

    def _due_name(self) -> str:
        slot = self.due_slot
        if slot is None:
            return "no slot"
        return f"{slot} (card to {SLOT_SIDE[State(slot)].upper()})"

    def _say(self, action: str, text: Message, round_number: int | None = None) -> InstructionEvent:
        return {"event": "instruction", "round": self.round if round_number is None else round_number,
                "action": action, "say": text.english(), "say_id": text.id, "say_params": text.params}

    def reveal_instruction(self) -> Message:
        """What the dealer is told while a face-down round waits for its reveals."""
        if self.settings.table.reveal_confirm == "total":
            return message("reveal.keyed", "Reveal the next hand and key its total (@reveal 7): the result comes "
                           "after the last reveal")
        return message("reveal.next", "Reveal the next hand (@reveal): the result comes after the last reveal")

    def _next_instruction(self) -> Event:
        state = self.state
        model = self.model
        if self.gate is not None:
            waiting = self.gate.instruction(state is State.HALTED)
            if waiting is not None:
                return self._say(*waiting)
        prompt = PROMPTS.get(state)
        if prompt is not None:
            slot, side, say = prompt
            return {"event": "prompt", "round": model.round_number, "slot": slot, "to": side, "say": say.english(),
                    "say_id": say.id, "say_params": say.params}
        if state is State.HALTED:
            misdeal = self.misdeal
            assert misdeal is not None
            return {"event": "instruction", "round": misdeal.round, "action": "resolve", "say": misdeal.instruction,
                    "say_id": HALT.id, "say_params": {"resolutions": " ".join(misdeal.resolutions)}}
        if self.result_due:
            return self._say("reveal", self.reveal_instruction())
        if state is State.BURN_TURN:
            return self._say("burn", message("burn.turn", "Turn the first card for the burn"))
        if state is State.BURNING:
            left = model.burn_remaining
            return self._say("burn", message("burn.more_one", "Burn {left} more card", left=left) if left == 1
                             else message("burn.more", "Burn {left} more cards", left=left))
        if state is State.NEW_SHOE:
            return self._say("confirm_shoe", message("shoe.confirm", "Shuffle, cut and load shoe {shoe}; "
                                                     "confirm when ready", shoe=self.shoe_number))
        if state is State.SHOE_CLOSED:
            return self._say("new_shoe", message("shoe.closed", "Shoe {shoe} is closed; load a new shoe",
                                                 shoe=self.shoe_number))
        return self._say("next_round", message("round.over", "Round {round} is over; start the next round",
                                               round=model.round_number))

"""The table core: inputs in, events out. Pure: no I/O, no clock, no randomness.

:class:`Table` holds one table's state, a :class:`~controller.core.state.TableState` value, and replaces it with
each input: ``state, events = step(state, input, context)`` (:mod:`controller.core.step`). The events are plain
dicts with an ``"event"`` field (see ``docs/events.md``); every input ends with what the dealer must do next (a
``prompt`` for a card slot, otherwise an ``instruction``). Replaying the same inputs gives the same events and
state.

The round machine (:mod:`controller.core.machine`) decides deal order and legality, and every move of the round
(:meth:`Table.may` asks it for the app: :mod:`controller.core.flow`); the misdeal policy
(:mod:`controller.core.misdeals`) decides how each misdeal may be resolved; the shoe's bookkeeping is a
:class:`~controller.core.ledger.ShoeLedger`; badges and approvals are a gate in front of the table
(:mod:`controller.core.approvals`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from fractions import Fraction

import msgspec

from config.schema import Settings
from controller.core import flow
from controller.core.alerts import AlertBook
from controller.core.approvals import GateState
from controller.core.auth import Sign
from controller.core.dealing import round_result
from controller.core.editions import CURRENT, Edition
from controller.core.events import AlertEvent, Event, ResultEvent, ShoeEvent
from controller.core.inputs import Input
from controller.core.ledger import ShoeLedger, Stats
from controller.core.machine import MOVES, RoundState, State
from controller.core.misdeals import (
    FOREIGN,
    RESOLUTION_INPUTS,
    SAY_RESOLUTION,
    SHOE_CARD,
    SHOE_RESTARTED,
    UNIDENTIFIED,
    Held,
    Misdeal,
    approval_action,
)
from controller.core.published import View, cards_out, view_of
from controller.core.revealing import Reveal, reveals_down
from controller.core.revealing import reveal_instruction as reveal_instruction_of
from controller.core.sequence_check import SequenceArchive
from controller.core.state import Context, TableState
from controller.core.step import step
from controller.core.undo import UndoBook
from controller.core.view import PROMPTS, due_slot, expecting, in_round
from controller.i18n.message import Message

__all__ = ["FOREIGN", "PROMPTS", "RESOLUTION_INPUTS", "SAY_RESOLUTION", "SHOE_CARD", "SHOE_RESTARTED", "UNIDENTIFIED",
           "Event", "Held", "Misdeal", "Table", "round_result"]


class Table:
    """One Punto Banco table: inputs in, events out. The gate sees each input first; a halted table accepts
    only the pending misdeal's resolutions; ``@undo`` takes back the last input where the rules allow it
    (:mod:`controller.core.undo`). :attr:`value` is the table's whole state."""

    def __init__(self, settings: Settings | None = None, edition: Edition = CURRENT) -> None:
        self.settings = settings if settings is not None else Settings()
        self.context = Context.of(self.settings, edition)
        self.value = TableState.fresh(self.context)
        """The table's state now."""
        self.known_edges: dict[tuple[int, int], dict[str, Fraction]] = {}
        """(shoe, round) -> each bet's expected value, known before that round starts (a resume reads them from
        the journal's ``edge`` events instead of computing them again); taken when the round starts, never part
        of the table's state."""
        self._view: tuple[TableState, View] | None = None

    def start(self) -> list[Event]:
        """The events a fresh table shows: the first shoe, waiting for the dealer."""
        from controller.core.step import Draft
        from controller.core.view import next_instruction

        return [
            ShoeEvent(shoe=self.value.shoe_number, status="new", decks=self.context.decks),
            next_instruction(Draft(self.value, self.context, None)),
        ]

    def handle(self, item: Input) -> list[Event]:
        """Apply one input; return the events it causes, ending with the next instruction."""
        self.value, events = step(self.value, item, self.context, self._known_edge)
        return events

    def _known_edge(self, shoe: int, round_number: int) -> Mapping[str, Fraction] | None:
        return self.known_edges.pop((shoe, round_number), None)

    # -- the settings ----------------------------------------------------------------------------------------------
    @property
    def decks(self) -> int:
        return self.context.decks

    @property
    def variant(self) -> str:
        return self.context.variant

    @property
    def face_down(self) -> bool:
        return self.context.face_down

    # -- the state, read -------------------------------------------------------------------------------------------
    @property
    def state(self) -> State:
        """The round's state, or HALTED while a misdeal is pending."""
        return self.value.state

    @property
    def halted(self) -> bool:
        """A misdeal is pending: the round waits, in its state, for one of its resolutions."""
        return self.value.misdeal is not None

    def may(self, trigger: str) -> bool:
        """``may_<trigger>``: the round machine's table (:data:`~controller.core.machine.TRANSITIONS`) lets the round
        take ``trigger`` now, from its state and by its guards, with nothing holding it (no pending misdeal, no
        result waiting for its reveals). The app asks this, for every input; it never tests the round's state
        itself. A trigger with no row from the round's state is refused at once (:data:`~controller.core.machine.
        MOVES`)."""
        value = self.value
        return trigger in MOVES[value.round.state] and flow.may_now(value, self.context, trigger)

    @property
    def moves(self) -> frozenset[str]:
        """The triggers the round machine's table has a row for from the round's state: :meth:`may` refuses every
        other at once, so asking whether one is among them first spares the question."""
        return MOVES[self.value.round.state]

    @property
    def between_rounds(self) -> bool:
        """The round is over and revealed, and the shoe goes on: the machine may start the next round (or count the
        stub first); the table is not halted."""
        from controller.core.shoeflow import between_rounds

        return self.value.misdeal is None and between_rounds(self.value, self.context)

    @property
    def phase(self) -> State:
        """The round's state (while halted, the state it goes on from)."""
        return self.value.round.state

    @property
    def round_state(self) -> RoundState:
        return self.value.round

    @property
    def round(self) -> int:
        return self.value.round.number

    @property
    def shoe_number(self) -> int:
        return self.value.shoe_number

    @property
    def misdeal(self) -> Misdeal | None:
        return self.value.misdeal

    @property
    def ledger(self) -> ShoeLedger:
        return self.value.ledger

    @property
    def alerts(self) -> AlertBook:
        return self.value.alerts

    @property
    def archive(self) -> SequenceArchive:
        """Every earlier shoe's dealt order (and the factory order)."""
        return self.value.archive

    @property
    def gate(self) -> GateState | None:
        return self.value.gate

    @property
    def authority(self) -> Sign | None:
        """Who is signed in, when ``[auth] enabled`` (its ``dealer``)."""
        gate = self.value.gate
        return gate.sign if gate is not None else None

    @property
    def undo(self) -> UndoBook:
        return self.value.undo or UndoBook()

    @property
    def reader_online(self) -> bool:
        return self.value.reader_online

    @property
    def result_due(self) -> bool:
        return self.value.result_due

    @property
    def revealed(self) -> int:
        return self.value.revealed

    @property
    def rounds_dealt(self) -> int:
        return self.value.rounds_dealt

    @property
    def rounds_voided(self) -> int:
        return self.value.rounds_voided

    @property
    def cut_out(self) -> bool:
        return self.value.cut_out

    @property
    def slots_dealt(self) -> tuple[State, ...]:
        return self.value.slots_dealt

    @property
    def manual_slots(self) -> frozenset[State]:
        return self.value.manual_slots

    @property
    def due_slot(self) -> str | None:
        """The slot whose card is due (P1..B3), or None."""
        return due_slot(self.value)

    @property
    def in_round(self) -> bool:
        """A round has started and is not over (cards may still be due)."""
        return in_round(self.value)

    @property
    def expecting(self) -> str:
        """What the shoe's indicator should show: player, banker, burn or hold."""
        return expecting(self.value, self.context)

    @property
    def reveal_due(self) -> Reveal | None:
        """The next reveal the dealer may make (its cards are down), or None."""
        value = self.value
        if not self.context.face_down or value.misdeal is not None:
            return None
        down = reveals_down(value.round.player, value.round.banker)
        return down[value.revealed] if value.revealed < len(down) else None

    @property
    def stub_count_due(self) -> bool:
        """Between rounds, the dealer must count the stub (``@count``) before the next round starts: the machine may
        count it."""
        return self.may("count_stub")

    def reveal_instruction(self) -> Message:
        """What the dealer is told while a face-down round waits for its reveals."""
        return reveal_instruction_of(self.context)

    @property
    def cards_seen(self) -> int:
        """Cards of this shoe that have left it: identified ones plus those set aside unread."""
        return self.value.ledger.cards_seen

    @property
    def cards_left(self) -> int:
        """The shoe's cards not out of it yet (:func:`~controller.core.published.cards_out`)."""
        return 52 * self.context.decks - cards_out(self.value)

    @property
    def view(self) -> View:
        """The table as consumers show it (:mod:`controller.core.published`), made once per state."""
        value = self.value
        if self._view is None or self._view[0] is not value:
            self._view = (value, view_of(value, self.context))
        return self._view[1]

    @property
    def inventory(self) -> Counter[str]:
        """Cards of this shoe seen, by code."""
        return self.value.ledger.inventory

    @property
    def foreign(self) -> list[str]:
        """Cards read this shoe that cannot be of it."""
        return list(self.value.ledger.foreign)

    @property
    def burned(self) -> list[str]:
        """Cards burned this shoe (``??`` for those not identified)."""
        return list(self.value.ledger.burned)

    @property
    def discarded(self) -> list[str]:
        """Cards set aside this shoe by misdeal resolutions."""
        return list(self.value.ledger.discarded)

    @property
    def dealt(self) -> int:
        """Cards placed in slots this shoe (voided rounds included; exposed cards taken back are not)."""
        return self.value.ledger.dealt

    @property
    def unidentified(self) -> int:
        """Cards of this shoe that left it and were set aside without ever being identified."""
        return self.value.ledger.unidentified

    @property
    def results(self) -> list[ResultEvent]:
        """This shoe's result events, in order (cleared when the next shoe starts)."""
        return list(self.value.ledger.results)

    @property
    def open_alerts(self) -> list[AlertEvent]:
        """The alerts raised at this table and not yet acknowledged, oldest first."""
        return self.value.alerts.open_alerts

    @property
    def held_or_foreign(self) -> int:
        """Cards the pending misdeal holds plus those read this shoe that cannot be of it: the only cards the
        table keeps that the shoe's size does not bound (a reader that floods a halted table grows them)."""
        misdeal = self.value.misdeal
        return (len(misdeal.held) if misdeal is not None else 0) + len(self.value.ledger.foreign)

    @property
    def badges_locked(self) -> bool:
        """``[auth] lockout_after`` badges were refused within the window: the reader approves nothing until a
        supervisor's badge unlocks it."""
        gate = self.value.gate
        return gate is not None and gate.locked

    @property
    def pending_approval(self) -> tuple[Input, str, Misdeal | None] | None:
        """A dealer input waiting for a supervisor's badge."""
        gate = self.value.gate
        if gate is None or gate.pending is None:
            return None
        return gate.pending.input, gate.pending.action, gate.pending.misdeal

    def needs_supervisor(self, resolution: str, kind: str | None = None) -> bool:
        """Does ``resolution`` (of a misdeal of ``kind``) need a supervisor's approval?"""
        return self.context.needs_supervisor(resolution, kind)

    approval_action = staticmethod(approval_action)

    def with_earlier(self, totals: Mapping[str, int]) -> None:
        """The earlier shoes' totals (results by winner, naturals, pairs, misdeals, voided rounds), learned from the
        journal (a checkpoint written before the table kept them)."""
        names = Stats.__struct_fields__
        self.value = msgspec.structs.replace(self.value, earlier=Stats(**{name: int(totals.get(name, 0))
                                                                        for name in names}))

    def with_findings(self, findings: Mapping[tuple[str, str, int, int, int], str]) -> None:
        """The property check's findings given this shoe, learned from the journal (a checkpoint written before
        the table kept them)."""
        ledger = self.value.ledger
        for key, alert_id in findings.items():
            if key not in ledger.property_findings:
                ledger = ledger.with_finding(key, alert_id)
        self.value = msgspec.structs.replace(self.value, ledger=ledger)

"""The table core: inputs in, events out. Pure: no I/O, no clock, no randomness.

:class:`Table` takes :class:`~controller.core.inputs.Input` values (reader events,
dealer and supervisor inputs) and returns events, plain dicts with an
``"event"`` field (see ``docs/events.md``). Every call ends by saying what the
dealer must do next (a ``prompt`` for a card slot, otherwise an
``instruction``). Replaying the same inputs gives the same events and state.

The round machine (:mod:`controller.core.machine`) decides deal order and
legality; the misdeal policy (:mod:`controller.core.misdeals`) decides how each
misdeal may be resolved; the shoe's bookkeeping is a
:class:`~controller.core.ledger.ShoeLedger`; badges and approvals are an
:class:`~controller.core.approvals.ApprovalGate` in front of the table.
:class:`Table` is built in three layers: what the table holds and shows
(:class:`~controller.core.tablestate.TableState`), the running round flow
(:class:`~controller.core.dealing.Dealing`), and here the entry points, the
halt and its resolutions.
"""

from __future__ import annotations

from typing import cast

from config.schema import Settings
from controller.core.approvals import rejected
from controller.core.cards import parse_card
from controller.core.dealing import Dealing, round_result
from controller.core.events import Event, ResolvedEvent
from controller.core.exceptions import CardCodeError
from controller.core.inputs import Input, InputKind
from controller.core.machine import State
from controller.core.misdeals import (
    FOREIGN,
    RESOLUTION_INPUTS,
    SAY_RESOLUTION,
    SHOE_CARD,
    SHOE_RESTARTED,
    UNIDENTIFIED,
    Held,
    Misdeal,
)
from controller.core.property_check import FindingError, PropertyRepeat, property_alert, property_off_alert
from controller.core.tablestate import PROMPTS
from controller.core.undo import UNDOABLE_EVENTS, UndoBook, already_undone, capture, roll_back
from controller.i18n.message import message

__all__ = ["FOREIGN", "PROMPTS", "RESOLUTION_INPUTS", "SAY_RESOLUTION", "SHOE_CARD", "SHOE_RESTARTED", "UNIDENTIFIED",
           "Event", "Held", "Misdeal", "Table", "round_result"]


class Table(Dealing):
    """One Punto Banco table: inputs in, events out. The gate sees each input first; a halted table
    accepts only the pending misdeal's resolutions; ``@undo`` takes back the last input where the rules
    allow it (:mod:`controller.core.undo`)."""

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings)
        self.undo = UndoBook()
        """What ``@undo`` would take back now, or why it would be refused."""

    def start(self) -> list[Event]:
        """The events a fresh table shows: the first shoe, waiting for the dealer."""
        return [
            {"event": "shoe", "shoe": self.shoe_number, "status": "new", "decks": self.decks},
            self._next_instruction(),
        ]

    def handle(self, item: Input) -> list[Event]:
        """Apply one input; return the events it causes, ending with the next instruction."""
        events: list[Event] = []
        self._events = events
        gate = self.gate
        halted = self.model.state is State.HALTED
        admitted = self._admit(item, halted, events)
        before = capture(self) if admitted is not None and admitted.kind in UNDOABLE_EVENTS else None
        if admitted is None:
            pass
        elif admitted.kind is InputKind.UNDO:
            self._undo(admitted, events)
        elif admitted.kind is InputKind.ACK:
            events.append(self.alerts.acknowledge(admitted.card or "", admitted.approver, self.round))
        elif halted:
            self._handle_halted(admitted, events)
        else:
            self._handle_running(admitted, events)
        if gate is not None:
            gate.lapse(self.misdeal, events)
            gate.stamp(events)
        if not self.reader_online and self.model.state is not State.HALTED:
            self._raise_misdeal(events, "reader_offline", None,
                                message("misdeal.reader_offline", "the card reader is offline"))
        if (admitted or item).kind is not InputKind.UNDO:
            self.undo = self.undo.after(admitted or item, events, before)
        events.append(self._next_instruction())
        if self.undo.point is not None:
            cast(dict[str, object], events[-1])["undo"] = self.undo.point.input
        return events

    def _admit(self, item: Input, halted: bool, events: list[Event]) -> Input | None:
        """The input the table acts on (None when it is dealt with here): the property check's inputs become
        alerts, an ``@ack`` of no open alert is refused, and the badge gate admits the rest."""
        gate = self.gate
        if item.kind is InputKind.PROPERTY_REPEAT:
            self._property_repeat(item, events)
            return None
        if item.kind is InputKind.PROPERTY_OFF:
            alert = property_off_alert(item.card or "", self.shoe_number, self.round, self.alerts.next_id())
            events.append(self.alerts.open(alert))
            return None
        if item.kind is InputKind.ACK and self.alerts.why_not(item.card or "") is not None:
            events.append(rejected(item, self.alerts.why_not(item.card or "") or ""))
            return None
        if gate is None:
            return item
        if gate.unattended(item, halted):
            self._reader_card_without_dealer(item, events)
            return None
        return gate.admit(item, self.misdeal, self.round, events)

    def _undo(self, item: Input, events: list[Event]) -> None:
        point = self.undo.point
        if point is None:
            events.append(rejected(item, self.undo.refusal))
            return
        events.append(roll_back(self, point))
        self.undo = UndoBook(None, already_undone(point))

    def _property_repeat(self, item: Input, events: list[Event]) -> None:
        """The property check's finding becomes an open ``sequence_repeat`` alert (whatever the table's state), once
        a shoe: a finding this shoe was already given is refused."""
        try:
            repeat = PropertyRepeat.from_text(item.card or "")
        except FindingError as error:
            events.append(rejected(item, error.reason))
            return
        given = self.ledger.property_findings.get(repeat.key)
        if given is not None:
            events.append(rejected(item, message("rejected.property.given", "this shoe's finding was already given "
                                                 "(alert {alert}); it opens no second alert", alert=given)))
            return
        alert = self.alerts.open(property_alert(repeat, self.shoe_number, self.round, self.alerts.next_id()))
        self.ledger.property_findings[repeat.key] = alert["id"]
        events.append(alert)

    def _handle_halted(self, item: Input, events: list[Event]) -> None:
        misdeal = self.misdeal
        assert misdeal is not None
        kind = item.kind
        if kind is InputKind.OFFLINE or kind is InputKind.CUT or (
                kind is InputKind.ONLINE and misdeal.kind != "reader_offline"):
            self._reader_or_cut(item, events)
        elif kind is InputKind.CARD:
            self._reader_card(item.card or "", events)
        elif kind is InputKind.UNREADABLE:
            self._raise_misdeal(events, "unreadable_card", None,
                                message("misdeal.another_unread", "another card came out unread"),
                                held=[("??", UNIDENTIFIED)])
        elif kind is InputKind.DOUBLE:
            self._raise_misdeal(events, "two_cards", None,
                                message("misdeal.two_more", "two more cards left the shoe together"),
                                held=[("??", UNIDENTIFIED), ("??", UNIDENTIFIED)])
        else:
            self._resolve(item, misdeal, events)

    def _resolve(self, item: Input, misdeal: Misdeal, events: list[Event]) -> None:
        resolution = RESOLUTION_INPUTS.get(item.kind)
        if resolution is None or resolution not in misdeal.resolutions:
            allowed = ", ".join(f"@{r}" for r in misdeal.resolutions)
            events.append(rejected(item, message("rejected.halted", "the table is halted on {kind}; expected {allowed}",
                                                 kind=misdeal.kind, allowed=allowed)))
        elif resolution == "manual":
            self._resolve_manual(item, events)
        elif resolution == "void":
            self._resolve_void(item, events)
        elif resolution == "use":
            card = misdeal.exposed
            assert card is not None
            manual = misdeal.exposed_manual
            misdeal.exposed = None
            self._resolved(item, "use", events)
            self.model.resume()
            events.append(self._next_instruction())
            self._place(card, events, manual=manual)
        else:
            if resolution == "online":
                self.reader_online = True
                events.append({"event": "reader", "status": "online"})
            self._resolved(item, resolution, events)
            self.model.resume()

    def _resolved(self, item: Input, resolution: str, events: list[Event], keep: int = 0) -> None:
        """Emit the resolution and set aside the held cards, after the first ``keep`` of them
        (those a manual entry stands in for)."""
        misdeal = self.misdeal
        assert misdeal is not None
        cards = self.ledger.set_aside(misdeal.held[keep:])
        if misdeal.exposed is not None:
            self.ledger.discarded.append(misdeal.exposed.code)
            self.ledger.shown[misdeal.exposed.code] += 1
            cards.append(misdeal.exposed.code)
        event: ResolvedEvent = {"event": "resolved", "round": misdeal.round, "kind": misdeal.kind,
                        "resolution": resolution, "cards": cards}
        if item.approver:
            event["approved_by"] = item.approver
        events.append(event)
        self.misdeal = None

    def _resolve_manual(self, item: Input, events: list[Event]) -> None:
        misdeal = self.misdeal
        assert misdeal is not None
        text = item.card or ""
        try:
            card = parse_card(text)
        except CardCodeError:
            events.append(rejected(item, message(
                "rejected.manual.not_a_card", "{given} is not a card: expected a rank (A 2-9 T/10 J Q K) followed by "
                "a suit (S H D C), e.g. AS, 10H, kd; enter the card again", given=repr(text))))
            return
        if self.ledger.is_foreign(card, self._unread_held(stands_for_held=misdeal.replaces_due_card)):
            if self.ledger.all_copies_seen(card):
                reason = message("rejected.manual.all_copies", "{card}: all {decks} copies were already seen in this "
                                 "shoe; check the card", card=card.code, decks=self.decks)
            else:
                reason = message("rejected.manual.shoe_empty", "{card}: all {cards} cards of the shoe have already "
                                 "left it; check the card", card=card.code, cards=52 * self.decks)
            events.append(rejected(item, reason))
            return
        self._count(card, events)
        self._resolved(item, "manual", events, keep=1 if misdeal.replaces_due_card else 0)
        self.model.resume()
        events.append(self._next_instruction())
        self._place(card, events, manual=True)

    def _resolve_void(self, item: Input, events: list[Event]) -> None:
        model = self.model
        misdeal = self.misdeal
        assert misdeal is not None
        upcoming = model.resume_state is State.ROUND_OVER and not self.result_due
        cards = [] if upcoming else [c.code for c in model.player + model.banker]
        self._resolved(item, "void", events)
        if upcoming:
            model.resume()
            model.round_number += 1
        elif self.result_due:
            model.resume()  # a face-down round dealt to its end and voided before its last reveal
            self.result_due = False
        elif not model.void_round():
            model.resume()
            return
        events.append({"event": "round_voided", "round": model.round_number,
                       "cards": cards, "bets": "returned"})
        self.ledger.stats["voided"] += 1
        self.rounds_voided += 1
        model.player = []
        model.banker = []
        self._end_round(events)

    def _reader_card_without_dealer(self, item: Input, events: list[Event]) -> None:
        code = item.card if item.kind is InputKind.CARD else None
        held: list[Held] = [("??", UNIDENTIFIED)] * (2 if item.kind is InputKind.DOUBLE else 1)
        if code is not None:
            try:
                card = parse_card(code)
            except CardCodeError:
                held = [(code, UNIDENTIFIED)]
            else:
                if self.ledger.is_foreign(card, self._unread_held()):
                    self._reader_card(code, events)
                    return
                self._count(card, events)
                held = [(card.code, SHOE_CARD)]
        self._raise_misdeal(events, "no_dealer", code,
                            message("misdeal.no_dealer", "a card came out of the shoe with no dealer signed in"),
                            held=held)

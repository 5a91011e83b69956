"""One input, one step: ``step(state, input, context) -> (state, events)``.

A step works on a :class:`Draft`: the parts of the :class:`~controller.core.state.TableState` it replaces and the
events it emits so far. The policies are small functions of the draft, each in the module of its concern:
dealing a card and the round's flow (:mod:`controller.core.dealing`), the shoe (:mod:`controller.core.shoeflow`),
the reveals of a face-down round (:mod:`controller.core.revealing`), a halt and its resolutions
(:mod:`controller.core.halting`), the badge gate (:mod:`controller.core.approvals`). The draft is made from the
state, and frozen into the next one, here; nothing else holds it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import cache
from typing import NamedTuple, cast

import msgspec

from config.schema import AuthSettings
from controller.core.alerts import AlertBook, lockout_alert
from controller.core.approvals import GateState, admit, lapse, rejected, stamp, unattended, unlocked_by
from controller.core.chain import Chain
from controller.core.clock import clock_read
from controller.core.events import AlertEvent, Event, InstructionEvent, PromptEvent
from controller.core.fastlane import dealt_card, started_round
from controller.core.inputs import Input, InputKind
from controller.core.ledger import ShoeLedger, Stats
from controller.core.machine import RoundState, State
from controller.core.misdeals import Misdeal
from controller.core.property_check import FindingError, PropertyRepeat, property_alert, property_off_alert
from controller.core.sequence_check import SequenceArchive
from controller.core.state import Context, TableState
from controller.core.stopping import GOES_ON_WHILE_STOPPED, refuse_while_stopped, stopping_alert
from controller.core.undo import UNDOABLE_EVENTS, UndoBook, capture, roll_back
from controller.i18n.message import message

KnownEdges = Callable[[int, int], Mapping[str, Fraction] | None]
"""(shoe, round) -> each bet's expected value known before that round starts (a resume reads them from the
journal instead of computing them again), or None."""


class Draft:
    """The state a step is making: the current value of each part of the :class:`TableState` (one attribute of
    the same name each, made from its fields), and the events so far."""

    __slots__ = ("context", "events", "known_edges", *TableState.__struct_fields__)

    round: RoundState
    ledger: ShoeLedger
    archive: SequenceArchive
    shoe_number: int
    misdeal: Misdeal | None
    halts: int
    slots_dealt: tuple[State, ...]
    manual_slots: frozenset[State]
    cut_out: bool
    reader_online: bool
    rounds_dealt: int
    rounds_voided: int
    revealed: int
    result_due: bool
    alerts: AlertBook
    gate: GateState | None
    undo: UndoBook | None
    earlier: Stats
    closed_early: bool

    def __init__(self, state: TableState, context: Context, known_edges: KnownEdges | None) -> None:
        self.context = context
        self.known_edges = known_edges
        self.events: list[Event] = []
        _open(self, state)

    def freeze(self) -> TableState:
        return _freeze(self)

    # -- what the policies read ---------------------------------------------------------------------------------
    @property
    def state(self) -> State:
        """What the table shows: its round's state, or HALTED while a misdeal is pending."""
        return State.HALTED if self.misdeal is not None else self.round.state

    def unread_held(self, stands_for_held: bool = False) -> int:
        """Unread cards set aside by the pending misdeal (they left the shoe too)."""
        return self.misdeal.unread_left(stands_for_held) if self.misdeal is not None else 0

    def open_alert(self, alert: AlertEvent) -> AlertEvent:
        """Open ``alert`` (an ``alert`` event whose id is :meth:`AlertBook.next_id`); returns it."""
        self.alerts = self.alerts.opening(alert)
        return alert


def _made(name: str, source: str) -> Callable[..., object]:
    scope: dict[str, object] = {"TableState": TableState}
    exec(source, scope)
    made = scope[name]
    assert callable(made)
    return made


_FIELDS = TableState.__struct_fields__
_open = cast(Callable[[Draft, TableState], None], _made(
    "_open", "def _open(draft, state):\n" + "".join(f"    draft.{name} = state.{name}\n" for name in _FIELDS)))
"""Copy every field of a state onto a draft (generated: one assignment a field, no loop)."""
_freeze = cast(Callable[[Draft], TableState], _made(
    "_freeze", "def _freeze(draft):\n    return TableState(" + ", ".join(f"{name}=draft.{name}" for name in _FIELDS)
    + ")\n"))
"""The state a draft holds now (generated like :data:`_open`)."""


def step(state: TableState, item: Input, context: Context,
         known_edges: KnownEdges | None = None) -> tuple[TableState, list[Event]]:
    """The state after ``item`` and the events it causes, ending with the dealer's next instruction."""
    kind = item.kind
    fast = (dealt_card(state, item, context) if kind is InputKind.CARD
            else started_round(state, item, context) if kind is InputKind.NEXT else None)
    if fast is not None:
        return fast
    return general_step(state, item, context, known_edges)


def general_step(state: TableState, item: Input, context: Context,
                 known_edges: KnownEdges | None = None) -> tuple[TableState, list[Event]]:
    """:func:`step` for any input, without the short way of :mod:`controller.core.fastlane`."""
    policies = _policies()
    draft = Draft(state, context, known_edges)
    events = draft.events
    halted = state.misdeal is not None
    admitted = _admit(draft, item, halted, policies.without_dealer)
    before = capture(draft.freeze()) if admitted is not None and admitted.kind in UNDOABLE_EVENTS else None
    if admitted is None:
        pass
    elif admitted.kind is InputKind.UNDO:
        _undo(draft, admitted)
    elif admitted.kind is InputKind.ACK:
        draft.alerts, acknowledged = draft.alerts.acknowledging(admitted.card or "", admitted.approver,
                                                                draft.round.number)
        events.append(acknowledged)
    elif admitted.kind not in GOES_ON_WHILE_STOPPED and (stop := stopping_alert(draft, context)) is not None:
        refuse_while_stopped(draft, admitted, stop)
    elif halted:
        policies.handle_halted(draft, admitted)
    else:
        policies.handle_running(draft, admitted)
    if draft.gate is not None:
        draft.gate = lapse(draft.gate, draft.misdeal, events)
        stamp(draft.gate, events)
    if not draft.reader_online and draft.misdeal is None and policies.offline_halts(draft):
        policies.raise_misdeal(draft, "reader_offline", None, message("misdeal.reader_offline",
                                                                      "the card reader is offline"))
    if (admitted or item).kind is not InputKind.UNDO:
        draft.undo = (draft.undo or UndoBook()).after(admitted or item, events, before)
    events.append(policies.next_instruction(draft))
    undo = draft.undo
    if undo is not None and undo.point is not None:
        last = events[-1]
        if isinstance(last, PromptEvent | InstructionEvent):
            last.undo = undo.point.input
    return draft.freeze(), events


class Policies(NamedTuple):
    """The policies a step calls (their modules build on this one: imported once, on the first step)."""

    handle_running: Callable[[Draft, Input], None]
    handle_halted: Callable[[Draft, Input], None]
    next_instruction: Callable[[Draft], Event]
    without_dealer: Callable[[Draft, Input], None]
    offline_halts: Callable[[Draft], bool]
    raise_misdeal: Callable[..., None]


@cache
def _policies() -> Policies:
    from controller.core.dealing import handle_running
    from controller.core.halting import handle_halted, offline_halts, raise_misdeal
    from controller.core.view import next_instruction, reader_card_without_dealer

    return Policies(handle_running, handle_halted, next_instruction, reader_card_without_dealer, offline_halts,
                    raise_misdeal)


def _admit(draft: Draft, item: Input, halted: bool, without_dealer: Callable[[Draft, Input], None]) -> Input | None:
    """The input the table acts on (None when it is dealt with here): the property check's inputs become alerts,
    an ``@ack`` of no open alert is refused, and the badge gate admits the rest."""
    events = draft.events
    kind = item.kind
    if kind is InputKind.PROPERTY_REPEAT:
        _property_repeat(draft, item)
        return None
    if kind is InputKind.CLOCK:
        clock_read(draft, item)
        return None
    if kind is InputKind.PROPERTY_OFF:
        events.append(draft.open_alert(property_off_alert(item.card or "", draft.shoe_number, draft.round.number,
                                                          draft.alerts.next_id())))
        return None
    if kind is InputKind.ACK:
        why = draft.alerts.why_not(item.card or "")
        if why is not None:
            events.append(rejected(item, why))
            return None
    gate = draft.gate
    if gate is None:
        return item
    if unattended(gate, item, halted):
        without_dealer(draft, item)
        return None
    settings = draft.context.settings.auth
    draft.gate, admitted = admit(settings, gate, item, draft.misdeal, draft.round.number, events)
    _lockout(draft, settings, gate, draft.gate, item)
    return admitted


def _lockout(draft: Draft, settings: AuthSettings, before: GateState, after: GateState, item: Input) -> None:
    """The badge reader locking (a critical ``badge_lockout`` alert) or a supervisor's badge unlocking it (the
    supervisor acknowledges the alert)."""
    if after.locked and not before.locked:
        draft.events.append(draft.open_alert(lockout_alert(settings, draft.shoe_number, draft.round.number,
                                                           draft.alerts.next_id())))
        return
    supervisor = unlocked_by(settings, before, after, item)
    if supervisor is None:
        return
    for alert in draft.alerts.open_alerts:
        if alert.kind == "badge_lockout":
            draft.alerts, acknowledged = draft.alerts.acknowledging(alert.id, supervisor, draft.round.number)
            draft.events.append(acknowledged)


def _undo(draft: Draft, item: Input) -> None:
    book = draft.undo or UndoBook()
    point = book.point
    if point is None:
        draft.events.append(rejected(item, book.refusal))
        return
    state, undone = roll_back(draft.freeze(), point)
    draft.events.append(undone)
    events, context, known = draft.events, draft.context, draft.known_edges
    Draft.__init__(draft, state, context, known)
    draft.events = events


def _property_repeat(draft: Draft, item: Input) -> None:
    """The property check's finding becomes an open ``sequence_repeat`` alert (whatever the table's state), once a
    shoe: a finding this shoe was already given is refused."""
    events = draft.events
    try:
        repeat = PropertyRepeat.from_text(item.card or "")
    except FindingError as error:
        events.append(rejected(item, error.reason))
        return
    given = draft.ledger.property_findings.get(repeat.key)
    if given is not None:
        events.append(rejected(item, message("rejected.property.given", "this shoe's finding was already given "
                                             "(alert {alert}); it opens no second alert", alert=given)))
        return
    alert = property_alert(repeat, draft.shoe_number, draft.round.number, draft.alerts.next_id())
    draft.open_alert(alert)
    draft.ledger = draft.ledger.with_finding(repeat.key, alert["id"])
    events.append(alert)


def with_round(draft: Draft, **changes: object) -> None:
    """Replace fields of the draft's round."""
    draft.round = msgspec.structs.replace(draft.round, **changes)


__all__ = ["Chain", "Draft", "KnownEdges", "general_step", "step", "with_round"]


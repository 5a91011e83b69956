"""The gate in front of the table when badges are on: sign-in, sign-out and supervisor approvals.

The gate sees every input before the table does (:func:`admit`). Badge inputs end here; a dealer input that
needs a supervisor is held (:class:`Pending`) until a supervisor's badge approves it, and is then handed to
the table with ``approver`` set. The gate's state is a value (:class:`GateState`) in the table's state; the
core's clock reads 0 (idle sign-out is the app's: it gives a ``SIGN_OUT`` input).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from config.schema import AuthSettings
from controller.core.auth import ACK_ALERT, Sign, approve, refusal, shown_uid, sign_in, sign_out, supervisor_only
from controller.core.events import (
    ApprovalCancelledEvent,
    ApprovalEvent,
    ApprovalRefusedEvent,
    ApprovalRequiredEvent,
    Event,
    MisdealEvent,
    RejectedEvent,
    ResolvedEvent,
    ResultEvent,
    RoundVoidedEvent,
    SignInRefusedEvent,
    StubCountEvent,
)
from controller.core.inputs import Input, InputKind
from controller.core.misdeals import RESOLUTION_INPUTS, Misdeal, approval_action
from controller.i18n.message import Message, message

READER_CARD_KINDS = (InputKind.CARD, InputKind.UNREADABLE, InputKind.DOUBLE)
CORE_CLOCK = 0.0
"""What the core's clock reads: it has none (the app signs an idle dealer out with a ``SIGN_OUT`` input)."""
STAMPED = (ResultEvent, MisdealEvent, RoundVoidedEvent, ResolvedEvent, StubCountEvent)
"""The events that carry the signed-in dealer's identity."""


class Pending(msgspec.Struct, frozen=True, gc=False):
    """A dealer input waiting for a supervisor's badge: the action it needs approved, and the misdeal it resolves
    (None for closing the shoe); it lapses when that misdeal no longer is the table's."""

    input: Input
    action: str
    misdeal: Misdeal | None = None


class GateState(msgspec.Struct, frozen=True, gc=False):
    """The gate's state: who is signed in, the input held for a supervisor's badge, and the badges refused lately."""

    sign: Sign = msgspec.field(default_factory=Sign)
    pending: Pending | None = None
    refused: tuple[float, ...] = ()
    """When each badge refused within ``[auth] lockout_window_seconds`` of the last one was presented."""
    locked: bool = False
    """``[auth] lockout_after`` badges were refused within the window: the reader approves nothing and signs nobody
    in until a supervisor's badge unlocks it."""

    @property
    def dealer(self) -> object:
        """The badge signed in at the table, or None."""
        return self.sign.dealer


def needs_supervisor(settings: AuthSettings, resolution: str, kind: str | None = None) -> bool:
    """Does ``resolution`` (of a misdeal of ``kind``) need a supervisor's approval here?"""
    return approval_action(resolution, kind) in supervisor_only(settings)


def unattended(gate: GateState, item: Input, halted: bool) -> bool:
    """A card came out of the shoe while no dealer is signed in (the table raises ``no_dealer``)."""
    return item.from_reader and gate.sign.dealer is None and item.kind in READER_CARD_KINDS and not halted


def _same_misdeal(held: Misdeal | None, current: Misdeal | None) -> bool:
    if held is None or current is None:
        return held is current
    return held.serial == current.serial


def admit(settings: AuthSettings, gate: GateState, item: Input, misdeal: Misdeal | None, round_number: int,
          events: list[Event]) -> tuple[GateState, Input | None]:
    """The gate after ``item``, and the input the table should apply now (``item``, or an approved held one), or
    None when the gate handled ``item`` itself."""
    kind = item.kind
    if kind is InputKind.BADGE:
        return _badge(settings, gate, item, events)
    if kind is InputKind.BADGE_REMOVED:
        dealer = gate.sign.dealer
        removed = settings.badge(item.card) if item.card else dealer
        if gate.pending is None and dealer is not None and removed == dealer:
            sign, signed_out = sign_out(gate.sign, "badge removed")
            events.extend(signed_out)
            return msgspec.structs.replace(gate, sign=sign), None
        return gate, None
    if kind is InputKind.SIGN_OUT:
        if gate.pending is not None:
            why = message("approval.cancelled.signed_out", "the dealer signed out")
            events.append(ApprovalCancelledEvent(action=gate.pending.action, **refusal(why)))
        sign, signed_out = sign_out(gate.sign, item.card or "signed out")
        events.extend(signed_out)
        return msgspec.structs.replace(gate, sign=sign, pending=None), None
    if item.from_reader:
        return gate, item
    if gate.sign.dealer is None:
        events.append(rejected(item, message("rejected.no_dealer",
                                             "no dealer is signed in; present a dealer badge first")))
        return gate, None
    needed = _supervisor_action(settings, item, misdeal)
    if needed is not None and item.approver is None:
        say = message("approval.required", "{input} needs a supervisor: present a supervisor badge",
                      input=item.token())
        events.append(ApprovalRequiredEvent(round=round_number, action=needed, input=item.token(), say=say.english(),
                                            say_id=say.id, say_params=say.params))
        return msgspec.structs.replace(gate, pending=Pending(item, needed, misdeal)), None
    return msgspec.structs.replace(gate, sign=gate.sign.touched(CORE_CLOCK), pending=None), item


def _badge(settings: AuthSettings, gate: GateState, item: Input, events: list[Event]) -> tuple[GateState, Input | None]:
    uid = item.card or ""
    if gate.locked:
        return _while_locked(settings, gate, uid, events), None
    pending = gate.pending
    if pending is None:
        sign, signed = sign_in(settings, gate.sign, uid, CORE_CLOCK)
        events.extend(signed)
        return _counted(settings, GateState(sign, None, gate.refused), item, signed), None
    approved, sign, auth_events = approve(settings, gate.sign, uid, pending.action, CORE_CLOCK)
    events.extend(auth_events)
    approval = auth_events[-1]
    if not approved or not isinstance(approval, ApprovalEvent):
        return _counted(settings, GateState(sign, pending, gate.refused), item, auth_events), None
    held = pending.input
    approver = approval.uid if held.kind is InputKind.ACK else approval.by
    return GateState(sign, None, gate.refused), Input(held.kind, held.card, approver=approver)


def _counted(settings: AuthSettings, gate: GateState, item: Input, said: Sequence[Event]) -> GateState:
    """The gate after a badge: a refusal is counted at the badge's time (one without a time, a script's, at the time
    of the last one counted), those older than ``lockout_window_seconds`` are forgotten, and ``lockout_after`` of
    them lock the reader."""
    if not any(isinstance(event, SignInRefusedEvent | ApprovalRefusedEvent) for event in said):
        return gate
    now = item.at if item.at is not None else (gate.refused[-1] if gate.refused else 0.0)
    refused = (*(moment for moment in gate.refused if moment >= now - settings.lockout_window_seconds), now)
    locked = 0 < settings.lockout_after <= len(refused)
    return GateState(gate.sign, gate.pending, () if locked else refused, locked)


def _while_locked(settings: AuthSettings, gate: GateState, uid: str, events: list[Event]) -> GateState:
    """A badge at a locked reader: a supervisor's unlocks it (and does nothing else); any other is refused, by UID."""
    badge = settings.badge(uid)
    if badge is not None and badge.role == "supervisor":
        return GateState(gate.sign, gate.pending)
    why = message("auth.refused.locked", "the badge reader is locked after {count} refused badges; a supervisor's "
                  "badge unlocks it", count=settings.lockout_after)
    events.append(SignInRefusedEvent(uid=badge.uid if badge is not None else shown_uid(uid), **refusal(why)))
    return gate


def unlocked_by(settings: AuthSettings, before: GateState, after: GateState, item: Input) -> str | None:
    """The badge UID of the supervisor whose badge ``item`` unlocked the reader (the gate went from ``before`` to
    ``after``), or None."""
    if not before.locked or after.locked or item.kind is not InputKind.BADGE:
        return None
    badge = settings.badge(item.card or "")
    return badge.uid if badge is not None else None


def _supervisor_action(settings: AuthSettings, item: Input, misdeal: Misdeal | None) -> str | None:
    """The approval ``item`` needs before it may take effect, or None."""
    if item.kind is InputKind.ACK:
        return ACK_ALERT
    if item.kind is InputKind.CLOSE:
        return "close_shoe" if needs_supervisor(settings, "close_shoe") else None
    resolution = RESOLUTION_INPUTS.get(item.kind)
    if misdeal is None or resolution is None or resolution not in misdeal.resolutions:
        return None
    if needs_supervisor(settings, resolution, misdeal.kind):
        return approval_action(resolution, misdeal.kind)
    return None


def lapse(gate: GateState, misdeal: Misdeal | None, events: list[Event]) -> GateState:
    """Drop the held input when the misdeal it was for is no longer the table's pending one."""
    pending = gate.pending
    if pending is not None and not _same_misdeal(pending.misdeal, misdeal):
        why = message("approval.cancelled.lapsed", "the misdeal it was for is no longer pending")
        events.append(ApprovalCancelledEvent(action=pending.action, **refusal(why)))
        return msgspec.structs.replace(gate, pending=None)
    return gate


def stamp(gate: GateState, events: list[Event]) -> None:
    """Results and misdeals carry the signed-in dealer's identity."""
    identity = gate.sign.identity()
    for event in events:
        if isinstance(event, STAMPED):
            event.dealer = identity


def instruction(gate: GateState, halted: bool, slot: str | None = None) -> tuple[str, Message] | None:
    """The gate's own instruction (action, say) when it is waiting for a badge, else None (``slot``: the slot a
    card entered by hand would go to; None: the burn)."""
    if gate.pending is not None:
        return "approval", approval_prompt(gate.pending, slot)
    if gate.sign.dealer is None and not halted:
        return "sign_in", message("sign_in.present", "Dealer: present your badge to sign in")
    return None


def approval_prompt(pending: Pending, slot: str | None) -> Message:
    """What the supervisor is asked to approve, named: the card typed in and where it goes, the round voided, the
    alert acknowledged (the action's name only for an action with nothing more to name)."""
    item, action = pending.input, pending.action
    round_number = pending.misdeal.round if pending.misdeal is not None else None
    if item.kind is InputKind.MANUAL and item.card:
        if slot is None:
            return message("approval.present.manual_burn", "Supervisor: present your badge to approve {card}, entered "
                           "by hand, as the burn card", card=item.card)
        return message("approval.present.manual", "Supervisor: present your badge to approve {card}, entered by hand, "
                       "for {slot}", card=item.card, slot=slot)
    if item.kind is InputKind.VOID and round_number is not None:
        return message("approval.present.void", "Supervisor: present your badge to approve voiding round {round}",
                       round=round_number)
    if item.kind is InputKind.ACK and item.card:
        return message("approval.present.ack", "Supervisor: present your badge to approve acknowledging alert "
                       "{alert}", alert=item.card)
    if item.kind is InputKind.CLOSE:
        return message("approval.present.close", "Supervisor: present your badge to approve closing this shoe early")
    return message("approval.present", "Supervisor: present your badge to approve {action}", action=action)


def rejected(item: Input, why: str | Message) -> RejectedEvent:
    """The event for an input that is not accepted, and why (a reason given as a message also carries its
    ``reason_id`` and ``reason_params``, so the reason can be worded in the table's language)."""
    reason = why.english() if isinstance(why, Message) else why
    say = message("rejected", "{input} not accepted: {reason}", input=item.token(), reason=reason)
    event = RejectedEvent(input=item.token(), reason=reason, say=say.english(), say_id=say.id, say_params=say.params)
    if isinstance(why, Message):
        event.reason_id = why.id
        event.reason_params = dict(why.params)
    return event

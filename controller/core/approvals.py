"""The gate in front of the table when badges are on: sign-in, sign-out and supervisor approvals.

:class:`ApprovalGate` sees every input before the table does. Badge inputs end
here; a dealer input that needs a supervisor is held until a supervisor's badge
approves it, and is then handed to the table with ``approver`` set.
"""

from __future__ import annotations

from controller.core.auth import ACK_ALERT, Authority, refusal
from controller.core.events import Event, RejectedEvent
from controller.core.inputs import Input, InputKind
from controller.core.misdeals import RESOLUTION_INPUTS, Misdeal, approval_action
from controller.i18n.message import Message, message

READER_CARD_KINDS = (InputKind.CARD, InputKind.UNREADABLE, InputKind.DOUBLE)


class ApprovalGate:
    """Badges and approvals in front of one table (``[auth] enabled``)."""

    def __init__(self, authority: Authority) -> None:
        self.authority = authority
        self.pending: tuple[Input, str, Misdeal | None] | None = None
        """A dealer input waiting for a supervisor's badge, the action it needs approved, and the
        misdeal it resolves (None for closing the shoe); it lapses when that misdeal does."""

    def needs_supervisor(self, resolution: str, kind: str | None = None) -> bool:
        """Does ``resolution`` (of a misdeal of ``kind``) need a supervisor's approval here?"""
        return self.authority.needs_supervisor(approval_action(resolution, kind))

    def unattended(self, item: Input, halted: bool) -> bool:
        """A card came out of the shoe while no dealer is signed in (the table raises ``no_dealer``)."""
        return (item.from_reader and self.authority.dealer is None and item.kind in READER_CARD_KINDS
                and not halted)

    def admit(self, item: Input, misdeal: Misdeal | None, round_number: int, events: list[Event]) -> Input | None:
        """The input the table should apply now (``item``, or an approved held one), or None when the
        gate handled ``item`` itself."""
        authority = self.authority
        kind = item.kind
        if kind is InputKind.BADGE:
            return self._badge(item.card or "", events)
        if kind is InputKind.BADGE_REMOVED:
            dealer = authority.dealer
            removed = authority.badge(item.card) if item.card else dealer
            if self.pending is None and dealer is not None and removed == dealer:
                events.extend(authority.sign_out("badge removed"))
            return None
        if kind is InputKind.SIGN_OUT:
            if self.pending is not None:
                _, action, _ = self.pending
                why = message("approval.cancelled.signed_out", "the dealer signed out")
                events.append({"event": "approval_cancelled", "action": action, **refusal(why)})
            self.pending = None
            events.extend(authority.sign_out(item.card or "signed out"))
            return None
        if item.from_reader:
            return item
        if authority.dealer is None:
            events.append(rejected(item, message("rejected.no_dealer",
                                                 "no dealer is signed in; present a dealer badge first")))
            return None
        self.pending = None
        needed = self._supervisor_action(item, misdeal)
        if needed is not None and item.approver is None:
            self.pending = (item, needed, misdeal)
            say = message("approval.required", "{input} needs a supervisor: present a supervisor badge",
                          input=item.token())
            events.append({"event": "approval_required", "round": round_number, "action": needed,
                           "input": item.token(), "say": say.english(), "say_id": say.id, "say_params": say.params})
            return None
        authority.touch()
        return item

    def _badge(self, uid: str, events: list[Event]) -> Input | None:
        authority = self.authority
        if self.pending is None:
            events.extend(authority.sign_in(uid))
            return None
        pending, action, _ = self.pending
        approved, auth_events = authority.approve(uid, action)
        events.extend(auth_events)
        approval = auth_events[-1]
        if not approved or approval["event"] != "approval":
            return None
        self.pending = None
        approver = approval["uid"] if pending.kind is InputKind.ACK else approval["by"]
        return Input(pending.kind, pending.card, approver=approver)

    def _supervisor_action(self, item: Input, misdeal: Misdeal | None) -> str | None:
        """The approval ``item`` needs before it may take effect, or None."""
        if item.kind is InputKind.ACK:
            return ACK_ALERT
        if item.kind is InputKind.CLOSE:
            return "close_shoe" if self.needs_supervisor("close_shoe") else None
        resolution = RESOLUTION_INPUTS.get(item.kind)
        if misdeal is None or resolution is None or resolution not in misdeal.resolutions:
            return None
        if self.needs_supervisor(resolution, misdeal.kind):
            return approval_action(resolution, misdeal.kind)
        return None

    def lapse(self, misdeal: Misdeal | None, events: list[Event]) -> None:
        """Drop the held input when the misdeal it was for is no longer pending."""
        if self.pending is not None and self.pending[2] is not misdeal:
            _, action, _ = self.pending
            self.pending = None
            why = message("approval.cancelled.lapsed", "the misdeal it was for is no longer pending")
            events.append({"event": "approval_cancelled", "action": action, **refusal(why)})

    def stamp(self, events: list[Event]) -> None:
        """Results and misdeals carry the signed-in dealer's identity."""
        identity = self.authority.identity()
        for event in events:
            if event["event"] in ("result", "misdeal", "round_voided", "resolved"):
                event["dealer"] = identity.copy() if identity is not None else None

    def instruction(self, halted: bool) -> tuple[str, Message] | None:
        """The gate's own instruction (action, say) when it is waiting for a badge, else None."""
        if self.pending is not None:
            _, action, _ = self.pending
            return "approval", message("approval.present", "Supervisor: present your badge to approve {action}",
                                       action=action)
        if self.authority.dealer is None and not halted:
            return "sign_in", message("sign_in.present", "Dealer: present your badge to sign in")
        return None


def rejected(item: Input, why: str | Message) -> RejectedEvent:
    """The event for an input that is not accepted, and why (a reason given as a message also carries its
    ``reason_id`` and ``reason_params``, so the reason can be worded in the table's language)."""
    reason = why.english() if isinstance(why, Message) else why
    say = message("rejected", "{input} not accepted: {reason}", input=item.token(), reason=reason)
    event: RejectedEvent = {"event": "rejected", "input": item.token(), "reason": reason,
                            "say": say.english(), "say_id": say.id, "say_params": say.params}
    if isinstance(why, Message):
        event["reason_id"] = why.id
        event["reason_params"] = dict(why.params)
    return event

"""Badges, roles and approvals: who is dealing, and who may approve what.

Pure model, no I/O and no clock of its own: the caller passes a ``clock``
(``time.monotonic`` in production, a fake in tests). The badge *reader* lives
in :mod:`drivers.pcsc.badges`; this module only decides.

Config (``[auth]`` in TOML), see docs/pcsc.md::

    [auth]
    enabled = true
    reader = "pcsc://?reader=Virtual PCD 00 01"
    identify = "uid"                      # or "apdu": SELECT + read the badge's own ID
    select_apdu = "00A4040008F043524F55504945"
    read_apdu = "00CA010000"
    idle_signout_seconds = 900            # 0 = never
    supervisor_only = ["void", "manual", "foreign_card", "close_shoe"]
    two_person = true                     # the dealer signed in never approves their own input

    [auth.badges.04A1B2C3D4E5F6]
    name = "Alice Martin"
    role = "dealer"                       # or "supervisor"

Events are the typed dicts of :mod:`controller.core.events`, ready for the journal::

    {"event": "dealer_signed_in", "name": "Alice Martin", "uid": "04A1B2C3D4E5F6", "role": "dealer"}
    {"event": "dealer_signed_out", "name": ..., "uid": ..., "reason": "idle"}
    {"event": "sign_in_refused", "uid": ..., "reason": "unknown badge"}
    {"event": "approval", "action": "void", "by": "Bob Stone", "uid": ..., "role": "supervisor"}
    {"event": "approval_refused", "action": "void", "uid": ..., "reason": "role dealer cannot approve void"}
    {"event": "approval_refused", "action": "void", "uid": ..., "rule": "two_person", "reason": "..."}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypedDict

import msgspec

from config.schema import (
    DEFAULT_IDLE_SIGNOUT_SECONDS,
    DEFAULT_READ_APDU,
    DEFAULT_SUPERVISOR_ONLY,
    IDENTIFY_MODES,
    ROLES,
    AuthSettings,
    Badge,
    Identify,
    Invalid,
    Role,
    convert_section,
    normalise_uid,
)
from controller.core.events import (
    ApprovalEvent,
    ApprovalRefusedEvent,
    DealerSignedInEvent,
    DealerSignedOutEvent,
    Identity,
    SayParams,
    SignInRefusedEvent,
)
from controller.core.exceptions import ConfigError
from controller.i18n.message import Message, message

UNKNOWN_BADGE = "unknown badge"
ACK_ALERT = "ack_alert"
"""The approval an alert's acknowledgement (``@ack ID``) needs when badges are on."""
ALWAYS_SUPERVISOR = frozenset({ACK_ALERT})
"""Actions only a supervisor may approve whatever ``supervisor_only`` says."""

def settings_from_dict(data: Mapping[str, Any] | None, section: str = "auth") -> AuthSettings:
    """:class:`AuthSettings` from an ``[auth]`` table alone, as parsed from TOML.

    ``None`` or an empty table gives the defaults (auth disabled). Raises
    :class:`ConfigError` naming the key (``auth.badges.04A1.role``), the expected
    value and the bad value. (The config loader reads ``[auth]`` with every other section.)
    """
    if data is None:
        return AuthSettings()
    if not isinstance(data, Mapping):
        raise ConfigError(f"[{section}]: expected a table, got {data!r}")
    try:
        return convert_section(AuthSettings, data, section)
    except Invalid as error:
        problem = error.problem
        path = ".".join(part for part in (section, problem.key) if part)
        raise ConfigError(f"{path}{problem.below}: {problem.message}") from None


class Sign(msgspec.Struct, frozen=True, gc=False):
    """Who is signed in at a table, as a value (readings of the caller's clock)."""

    dealer: Badge | None = None
    """The badge signed in at the table, or None."""
    signed_in_at: float | None = None
    last_activity: float | None = None

    def identity(self) -> Identity | None:
        """``{"name", "uid", "role"}`` of the current dealer, for results and misdeals."""
        dealer = self.dealer
        if dealer is None:
            return None
        return Identity(name=dealer.name, uid=dealer.uid, role=dealer.role)

    def touched(self, now: float) -> Sign:
        """Activity at the table at ``now``: the idle timer restarts."""
        return Sign(self.dealer, self.signed_in_at, now) if self.dealer is not None else self


SignEvent = DealerSignedInEvent | DealerSignedOutEvent | SignInRefusedEvent


def supervisor_only(settings: AuthSettings) -> frozenset[str]:
    """The actions only a supervisor badge may approve: ``supervisor_only`` and :data:`ALWAYS_SUPERVISOR`."""
    return ALWAYS_SUPERVISOR.union(settings.supervisor_only)


def may_approve(badge: Badge, action: str, settings: AuthSettings) -> bool:
    """May ``badge``'s role approve ``action``? A supervisor approves anything, a dealer what is not supervisor-only."""
    return badge.role == "supervisor" or action not in supervisor_only(settings)


def sign_out(sign: Sign, reason: str) -> tuple[Sign, list[DealerSignedOutEvent]]:
    """Sign the current dealer out (``reason``: badge, idle, replaced, shutdown...)."""
    badge = sign.dealer
    if badge is None:
        return sign, []
    return Sign(), [DealerSignedOutEvent(name=badge.name, uid=badge.uid, reason=reason)]


def sign_in(settings: AuthSettings, sign: Sign, uid: str, now: float) -> tuple[Sign, list[SignEvent]]:
    """A badge is presented to sign in as the dealer.

    Unknown: ``sign_in_refused``. The same dealer again: no events (the idle timer restarts). Another badge while
    someone is signed in: that dealer is signed out (reason ``replaced``) and the new one signed in.
    """
    badge = settings.badge(uid)
    if badge is None:
        return sign, [SignInRefusedEvent(uid=shown_uid(uid), **refusal(_UNKNOWN))]
    if sign.dealer is not None and sign.dealer.uid == badge.uid:
        return sign.touched(now), []
    events: list[SignEvent] = []
    _, signed_out = sign_out(sign, "replaced")
    events.extend(signed_out)
    events.append(DealerSignedInEvent(name=badge.name, uid=badge.uid, role=badge.role))
    return Sign(badge, now, now), events


def approve(settings: AuthSettings, sign: Sign, uid: str, action: str,
            now: float) -> tuple[bool, Sign, list[ApprovalEvent | ApprovalRefusedEvent]]:
    """May the badge ``uid`` approve ``action``? Returns (approved, the sign after, events).

    Refused when the badge is unknown, when ``action`` is supervisor-only and the badge's role is dealer, or
    (``two_person``) when the badge is the dealer's own: the refusal then has ``rule: "two_person"``. Approval does
    not change who is dealing.
    """
    badge = settings.badge(uid)
    if badge is None:
        return False, sign, [_approval_refused(action, shown_uid(uid), _UNKNOWN)]
    if not may_approve(badge, action, settings):
        why = message("auth.refused.role", "role {role} cannot approve {action}", role=badge.role, action=action)
        return False, sign, [_approval_refused(action, badge.uid, why)]
    if settings.two_person and sign.dealer is not None and sign.dealer.uid == badge.uid:
        why = message("auth.refused.own", "{name} is the dealer signed in and cannot approve their own {action}; "
                      "a second person's badge must approve it", name=badge.name, action=action)
        own = _approval_refused(action, badge.uid, why)
        own.rule = "two_person"
        return False, sign, [own]
    return True, sign.touched(now), [ApprovalEvent(action=action, by=badge.name, uid=badge.uid, role=badge.role)]


class Authority:
    """Who is signed in at a table, with a clock: a mutable holder of a :class:`Sign` for callers that keep one
    (the table's core keeps the :class:`Sign` in its state and uses the functions above).

    Activity (:meth:`touch`) resets the idle timer; :meth:`check_idle` signs the dealer out once
    ``idle_signout_seconds`` pass without any.
    """

    def __init__(self, settings: AuthSettings, clock: Callable[[], float]) -> None:
        self.settings = settings
        self._clock = clock
        self.sign = Sign()

    @property
    def dealer(self) -> Badge | None:
        """The badge signed in at the table, or None."""
        return self.sign.dealer

    @property
    def signed_in_at(self) -> float | None:
        """Clock reading when the current dealer signed in."""
        return self.sign.signed_in_at

    def identity(self) -> Identity | None:
        """``{"name", "uid", "role"}`` of the current dealer, for results and misdeals."""
        return self.sign.identity()

    def badge(self, uid: str) -> Badge | None:
        """The enrolled badge with this UID, or None."""
        return self.settings.badge(uid)

    def needs_supervisor(self, action: str) -> bool:
        """True when only a supervisor badge may approve ``action``."""
        return action in self.supervisor_only

    @property
    def supervisor_only(self) -> frozenset[str]:
        """The actions only a supervisor badge may approve: ``supervisor_only`` and :data:`ALWAYS_SUPERVISOR`."""
        return supervisor_only(self.settings)

    def sign_in(self, uid: str) -> list[SignEvent]:
        """A badge is presented to sign in as the dealer (see :func:`sign_in`)."""
        self.sign, events = sign_in(self.settings, self.sign, uid, self._clock())
        return events

    def sign_out(self, reason: str) -> list[DealerSignedOutEvent]:
        """Sign the current dealer out (``reason``: badge, idle, replaced, shutdown...)."""
        self.sign, events = sign_out(self.sign, reason)
        return events

    def touch(self) -> None:
        """Record activity at the table now: the idle timer restarts."""
        self.sign = self.sign.touched(self._clock())

    def idle_seconds(self) -> float | None:
        """Seconds since the last activity, or None when nobody is signed in."""
        last = self.sign.last_activity
        return None if last is None else self._clock() - last

    def check_idle(self) -> list[DealerSignedOutEvent]:
        """Sign the dealer out (reason ``idle``) when the idle limit has passed."""
        limit = self.settings.idle_signout_seconds
        idle = self.idle_seconds()
        if limit <= 0 or idle is None or idle < limit:
            return []
        return self.sign_out("idle")

    def approve(self, uid: str, action: str) -> tuple[bool, list[ApprovalEvent | ApprovalRefusedEvent]]:
        """May the badge ``uid`` approve ``action``? Returns (approved, events) (see :func:`approve`)."""
        approved, self.sign, events = approve(self.settings, self.sign, uid, action, self._clock())
        return approved, events


_UNKNOWN = message("auth.refused.unknown_badge", "unknown badge")


class Refusal(TypedDict):
    """Why a badge or an approval was refused or cancelled (docs/events.md)."""

    reason: str
    say: str
    say_id: str
    say_params: SayParams


def refusal(why: Message) -> Refusal:
    """The fields of a refusal or cancellation: ``reason`` in English, and ``say`` with its message id."""
    return {"reason": why.english(), "say": why.english(), "say_id": why.id, "say_params": why.params}


def _approval_refused(action: str, uid: str, why: Message) -> ApprovalRefusedEvent:
    return ApprovalRefusedEvent(action=action, uid=uid, **refusal(why))


def shown_uid(uid: str) -> str:
    """A badge's UID as events show it: normalised when it is one, else as given."""
    try:
        return normalise_uid(uid)
    except ValueError:
        return uid


__all__ = [
    "ACK_ALERT", "ALWAYS_SUPERVISOR", "DEFAULT_IDLE_SIGNOUT_SECONDS", "DEFAULT_READ_APDU", "DEFAULT_SUPERVISOR_ONLY",
    "IDENTIFY_MODES", "ROLES", "UNKNOWN_BADGE", "AuthSettings", "Authority", "Badge", "Identify", "Role",
    "normalise_uid", "settings_from_dict",
]

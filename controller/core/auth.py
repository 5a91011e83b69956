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


class Authority:
    """Who is signed in at the table, and whether a badge may approve an action.

    Pure: every method returns the events it caused (dicts, see the module
    doc) and reads time only from ``clock``. Activity (:meth:`touch`) resets
    the idle timer; :meth:`check_idle` signs the dealer out once
    ``idle_signout_seconds`` pass without any.
    """

    def __init__(self, settings: AuthSettings, clock: Callable[[], float]) -> None:
        self.settings = settings
        self._clock = clock
        self._dealer: Badge | None = None
        self._signed_in_at: float | None = None
        self._last_activity: float | None = None

    # -- queries --------------------------------------------------------------
    @property
    def dealer(self) -> Badge | None:
        """The badge signed in at the table, or None."""
        return self._dealer

    @property
    def signed_in_at(self) -> float | None:
        """Clock reading when the current dealer signed in."""
        return self._signed_in_at

    def identity(self) -> Identity | None:
        """``{"name", "uid", "role"}`` of the current dealer, for results and misdeals."""
        if self._dealer is None:
            return None
        return {"name": self._dealer.name, "uid": self._dealer.uid, "role": self._dealer.role}

    def badge(self, uid: str) -> Badge | None:
        """The enrolled badge with this UID, or None."""
        return self.settings.badge(uid)

    def needs_supervisor(self, action: str) -> bool:
        """True when only a supervisor badge may approve ``action``."""
        return action in self.supervisor_only

    @property
    def supervisor_only(self) -> frozenset[str]:
        """The actions only a supervisor badge may approve: ``supervisor_only`` and :data:`ALWAYS_SUPERVISOR`."""
        return ALWAYS_SUPERVISOR.union(self.settings.supervisor_only)

    # -- sign in / out -----------------------------------------------------------
    def sign_in(self, uid: str) -> list[DealerSignedInEvent | DealerSignedOutEvent | SignInRefusedEvent]:
        """A badge is presented to sign in as the dealer.

        Unknown: ``sign_in_refused``. The same dealer again: no events (the idle
        timer restarts). Another badge while someone is signed in: that dealer
        is signed out (reason ``replaced``) and the new one signed in.
        """
        badge = self.badge(uid)
        shown = _shown_uid(uid)
        if badge is None:
            return [{"event": "sign_in_refused", "uid": shown, **refusal(_UNKNOWN)}]
        now = self._clock()
        if self._dealer is not None and self._dealer.uid == badge.uid:
            self._last_activity = now
            return []
        events: list[DealerSignedInEvent | DealerSignedOutEvent | SignInRefusedEvent] = []
        events.extend(self.sign_out("replaced"))
        self._dealer = badge
        self._signed_in_at = now
        self._last_activity = now
        events.append({"event": "dealer_signed_in", "name": badge.name, "uid": badge.uid, "role": badge.role})
        return events

    def sign_out(self, reason: str) -> list[DealerSignedOutEvent]:
        """Sign the current dealer out (``reason``: badge, idle, replaced, shutdown...)."""
        if self._dealer is None:
            return []
        badge = self._dealer
        self._dealer = None
        self._signed_in_at = None
        self._last_activity = None
        return [{"event": "dealer_signed_out", "name": badge.name, "uid": badge.uid, "reason": reason}]

    # -- idle ----------------------------------------------------------------------
    def touch(self) -> None:
        """Record activity at the table now: the idle timer restarts."""
        if self._dealer is not None:
            self._last_activity = self._clock()

    def idle_seconds(self) -> float | None:
        """Seconds since the last activity, or None when nobody is signed in."""
        if self._last_activity is None:
            return None
        return self._clock() - self._last_activity

    def check_idle(self) -> list[DealerSignedOutEvent]:
        """Sign the dealer out (reason ``idle``) when the idle limit has passed."""
        limit = self.settings.idle_signout_seconds
        idle = self.idle_seconds()
        if limit <= 0 or idle is None or idle < limit:
            return []
        return self.sign_out("idle")

    # -- approvals -----------------------------------------------------------------
    def approve(self, uid: str, action: str) -> tuple[bool, list[ApprovalEvent | ApprovalRefusedEvent]]:
        """May the badge ``uid`` approve ``action``? Returns (approved, events).

        Refused when the badge is unknown, when ``action`` is supervisor-only
        and the badge's role is dealer, or (``two_person``) when the badge is the
        dealer's own: the refusal then has ``rule: "two_person"``. Approval does
        not change who is dealing.
        """
        badge = self.badge(uid)
        shown = _shown_uid(uid)
        if badge is None:
            return False, [_approval_refused(action, shown, _UNKNOWN)]
        if badge.role != "supervisor" and action in self.supervisor_only:
            why = message("auth.refused.role", "role {role} cannot approve {action}", role=badge.role, action=action)
            return False, [_approval_refused(action, badge.uid, why)]
        if self.settings.two_person and self._dealer is not None and self._dealer.uid == badge.uid:
            why = message("auth.refused.own", "{name} is the dealer signed in and cannot approve their own {action}; "
                          "a second person's badge must approve it", name=badge.name, action=action)
            own = _approval_refused(action, badge.uid, why)
            own["rule"] = "two_person"
            return False, [own]
        self.touch()
        return True, [{"event": "approval", "action": action, "by": badge.name, "uid": badge.uid,
                       "role": badge.role}]


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
    words = refusal(why)
    return {"event": "approval_refused", "action": action, "uid": uid, "reason": words["reason"], "say": words["say"],
            "say_id": words["say_id"], "say_params": words["say_params"]}


def _shown_uid(uid: str) -> str:
    try:
        return normalise_uid(uid)
    except ValueError:
        return uid


__all__ = [
    "ACK_ALERT", "ALWAYS_SUPERVISOR", "DEFAULT_IDLE_SIGNOUT_SECONDS", "DEFAULT_READ_APDU", "DEFAULT_SUPERVISOR_ONLY",
    "IDENTIFY_MODES", "ROLES", "UNKNOWN_BADGE", "AuthSettings", "Authority", "Badge", "Identify", "Role",
    "normalise_uid", "settings_from_dict",
]

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

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from controller.core.events import (
    ApprovalEvent,
    ApprovalRefusedEvent,
    DealerSignedInEvent,
    DealerSignedOutEvent,
    Identity,
    Role,
    SignInRefusedEvent,
)
from controller.core.exceptions import ConfigError

ROLES: tuple[Role, ...] = ("dealer", "supervisor")
Identify = Literal["uid", "apdu"]
IDENTIFY_MODES: tuple[Identify, ...] = ("uid", "apdu")

DEFAULT_SUPERVISOR_ONLY: tuple[str, ...] = ("void", "manual", "foreign_card", "close_shoe")
"""Actions only a supervisor badge may approve, unless ``supervisor_only`` says otherwise."""

DEFAULT_IDLE_SIGNOUT_SECONDS = 900.0
DEFAULT_READ_APDU = "00CA010000"
"""GET DATA of the badge ID, used with ``identify = "apdu"`` when no ``read_apdu`` is given."""

UNKNOWN_BADGE = "unknown badge"

_HEX_SEPARATORS = re.compile(r"[\s:\-]")
_ACTION_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def normalise_uid(text: str) -> str:
    """A badge UID/ID as upper-case hex without separators (``04:a1:b2`` -> ``04A1B2``).

    Raises :class:`ValueError` when ``text`` is not an even number of hex digits.
    """
    compact = _HEX_SEPARATORS.sub("", text).upper()
    if not compact or len(compact) % 2 or any(char not in "0123456789ABCDEF" for char in compact):
        raise ValueError(f"{text!r} is not a hex UID")
    return compact


def parse_apdu(text: str) -> bytes:
    """An APDU given as hex (spaces and colons allowed) as bytes; at least 4 bytes (CLA INS P1 P2).

    Raises :class:`ValueError` naming the text.
    """
    compact = _HEX_SEPARATORS.sub("", text)
    try:
        data = bytes.fromhex(compact)
    except ValueError:
        raise ValueError(f"{text!r} is not hex") from None
    if len(data) < 4:
        raise ValueError(f"{text!r} is {len(data)} bytes; an APDU has at least 4 (CLA INS P1 P2)")
    return data


def reader_from_url(url: str) -> str | None:
    """The reader name in ``pcsc://?reader=NAME`` (None when the URL names none)."""
    values = parse_qs(urlsplit(url).query, keep_blank_values=True).get("reader")
    return values[0] if values else None


@dataclass(frozen=True, slots=True)
class Badge:
    """One enrolled badge: its UID (or application ID, as hex), who holds it and their role."""

    uid: str
    name: str
    role: Role

    def can_approve(self, action: str, supervisor_only: Collection[str]) -> bool:
        """True when this badge's role may approve ``action``."""
        return self.role == "supervisor" or action not in supervisor_only



@dataclass(frozen=True)
class AuthSettings:
    """``[auth]``: the badge reader, how badges are identified, and who may approve what.

    ``reader`` is the ``pcsc://?reader=NAME`` URL of the badge reader;
    ``select_apdu``/``read_apdu`` are normalised upper-case hex (used when
    ``identify == "apdu"``); ``badges`` maps the normalised UID to the badge.
    """

    enabled: bool = False
    reader: str | None = None
    identify: Identify = "uid"
    select_apdu: str | None = None
    read_apdu: str | None = None
    idle_signout_seconds: float = DEFAULT_IDLE_SIGNOUT_SECONDS
    supervisor_only: list[str] = field(default_factory=lambda: list(DEFAULT_SUPERVISOR_ONLY))
    two_person: bool = True
    badges: dict[str, Badge] = field(default_factory=dict)

    @property
    def reader_name(self) -> str | None:
        """The PC/SC reader name from :attr:`reader` (None: not configured)."""
        return None if self.reader is None else reader_from_url(self.reader)

    def badge(self, uid: str) -> Badge | None:
        """The enrolled badge with this UID (any case or separators), or None."""
        try:
            return self.badges.get(normalise_uid(uid))
        except ValueError:
            return None


_AUTH_KEYS = {
    "enabled": "true or false",
    "reader": "a PC/SC reader URL, pcsc://?reader=NAME",
    "identify": '"uid" or "apdu"',
    "select_apdu": 'an APDU in hex, e.g. "00A4040008F043524F55504945"',
    "read_apdu": 'an APDU in hex, e.g. "00CA010000"',
    "idle_signout_seconds": "a number of seconds >= 0 (0 = never)",
    "supervisor_only": 'a list of action names, e.g. ["void", "manual"]',
    "two_person": "true or false (true: the dealer signed in cannot approve their own input)",
    "badges": "a table of badges keyed by UID, each with name and role",
}
AUTH_VALUE_KINDS: dict[str, str] = {
    "enabled": "bool", "reader": "str", "identify": "str", "select_apdu": "str", "read_apdu": "str",
    "idle_signout_seconds": "number", "supervisor_only": "list", "two_person": "bool", "badges": "table",
}
"""The kind of each ``[auth]`` value, for reading it from environment text (``badges``: not settable there)."""
_BADGE_KEYS = {
    "name": "a non-empty string",
    "role": '"dealer" or "supervisor"',
    "uid": "the badge UID in hex",
}


def _bad(section: str, key: str, expected: str, value: object) -> ConfigError:
    return ConfigError(f"{section}.{key}: expected {expected}, got {value!r}")


def settings_from_dict(data: Mapping[str, Any] | None, section: str = "auth") -> AuthSettings:
    """Build :class:`AuthSettings` from the ``[auth]`` table as parsed from TOML.

    ``None`` or an empty table gives the defaults (auth disabled). Raises
    :class:`ConfigError` naming the key (``auth.badges.04A1.role``), the expected
    value and the bad value.
    """
    if data is None:
        return AuthSettings()
    if not isinstance(data, Mapping):
        raise ConfigError(f"[{section}]: expected a table, got {data!r}")
    for key in data:
        if key not in _AUTH_KEYS:
            known = ", ".join(sorted(_AUTH_KEYS))
            raise ConfigError(f"{section}.{key}: unknown key; expected one of {known}")

    enabled = data.get("enabled", False)
    if not isinstance(enabled, bool):
        raise _bad(section, "enabled", _AUTH_KEYS["enabled"], enabled)

    reader = data.get("reader")
    if reader is not None:
        if not isinstance(reader, str) or urlsplit(reader).scheme != "pcsc" or not reader_from_url(reader):
            raise _bad(section, "reader", _AUTH_KEYS["reader"], reader)
    elif enabled:
        raise ConfigError(
            f"{section}.reader: expected {_AUTH_KEYS['reader']} when {section}.enabled = true, got nothing"
        )

    identify = data.get("identify", "uid")
    if identify not in IDENTIFY_MODES:
        raise _bad(section, "identify", _AUTH_KEYS["identify"], identify)

    apdus: dict[str, str | None] = {}
    for key in ("select_apdu", "read_apdu"):
        value = data.get(key)
        if value is None:
            apdus[key] = None
            continue
        if not isinstance(value, str):
            raise _bad(section, key, _AUTH_KEYS[key], value)
        try:
            apdus[key] = parse_apdu(value).hex().upper()
        except ValueError as error:
            raise ConfigError(
                f"{section}.{key}: expected {_AUTH_KEYS[key]}, got {value!r} ({error})"
            ) from None
    if identify == "apdu" and apdus["read_apdu"] is None:
        apdus["read_apdu"] = DEFAULT_READ_APDU

    idle = data.get("idle_signout_seconds", DEFAULT_IDLE_SIGNOUT_SECONDS)
    if isinstance(idle, bool) or not isinstance(idle, int | float) or idle < 0 or idle != idle:
        raise _bad(section, "idle_signout_seconds", _AUTH_KEYS["idle_signout_seconds"], idle)

    supervisor_only = data.get("supervisor_only", list(DEFAULT_SUPERVISOR_ONLY))
    if not isinstance(supervisor_only, list | tuple):
        raise _bad(section, "supervisor_only", _AUTH_KEYS["supervisor_only"], supervisor_only)
    for index, action in enumerate(supervisor_only):
        if not isinstance(action, str) or not _ACTION_NAME.match(action):
            raise _bad(section, f"supervisor_only[{index}]", "an action name in lower case, e.g. \"void\"",
                       action)

    two_person = data.get("two_person", True)
    if not isinstance(two_person, bool):
        raise _bad(section, "two_person", _AUTH_KEYS["two_person"], two_person)

    badges = _badges_from(data.get("badges", {}), section)
    return AuthSettings(
        enabled=enabled,
        reader=reader,
        identify=identify,
        select_apdu=apdus["select_apdu"],
        read_apdu=apdus["read_apdu"],
        idle_signout_seconds=float(idle),
        supervisor_only=list(supervisor_only),
        two_person=two_person,
        badges=badges,
    )


def _badges_from(raw: Any, section: str) -> dict[str, Badge]:
    """``[auth.badges.UID]`` tables, or ``[[auth.badges]]`` entries each with a ``uid``."""
    entries: list[tuple[str, str, Any]] = []  # (key path, uid text, entry)
    if isinstance(raw, Mapping):
        for uid_text, entry in raw.items():
            entries.append((f"{section}.badges.{uid_text}", str(uid_text), entry))
    elif isinstance(raw, list):
        for index, entry in enumerate(raw):
            path = f"{section}.badges[{index}]"
            if not isinstance(entry, Mapping) or "uid" not in entry:
                raise ConfigError(f"{path}: expected a table with uid, name and role, got {entry!r}")
            entries.append((path, entry["uid"], entry))
    else:
        raise _bad(section, "badges", _AUTH_KEYS["badges"], raw)

    badges: dict[str, Badge] = {}
    for path, uid_text, entry in entries:
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{path}: expected a table with name and role, got {entry!r}")
        for key in entry:
            if key not in _BADGE_KEYS:
                raise ConfigError(f"{path}.{key}: unknown key; expected name and role")
        try:
            uid = normalise_uid(uid_text) if isinstance(uid_text, str) else ""
        except ValueError:
            uid = ""
        if not uid:
            raise ConfigError(
                f"{path}: expected the badge UID in hex (e.g. 04A1B2C3D4E5F6), got {uid_text!r}"
            )
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"{path}.name: expected {_BADGE_KEYS['name']}, got {name!r}")
        role = entry.get("role")
        if role not in ROLES:
            raise ConfigError(f"{path}.role: expected {_BADGE_KEYS['role']}, got {role!r}")
        if uid in badges:
            raise ConfigError(f"{path}: badge {uid} is enrolled twice (also as {badges[uid].name!r})")
        badges[uid] = Badge(uid, name.strip(), role)
    return badges


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
        return action in self.settings.supervisor_only

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
            return [{"event": "sign_in_refused", "uid": shown, "reason": UNKNOWN_BADGE}]
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
            return False, [{"event": "approval_refused", "action": action, "uid": shown,
                            "reason": UNKNOWN_BADGE}]
        if not badge.can_approve(action, self.settings.supervisor_only):
            return False, [{"event": "approval_refused", "action": action, "uid": badge.uid,
                            "reason": f"role {badge.role} cannot approve {action}"}]
        if self.settings.two_person and self._dealer is not None and self._dealer.uid == badge.uid:
            return False, [{"event": "approval_refused", "action": action, "uid": badge.uid, "rule": "two_person",
                            "reason": f"{badge.name} is the dealer signed in and cannot approve their own "
                                      f"{action}; a second person's badge must approve it"}]
        self.touch()
        return True, [{"event": "approval", "action": action, "by": badge.name, "uid": badge.uid,
                       "role": badge.role}]


def _shown_uid(uid: str) -> str:
    try:
        return normalise_uid(uid)
    except ValueError:
        return uid

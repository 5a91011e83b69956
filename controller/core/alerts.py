"""Alerts with a life: each alert gets an id and a severity, and stays open until acknowledged.

:data:`SEVERITY` is the one table of alert kinds: how serious each is and why. An
:class:`AlertBook` (a value) belongs to a table's state; ids (``A1``, ``A2`` ...) are numbered per table
in the order the alerts are raised, so replaying a journal gives the same ids. ``@ack ID``
closes an alert with an ``alert_acknowledged`` event.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from config.schema import AuthSettings
from controller.core.events import AlertAcknowledgedEvent, AlertClearedEvent, AlertEvent, AlertUpdatedEvent
from controller.core.events import AlertSeverity as Severity
from controller.i18n.message import Message, message

SEVERITY: dict[str, tuple[Severity, str]] = {
    "unshuffled_shoe": ("critical", "the shoe may not have been shuffled: a sequence attack (Golden Nugget 2012)"),
    "advantage": ("warning", "a bet is worth more than [bets] alert_above to players who count the cards "
                             "seen: watch for advantage play (Thorp and Walden 1966)"),
    "sequence_repeat": ("critical", "the shoe repeats the order of an earlier one: a false shuffle or a "
                                    "pre-sequenced shoe"),
    "property_check_off": ("warning", "the floor archive cannot be read: shoes carried from other tables "
                                      "are not caught until it can"),
    "clock": ("warning", "the host clock jumped, or is not synchronised within [journal] clock_limit: the "
                         "journal's times may be wrong (13 Miss. Code R. 8-4.5)"),
    "badge_lockout": ("critical", "[auth] lockout_after badges were refused within lockout_window_seconds: someone "
                                  "may be trying badges; the reader approves nothing until a supervisor's badge"),
}
"""Each alert kind: its severity and the reason for it."""

DEFAULT_SEVERITY: tuple[Severity, str] = ("critical", "an alert of a kind this table does not know")


def severity_of(kind: str) -> Severity:
    """The severity of an alert of ``kind`` (an unknown kind is critical)."""
    return SEVERITY.get(kind, DEFAULT_SEVERITY)[0]


def lockout_alert(settings: AuthSettings, shoe: int, round_number: int, alert_id: str) -> AlertEvent:
    """The ``alert`` event ``alert_id`` (``kind: "badge_lockout"``, critical): the badge reader locked."""
    detail = message("alert.badge_lockout", "{count} badges were refused within {seconds} seconds: the badge reader "
                     "approves nothing and signs nobody in until a supervisor presents their badge. Call the floor "
                     "supervisor and security", count=settings.lockout_after,
                     seconds=f"{settings.lockout_window_seconds:g}")
    return AlertEvent(id=alert_id, kind="badge_lockout", severity=severity_of("badge_lockout"), shoe=shoe,
                      round=round_number, threshold=float(settings.lockout_after), detail=detail.english(),
                      say_id=detail.id, say_params=detail.params)


def normalise_id(text: str) -> str:
    """An alert id as the dealer may type it (``a1``) in its canonical form (``A1``)."""
    return text.strip().upper()


class AlertBook(msgspec.Struct, frozen=True, gc=False):
    """One table's alerts, as a value: how many were raised, which are open (oldest first) and which closed; and
    for each bet whose advantage lasts, the alert that follows it (open, or acknowledged while it lasts)."""

    raised: int = 0
    open: tuple[AlertEvent, ...] = ()
    closed: frozenset[str] = frozenset()
    advantages: Mapping[str, str] = msgspec.field(default_factory=dict)
    """Bet -> the id of the ``advantage`` alert of its advantage in progress."""

    @property
    def open_alerts(self) -> list[AlertEvent]:
        """The alerts not yet acknowledged, oldest first."""
        return list(self.open)

    def next_id(self) -> str:
        """The id the next alert raised gets."""
        return f"A{self.raised + 1}"

    def opening(self, alert: AlertEvent) -> AlertBook:
        """The book with ``alert`` (its ``id`` from :meth:`next_id`) open until acknowledged."""
        return AlertBook(self.raised + 1, (*self.open, alert), self.closed, self.advantages)

    def is_open(self, alert_id: str) -> bool:
        return any(alert.id == alert_id for alert in self.open)

    def updating(self, alert: AlertEvent) -> AlertBook:
        """The book with the open alert of ``alert``'s id replaced by ``alert`` (what it says now)."""
        return msgspec.structs.replace(self, open=tuple(alert if other.id == alert.id else other
                                                        for other in self.open))

    def clearing(self, alert_id: str) -> AlertBook:
        """The book with the open alert ``alert_id`` closed by itself."""
        return msgspec.structs.replace(self, open=tuple(other for other in self.open if other.id != alert_id),
                                       closed=self.closed | {alert_id})

    def following(self, bet: str, alert_id: str | None) -> AlertBook:
        """The book with ``bet``'s advantage followed by alert ``alert_id`` (None: the advantage is over)."""
        advantages = {name: found for name, found in self.advantages.items() if name != bet}
        if alert_id is not None:
            advantages[bet] = alert_id
        return msgspec.structs.replace(self, advantages=advantages)

    def why_not(self, alert_id: str) -> Message | None:
        """Why ``alert_id`` cannot be acknowledged now, or None when it can."""
        key = normalise_id(alert_id)
        if any(alert.id == key for alert in self.open):
            return None
        still_open = ", ".join(alert.id for alert in self.open)
        if key in self.closed:
            if still_open:
                return message("rejected.ack.again", "alert {id} was already acknowledged; the open alerts are {open}",
                               id=key, open=still_open)
            return message("rejected.ack.again_none", "alert {id} was already acknowledged; no alert is open", id=key)
        if still_open:
            return message("rejected.ack.unknown", "no alert {id}; the open alerts are {open}", id=key, open=still_open)
        return message("rejected.ack.unknown_none", "no alert {id}; no alert is open", id=key)

    def acknowledging(self, alert_id: str, by: str | None,
                      round_number: int) -> tuple[AlertBook, AlertAcknowledgedEvent]:
        """Close the open alert ``alert_id`` (check :meth:`why_not` first): the book after, and the event."""
        key = normalise_id(alert_id)
        alert = next(alert for alert in self.open if alert.id == key)
        book = AlertBook(self.raised, tuple(other for other in self.open if other is not alert),
                         self.closed | {alert.id}, self.advantages)
        return book, AlertAcknowledgedEvent(id=alert.id, kind=alert.kind, by=by, round=round_number)


class AlertOpener:
    """A holder of an :class:`AlertBook` that opens alerts in place, for code that opens several in a row
    (:func:`controller.core.bets.live.edge_events`); :attr:`book` is the book after."""

    def __init__(self, book: AlertBook) -> None:
        self.book = book

    @property
    def open_alerts(self) -> list[AlertEvent]:
        return self.book.open_alerts

    def next_id(self) -> str:
        return self.book.next_id()

    def open(self, alert: AlertEvent) -> AlertEvent:
        """Open ``alert``; returns it."""
        self.book = self.book.opening(alert)
        return alert

    def update(self, alert: AlertEvent, event: AlertUpdatedEvent) -> AlertUpdatedEvent:
        """The open alert of ``alert``'s id now says what ``alert`` says; returns ``event``, which tells it."""
        self.book = self.book.updating(alert)
        return event

    def clear(self, event: AlertClearedEvent) -> AlertClearedEvent:
        """The open alert ``event.id`` closes by itself; returns ``event``."""
        self.book = self.book.clearing(event.id)
        return event

    def follow(self, bet: str, alert_id: str | None) -> None:
        """``bet``'s advantage is followed by alert ``alert_id`` (None: it is over)."""
        self.book = self.book.following(bet, alert_id)

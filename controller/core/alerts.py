"""Alerts with a life: each alert gets an id and a severity, and stays open until acknowledged.

:data:`SEVERITY` is the one table of alert kinds: how serious each is and why. An
:class:`AlertBook` belongs to a table; ids (``A1``, ``A2`` ...) are numbered per table
in the order the alerts are raised, so replaying a journal gives the same ids. ``@ack ID``
closes an alert with an ``alert_acknowledged`` event.
"""

from __future__ import annotations

from controller.core.events import AlertAcknowledgedEvent, AlertEvent
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
}
"""Each alert kind: its severity and the reason for it."""

DEFAULT_SEVERITY: tuple[Severity, str] = ("critical", "an alert of a kind this table does not know")


def severity_of(kind: str) -> Severity:
    """The severity of an alert of ``kind`` (an unknown kind is critical)."""
    return SEVERITY.get(kind, DEFAULT_SEVERITY)[0]


def normalise_id(text: str) -> str:
    """An alert id as the dealer may type it (``a1``) in its canonical form (``A1``)."""
    return text.strip().upper()


class AlertBook:
    """One table's alerts: every one raised, and which are still open."""

    def __init__(self) -> None:
        self.raised = 0
        self._open: dict[str, AlertEvent] = {}
        self._closed: set[str] = set()

    @property
    def open_alerts(self) -> list[AlertEvent]:
        """The alerts not yet acknowledged, oldest first."""
        return list(self._open.values())

    def next_id(self) -> str:
        """The id the next alert raised gets."""
        return f"A{self.raised + 1}"

    def open(self, alert: AlertEvent) -> AlertEvent:
        """Keep ``alert`` (its ``id`` from :meth:`next_id`) open until acknowledged; returns it."""
        self.raised += 1
        self._open[alert["id"]] = alert
        return alert

    def why_not(self, alert_id: str) -> Message | None:
        """Why ``alert_id`` cannot be acknowledged now, or None when it can."""
        key = normalise_id(alert_id)
        if key in self._open:
            return None
        still_open = ", ".join(self._open)
        if key in self._closed:
            if still_open:
                return message("rejected.ack.again", "alert {id} was already acknowledged; the open alerts are {open}",
                               id=key, open=still_open)
            return message("rejected.ack.again_none", "alert {id} was already acknowledged; no alert is open", id=key)
        if still_open:
            return message("rejected.ack.unknown", "no alert {id}; the open alerts are {open}", id=key, open=still_open)
        return message("rejected.ack.unknown_none", "no alert {id}; no alert is open", id=key)

    def acknowledge(self, alert_id: str, by: str | None, round_number: int) -> AlertAcknowledgedEvent:
        """Close the open alert ``alert_id`` (check :meth:`why_not` first)."""
        alert = self._open.pop(normalise_id(alert_id))
        self._closed.add(alert["id"])
        return {"event": "alert_acknowledged", "id": alert["id"], "kind": alert["kind"], "by": by,
                "round": round_number}

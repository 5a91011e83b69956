"""What a table publishes: its journal records, its events numbered per table, and its state (docs/floor.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from controller.core.events import UNSET, as_json
from controller.core.published import View
from controller.journal.about import header_mode
from controller.journal.store import Record

RECENT_RESULTS = 20
"""How many of the last results the ``state`` message lists."""
DEALT_EVENTS = frozenset({"card", "burn"})
"""Events that say a card left the shoe (``last_card_at``)."""
ALERT_FIELDS = ("id", "kind", "severity", "shoe", "round", "probability", "detail", "say_id", "say_params")
"""The fields of an open alert in the retained ``state`` message (then ``at``, the journal time it opened)."""
SOFTWARE_FIELDS = ("version", "signature", "manifest")
"""What the ``state`` message says of the software the table runs (its journal's last record of it)."""


def to_json(value: Any) -> bytes:
    """Compact UTF-8 JSON, keys in the order given."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=as_json).encode()


def journal_message(record: Record) -> bytes:
    """The ``journal`` message of ``record``: its fields exactly as stored (``body`` is the stored JSON text)."""
    return to_json({"seq": record.seq, "kind": record.kind, "at": record.at, "body": record.body,
                    "prev": record.prev, "hash": record.hash})


def record_events(record: Record) -> list[dict[str, Any]]:
    """The events a ``start`` or ``events`` record holds (none for other kinds)."""
    if record.kind not in ("start", "events"):
        return []
    try:
        events = json.loads(record.body).get("events")
    except (ValueError, AttributeError):
        return []
    return [event for event in events if isinstance(event, dict)] if isinstance(events, list) else []


def event_message(event: dict[str, Any], site: str, table: str, seq: int) -> bytes:
    """The ``events`` message of one event: its own fields, then ``site``, ``table`` and ``seq``."""
    return to_json({**event, "site": site, "table": table, "seq": seq})


@dataclass
class TableState:
    """What the retained ``state`` message says: the table as its core publishes it (:class:`~controller.core.
    published.View`, given by :meth:`show`), with the journal's head, its times and the events numbered so far
    (followed from the records published). It counts no card and follows no misdeal itself."""

    site: str
    table: str
    status: str = "online"
    """``offline`` once the feed stopped cleanly; else the view's (``online``, ``halted``, ``closed``)."""
    view: View | None = None
    last_card_at: str | None = None
    updated_at: str | None = None
    head_seq: int = 0
    head_hash: str = ""
    events: int = 0
    """Events so far: the ``seq`` of the last ``events`` message."""
    alert_opened_at: dict[str, str] = field(default_factory=dict)
    """The journal time of the record each alert (by id) was raised in."""
    mode: str = "live"
    """The journal's mode (its header's: ``live``, ``simulation``, ``training``)."""
    software: dict[str, Any] | None = None
    """The software the journal last recorded (its start record's, or a later note's)."""

    def apply_record(self, record: Record, events: list[dict[str, Any]]) -> None:
        """Follow ``record`` (with its ``events``): the head, the times, the events' numbers, the mode and the
        software the journal states."""
        if record.kind in ("header", "start", "note"):
            self._learn(record)
        self.events += len(events)
        if any(event.get("event") in DEALT_EVENTS for event in events):
            self.last_card_at = record.at
        for event in events:
            if event.get("event") == "alert" and isinstance(event.get("id"), str):
                self.alert_opened_at.setdefault(event["id"], record.at)
        self.head_seq, self.head_hash, self.updated_at = record.seq, record.hash, record.at

    def _learn(self, record: Record) -> None:
        try:
            body = json.loads(record.body)
        except ValueError:
            return
        if not isinstance(body, dict):
            return
        if record.kind == "header":
            self.mode = header_mode(body)
        software = body.get("software")
        if isinstance(software, dict):
            self.software = {name: software.get(name) for name in SOFTWARE_FIELDS}

    def show(self, view: View) -> None:
        """The table's view now (read from its core)."""
        self.view = view

    def message(self) -> bytes:
        """The retained ``state`` message."""
        view = self.view
        return to_json({
            "site": self.site, "table": self.table,
            "status": self.status if self.status == "offline" or view is None else view.status,
            "shoe": view.shoe if view else 0, "round": view.round if view else 0,
            "in_round": view.in_round if view else False, "stopped_by": view.stopped_by if view else None,
            "slot_due": view.slot_due if view else None, "dealer": view.dealer if view else None,
            "last_result": _last_result(view), "results": [result.winner for result in view.results][-RECENT_RESULTS:]
            if view else [], "misdeal": _misdeal(view),
            "alerts": self._alerts(view),
            "cards_left": view.cards_left if view else None, "stub_count": view.stub_count if view else None,
            "last_card_at": self.last_card_at,
            "updated_at": self.updated_at, "events": self.events,
            "head": {"seq": self.head_seq, "hash": self.head_hash},
            "mode": self.mode, "software": self.software,
        })

    def _alerts(self, view: View | None) -> list[dict[str, Any]]:
        """The open alerts, each with the time it opened (null when its record is not published yet)."""
        if view is None:
            return []
        opened = self.alert_opened_at
        self.alert_opened_at = {alert.id: opened[alert.id] for alert in view.alerts if alert.id in opened}
        return [{**{key: _plain(getattr(alert, key)) for key in ALERT_FIELDS}, "at": opened.get(alert.id)}
                for alert in view.alerts]


def _plain(value: Any) -> Any:
    return None if value is UNSET else value


def _last_result(view: View | None) -> dict[str, Any] | None:
    result = view.last_result if view is not None else None
    if result is None:
        return None
    return {"round": result.round, "shoe": result.shoe, "winner": result.winner, "say": result.say,
            "say_id": _plain(result.say_id), "say_params": _plain(result.say_params),
            "natural": result.natural, "player": result.player.total, "banker": result.banker.total}


def _misdeal(view: View | None) -> dict[str, Any] | None:
    misdeal = view.misdeal if view is not None else None
    if misdeal is None:
        return None
    return {"round": misdeal.round, "kind": misdeal.kind, "detail": misdeal.detail, "detail_id": misdeal.detail_id,
            "detail_params": misdeal.detail_params, "instruction": misdeal.instruction,
            "resolutions": list(misdeal.resolutions)}

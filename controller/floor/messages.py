"""What a table publishes: its journal records, its events numbered per table, and its state (docs/floor.md)."""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from controller.core.events import as_json
from controller.journal.store import Record

RECENT_RESULTS = 20
"""How many of the last results the ``state`` message lists."""
CARDS_PER_DECK = 52
ALERT_FIELDS = ("id", "kind", "severity", "shoe", "round", "probability", "detail")
"""The fields of an open alert in the retained ``state`` message."""
SET_ASIDE_MISDEALS = frozenset({"extra_card", "unreadable_card", "unknown_card", "exposed_card"})
"""Misdeals where a card of the shoe left it without being dealt (counted out of ``cards_left``)."""


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
    """The table now, followed from its events: what the retained ``state`` message says."""

    site: str
    table: str
    status: str = "online"
    """``online``, ``halted`` (a misdeal), ``closed`` (the shoe is closed) or ``offline`` (stopped)."""
    shoe: int = 0
    round: int = 0
    slot_due: str | None = None
    dealer: str | None = None
    last_result: dict[str, Any] | None = None
    results: deque[str] = field(default_factory=lambda: deque(maxlen=RECENT_RESULTS))
    misdeal: dict[str, Any] | None = None
    alerts: list[dict[str, Any]] = field(default_factory=list)
    shoe_size: int = 0
    cards_out: int = 0
    cards_left: int | None = None
    last_card_at: str | None = None
    updated_at: str | None = None
    head_seq: int = 0
    head_hash: str = ""
    events: int = 0
    """Events so far: the ``seq`` of the last ``events`` message."""

    def apply_record(self, record: Record, events: list[dict[str, Any]]) -> None:
        """Follow ``record`` (with its ``events``, already numbered)."""
        for event in events:
            self.apply(event, record.at)
        self.head_seq, self.head_hash, self.updated_at = record.seq, record.hash, record.at

    def apply(self, event: dict[str, Any], at: str) -> None:
        """Follow one event."""
        self.events += 1
        name = event.get("event")
        handler = _HANDLERS.get(str(name))
        if handler is not None:
            handler(self, event, at)
        if isinstance(event.get("round"), int) and name not in ("misdeal", "cut_card"):
            self.round = event["round"]

    def message(self) -> bytes:
        """The retained ``state`` message."""
        return to_json({
            "site": self.site, "table": self.table, "status": self.status, "shoe": self.shoe,
            "round": self.round, "slot_due": self.slot_due, "dealer": self.dealer,
            "last_result": self.last_result, "results": list(self.results), "misdeal": self.misdeal,
            "alerts": self.alerts, "cards_left": self.cards_left, "last_card_at": self.last_card_at,
            "updated_at": self.updated_at, "events": self.events,
            "head": {"seq": self.head_seq, "hash": self.head_hash},
        })

    def _dealt(self, at: str) -> None:
        self.cards_out += 1
        self.last_card_at = at
        if self.shoe_size:
            self.cards_left = max(0, self.shoe_size - self.cards_out)


def _on_shoe(state: TableState, event: dict[str, Any], at: str) -> None:
    if event.get("status") == "new":
        state.shoe = int(event.get("shoe") or state.shoe)
        state.shoe_size = int(event.get("decks") or 0) * CARDS_PER_DECK
        state.cards_out, state.cards_left = 0, state.shoe_size or None
        state.round, state.slot_due = 0, None
    if state.status == "closed":
        state.status = "online"


def _on_card(state: TableState, event: dict[str, Any], at: str) -> None:
    state.slot_due = None
    state._dealt(at)


def _on_prompt(state: TableState, event: dict[str, Any], at: str) -> None:
    state.slot_due = event.get("slot")


def _on_instruction(state: TableState, event: dict[str, Any], at: str) -> None:
    state.slot_due = None


def _on_result(state: TableState, event: dict[str, Any], at: str) -> None:
    state.last_result = {key: event.get(key) for key in ("round", "shoe", "winner", "say", "natural")}
    state.last_result["player"] = (event.get("player") or {}).get("total")
    state.last_result["banker"] = (event.get("banker") or {}).get("total")
    state.results.append(str(event.get("winner")))


def _on_misdeal(state: TableState, event: dict[str, Any], at: str) -> None:
    state.status = "halted"
    if state.misdeal is None:
        state.misdeal = {key: event.get(key) for key in ("round", "kind", "detail", "instruction")}
    if event.get("kind") in SET_ASIDE_MISDEALS:
        state._dealt(at)


def _on_resolved(state: TableState, event: dict[str, Any], at: str) -> None:
    state.status, state.misdeal = "online", None


def _on_shoe_closed(state: TableState, event: dict[str, Any], at: str) -> None:
    state.status, state.slot_due = "closed", None
    if isinstance(event.get("cards_remaining"), int):
        state.cards_left = event["cards_remaining"]


def _on_alert(state: TableState, event: dict[str, Any], at: str) -> None:
    state.alerts.append({key: event.get(key) for key in ALERT_FIELDS})


def _on_alert_acknowledged(state: TableState, event: dict[str, Any], at: str) -> None:
    state.alerts = [alert for alert in state.alerts if alert.get("id") != event.get("id")]


def _on_signed_in(state: TableState, event: dict[str, Any], at: str) -> None:
    state.dealer = event.get("name")


def _on_signed_out(state: TableState, event: dict[str, Any], at: str) -> None:
    state.dealer = None


_HANDLERS = {
    "shoe": _on_shoe, "card": _on_card, "burn": _on_card, "prompt": _on_prompt, "instruction": _on_instruction,
    "result": _on_result, "misdeal": _on_misdeal, "resolved": _on_resolved, "shoe_closed": _on_shoe_closed,
    "alert": _on_alert, "alert_acknowledged": _on_alert_acknowledged,
    "dealer_signed_in": _on_signed_in, "dealer_signed_out": _on_signed_out,
}

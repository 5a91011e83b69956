"""Journals written before event format 2: read, verified and replayed as they were dealt.

Format 2 (the header's ``"events": 2``) gave every alert an ``id`` and a ``severity``, every text for
people its message id (``say_id``, ``say_params``), misdeals raised while halted ``while_halted``, and
added events a format-1 table never emitted (``edge``). An older journal keeps the events of its time:
:func:`older_form` puts replayed events in that form for the replay check, and :func:`upgraded`
gives an old alert the fields today's readers expect (its id numbered in the order raised, its
severity from its kind), without touching the journal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from controller.core.alerts import severity_of
from controller.core.editions import CURRENT, Edition, edition_of
from controller.core.snapshot import earlier_codes

EVENTS_FORMAT = CURRENT.events
"""The event format new journals are written in (kept in the header as ``"events"``). Format 3 added
``alert_updated`` and ``alert_cleared`` and the rules of :data:`controller.core.editions.EDITIONS` ``[3]``: a
journal of an earlier format is replayed under its own edition's rules."""
FIRST_TYPED_FORMAT = 2
"""The first format whose alerts have ids and whose texts have message ids (format 1: :func:`older_form`)."""
FORMAT_2_FIELDS = frozenset({"say_id", "say_params", "while_halted"})
FORMAT_2_ALERT_FIELDS = frozenset({"id", "severity"})
FORMAT_2_EVENTS = frozenset({"edge"})
LATER_STATE_KEYS = frozenset({"undo", "property_findings", "earlier", "advantages"})
"""Keys of a checkpoint's table state that later versions added (``undo``: the undo book; ``property_findings``:
the property check's findings given this shoe; ``earlier``: the earlier shoes' totals; ``advantages``: the alert
that follows each bet's advantage in progress, which the earlier edition never follows); a checkpoint written
before one of them keeps none: its game has no input that reads the undo book, a resume from it learns the
findings from its shoe's journaled alerts (:func:`learns_findings`) and the earlier shoes' totals from the
checkpoint's own totals of the events before its shoe."""


def learns_findings(state: Mapping[str, Any]) -> bool:
    """Whether a table restored from checkpoint ``state`` must learn its shoe's property findings from the journaled
    events (the checkpoint predates ``property_findings``)."""
    return "property_findings" not in state


def events_format(header: Mapping[str, Any]) -> int:
    """The event format of a journal with this header (1 when it does not say)."""
    found = header.get("events")
    return found if isinstance(found, int) and not isinstance(found, bool) else 1


def edition_of_header(header: Mapping[str, Any]) -> Edition:
    """The rules a journal with this header was dealt under."""
    return edition_of(events_format(header))


def older_form(events: list[Any]) -> list[dict[str, Any]]:
    """``events`` as a format-1 table journaled them."""
    older = []
    for event in events:
        if event.get("event") in FORMAT_2_EVENTS:
            continue
        dropped = FORMAT_2_FIELDS | (FORMAT_2_ALERT_FIELDS if event.get("event") == "alert" else frozenset())
        older.append({key: value for key, value in event.items() if key not in dropped})
    return older


class Upgrader:
    """Gives the alerts of a format-1 journal, read in order, the fields of format 2."""

    def __init__(self) -> None:
        self.alerts = 0

    def __call__(self, raw: object) -> object:
        if not isinstance(raw, dict) or raw.get("event") != "alert" or "id" in raw:
            return raw
        self.alerts += 1
        return {**raw, "id": f"A{self.alerts}", "severity": severity_of(str(raw.get("kind")))}


def as_kept(kept: Mapping[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    """The checkpoint body ``expected`` (from the replay) in the form of the journal's ``kept`` one: without
    the state keys of :data:`LATER_STATE_KEYS` that ``kept`` predates, and with the earlier shoes' orders as
    lists of codes wherever ``kept`` has them so (before each order was kept as one string; an undo point
    keeps a whole table state, orders included)."""
    state = kept.get("state")
    if not isinstance(state, Mapping) or not isinstance(expected.get("state"), dict):
        return expected
    missing = LATER_STATE_KEYS - set(state)
    form = {**expected, "state": {key: value for key, value in expected["state"].items() if key not in missing}}
    return cast(dict[str, Any], _orders_as_kept(kept, form))


def _orders_as_kept(kept: object, expected: object) -> object:
    """``expected`` with every ``earlier_shoes`` that ``kept`` holds, at the same place, as lists of codes in
    that form; the rest as it is."""
    if isinstance(kept, Mapping) and isinstance(expected, dict):
        shaped: dict[str, Any] = {}
        for key, value in expected.items():
            if key == "earlier_shoes" and _listed_orders(kept.get(key)) and isinstance(value, list):
                shaped[key] = [[shoe, earlier_codes(cards)] for shoe, cards in value]
            else:
                shaped[key] = _orders_as_kept(kept[key], value) if key in kept else value
        return shaped
    if isinstance(kept, list) and isinstance(expected, list) and len(kept) == len(expected):
        return [_orders_as_kept(old, new) for old, new in zip(kept, expected, strict=True)]
    return expected


def _listed_orders(orders: object) -> bool:
    """Whether a kept checkpoint holds its earlier shoes' orders as lists of codes (its first one tells)."""
    return isinstance(orders, list) and bool(orders) and isinstance(orders[0], list) and len(orders[0]) == 2 \
        and isinstance(orders[0][1], list)


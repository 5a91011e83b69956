"""Table journals with a known timeline: every record's time is set by the test (the events are the
table's vocabulary, checked as they are read back)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from controller.core.events import Event, decode_event
from controller.core.inputs import Input, InputKind
from controller.journal import store
from controller.journal.store import Journal

T0 = datetime(2026, 1, 5, 20, 0, 0, tzinfo=UTC)


def dealer(name: str, uid: str) -> dict[str, Any]:
    return {"name": name, "uid": uid, "role": "dealer"}


def signed_in(name: str, uid: str) -> dict[str, Any]:
    return {"event": "dealer_signed_in", **dealer(name, uid)}


def signed_out(name: str, uid: str) -> dict[str, Any]:
    return {"event": "dealer_signed_out", "name": name, "uid": uid, "reason": "badge removed"}


def round_starts(number: int) -> dict[str, Any]:
    return {"event": "round", "round": number, "shoe": 1}


def result(number: int, who: dict[str, Any] | None) -> dict[str, Any]:
    event: dict[str, Any] = {
        "event": "result", "round": number, "shoe": 1, "winner": "banker",
        "player": {"cards": ["3S", "4H"], "total": 7}, "banker": {"cards": ["KD", "8C"], "total": 8},
        "natural": True, "player_pair": False, "banker_pair": False, "say": "Banker wins 8 to 7"}
    if who is not None:
        event["dealer"] = who
    return event


def misdeal(number: int, kind: str, who: dict[str, Any]) -> dict[str, Any]:
    return {"event": "misdeal", "round": number, "kind": kind, "card": None, "detail": "d", "instruction": "i",
            "resolutions": ["void"], "supervisor": ["void"], "dealer": who}


def approval() -> dict[str, Any]:
    return {"event": "approval", "action": "void", "by": "Sam", "uid": "S9", "role": "supervisor"}


def voided(number: int, who: dict[str, Any]) -> dict[str, Any]:
    return {"event": "round_voided", "round": number, "cards": [], "bets": "returned", "dealer": who}


def instruction() -> dict[str, Any]:
    return {"event": "instruction", "round": 0, "action": "confirm_shoe", "say": "confirm"}


@contextmanager
def clock_at(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[datetime]]:
    """The journal's clock: it writes the time last put in the list."""
    now = [T0]
    monkeypatch.setattr(store, "_now", lambda: now[0].isoformat(timespec="microseconds").replace("+00:00", "Z"))
    yield now


def write_journal(path: Path, timeline: list[tuple[float, dict[str, Any]]], monkeypatch: pytest.MonkeyPatch,
                  start: datetime = T0) -> Path:
    """A journal whose ``start`` record is at ``start`` and each event at its seconds after it."""
    events: list[Event] = [decode_event(event) for _, event in timeline]
    with clock_at(monkeypatch) as now:
        journal = Journal.create_or_open(path)
        now[0] = start
        journal.begin({"arguments": {"command": "run"}, "settings": {}},
                      [decode_event({"event": "shoe", "shoe": 1, "status": "new", "decks": 8}),
                       decode_event(instruction())])
        for (seconds, _), event in zip(timeline, events, strict=True):
            now[0] = start + timedelta(seconds=seconds)
            journal.append_input(Input(InputKind.NEXT), False, None)
            journal.append_events([event])
        journal.close()
    return path


ALICE, BOB = dealer("Alice", "A1"), dealer("Bob", "B2")

BADGED_TIMELINE: list[tuple[float, dict[str, Any]]] = [
    (0, signed_in("Alice", "A1")),
    (10, round_starts(1)), (40, result(1, ALICE)),                    # 30 s
    (50, round_starts(2)), (110, result(2, ALICE)),                   # 60 s
    (120, round_starts(3)), (130, misdeal(3, "unreadable_card", ALICE)), (140, approval()),
    (170, result(3, ALICE)),                                          # 50 s
    (180, round_starts(4)), (190, misdeal(4, "exposed_card", ALICE)), (200, voided(4, ALICE)),
    (1800, signed_out("Alice", "A1")),                                # Alice's first shift: 0.5 h
    (1800, signed_in("Bob", "B2")),
    (1810, round_starts(5)), (1830, result(5, BOB)),                  # 20 s
    (1840, round_starts(6)), (1880, result(6, BOB)),                  # 40 s
    (3600, signed_in("Alice", "A1")),                                 # ends Bob's shift (0.5 h)
    (3610, round_starts(7)), (3655, result(7, ALICE)),                # 45 s; the journal ends here
]
"""Alice 0-1800 s (3 rounds), Bob 1800-3600 s (2 rounds), Alice again 3600-3655 s (1 round)."""

UNBADGED_TIMELINE: list[tuple[float, dict[str, Any]]] = [
    (10, round_starts(1)), (25, result(1, None)),                     # 15 s
    (30, round_starts(2)), (90, result(2, None)),                     # 60 s
]

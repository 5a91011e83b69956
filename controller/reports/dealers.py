"""Dealers and game pace from a table's event timeline: per dealer (badge) and per shift.

A **shift** is one dealer's continuous stretch at one table: it starts when the dealer signs in
(``dealer_signed_in``) and ends when they sign out, when another dealer signs in, or where the
timeline ends. Rounds dealt with no dealer signed in (a table without badges) make a shift of no
dealer (``dealer`` null), from the first round (or misdeal, void, approval) to the next sign-in or the
timeline's end. A round's time is from its ``round`` event to its ``result``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from controller.core.events import Event
from controller.core.misdeals import POLICIES
from controller.core.stats import mean, percentile

MISDEAL_KINDS: tuple[str, ...] = tuple(POLICIES)
"""Every misdeal kind, in the policy's order: the report's columns."""


WORK = frozenset({"round", "result", "misdeal", "round_voided", "approval"})
"""Events that are a dealer's work: with no dealer signed in, the first of them starts a shift of no badge."""


@dataclass(frozen=True, slots=True)
class TimedEvent:
    """An event and when it was journaled (the ``at`` of its record)."""

    at: datetime
    event: Event


@dataclass
class Shift:
    """One dealer's stretch at one table, and what happened in it."""

    table: str
    uid: str | None
    name: str | None
    start: datetime
    end: datetime
    rounds: int = 0
    round_seconds: list[float] = field(default_factory=list)
    finished_at: list[float] = field(default_factory=list)
    """Seconds from the shift's start at which each round ended (for the pace plot)."""
    timed_rounds: list[tuple[float, float]] = field(default_factory=list)
    """(seconds from the shift's start when it ended, its seconds) of each round whose start is journaled."""
    misdeals: Counter[str] = field(default_factory=Counter)
    voids: int = 0
    approvals: int = 0

    def count(self, timed: TimedEvent, round_started: datetime | None) -> datetime | None:
        """Count one event of the shift; returns when the round in play started (None: no round in play)."""
        event, at = timed.event, timed.at
        if event["event"] == "round":
            return at
        if event["event"] == "result":
            self.rounds += 1
            self.finished_at.append((at - self.start).total_seconds())
            if round_started is not None:
                seconds = (at - round_started).total_seconds()
                self.round_seconds.append(seconds)
                self.timed_rounds.append((self.finished_at[-1], seconds))
            return None
        if event["event"] == "round_voided":
            self.voids += 1
            return None
        if event["event"] == "misdeal":
            self.misdeals[event["kind"]] += 1
        elif event["event"] == "undone" and event["input"] == "@exposed":
            self.misdeals["exposed_card"] -= 1  # pressed in error and taken back: no misdeal after all
        elif event["event"] == "approval":
            self.approvals += 1
        return round_started

    @property
    def hours(self) -> float:
        return (self.end - self.start).total_seconds() / 3600


def shifts_of(table: str, timeline: Iterable[TimedEvent]) -> list[Shift]:
    """The shifts of one table's timeline, in order."""
    shifts: list[Shift] = []
    current: Shift | None = None
    round_started: datetime | None = None
    for timed in timeline:
        event, at = timed.event, timed.at
        if event["event"] == "dealer_signed_in":
            if current is not None:
                current.end = at
            current = Shift(table, event["uid"], event["name"], at, at)
            shifts.append(current)
            continue
        if current is None:
            if event["event"] not in WORK:
                continue
            current = Shift(table, None, None, at, at)
            shifts.append(current)
        current.end = at
        if event["event"] == "dealer_signed_out":
            current = None
        else:
            round_started = current.count(timed, round_started)
    return shifts


def _figures(hours: float, rounds: int, misdeals: Counter[str], voids: int, approvals: int,
             seconds: list[float]) -> dict[str, Any]:
    mean_seconds, p90_seconds = mean(seconds), percentile(seconds, 0.9)
    return {
        "hours": round(hours, 4),
        "rounds": rounds,
        "rounds_per_hour": round(rounds / hours, 2) if hours > 0 else None,
        "misdeals": {kind: misdeals[kind] for kind in MISDEAL_KINDS if misdeals[kind]},
        "misdeals_per_100_rounds": {kind: round(100 * misdeals[kind] / rounds, 2) if rounds else None
                                    for kind in MISDEAL_KINDS if misdeals[kind]},
        "voids": voids,
        "approvals": approvals,
        "mean_seconds_per_round": None if mean_seconds is None else round(mean_seconds, 2),
        "p90_seconds_per_round": None if p90_seconds is None else round(p90_seconds, 2),
    }


def shift_row(shift: Shift) -> dict[str, Any]:
    """A shift as the report shows it (``--json``'s ``shifts``)."""
    return {"dealer": shift.uid, "name": shift.name, "table": shift.table,
            "start": shift.start.isoformat(), "end": shift.end.isoformat(),
            **_figures(shift.hours, shift.rounds, shift.misdeals, shift.voids, shift.approvals,
                       shift.round_seconds)}


def dealer_rows(shifts: Iterable[Shift]) -> list[dict[str, Any]]:
    """Each dealer's shifts added up (``--json``'s ``dealers``), in order of their first shift."""
    by_dealer: dict[str | None, list[Shift]] = {}
    for shift in shifts:
        by_dealer.setdefault(shift.uid, []).append(shift)
    rows = []
    for uid, mine in by_dealer.items():
        misdeals: Counter[str] = Counter()
        for shift in mine:
            misdeals.update(shift.misdeals)
        rows.append({"dealer": uid, "name": next((s.name for s in mine if s.name), None), "shifts": len(mine),
                     **_figures(sum(s.hours for s in mine), sum(s.rounds for s in mine), misdeals,
                                sum(s.voids for s in mine), sum(s.approvals for s in mine),
                                [seconds for s in mine for seconds in s.round_seconds])})
    return rows


def report(shifts: list[Shift]) -> dict[str, Any]:
    """The whole report: ``{"dealers": [...], "shifts": [...]}``."""
    return {"dealers": dealer_rows(shifts), "shifts": [shift_row(shift) for shift in shifts]}


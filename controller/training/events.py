"""The drill's JSON-lines vocabulary (``croupier train --json``, ``docs/training.md``), as declared types.

The drill also prints the table's own ``card`` events (:class:`~controller.core.events.CardEvent`), numbered
by the drill's round. Each event is a tagged :mod:`msgspec` struct, as the table's are
(:mod:`controller.core.events`).
"""

from __future__ import annotations

import json
from typing import ClassVar, TypeAlias

from controller.core.events import UNSET, CardEvent, Event, Readable, UnsetType, to_builtins
from controller.training.calls import CallKind


class CallDueEvent(Event, tag="call_due", kw_only=True):
    event: ClassVar[str] = "call_due"
    round: int
    call: CallKind
    bet: str | UnsetType = UNSET


class CallScoredEvent(Event, tag="call_scored", kw_only=True):
    event: ClassVar[str] = "call_scored"
    round: int
    call: CallKind
    expected: str
    given: str
    correct: bool
    cell: str
    seconds: float
    bet: str | UnsetType = UNSET
    rule: str | UnsetType = UNSET


class CallRejectedEvent(Event, tag="rejected", kw_only=True):
    event: ClassVar[str] = "rejected"
    round: int
    call: CallKind
    input: str
    reason: str
    say: str


class CallTally(Readable, kw_only=True):
    calls: int
    correct: int
    wrong: int


class MissedCell(Readable, kw_only=True):
    call: CallKind
    cell: str
    wrong: int
    calls: int


class TrainingReportEvent(Event, tag="training_report", kw_only=True):
    event: ClassVar[str] = "training_report"
    rounds: int
    calls: int
    correct: int
    wrong: int
    by_call: dict[str, CallTally]
    missed_cells: list[MissedCell]
    mean_seconds: float | None
    p90_seconds: float | None
    finished: bool


TrainingEvent: TypeAlias = CardEvent | CallDueEvent | CallScoredEvent | CallRejectedEvent | TrainingReportEvent
"""Any line of ``croupier train --json``."""

TRAINING_EVENT_TYPES: tuple[type, ...] = (CallDueEvent, CallScoredEvent, CallRejectedEvent, TrainingReportEvent)
"""The drill's own event types, in the order ``docs/training.md`` lists them."""


def training_line(event: TrainingEvent) -> str:
    """``event`` as a line of ``croupier train --json`` (``json.dumps``'s form: it holds seconds as floats)."""
    return json.dumps(to_builtins(event))

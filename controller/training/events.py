"""The drill's JSON-lines vocabulary (``croupier train --json``, ``docs/training.md``), as declared types.

The drill also prints the table's own ``card`` events (:class:`~controller.core.events.CardEvent`), numbered
by the drill's round.
"""

from typing import Literal, NotRequired, TypedDict

from controller.core.events import CardEvent
from controller.training.calls import CallKind


class CallDueEvent(TypedDict):
    event: Literal["call_due"]
    round: int
    call: CallKind
    bet: NotRequired[str]


class CallScoredEvent(TypedDict):
    event: Literal["call_scored"]
    round: int
    call: CallKind
    expected: str
    given: str
    correct: bool
    cell: str
    seconds: float
    rule: NotRequired[str]
    bet: NotRequired[str]


class CallRejectedEvent(TypedDict):
    event: Literal["rejected"]
    round: int
    call: CallKind
    input: str
    reason: str
    say: str


class CallTally(TypedDict):
    calls: int
    correct: int
    wrong: int


class MissedCell(TypedDict):
    call: CallKind
    cell: str
    wrong: int
    calls: int


class TrainingReportEvent(TypedDict):
    event: Literal["training_report"]
    rounds: int
    calls: int
    correct: int
    wrong: int
    by_call: dict[str, CallTally]
    missed_cells: list[MissedCell]
    mean_seconds: float | None
    p90_seconds: float | None
    finished: bool


TrainingEvent = CardEvent | CallDueEvent | CallScoredEvent | CallRejectedEvent | TrainingReportEvent
"""Any line of ``croupier train --json``."""

TRAINING_EVENT_TYPES: tuple[type, ...] = (CallDueEvent, CallScoredEvent, CallRejectedEvent, TrainingReportEvent)
"""The drill's own event types, in the order ``docs/training.md`` lists them."""

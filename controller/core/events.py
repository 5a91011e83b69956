"""The event vocabulary: every event the table core emits, as a declared type.

Each event is a :class:`~typing.TypedDict` tagged by its ``event`` field, so a
consumer that tests ``event["event"] == "result"`` sees a :class:`ResultEvent`.
The JSON stream (``docs/events.md``, checked against these types by a test) is
exactly these dictionaries, one per line. Fields marked ``NotRequired`` appear
only when they apply.

JSON read back (a journal) becomes events in one place, :func:`decode_event`,
which checks the shape against these types. The module has no
``from __future__ import annotations`` on purpose: the checks read the
annotations (``NotRequired`` included) at run time.
"""

import functools
import types
from collections.abc import Callable, Mapping
from typing import Literal, NotRequired, TypedDict, Union, cast, get_args, get_origin, get_type_hints, is_typeddict

from config.schema import Role

Side = Literal["player", "banker"]
SayParams = dict[str, str | int]
"""The parameters of a ``say_id`` message (numbers and machine words; see docs/languages.md)."""
Winner = Literal["player", "banker", "tie"]


class Identity(TypedDict):
    """A staff badge's holder: the signed-in dealer stamped on results and misdeals."""

    name: str
    uid: str
    role: Role


# -- table and shoe -------------------------------------------------------------
class TableEvent(TypedDict):
    event: Literal["table"]
    decks: int
    variant: str
    driver: str
    seed: int | None
    mode: Literal["simulation", "live"]


class ShoeEvent(TypedDict):
    event: Literal["shoe"]
    shoe: int
    status: Literal["new", "ready"]
    decks: NotRequired[int]


class BurnEvent(TypedDict):
    event: Literal["burn"]
    card: str | None
    turned: NotRequired[bool]
    burn: NotRequired[int]
    read: NotRequired[str]


class CutCardEvent(TypedDict):
    event: Literal["cut_card"]
    round: int
    last_round: int
    detail: str
    say_id: NotRequired[str]
    say_params: NotRequired[SayParams]


class SideCounts(TypedDict):
    player: int
    banker: int


class ResultCounts(TypedDict):
    banker: int
    player: int
    tie: int


class ShoeClosedEvent(TypedDict):
    event: Literal["shoe_closed"]
    shoe: int
    rounds: int
    results: ResultCounts
    naturals: int
    pairs: SideCounts
    misdeals: int
    voided: int
    cards_seen: int
    cards_remaining: int
    burned: int
    dealt: int
    discarded: int
    unidentified: int
    foreign: list[str]
    inventory: dict[str, int]


AlertSeverity = Literal["warning", "critical"]


class AlertEvent(TypedDict):
    event: Literal["alert"]
    id: str
    kind: Literal["unshuffled_shoe", "sequence_repeat", "advantage", "property_check_off"]
    severity: AlertSeverity
    shoe: int
    round: int
    probability: NotRequired[float]
    threshold: NotRequired[float]
    """Every kind but ``property_check_off``."""
    detail: str
    earlier_shoe: NotRequired[int | None]
    """``sequence_repeat``: the earlier shoe repeated (null for the factory order)."""
    earlier_site: NotRequired[str]
    """``sequence_repeat`` found by the property check: the site of the earlier shoe's table."""
    earlier_table: NotRequired[str]
    """``sequence_repeat`` found by the property check: the table the earlier shoe was dealt at."""
    order: NotRequired[Literal["dealt", "discard", "factory"]]
    start: NotRequired[int]
    earlier_start: NotRequired[int]
    length: NotRequired[int]
    bet: NotRequired[str]
    """``advantage``: the bet whose expected value is above ``[bets] alert_above``."""
    edge: NotRequired[str]
    say_id: NotRequired[str]
    say_params: NotRequired[SayParams]


class AlertAcknowledgedEvent(TypedDict):
    event: Literal["alert_acknowledged"]
    id: str
    kind: str
    by: str | None
    round: int


class BetEdge(TypedDict):
    ev: str


class EdgeEvent(TypedDict):
    event: Literal["edge"]
    round: int
    shoe: int
    seen: int
    bets: dict[str, BetEdge]


class ReaderEvent(TypedDict):
    event: Literal["reader"]
    status: Literal["online", "offline"]


# -- a round ----------------------------------------------------------------------
class RoundEvent(TypedDict):
    event: Literal["round"]
    round: int
    shoe: int


class PromptEvent(TypedDict):
    event: Literal["prompt"]
    round: int
    slot: str
    to: Side
    say: str
    say_id: NotRequired[str]
    say_params: NotRequired[SayParams]
    undo: NotRequired[str]
    """The input ``@undo`` would take back now (``"@manual 4D"``), on the last event of a batch only."""


class CardEvent(TypedDict):
    event: Literal["card"]
    face_down: NotRequired[bool]
    """Face-down dealing: the card is read but not shown until its hand is revealed."""
    round: int
    slot: str
    card: str
    manual: NotRequired[bool]


class RevealedEvent(TypedDict):
    event: Literal["revealed"]
    round: int
    side: Side
    slots: list[str]
    cards: list[str]
    total: int


class InstructionEvent(TypedDict):
    event: Literal["instruction"]
    round: int
    action: str
    say: str
    say_id: NotRequired[str]
    say_params: NotRequired[SayParams]
    undo: NotRequired[str]
    """The input ``@undo`` would take back now (``"@manual 4D"``), on the last event of a batch only."""


class Hand(TypedDict):
    cards: list[str]
    total: int


class ResultEvent(TypedDict):
    event: Literal["result"]
    round: int
    shoe: int
    winner: Winner
    player: Hand
    banker: Hand
    natural: bool
    player_pair: bool
    banker_pair: bool
    say: str
    say_id: NotRequired[str]
    say_params: NotRequired[SayParams]
    manual: NotRequired[list[str]]
    dealer: NotRequired[Identity | None]


Outcome = Literal["win", "lose", "push"]


class BetOutcome(TypedDict):
    outcome: Outcome
    net: str


class SettlementEvent(TypedDict):
    event: Literal["settlement"]
    round: int
    variant: str
    bets: dict[str, BetOutcome]


# -- misdeals ---------------------------------------------------------------------
class MisdealEvent(TypedDict):
    event: Literal["misdeal"]
    round: int
    kind: str
    card: str | None
    detail: str
    say_id: NotRequired[str]
    say_params: NotRequired[SayParams]
    instruction: str
    resolutions: list[str]
    supervisor: list[str]
    while_halted: NotRequired[bool]
    dealer: NotRequired[Identity | None]


class ResolvedEvent(TypedDict):
    event: Literal["resolved"]
    round: int
    kind: str
    resolution: str
    cards: list[str]
    approved_by: NotRequired[str]
    dealer: NotRequired[Identity | None]


class RoundVoidedEvent(TypedDict):
    event: Literal["round_voided"]
    round: int
    cards: list[str]
    bets: Literal["returned"]
    dealer: NotRequired[Identity | None]


class UndoneEvent(TypedDict):
    event: Literal["undone"]
    input: str
    """The input taken back (``"@manual 4D"``, ``"@exposed"``)."""
    round: int
    slot: str | None
    """The slot the hand-entered card was taken out of (due again), or the exposed card stays in."""
    card: str | None
    say: str
    say_id: NotRequired[str]
    say_params: NotRequired[SayParams]


class RejectedEvent(TypedDict):
    event: Literal["rejected"]
    input: str
    reason: str
    say: str
    say_id: NotRequired[str]
    say_params: NotRequired[SayParams]
    reason_id: NotRequired[str]
    reason_params: NotRequired[SayParams]


# -- badges and approvals ---------------------------------------------------------
class DealerSignedInEvent(TypedDict):
    event: Literal["dealer_signed_in"]
    name: str
    uid: str
    role: Role


class DealerSignedOutEvent(TypedDict):
    event: Literal["dealer_signed_out"]
    name: str
    uid: str
    reason: str


class SignInRefusedEvent(TypedDict):
    event: Literal["sign_in_refused"]
    uid: str
    reason: str
    say: NotRequired[str]
    say_id: NotRequired[str]
    say_params: NotRequired[SayParams]


class ApprovalRequiredEvent(TypedDict):
    event: Literal["approval_required"]
    round: int
    action: str
    input: str
    say: str
    say_id: NotRequired[str]
    say_params: NotRequired[SayParams]


class ApprovalEvent(TypedDict):
    event: Literal["approval"]
    action: str
    by: str
    uid: str
    role: Role


class ApprovalRefusedEvent(TypedDict):
    event: Literal["approval_refused"]
    action: str
    uid: str
    reason: str
    say: NotRequired[str]
    say_id: NotRequired[str]
    say_params: NotRequired[SayParams]
    rule: NotRequired[Literal["two_person"]]


class ApprovalCancelledEvent(TypedDict):
    event: Literal["approval_cancelled"]
    action: str
    reason: str
    say: NotRequired[str]
    say_id: NotRequired[str]
    say_params: NotRequired[SayParams]


class ShoeClosingEvent(TypedDict):
    event: Literal["shoe_closing"]
    round: int
    reason: str
    approved_by: NotRequired[str]


Event = (
    TableEvent | ShoeEvent | BurnEvent | CutCardEvent | ShoeClosedEvent | AlertEvent | AlertAcknowledgedEvent
    | ReaderEvent | EdgeEvent
    | RoundEvent | PromptEvent | CardEvent | RevealedEvent | InstructionEvent | ResultEvent | SettlementEvent
    | MisdealEvent | ResolvedEvent | RoundVoidedEvent | UndoneEvent | RejectedEvent
    | DealerSignedInEvent | DealerSignedOutEvent | SignInRefusedEvent
    | ApprovalRequiredEvent | ApprovalEvent | ApprovalRefusedEvent | ApprovalCancelledEvent | ShoeClosingEvent
)
"""Any event of the stream."""

EVENT_TYPES: tuple[type, ...] = (
    TableEvent, ShoeEvent, BurnEvent, CutCardEvent, ShoeClosedEvent, AlertEvent, AlertAcknowledgedEvent, ReaderEvent,
    RoundEvent, EdgeEvent, PromptEvent, CardEvent, RevealedEvent, InstructionEvent, ResultEvent, SettlementEvent,
    MisdealEvent, ResolvedEvent, RoundVoidedEvent, UndoneEvent, RejectedEvent,
    DealerSignedInEvent, DealerSignedOutEvent, SignInRefusedEvent,
    ApprovalRequiredEvent, ApprovalEvent, ApprovalRefusedEvent, ApprovalCancelledEvent, ShoeClosingEvent,
)
"""Every event type, in the order ``docs/events.md`` lists them."""


# -- `croupier badges watch` ------------------------------------------------------
class BadgeSeenEvent(TypedDict):
    event: Literal["badge_presented", "badge_removed"]
    uid: str
    reader: str
    known: bool


class BadgeUnreadableEvent(TypedDict):
    event: Literal["badge_unreadable"]
    reader: str
    message: str


class BadgeReaderOfflineEvent(TypedDict):
    event: Literal["reader_offline"]
    reader: str
    message: str


class BadgeReaderOnlineEvent(TypedDict):
    event: Literal["reader_online"]
    reader: str


BadgeWatchEvent = BadgeSeenEvent | BadgeUnreadableEvent | BadgeReaderOfflineEvent | BadgeReaderOnlineEvent
"""A line of ``croupier badges watch --json`` (docs/pcsc.md); never part of the table's stream."""

BADGE_WATCH_TYPES: tuple[type, ...] = (
    BadgeSeenEvent, BadgeUnreadableEvent, BadgeReaderOfflineEvent, BadgeReaderOnlineEvent,
)


# -- reading events back ----------------------------------------------------------
class EventShapeError(ValueError):
    """A JSON value is not an event of the vocabulary; the message says which field is wrong."""


def event_names(event_type: type) -> tuple[str, ...]:
    """The ``event`` tag(s) of an event type."""
    return get_args(get_type_hints(event_type)["event"])


BY_NAME: dict[str, type] = {name: event_type for event_type in EVENT_TYPES for name in event_names(event_type)}
"""Each event name of the table's stream and its type."""


def _matches(value: object, annotation: object) -> bool:
    """Does the JSON ``value`` fit ``annotation`` (nested TypedDicts, lists and dicts included)?"""
    return _checker(annotation)(value)


Check = Callable[[object], bool]


@functools.cache
def _checker(annotation: object) -> Check:
    """The check of a JSON value against ``annotation``, built once per annotation (a journal's replay and
    ``croupier history`` read every event back through it)."""
    origin = get_origin(annotation)
    if annotation is None or annotation is type(None):
        return lambda value: value is None
    if origin is Literal:
        choices = tuple((choice, type(choice)) for choice in get_args(annotation))
        return lambda value: any(value == choice and type(value) is kind for choice, kind in choices)
    if origin is Union or origin is types.UnionType:
        options = tuple(_checker(option) for option in get_args(annotation))
        return lambda value: any(check(value) for check in options)
    if origin is list:
        (item,) = get_args(annotation)
        each = _checker(item)
        return lambda value: isinstance(value, list) and all(map(each, value))
    if origin is dict:
        key, item = get_args(annotation)
        keys, items = _checker(key), _checker(item)
        return lambda value: isinstance(value, dict) and all(keys(k) and items(v) for k, v in value.items())
    if isinstance(annotation, type) and is_typeddict(annotation):
        typed = annotation
        return lambda value: isinstance(value, dict) and not _shape_problem(value, typed)
    for kind, check in _SIMPLE.items():
        if annotation is kind:
            return check
    raise TypeError(f"no JSON check for {annotation!r}")


_SIMPLE: dict[type, Check] = {
    bool: lambda value: isinstance(value, bool),
    int: lambda value: isinstance(value, int) and not isinstance(value, bool),
    float: lambda value: isinstance(value, int | float) and not isinstance(value, bool),
    str: lambda value: isinstance(value, str),
}


@functools.cache
def _hints(typed: type) -> dict[str, object]:
    """The field annotations of a TypedDict, resolved once (resolving them is most of a check's cost)."""
    return get_type_hints(typed)


@functools.cache
def _field_checks(typed: type) -> tuple[frozenset[str], tuple[tuple[str, Check], ...]]:
    """A TypedDict's required keys and each field's check, built once."""
    required: frozenset[str] = getattr(typed, "__required_keys__", frozenset())
    return required, tuple((key, _checker(annotation)) for key, annotation in _hints(typed).items())


def _shape_problem(value: Mapping[str, object], typed: type) -> str | None:
    """What keeps ``value`` from being a ``typed`` (a TypedDict), or None. Extra keys are allowed."""
    required, checks = _field_checks(typed)
    missing = sorted(required - value.keys())
    if missing:
        return f"missing {', '.join(missing)}"
    for key, check in checks:
        if key in value and not check(value[key]):
            return f"{key} is {value[key]!r}"
    return None


def decode_event(raw: object) -> Event:
    """``raw`` (parsed JSON) as an event of the stream, checked against its type.

    The one place where JSON becomes an :data:`Event`. Raises
    :class:`EventShapeError` naming the event and the field that does not fit.
    Fields a later version adds are kept (the stream may grow, see docs/events.md).
    """
    if not isinstance(raw, dict) or not isinstance(raw.get("event"), str):
        raise EventShapeError(f"expected an object with an \"event\" name, got {raw!r:.80}")
    name: str = raw["event"]
    event_type = BY_NAME.get(name)
    if event_type is None:
        raise EventShapeError(f"unknown event {name!r}; expected one of docs/events.md")
    problem = _shape_problem(raw, event_type)
    if problem is not None:
        raise EventShapeError(f"{name} event: {problem}")
    return cast(Event, raw)  # checked field by field just above

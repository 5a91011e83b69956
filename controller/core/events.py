"""The event vocabulary: every event the table core emits, as a declared type.

Each event is a :mod:`msgspec` struct tagged by its ``event`` name (``CardEvent.event == "card"``); a consumer
dispatches on the type (``isinstance(event, ResultEvent)``, ``match``) or on the tag, and reads fields as
attributes. The JSON stream (``docs/events.md``, checked against these types by a test) is exactly these
structs, one per line, their fields in the order declared here; a field whose value is :data:`UNSET` is left
out (``NotRequired`` in the old vocabulary). An event also reads like the JSON object it encodes to
(``event["card"]``, ``event.get("manual")``, ``"dealer" in event``), for code shared with readers of the JSON.

This module is the one encoder and decoder of events: :func:`to_builtins` and :func:`encode_line` (the JSON
stream), :func:`encode_compact` (the journal's records), :func:`decode_event` (JSON read back: a journal, the
archive, a report), checked against these types by :mod:`msgspec` (the misdeal, bet and alert kinds are closed
:data:`~typing.Literal` types generated from their tables).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, Literal, Self, TypeAlias, TypeVar, Union, get_args

import msgspec
from msgspec import UNSET, UnsetType

from config.schema import Role
from controller.terms import AlertKind, MisdealKind, Mode, Resolution

__all__ = ["UNSET", "AlertKind", "MisdealKind", "Resolution", "UnsetType"]

Side = Literal["player", "banker"]
SayParams = dict[str, str | int]
"""The parameters of a ``say_id`` message (numbers and machine words; see docs/languages.md)."""
Winner = Literal["player", "banker", "tie"]
AlertSeverity = Literal["warning", "critical"]
Outcome = Literal["win", "lose", "push"]


class Readable(msgspec.Struct, omit_defaults=True, kw_only=True):
    """A struct that also reads like the JSON object it encodes to: ``value["field"]``, ``value.get("field")``,
    ``"field" in value``; a field that is :data:`UNSET` is not there."""

    def __getitem__(self, key: str) -> Any:
        if key == "event" and isinstance(self, Event):
            return self.event
        value = getattr(self, key, UNSET) if key in self.__struct_fields__ else UNSET
        if value is UNSET:
            raise KeyError(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        """The field ``key``, or ``default`` when it is not there."""
        if key == "event" and isinstance(self, Event):
            return self.event
        value = getattr(self, key, UNSET) if key in self.__struct_fields__ else UNSET
        return default if value is UNSET else value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key, UNSET) is not UNSET

    def keys(self) -> list[str]:
        """The names of the fields that are there, in the encoded order."""
        tag = ["event"] if isinstance(self, Event) else []
        return tag + [name for name in self.__struct_fields__ if getattr(self, name) is not UNSET]

    def items(self) -> list[tuple[str, Any]]:
        return [(key, self[key]) for key in self.keys()]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __eq__(self, other: object) -> bool:
        """Equal to the same struct, or to the JSON object it encodes to."""
        if isinstance(other, Mapping):
            return bool(self.to_dict() == other)
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__struct_fields__)

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> Self:
        """A copy (the fields' values shared, as ``dict.copy`` shares them)."""
        return msgspec.structs.replace(self)

    def to_dict(self) -> dict[str, Any]:
        """The value as JSON builtins (what :func:`to_builtins` gives)."""
        built: dict[str, Any] = msgspec.to_builtins(self)
        return built


class Event(Readable, tag_field="event", kw_only=True, omit_defaults=True):
    """Any event of the table's stream (its ``event`` name is the class's tag)."""

    event: ClassVar[str]


class Identity(Readable, kw_only=True):
    """A staff badge's holder: the signed-in dealer stamped on results and misdeals."""

    name: str
    uid: str
    role: Role


Dealer: TypeAlias = Identity | UnsetType | None


# -- table and shoe -------------------------------------------------------------
class TableEvent(Event, tag="table", kw_only=True):
    event: ClassVar[str] = "table"
    decks: int
    variant: str
    driver: str
    seed: int | None
    mode: Mode


class ShoeEvent(Event, tag="shoe", kw_only=True):
    event: ClassVar[str] = "shoe"
    shoe: int
    status: Literal["new", "ready"]
    decks: int | UnsetType = UNSET


class BurnEvent(Event, tag="burn", kw_only=True):
    event: ClassVar[str] = "burn"
    card: str | None
    turned: bool | UnsetType = UNSET
    burn: int | UnsetType = UNSET
    read: str | UnsetType = UNSET


class CutCardEvent(Event, tag="cut_card", kw_only=True):
    event: ClassVar[str] = "cut_card"
    round: int
    last_round: int
    detail: str
    say_id: str | UnsetType = UNSET
    say_params: SayParams | UnsetType = UNSET


class SideCounts(Readable, kw_only=True):
    player: int
    banker: int


class ResultCounts(Readable, kw_only=True):
    banker: int
    player: int
    tie: int


class ShoeClosedEvent(Event, tag="shoe_closed", kw_only=True):
    event: ClassVar[str] = "shoe_closed"
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


class AlertEvent(Event, tag="alert", kw_only=True):
    event: ClassVar[str] = "alert"
    id: str
    kind: AlertKind
    severity: AlertSeverity
    shoe: int
    round: int
    probability: float | UnsetType = UNSET
    bet: str | UnsetType = UNSET
    """``advantage``: the bet whose expected value is above ``[bets] alert_above``."""
    edge: str | UnsetType = UNSET
    threshold: float | UnsetType = UNSET
    """Every kind but ``property_check_off``."""
    earlier_shoe: int | UnsetType | None = UNSET
    """``sequence_repeat``: the earlier shoe repeated (null for the factory order)."""
    earlier_site: str | UnsetType = UNSET
    """``sequence_repeat`` found by the property check: the site of the earlier shoe's table."""
    earlier_table: str | UnsetType = UNSET
    """``sequence_repeat`` found by the property check: the table the earlier shoe was dealt at."""
    order: Literal["dealt", "discard", "factory"] | UnsetType = UNSET
    start: int | UnsetType = UNSET
    earlier_start: int | UnsetType = UNSET
    length: int | UnsetType = UNSET
    detail: str
    say_id: str | UnsetType = UNSET
    say_params: SayParams | UnsetType = UNSET


class AlertAcknowledgedEvent(Event, tag="alert_acknowledged", kw_only=True):
    event: ClassVar[str] = "alert_acknowledged"
    id: str
    kind: str
    by: str | None
    round: int


class AlertUpdatedEvent(Event, tag="alert_updated", kw_only=True):
    """An open ``advantage`` alert follows the edge while the advantage lasts (one alert a bet, never a pile)."""

    event: ClassVar[str] = "alert_updated"
    id: str
    kind: AlertKind
    shoe: int
    round: int
    bet: str
    edge: str
    detail: str
    say_id: str | UnsetType = UNSET
    say_params: SayParams | UnsetType = UNSET


class AlertClearedEvent(Event, tag="alert_cleared", kw_only=True):
    """An alert closes itself: what it warned of is over (an ``advantage`` whose edge fell back)."""

    event: ClassVar[str] = "alert_cleared"
    id: str
    kind: AlertKind
    round: int
    reason: str
    say_id: str | UnsetType = UNSET
    say_params: SayParams | UnsetType = UNSET


class BetEdge(Readable, kw_only=True):
    ev: str


class EdgeEvent(Event, tag="edge", kw_only=True):
    event: ClassVar[str] = "edge"
    round: int
    shoe: int
    seen: int
    bets: dict[str, BetEdge]


class ReaderEvent(Event, tag="reader", kw_only=True):
    event: ClassVar[str] = "reader"
    status: Literal["online", "offline"]


class ClockEvent(Event, tag="clock", kw_only=True):
    """The host clock's state, as the app read it (at start, every ``[journal] clock_every`` seconds and whenever
    the clock jumped): synchronised or not (None: unknown), by what, its offset and a jump, in seconds."""

    event: ClassVar[str] = "clock"
    synchronised: bool | None
    source: str
    offset: float | None = None
    jump: float | None = None


# -- a round ----------------------------------------------------------------------
class RoundEvent(Event, tag="round", kw_only=True):
    event: ClassVar[str] = "round"
    round: int
    shoe: int


class PromptEvent(Event, tag="prompt", kw_only=True):
    event: ClassVar[str] = "prompt"
    round: int
    slot: str
    to: Side
    say: str
    say_id: str | UnsetType = UNSET
    say_params: SayParams | UnsetType = UNSET
    undo: str | UnsetType = UNSET
    """The input ``@undo`` would take back now (``"@manual 4D"``), on the last event of a batch only."""


class CardEvent(Event, tag="card", kw_only=True):
    event: ClassVar[str] = "card"
    round: int
    slot: str
    card: str
    manual: bool | UnsetType = UNSET
    face_down: bool | UnsetType = UNSET
    """Face-down dealing: the card is read but not shown until its hand is revealed."""


class RevealedEvent(Event, tag="revealed", kw_only=True):
    event: ClassVar[str] = "revealed"
    round: int
    side: Side
    slots: list[str]
    cards: list[str]
    total: int


class InstructionEvent(Event, tag="instruction", kw_only=True):
    event: ClassVar[str] = "instruction"
    round: int
    action: str
    say: str
    say_id: str | UnsetType = UNSET
    say_params: SayParams | UnsetType = UNSET
    undo: str | UnsetType = UNSET
    """The input ``@undo`` would take back now, on the last event of a batch only."""


class Hand(Readable, kw_only=True):
    cards: list[str]
    total: int


class ResultEvent(Event, tag="result", kw_only=True):
    event: ClassVar[str] = "result"
    round: int
    shoe: int
    winner: Winner
    player: Hand
    banker: Hand
    natural: bool
    player_pair: bool
    banker_pair: bool
    say: str
    say_id: str | UnsetType = UNSET
    say_params: SayParams | UnsetType = UNSET
    manual: list[str] | UnsetType = UNSET
    dealer: Dealer = UNSET


class BetOutcome(Readable, kw_only=True):
    outcome: Outcome
    net: str


class SettlementEvent(Event, tag="settlement", kw_only=True):
    event: ClassVar[str] = "settlement"
    round: int
    variant: str
    bets: dict[str, BetOutcome]


# -- misdeals ---------------------------------------------------------------------
class MisdealEvent(Event, tag="misdeal", kw_only=True):
    event: ClassVar[str] = "misdeal"
    round: int
    kind: MisdealKind
    card: str | None
    detail: str
    say_id: str | UnsetType = UNSET
    say_params: SayParams | UnsetType = UNSET
    instruction: str
    resolutions: list[Resolution]
    supervisor: list[Resolution]
    while_halted: bool | UnsetType = UNSET
    dealer: Dealer = UNSET


class ResolvedEvent(Event, tag="resolved", kw_only=True):
    event: ClassVar[str] = "resolved"
    round: int
    kind: MisdealKind
    resolution: Resolution
    cards: list[str]
    approved_by: str | UnsetType = UNSET
    dealer: Dealer = UNSET


class RoundVoidedEvent(Event, tag="round_voided", kw_only=True):
    event: ClassVar[str] = "round_voided"
    round: int
    cards: list[str]
    bets: Literal["returned"]
    dealer: Dealer = UNSET


class UndoneEvent(Event, tag="undone", kw_only=True):
    event: ClassVar[str] = "undone"
    input: str
    """The input taken back (``"@manual 4D"``, ``"@exposed"``)."""
    round: int
    slot: str | None
    """The slot the hand-entered card was taken out of (due again), or the exposed card stays in."""
    card: str | None
    say: str
    say_id: str | UnsetType = UNSET
    say_params: SayParams | UnsetType = UNSET


class RejectedEvent(Event, tag="rejected", kw_only=True):
    event: ClassVar[str] = "rejected"
    input: str
    reason: str
    say: str
    say_id: str | UnsetType = UNSET
    say_params: SayParams | UnsetType = UNSET
    reason_id: str | UnsetType = UNSET
    reason_params: SayParams | UnsetType = UNSET


# -- badges and approvals ---------------------------------------------------------
class DealerSignedInEvent(Event, tag="dealer_signed_in", kw_only=True):
    event: ClassVar[str] = "dealer_signed_in"
    name: str
    uid: str
    role: Role


class DealerSignedOutEvent(Event, tag="dealer_signed_out", kw_only=True):
    event: ClassVar[str] = "dealer_signed_out"
    name: str
    uid: str
    reason: str


class SignInRefusedEvent(Event, tag="sign_in_refused", kw_only=True):
    event: ClassVar[str] = "sign_in_refused"
    uid: str
    reason: str
    say: str | UnsetType = UNSET
    say_id: str | UnsetType = UNSET
    say_params: SayParams | UnsetType = UNSET


class ApprovalRequiredEvent(Event, tag="approval_required", kw_only=True):
    event: ClassVar[str] = "approval_required"
    round: int
    action: str
    input: str
    say: str
    say_id: str | UnsetType = UNSET
    say_params: SayParams | UnsetType = UNSET


class ApprovalEvent(Event, tag="approval", kw_only=True):
    event: ClassVar[str] = "approval"
    action: str
    by: str
    uid: str
    role: Role


class ApprovalRefusedEvent(Event, tag="approval_refused", kw_only=True):
    event: ClassVar[str] = "approval_refused"
    action: str
    uid: str
    reason: str
    say: str | UnsetType = UNSET
    say_id: str | UnsetType = UNSET
    say_params: SayParams | UnsetType = UNSET
    rule: Literal["two_person"] | UnsetType = UNSET


class ApprovalCancelledEvent(Event, tag="approval_cancelled", kw_only=True):
    event: ClassVar[str] = "approval_cancelled"
    action: str
    reason: str
    say: str | UnsetType = UNSET
    say_id: str | UnsetType = UNSET
    say_params: SayParams | UnsetType = UNSET


class ShoeClosingEvent(Event, tag="shoe_closing", kw_only=True):
    event: ClassVar[str] = "shoe_closing"
    round: int
    reason: str
    approved_by: str | UnsetType = UNSET


class StubCountEvent(Event, tag="stub_count", kw_only=True):
    """The dealer counted the stub (``[procedures] count_every``): the cards the table expects left, and the count
    keyed (or confirmed); a count that differs halts the table (``count_mismatch``)."""

    event: ClassVar[str] = "stub_count"
    round: int
    shoe: int
    expected: int
    counted: int
    dealer: Dealer = UNSET


EVENT_TYPES: tuple[type[Event], ...] = (
    TableEvent, ShoeEvent, BurnEvent, CutCardEvent, ShoeClosedEvent, AlertEvent, AlertAcknowledgedEvent,
    AlertUpdatedEvent, AlertClearedEvent, ReaderEvent, ClockEvent,
    RoundEvent, EdgeEvent, PromptEvent, CardEvent, RevealedEvent, InstructionEvent, ResultEvent, SettlementEvent,
    MisdealEvent, ResolvedEvent, RoundVoidedEvent, UndoneEvent, RejectedEvent,
    DealerSignedInEvent, DealerSignedOutEvent, SignInRefusedEvent,
    ApprovalRequiredEvent, ApprovalEvent, ApprovalRefusedEvent, ApprovalCancelledEvent, ShoeClosingEvent,
    StubCountEvent,
)
"""Every event type of the table's stream, in the order ``docs/events.md`` lists them."""

AnyEvent = Union[  # noqa: UP007 - a tagged union msgspec decodes
    TableEvent, ShoeEvent, BurnEvent, CutCardEvent, ShoeClosedEvent, AlertEvent, AlertAcknowledgedEvent,
    AlertUpdatedEvent, AlertClearedEvent, ReaderEvent, ClockEvent,
    RoundEvent, EdgeEvent, PromptEvent, CardEvent, RevealedEvent, InstructionEvent, ResultEvent, SettlementEvent,
    MisdealEvent, ResolvedEvent, RoundVoidedEvent, UndoneEvent, RejectedEvent,
    DealerSignedInEvent, DealerSignedOutEvent, SignInRefusedEvent,
    ApprovalRequiredEvent, ApprovalEvent, ApprovalRefusedEvent, ApprovalCancelledEvent, ShoeClosingEvent,
    StubCountEvent,
]
"""Any event of the stream, as :mod:`msgspec` decodes it (by its ``event`` tag)."""


# -- `croupier badges watch` ------------------------------------------------------
class BadgeSeenEvent(Readable, kw_only=True):
    event: Literal["badge_presented", "badge_removed"]
    uid: str
    reader: str
    known: bool


class BadgeUnreadableEvent(Readable, kw_only=True):
    event: Literal["badge_unreadable"]
    reader: str
    message: str


class BadgeReaderOfflineEvent(Readable, kw_only=True):
    event: Literal["reader_offline"]
    reader: str
    message: str


class BadgeReaderOnlineEvent(Readable, kw_only=True):
    event: Literal["reader_online"]
    reader: str


BadgeWatchEvent: TypeAlias = BadgeSeenEvent | BadgeUnreadableEvent | BadgeReaderOfflineEvent | BadgeReaderOnlineEvent
"""A line of ``croupier badges watch --json``."""

BADGE_WATCH_TYPES: tuple[type, ...] = (
    BadgeSeenEvent, BadgeUnreadableEvent, BadgeReaderOfflineEvent, BadgeReaderOnlineEvent,
)
"""A line of ``croupier badges watch --json`` (docs/pcsc.md); never part of the table's stream."""


# -- the one encoder and decoder --------------------------------------------------
class EventShapeError(ValueError):
    """A JSON value is not an event of the vocabulary; the message says which field is wrong."""


def event_names(event_type: type) -> tuple[str, ...]:
    """The ``event`` tag(s) of an event type."""
    tag = getattr(getattr(event_type, "__struct_config__", None), "tag", None)
    if isinstance(tag, str):
        return (tag,)
    return ()


BY_NAME: dict[str, type[Event]] = {name: event_type for event_type in EVENT_TYPES for name in event_names(event_type)}
"""Each event name of the table's stream and its type."""


def decode_event(raw: object) -> Event:
    """``raw`` (parsed JSON) as an event of the stream, checked against its type.

    The one place where JSON becomes an :class:`Event`. Raises :class:`EventShapeError` naming the event and the
    field that does not fit. Fields a later version adds are ignored (the stream may grow, see docs/events.md).
    """
    if not isinstance(raw, dict) or not isinstance(raw.get("event"), str):
        raise EventShapeError(f"expected an object with an \"event\" name, got {raw!r:.80}")
    name: str = raw["event"]
    if name not in BY_NAME:
        raise EventShapeError(f"unknown event {name!r}; expected one of docs/events.md")
    try:
        event: Event = msgspec.convert(raw, AnyEvent)
    except msgspec.ValidationError as error:
        raise EventShapeError(f"{name} event: {error}") from None
    return event


Kind = TypeVar("Kind", bound=Event)


def decode_as(raw: object, kind: type[Kind]) -> Kind:
    """``raw`` (parsed JSON) as an event of ``kind``; :class:`EventShapeError` when it is another event."""
    event = decode_event(raw)
    if not isinstance(event, kind):
        raise EventShapeError(f"{event.event} event: expected a {'/'.join(event_names(kind))} event")
    return event


def decode_events(raw: Sequence[object]) -> list[Event]:
    """Each of ``raw`` (parsed JSON) as an event (see :func:`decode_event`)."""
    return [decode_event(item) for item in raw]


def to_builtins(value: Any) -> Any:
    """``value`` (an event, events, or data holding them) as JSON builtins, fields in their encoded order."""
    return msgspec.to_builtins(value)


def as_json(value: Any) -> Any:
    """``json.dumps``'s ``default``: an event (or part of one) as JSON builtins."""
    if isinstance(value, msgspec.Struct):
        return msgspec.to_builtins(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_LINE_ENCODER = msgspec.json.Encoder()
_FLOATS = (AlertEvent,)
"""Events that may hold floats, which :mod:`msgspec` writes in its own form (``1e-6`` for ``1e-06``): they are
written through :mod:`json`, as every event always was."""


def encode_line(event: Event) -> str:
    """``event`` as a line of the JSON stream (``json.dumps`` with its default separators, ASCII only)."""
    if not isinstance(event, _FLOATS):
        data = _LINE_ENCODER.encode(event)
        if data.isascii():
            return msgspec.json.format(data, indent=0).decode("ascii")
    return json.dumps(msgspec.to_builtins(event), separators=(", ", ": "))


_WITHOUT_FLOATS = frozenset(event_type for event_type in EVENT_TYPES if not issubclass(event_type, _FLOATS))
_BETWEEN_EVENTS = b'}, {"event": '
"""Where one event ends and the next begins in a formatted list of events (each opens with its tag; no event holds
a list of objects, so no event holds this either; counted, to be sure)."""


def encode_lines(events: list[Event]) -> str:
    """``events`` as lines of the JSON stream, each ended by a newline: what :func:`encode_line` gives each.

    The events of a batch are encoded and formatted at once, then cut apart where one ends and the next begins;
    a batch with an event :mod:`json` writes, a character outside ASCII or a cut that does not fall between events
    only is encoded event by event."""
    if events and _WITHOUT_FLOATS.issuperset(map(type, events)):
        data = msgspec.json.format(_LINE_ENCODER.encode(events), indent=0)
        if data.isascii() and data.count(_BETWEEN_EVENTS) == len(events) - 1:
            return data[1:-1].replace(_BETWEEN_EVENTS, b'}\n{"event": ').decode("ascii") + "\n"
    return "".join([encode_line(event) + "\n" for event in events])


def encode_compact(value: Any) -> str:
    """``value`` (a journal record's body, events within) as compact UTF-8 JSON, keys in the order given: the text
    the journal stores and hashes."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=as_json)


def fields_of(event_type: type) -> tuple[str, ...]:
    """The fields an event type may carry (its tag not included), in their encoded order."""
    return tuple(getattr(event_type, "__struct_fields__", ()))


def literal_values(annotation: Any) -> tuple[Any, ...]:
    """The values of a :data:`~typing.Literal` type."""
    return get_args(annotation)


EventLike: TypeAlias = Mapping[str, Any] | Readable
"""An event as a reader of the JSON sees it: a typed event, or the object it encodes to."""

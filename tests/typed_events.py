"""Typed picks from a list of events, for tests that read fields of one kind of event.

``every(events, MisdealEvent)`` is the misdeals, each a :class:`~controller.core.events.MisdealEvent`;
``expect(events[-1], PromptEvent)`` is that event as a prompt, or a failed test naming what it was. The
picks check the event's type (a typed event) or its ``event`` tag (JSON read back), the same test a consumer
narrows on. :func:`untyped_event` is the other way round: a test that feeds a view a partial or unknown event
on purpose says so with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar, cast

import msgspec

from controller.core.events import Event, decode_event, event_names, to_builtins
from controller.ui.tableview import ViewEvent

Picked = TypeVar("Picked", bound=Event)


def is_a(event: Event | Mapping[str, Any], kind: type[Picked]) -> bool:
    """Is ``event`` one of ``kind`` (a typed event of that type, or JSON tagged with its name)?"""
    if isinstance(event, Event):
        return isinstance(event, kind)
    return event.get("event") in event_names(kind)


def every(events: Iterable[Event | Mapping[str, Any]], kind: type[Picked]) -> list[Picked]:
    """The events of ``kind``, in order (maybe none), typed (JSON read back is decoded)."""
    return [expect(event, kind) for event in events if is_a(event, kind)]


def expect(event: Event | Mapping[str, Any], kind: type[Picked]) -> Picked:
    """``event`` itself as a ``kind`` (JSON read back is decoded); fails the test if it is another event."""
    assert is_a(event, kind), f"expected a {'/'.join(event_names(kind))} event, got {event}"
    typed = event if isinstance(event, Event) else decode_event(dict(event))
    assert isinstance(typed, kind)
    return typed


def untyped_event(raw: Mapping[str, object]) -> ViewEvent:
    """``raw`` passed to a view as it may arrive from elsewhere: partial, or of a kind no view knows.

    The views read every field with care and skip what they cannot use ("a display must never stop
    the table", :meth:`~controller.ui.scoreboard.Scoreboard.publish`); the tests that prove it feed
    such events on purpose, and say so with this call.
    """
    return cast(ViewEvent, raw)  # deliberately unchecked: that is what the caller tests


def plain(value: Any) -> Any:
    """``value`` with every typed event (or part of one) in it as the JSON object it encodes to; tuples and lists
    keep their kind, so a test compares with the literals it writes."""
    if isinstance(value, msgspec.Struct):
        return to_builtins(value)
    if isinstance(value, tuple):
        return tuple(plain(item) for item in value)
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value

"""Typed picks from a list of events, for tests that read fields of one kind of event.

``every(events, MisdealEvent)`` is the misdeals, each typed as a
:class:`~controller.core.events.MisdealEvent`; ``expect(events[-1], PromptEvent)``
is that event as a prompt, or a failed test naming what it was. The picks check
the ``event`` tag, the same test a consumer narrows on, so the ``cast`` in
:func:`expect` states what was just checked. :func:`untyped_event` is the other way round: a test
that feeds a view a partial or unknown event on purpose says so with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar, cast

from controller.core.events import event_names
from controller.ui.tableview import ViewEvent

Picked = TypeVar("Picked", bound=Mapping[str, object])


def is_a(event: Mapping[str, object], kind: type[Picked]) -> bool:
    """Is ``event`` tagged as one of ``kind``'s event names?"""
    return event.get("event") in event_names(kind)


def every(events: Iterable[Mapping[str, object]], kind: type[Picked]) -> list[Picked]:
    """The events of ``kind``, in order (maybe none)."""
    return [expect(event, kind) for event in events if is_a(event, kind)]


def expect(event: Mapping[str, object], kind: type[Picked]) -> Picked:
    """``event`` itself as a ``kind``; fails the test if it is another event."""
    assert is_a(event, kind), f"expected a {'/'.join(event_names(kind))} event, got {event}"
    return cast(Picked, event)  # the tag is checked just above


def untyped_event(raw: Mapping[str, object]) -> ViewEvent:
    """``raw`` passed to a view as it may arrive from elsewhere: partial, or of a kind no view knows.

    The views read every field with care and skip what they cannot use ("a display must never stop
    the table", :meth:`~controller.ui.scoreboard.Scoreboard.publish`); the tests that prove it feed
    such events on purpose, and say so with this call.
    """
    return cast(ViewEvent, raw)  # deliberately unchecked: that is what the caller tests

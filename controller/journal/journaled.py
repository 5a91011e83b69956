"""What the journal needs of the loop it journals, declared: the app's runner provides it
(:func:`controller.journal.replay.attach_journal`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from controller.core.events import Event
    from controller.core.inputs import Input
    from controller.core.table import Table
    from drivers.base import CardSource


class EventSink(Protocol):
    """Where a batch of events goes (the events one input gave, in order)."""

    def __call__(self, events: list[Event], /) -> None: ...


class Journaled(Protocol):
    """The loop the journal journals (:class:`controller.app.runner.Runner`): its table (fresh), its source and
    what it did with them; the journal puts itself in front of ``record`` and ``sink``."""

    table: Table
    source: CardSource
    sink: EventSink
    """Where the loop's events go: the journal takes its place (each batch committed, then passed on)."""
    record: Callable[[Input], None] | None
    """Told each input before the core sees it: the journal holds it, to commit it with its events."""
    new_shoe_asked: int
    """The closed shoe whose successor the source was already asked to load (a resume sets it)."""

    @property
    def received(self) -> Input | None:
        """The input the source delivered last (the journal tells it from the dealer's own inputs)."""

    @property
    def new_shoes(self) -> bool:
        """The loop loads a new shoe after one closes (else the source never moved to one)."""

"""The table along a journal, as its core gives it: the journaled inputs handed in turn to a fresh table with the
journal's settings, its state and view read after its start and after each input.

What ``croupier history`` says of the table (the shoe and round each record belongs to, the game's totals, the
alerts still open, where each card out of the shoe went) is read from here, from the core's own view and state,
never worked out again from the events with rules of its own (issue 26 item 2). Each round's bet values are taken
from the journaled ``edge`` events, as a resume takes them (:func:`~controller.journal.replay.replay`); nothing
here compares the events with the journal (``croupier audit verify --replay`` does).

A damaged journal is still followed: an input record that cannot be read, or that the table cannot take, is told
to ``unreadable`` and passed over, the table going on with the next input it can take.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field

from controller.core.exceptions import JournalError
from controller.core.inputs import Input
from controller.core.published import View
from controller.core.state import TableState
from controller.core.table import Table
from controller.journal.about import about
from controller.journal.replay import Unreadable, body_of, handled, input_of, journaled_edges, table_from_header
from controller.journal.store import Journal, Record


@dataclass(frozen=True, slots=True)
class Moment:
    """The table just after its start or one journaled input."""

    seq: int
    """The start record, or the events record that holds this input's events (0: none was journaled)."""
    at: str
    """When the input (or the start) was journaled."""
    item: Input | None
    """The input (None: the table's start)."""
    source: bool
    """The input came from the card source (it is a card out of the shoe when it is one)."""
    before: TableState
    state: TableState
    """The table's state after it: :attr:`before` then :attr:`state` are what the input changed."""
    table: Table

    @property
    def view(self) -> View:
        """The table's view after it (read it while this is the last moment: the table goes on)."""
        return self.table.view


def table_of(journal: Journal) -> Table | None:
    """A fresh table with the settings ``journal`` was written with; None when it has none (a training drill's
    journal, whose inputs are a trainee's answers, or a header without a table's settings)."""
    header = next(iter(journal.records()), None)
    if header is None or header.kind != "header" or about(journal).mode == "training":
        return None
    try:
        return table_from_header(journal.path, body_of(journal, header))
    except JournalError:
        return None


def moments(journal: Journal, unreadable: Unreadable | None = None) -> Iterator[Moment]:
    """The table after its start and after each journaled input it takes, in order (none when :func:`table_of`
    has no table for ``journal``). An input record that cannot be read or taken raises :class:`JournalError`;
    with ``unreadable`` it is told instead, and passed over."""
    table = table_of(journal)
    if table is None:
        return
    pending: tuple[Record, Input, bool] | None = None
    for record in journal.records():
        if record.kind == "start":
            before = table.value
            table.start()
            yield Moment(record.seq, record.at, None, False, before, table.value, table)
        elif record.kind == "input":
            unjournaled = _taken(journal, table, pending, None, unreadable)  # an input whose events were never
            if unjournaled is not None:  # journaled (an older journal's last input, before its own transaction)
                yield unjournaled
            pending = _input(journal, record, unreadable)
        elif record.kind == "events" and pending is not None:
            moment = _taken(journal, table, pending, record, unreadable)
            pending = None
            if moment is not None:
                yield moment
    if pending is not None:
        moment = _taken(journal, table, pending, None, unreadable)
        if moment is not None:
            yield moment


def _input(journal: Journal, record: Record, unreadable: Unreadable | None) -> tuple[Record, Input, bool] | None:
    try:
        body = body_of(journal, record)
        return record, input_of(journal, record, body), bool(body.get("source"))
    except JournalError as error:
        if unreadable is None:
            raise
        unreadable(record, error)
        return None


def _taken(journal: Journal, table: Table, pending: tuple[Record, Input, bool] | None, events: Record | None,
           unreadable: Unreadable | None) -> Moment | None:
    """The table after the pending input (its events in ``events``, None: never journaled), or None when there is
    no input or the table cannot take it."""
    if pending is None:
        return None
    record, item, source = pending
    if events is not None:
        table.known_edges.update(journaled_edges(events))
    before = table.value
    try:
        handled(journal, table, record, item)
    except JournalError as error:
        if unreadable is None:
            raise
        unreadable(record, error)
        return None
    finally:
        table.known_edges.clear()
    return Moment(events.seq if events is not None else 0, record.at, item, source, before, table.value, table)


@dataclass
class Along:
    """What the table's view said along a journal: the shoe and round after each input, by the record that holds
    its events, and the whole view at the end."""

    seqs: list[int] = field(default_factory=list)
    places: list[tuple[int, int]] = field(default_factory=list)
    last: View | None = None
    """The view after the last input the table took (None: no table replays the journal)."""
    names: dict[str, str] = field(default_factory=dict)
    """The name of each badge the table's settings enrol, by UID: who an event that gives a badge's UID means."""

    def place(self, seq: int) -> tuple[int, int]:
        """(shoe, round) of the view at record ``seq``: after the input whose events it holds, or after the last
        one before it; (1, 0) before the table's start."""
        index = bisect.bisect_right(self.seqs, seq) - 1
        return self.places[index] if index >= 0 else (1, 0)


def along(journal: Journal, unreadable: Unreadable | None = None) -> Along:
    """The table's view along ``journal`` (:func:`moments`)."""
    found = Along()
    for moment in moments(journal, unreadable):
        if moment.item is None:
            found.names = {uid: badge.name for uid, badge in moment.table.context.settings.auth.badges.items()}
        view = moment.view
        if moment.seq:
            found.seqs.append(moment.seq)
            found.places.append((view.shoe, view.round))
        found.last = view
    return found

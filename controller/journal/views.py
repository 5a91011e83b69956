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

from controller.core.exceptions import JournalError, SnapshotError
from controller.core.inputs import Input
from controller.core.published import View
from controller.core.snapshot import restore_into
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
    resumed: bool = False
    """The table was taken up again from a checkpoint (its state as journaled) after an input it could not take:
    nothing of what :attr:`before` held leads to :attr:`state`."""

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
    with ``unreadable`` it is told instead and passed over, and the table, which has lost that input (every later
    card would go elsewhere than it did), takes nothing more until the next checkpoint, from whose state it is
    taken up again (a :class:`Moment` ``resumed``)."""
    table = table_of(journal)
    if table is not None:
        yield from _Replaying(journal, table, unreadable).moments()


class _Replaying:
    """The table of :func:`moments` taking a journal's records in turn."""

    def __init__(self, journal: Journal, table: Table, unreadable: Unreadable | None) -> None:
        self.journal, self.table = journal, table
        self.pending: tuple[Record, Input, bool] | None = None
        self.lost = False
        """An input was lost: nothing is taken until a checkpoint."""
        self.told: Unreadable | None = None
        if unreadable is not None:
            def told(record: Record, error: JournalError) -> None:
                self.lost = True
                unreadable(record, error)
            self.told = told

    def moments(self) -> Iterator[Moment]:
        """Every record of the journal taken in turn (:func:`moments`); :attr:`lost` says, after, whether the table
        ended without the inputs it lost."""
        for record in self.journal.records():
            yield from self.take(record)
        yield from self.end()

    def take(self, record: Record) -> Iterator[Moment]:
        journal, table, told = self.journal, self.table, self.told
        if self.lost:
            resumed = _resumed(journal, table, record) if record.kind == "checkpoint" else None
            if resumed is not None:
                self.lost, self.pending = False, None
                yield resumed
        elif record.kind == "start":
            before = table.value
            table.start()
            yield Moment(record.seq, record.at, None, False, before, table.value, table)
        elif record.kind == "input":
            unjournaled = _taken(journal, table, self.pending, None, told)  # an input whose events were never
            if unjournaled is not None:  # journaled (an older journal's last input, before its own transaction)
                yield unjournaled
            self.pending = None if self.lost else _input(journal, record, told)
        elif record.kind == "events" and self.pending is not None:
            moment = _taken(journal, table, self.pending, record, told)
            self.pending = None
            if moment is not None:
                yield moment

    def end(self) -> Iterator[Moment]:
        if self.pending is not None and not self.lost:
            moment = _taken(self.journal, self.table, self.pending, None, self.told)
            if moment is not None:
                yield moment


def _resumed(journal: Journal, table: Table, record: Record) -> Moment | None:
    """The table put in the state checkpoint ``record`` keeps (None: it keeps none the table can take)."""
    before = table.value
    try:
        restore_into(table, body_of(journal, record)["state"])
    except (JournalError, SnapshotError, KeyError, TypeError):
        table.value = before
        return None
    return Moment(record.seq, record.at, None, False, before, table.value, table, resumed=True)


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
    """The table's view along ``journal`` (:func:`moments`); no view at the end (:attr:`Along.last` None) when the
    table lost an input it was not taken up again after (no checkpoint followed it)."""
    found = Along()
    table = table_of(journal)
    if table is None:
        return found
    replaying = _Replaying(journal, table, unreadable)
    for moment in replaying.moments():
        if moment.item is None:
            found.names = {uid: badge.name for uid, badge in moment.table.context.settings.auth.badges.items()}
        view = moment.view
        if moment.seq:
            found.seqs.append(moment.seq)
            found.places.append((view.shoe, view.round))
        found.last = view
    if replaying.lost:
        found.last = None  # the view of a table that lost an input: none
    return found

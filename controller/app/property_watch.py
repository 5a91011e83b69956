"""The property check at the table: each card compared with the other tables' earlier shoes.

A :class:`PropertyWatch` sits beside the runner. At the start and at each new shoe it loads the
property's earlier shoes (``load``, the floor archive in practice); after every input it compares the
cards the table has counted since (the core's own order, ``table.ledger.sequence.cards``) with them,
and returns the ``PROPERTY_REPEAT`` input the table must be given when a run became implausible.
The runner journals and applies that input like any other, so a replay needs no database.

When ``load`` fails the watch says so in one line and goes on with what it had (nothing at the start:
the property check is off, the table's own comparison goes on); it tries again at the next shoe. When
the check is off it also gives the table a ``PROPERTY_OFF`` input (journaled, once per outage), which
the core turns into an open ``alert`` of kind ``property_check_off``: the console, ``history`` and the
floor feed show it, not only the terminal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from controller.core.cards import parse_card
from controller.core.exceptions import CroupierError
from controller.core.inputs import Input, InputKind
from controller.core.property_check import PropertyArchive, PropertyRepeat, PropertyShoe
from controller.core.sequence_check import SequenceMonitor
from controller.core.table import Table

Loader = Callable[[], list[PropertyShoe]]


class PropertyWatch:
    """Compares the table's shoe in play with the property's earlier shoes, card by card."""

    def __init__(self, load: Loader, notice: Callable[[str], None], close: Callable[[], None] = lambda: None) -> None:
        self.load = load
        self.notice = notice
        self.close = close
        """Release what ``load`` holds (the database connection)."""
        self.shoes: list[PropertyShoe] | None = None
        """The earlier shoes last loaded (None: never loaded: the property check is off)."""
        self.off_said = False
        self._shoe = 0
        self._monitor: SequenceMonitor | None = None
        self._archive: PropertyArchive | None = None
        self._done = 0
        self._seen: Counter[str] = Counter()
        self._pending: list[Input] = []
        """A ``PROPERTY_OFF`` input not yet handed to the table."""

    @property
    def active(self) -> bool:
        """Whether the property's shoes were loaded (the check runs)."""
        return self.shoes is not None

    def prime(self, table: Table) -> list[Input]:
        """Catch up with the shoe in play (a resumed journal's): the ``PROPERTY_OFF`` input the table must be given
        if the archive cannot be read, and a ``PROPERTY_REPEAT`` for each run of the shoe so far the table was not
        given (the controller stopped between a card's commit and its finding's); none it holds, open or not."""
        given = table.ledger.property_findings
        missed = [finding for finding in self._compare(table) if finding.key not in given]
        return self._take_pending() + [_input(finding) for finding in missed]

    def after(self, table: Table) -> list[Input]:
        """The inputs the table must be given now: ``PROPERTY_OFF`` when the check has just gone off, and a
        ``PROPERTY_REPEAT`` for each run found since the last call."""
        found = self._compare(table)
        return self._take_pending() + [_input(finding) for finding in found]

    def _take_pending(self) -> list[Input]:
        pending, self._pending = self._pending, []
        return pending

    def _compare(self, table: Table) -> list[PropertyRepeat]:
        if table.shoe_number != self._shoe:
            self._new_shoe(table)
        monitor, archive = self._monitor, self._archive
        cards = table.ledger.sequence.cards
        found: list[PropertyRepeat] = []
        if monitor is None or archive is None:
            self._done = len(cards)
            return found
        for code in cards[self._done:]:
            repeat = monitor.observe(parse_card(code), self._seen, self._done)
            self._seen[code] += 1
            self._done += 1
            if repeat is not None:
                found.append(archive.finding(repeat))
        return found

    def _new_shoe(self, table: Table) -> None:
        self._shoe = table.shoe_number
        self._done = 0
        self._seen = Counter()
        try:
            self.shoes = self.load()
            self.off_said = False
        except CroupierError as error:
            state = ("the property check is off; this table's own shoes are still compared" if self.shoes is None
                     else f"the property check goes on with the {len(self.shoes)} shoes loaded before")
            if not self.off_said:
                self.notice(f"{error}; {state}")
                if self.shoes is None:
                    self._pending.append(Input(InputKind.PROPERTY_OFF, str(error)))
            self.off_said = True
        if self.shoes is None:
            self._monitor = self._archive = None
            return
        decks = table.decks
        self._archive = PropertyArchive(decks, [shoe for shoe in self.shoes if len(shoe.cards) >= 3])
        self._monitor = self._archive.monitor(decks)


def _input(finding: PropertyRepeat) -> Input:
    return Input(InputKind.PROPERTY_REPEAT, finding.to_text())

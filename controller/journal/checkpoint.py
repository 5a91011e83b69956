"""Checkpoints: the table's state in the journal, so that resuming replays only the inputs since the last one.

A ``checkpoint`` record follows the input and events records of the input it is taken after, at every new
shoe and every ``[journal] checkpoint_every`` inputs within a shoe; it is committed (fsync'd) in a transaction
of its own once those events were shown, off the card's path. It is hash-chained like
every record. Its body is the table's state (:func:`controller.core.snapshot.snapshot`) and the
:class:`Cursor`: what recovery needs besides the table (how many inputs and rounds, where the card source
was, the totals of the events before the current shoe). ``audit verify --replay`` replays the journal from
the start and checks every checkpoint against the replay.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.core.events import Event, ResultEvent, RoundVoidedEvent, ShoeEvent
from controller.core.inputs import Input, InputKind
from controller.core.snapshot import snapshot
from controller.core.table import Table
from controller.core.tally import count_events

KIND = "checkpoint"
ROUND_ENDS = (ResultEvent, RoundVoidedEvent)
"""The events that end a round: a result, or the round voided."""


def starts_shoe(events: list[Event]) -> bool:
    """The batch shows a new shoe (a checkpoint is due after it)."""
    return any(type(event) is ShoeEvent and event.status == "new" for event in events)


@dataclass
class Cursor:
    """Where a journaled game stands besides the table's state; kept in every checkpoint."""

    inputs: int = 0
    rounds: int = 0
    position: tuple[int, int] | None = None
    """The source position after the last input that came from the source."""
    new_shoes: int = 0
    """Shoes the dealer confirmed after the last source input (the source moved to them)."""
    shoe_from: int = 0
    """The record whose events began the current shoe (what a resumed scoreboard shows starts there)."""
    before_shoe: Counter[str] = field(default_factory=Counter)
    """The totals (:func:`~controller.core.tally.count_events`) of the events before record ``shoe_from``."""
    totals: Counter[str] = field(default_factory=Counter)
    """The totals of every event so far."""
    since: int = 0
    """Inputs since the last checkpoint (not kept in one: it is 0 there)."""
    held_before: int = 0
    """The cards the last checkpoint held that the shoe does not bound
    (:attr:`~controller.core.tablestate.TableState.held_or_foreign`; not kept in one: 0 after a resume)."""

    def note_input(self, item: Input, closed: bool, from_source: bool, position: tuple[int, int] | None) -> None:
        """An input was handled by a table whose shoe was ``closed`` before it (its machine might only load the
        next: ``Table.may("load_shoe")``)."""
        self.inputs += 1
        self.since += 1
        if from_source:
            self.position = position
            self.new_shoes = 0
        elif closed and item.kind is InputKind.SHOE:
            self.new_shoes += 1

    def note_events(self, seq: int, events: list[Event]) -> bool:
        """Record ``seq`` holds ``events``; True when they begin a shoe."""
        begins = starts_shoe(events)
        if begins:
            self.shoe_from = seq
            self.before_shoe = Counter(self.totals)
        count_events(self.totals, events)
        self.rounds += sum(1 for event in events if type(event) in ROUND_ENDS)
        return begins

    def due(self, began_shoe: bool, every: int) -> bool:
        """Is a checkpoint due now (a new shoe, or ``every`` inputs since the last one; 0: shoes only)?

        After a checkpoint that held more than ``every`` cards the shoe does not bound (:attr:`held_before`: a
        reader flooding a halted table), the next is due only after as many inputs: a checkpoint then never
        costs more than about the inputs since the last one, and the journal grows linearly with the flood."""
        return began_shoe or (every > 0 and self.since >= max(every, self.held_before))

    def body(self, table: Table) -> dict[str, Any]:
        """The checkpoint record's body for ``table`` now; the count since the last checkpoint restarts."""
        self.since = 0
        self.held_before = table.held_or_foreign
        return {
            "state": snapshot(table),
            "inputs": self.inputs,
            "rounds": self.rounds,
            "position": list(self.position) if self.position is not None else None,
            "new_shoes": self.new_shoes,
            "shoe_from": self.shoe_from,
            "before_shoe": dict(sorted((key, value) for key, value in self.before_shoe.items() if value)),
            "totals": dict(sorted((key, value) for key, value in self.totals.items() if value)),
        }

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> Cursor:
        """The cursor a checkpoint body keeps. Raises ValueError/TypeError/KeyError when it is not one."""
        position = body["position"]
        if position is not None and not (isinstance(position, list) and len(position) == 2
                                         and all(_whole(part) for part in position)):
            raise TypeError("position is [shoe, offset]")
        numbers = [body[key] for key in ("inputs", "rounds", "new_shoes", "shoe_from")]
        if not all(_whole(number) for number in numbers):
            raise TypeError("inputs, rounds, new_shoes and shoe_from are whole numbers")
        before_shoe, totals = body["before_shoe"], body["totals"]
        for counts in (before_shoe, totals):
            if not (isinstance(counts, dict) and all(_total(key, value) for key, value in counts.items())):
                raise TypeError("before_shoe and totals are counts (and whole millionths for the nets)")
        return cls(inputs=body["inputs"], rounds=body["rounds"],
                   position=(position[0], position[1]) if position is not None else None,
                   new_shoes=body["new_shoes"], shoe_from=body["shoe_from"], before_shoe=Counter(before_shoe),
                   totals=Counter(totals))


def _total(key: object, value: object) -> bool:
    """A count (a whole number from 0), or a bet's net (:func:`~controller.core.tally.net_key`: any whole number
    of millionths)."""
    if isinstance(key, str) and key.startswith("net:"):
        return isinstance(value, int) and not isinstance(value, bool)
    return _whole(value)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0

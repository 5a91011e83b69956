"""A journal read back in time order: each event with the record that holds it and when it was written,
and each card out of the shoe with what became of it (``croupier history``, ``history --cards --csv``)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from controller.core.events import Event
from controller.core.exceptions import JournalError
from controller.journal.compat import Upgrader
from controller.journal.replay import Unreadable, events_of, journaled_events, upgrader_of
from controller.journal.store import Journal

CARD_INPUTS = frozenset({"card", "unreadable", "double"})
"""Reader inputs that are cards out of the shoe (a ``double``: two unread cards that left together)."""


@dataclass(frozen=True, slots=True)
class Timed:
    """One journaled event: the record ``seq`` that holds it and the record's time ``at`` (UTC, ISO 8601)."""

    seq: int
    at: str
    event: Event


def timed_events(journal: Journal, unreadable: Unreadable | None = None) -> list[Timed]:
    """Every event of ``journal`` in order, with its record and time (a record that cannot be read: see
    :func:`~controller.journal.replay.journaled_events`)."""
    times = {record.seq: record.at for record in journal.records()}
    return [Timed(seq, times[seq], event) for seq, events in journaled_events(journal, unreadable)
            for event in events]


@dataclass(slots=True)
class CardOut:
    """One card out of the shoe: where it is in the shoe, when, where it went, and whether it was read."""

    shoe: int
    position: int
    at: str
    round: int
    code: str
    slot: str
    """``P1``..``B3``, ``burn`` (a burn card), ``discard`` (set aside by a misdeal's resolution or a void,
    as the shoe report counts it), or ``held`` (a misdeal left it unresolved)."""
    entry: str = "read"
    """``read`` by the shoe, or ``manual`` (hand-entered for an unreadable card)."""


class _Held:
    """The cards a misdeal holds, in the order held: a card is found, added and taken out in constant time
    (a reader that floods a halted table leaves thousands held)."""

    def __init__(self) -> None:
        self._rows: dict[int, CardOut] = {}

    def __contains__(self, row: CardOut) -> bool:
        return id(row) in self._rows

    def __iter__(self) -> Iterator[CardOut]:
        return iter(self._rows.values())

    def __reversed__(self) -> Iterator[CardOut]:
        return reversed(self._rows.values())

    def append(self, row: CardOut) -> None:
        self._rows[id(row)] = row

    def remove(self, row: CardOut) -> None:
        del self._rows[id(row)]


@dataclass
class _Reading:
    """The state of the walk over the records in :func:`cards_out`."""

    shoe: int = 1
    round: int = 0
    position: int = 0
    pending: CardOut | None = None
    pending_too: list[CardOut] = field(default_factory=list)
    """The other cards of the pending input (the second of a ``double``): a misdeal holds them with it."""
    held: _Held = field(default_factory=_Held)

    def held_cards(self) -> _Held:
        return self.held


def _records(journal: Journal, unreadable: Unreadable | None) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(kind, time, body) of the input, start and events records; the events checked (:func:`events_of`). A record
    that cannot be read raises :class:`JournalError`; with ``unreadable`` it is told instead, and left out."""
    upgrade: Upgrader | None = None
    for record in journal.records():
        try:
            if record.kind == "header":
                upgrade = upgrader_of(journal, record)
            elif record.kind == "input":
                try:
                    body = json.loads(record.body)
                except ValueError:
                    raise JournalError(f"{journal.path}: record {record.seq} is not a valid input record") from None
                yield record.kind, record.at, body if isinstance(body, dict) else {}
            elif record.kind in ("start", "events"):
                yield record.kind, record.at, {"events": events_of(journal, record, upgrade)}
        except JournalError as error:
            if unreadable is None:
                raise
            unreadable(record, error)


def cards_out(journal: Journal, unreadable: Unreadable | None = None) -> list[CardOut]:
    """Every card out of the shoe in ``journal``, in the order it left the shoe (a record that cannot be read:
    see :func:`~controller.journal.replay.journaled_events`).

    A card is a reader input (a card read, or one the reader could not read); where it went is what the
    events of that input say: a slot, a burn, or held by a misdeal until the misdeal's resolution
    burns it, discards it (a void, or an exposed card taken back), or puts it in a slot (kept, or entered by
    hand).
    """
    rows: list[CardOut] = []
    state = _Reading()
    for kind, at, body in _records(journal, unreadable):
        if kind == "input":
            given = body.get("input")
            item: dict[str, Any] = given if isinstance(given, dict) else {}
            state.pending, state.pending_too = None, []
            if body.get("source") and item.get("kind") in CARD_INPUTS:
                code = str(item.get("card") or "??") if item.get("kind") == "card" else "??"
                out = [CardOut(state.shoe, state.position + number, at, state.round, code, "held")
                       for number in range(1, 3 if item.get("kind") == "double" else 2)]
                state.position += len(out)
                state.pending, *state.pending_too = out
                rows.extend(out)
            continue
        for event in body.get("events", []):
            _apply(state, rows, event)
        state.pending, state.pending_too = None, []
    return rows


def _apply(state: _Reading, rows: list[CardOut], event: dict[str, Any]) -> None:  # noqa: C901 - one case per event
    name = event.get("event")
    pending = state.pending
    if name == "shoe" and event.get("status") == "new":
        if event.get("shoe") != state.shoe:
            state.position = 0
        state.shoe, state.round = int(event["shoe"]), 0
        for row in rows:
            if row.shoe != state.shoe and row.slot == "held":
                row.slot = "discard"
    elif name == "round":
        state.round = int(event["round"])
    elif name == "burn" and pending is not None:
        pending.slot = "burn"
    elif name == "card":
        _placed(state, rows, event)
    elif name == "misdeal":
        target = pending or (_last_with(rows, state.shoe, str(event["card"])) if event.get("card") else None)
        for card in ([target] if target is not None else []) + (state.pending_too if target is pending else []):
            if card not in state.held_cards():
                card.slot = "held"
                state.held_cards().append(card)
    elif name == "resolved":
        _resolved(state, event)
    elif name == "undone":
        _undone(state, rows, event)
    elif name == "round_voided":
        for row in rows:
            if row.shoe == state.shoe and row.round == event.get("round") and row.slot not in ("burn",):
                row.slot = "discard"
        state.held = _Held()


def _placed(state: _Reading, rows: list[CardOut], event: dict[str, Any]) -> None:
    """A ``card`` event: the pending card, or a held one (kept, or entered by hand), goes to its slot."""
    slot, code = str(event["slot"]), str(event["card"])
    held = state.held_cards()
    if event.get("manual"):
        target = next((row for row in held if row.code == "??"), None) or state.pending
    else:
        target = next((row for row in held if row.code == code), None) or state.pending
    if target is None:
        return
    if target in held:
        held.remove(target)
    target.slot, target.code, target.round = slot, code, int(event["round"])
    if event.get("manual"):
        target.entry = "manual"


def _undone(state: _Reading, rows: list[CardOut], event: dict[str, Any]) -> None:
    """``@undo``: a hand-entered card leaves its slot (the unread card is held again); an exposed card taken
    back returns to its slot."""
    held = state.held_cards()
    if event.get("input") == "@exposed":
        target = next((row for row in reversed(held) if row.code == event.get("card")), None)
        if target is not None:
            held.remove(target)
            target.slot = str(event["slot"])
        return
    where = event.get("slot") or "burn"
    target = next((row for row in reversed(rows) if row.shoe == state.shoe and row.slot == where
                   and row.entry == "manual"), None)
    if target is not None:
        target.slot, target.code, target.entry = "held", "??", "read"
        held.append(target)


def _resolved(state: _Reading, event: dict[str, Any]) -> None:
    """A misdeal's resolution: the cards it sets aside (burned or taken back) go to the discards."""
    set_aside = Counter(event.get("cards") or [])
    held = state.held_cards()
    for row in list(held):
        if set_aside[row.code] > 0:
            set_aside[row.code] -= 1
            row.slot = "discard"
            held.remove(row)


def _last_with(rows: list[CardOut], shoe: int, code: str) -> CardOut | None:
    return next((row for row in reversed(rows) if row.shoe == shoe and row.code == code), None)

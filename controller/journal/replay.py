"""Replaying a journal: its identity, an independent replay, and resuming a runner from it (recovery).

Recovery (:func:`attach_journal` on an existing journal) replays the journaled inputs into a fresh
:class:`~controller.core.table.Table` silently, checks that the replay gives the journaled events, moves
the card source back to where it was, and shows the current instruction again.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from config.loader import load_config
from config.schema import Settings
from controller.core.events import Event, EventShapeError, decode_event
from controller.core.exceptions import ConfigError, JournalError
from controller.core.inputs import Input, InputKind
from controller.core.machine import State
from controller.core.table import Table
from controller.journal.store import IDENTITY_SECTIONS, REPLAY_EXTRA, Journal, Record, canonical, compact
from controller.journal.verify import verify
from drivers.base import CardSource, Indication, Resumable

# -- identity -------------------------------------------------------------------


def identity_of(table: Table, argv_key: Any) -> dict[str, Any]:
    """What a journal is tied to: the arguments key and the game settings."""
    settings = table.settings.model_dump()
    identity: dict[str, Any] = {
        "arguments": json.loads(canonical(argv_key)),
        "settings": {name: settings[name] for name in IDENTITY_SECTIONS},
    }
    return identity


def replay_extra(table: Table) -> dict[str, Any]:
    """Settings outside the identity that the table's behaviour depends on (``[auth]``, when enabled).

    Every key is stored as it was in force (``two_person`` included), so that a journal written
    before a key existed replays as it was dealt.
    """
    if table.authority is None:
        return {}
    settings = table.settings.model_dump(mode="json")
    return {name: settings[name] for name in REPLAY_EXTRA}


def _differences(stored: Any, given: Any, where: str = "") -> list[str]:
    if isinstance(stored, dict) and isinstance(given, dict):
        found: list[str] = []
        for key in sorted(set(stored) | set(given)):
            found.extend(_differences(stored.get(key), given.get(key), f"{where}.{key}" if where else key))
        return found
    if stored != given:
        return [f"{where or 'arguments'}: journal has {json.dumps(stored)}, now {json.dumps(given)}"]
    return []


def check_identity(path: str, header: Mapping[str, Any], identity: Mapping[str, Any]) -> None:
    """Refuse (JournalError) a journal made with other arguments or settings."""
    stored = header.get("identity")
    given = json.loads(canonical(identity))
    if stored == given:
        return
    differences = _differences(stored, given)
    shown = "; ".join(differences[:6]) + ("; ..." if len(differences) > 6 else "")
    raise JournalError(f"{path}: this journal was made with other arguments ({shown}); run again with the "
                       "same arguments to resume it, or give a new --journal path")


def journal_seed(path: str | os.PathLike[str]) -> int | None:
    """The seed a journal's arguments name, or None (no journal yet, or no seed)."""
    if not Path(os.fspath(path)).is_file():
        return None
    try:
        journal = Journal.open_existing(path)
    except JournalError:
        return None
    try:
        for record in journal.records():
            if record.kind == "header":
                arguments = json.loads(record.body).get("identity", {}).get("arguments")
                driver = arguments.get("driver") if isinstance(arguments, dict) else None
                found = re.search(r"[?&]seed=(\d+)", driver) if isinstance(driver, str) else None
                return int(found.group(1)) if found else None
            break
    except (JournalError, ValueError, AttributeError):
        return None
    finally:
        journal.close()
    return None


def settings_from_header(path: str, header: Mapping[str, Any]) -> Settings:
    """The game settings a journal was made with (for an independent replay)."""
    stored = header.get("identity", {}).get("settings") if isinstance(header.get("identity"), dict) else None
    if not isinstance(stored, dict):
        raise JournalError(f"{path}: the journal header has no settings")
    layers = {k: v for k, v in stored.items() if isinstance(v, dict)}
    extra = header.get("extra")
    if isinstance(extra, dict):
        layers.update({k: v for k, v in extra.items() if isinstance(v, dict)})
    if isinstance(layers.get("auth"), dict) and "two_person" not in layers["auth"]:
        layers["auth"] = {**layers["auth"], "two_person": False}  # written before approvals needed two people
    try:
        return load_config(None, environ={}, overrides=layers)
    except ConfigError as error:
        raise JournalError(f"{path}: the journal's settings are not valid here ({error})") from None


def journaled_events(journal: Journal) -> Iterator[tuple[int, list[Event]]]:
    """(seq, events) of every start and events record, in order, each event checked by
    :func:`~controller.core.events.decode_event`."""
    for record in journal.records():
        if record.kind in ("start", "events"):
            try:
                raw = json.loads(record.body)["events"]
            except (ValueError, KeyError, TypeError):
                raw = None
            if not isinstance(raw, list):
                raise JournalError(f"{journal.path}: record {record.seq} is not a valid events record")
            yield record.seq, _decoded(journal, record, raw)


def _decoded(journal: Journal, record: Record, raw: list[object]) -> list[Event]:
    """The journaled events of ``record``, checked against the event vocabulary."""
    try:
        return [decode_event(event) for event in raw]
    except EventShapeError as error:
        raise JournalError(f"{journal.path}: record {record.seq} is not a valid events record "
                           f"({error})") from None


# -- replay -----------------------------------------------------------------------


class _Positioned(Protocol):
    @property
    def position(self) -> tuple[int, int]: ...

    def seek(self, shoe: int, offset: int) -> None: ...


@dataclass
class Replay:
    """What replaying a journal into a table found."""

    inputs: int = 0
    events: list[Event] = field(default_factory=list)
    """Every journaled event, in order (start events included)."""
    last_events: list[Event] = field(default_factory=list)
    """The events of the last record that has any (the start events or the last input's)."""
    last_events_seq: int = 0
    unapplied: Input | None = None
    """The last input, when its events were never journaled (the controller stopped in between)."""
    unapplied_events: list[Event] = field(default_factory=list)
    position: tuple[int, int] | None = None
    """The source position after the last input that came from the source."""
    new_shoes: int = 0
    """Shoes the dealer confirmed after the last source input (the source moved to them)."""
    rounds: int = 0


def replay(journal: Journal, table: Table, new_shoes: bool = True) -> Replay:
    """Apply every journaled input to ``table`` (fresh), checking the journaled events.

    Raises :class:`JournalError` if the replay disagrees with the journal (the
    controller's rules changed since the journal was written).
    """
    result = Replay()
    pending: tuple[Record, Input, list[Event]] | None = None
    for record in journal.records():
        if record.kind == "start":
            start_events = _decoded(journal, record, _loads(journal, record)["events"])
            result.events.extend(start_events)
            _note_last(result, record, start_events)
        elif record.kind == "input":
            body = _loads(journal, record)
            if pending is not None:
                raise JournalError(f"{journal.path}: record {pending[0].seq}: an input without its events "
                                   "is followed by another input; the journal is damaged")
            pending = (record, *_replay_input(journal, table, record, body, result, new_shoes))
        elif record.kind != "header":
            if pending is None:
                raise JournalError(f"{journal.path}: record {record.seq}: events without an input")
            _check_events(journal, record, pending[2])
            _count(result, pending[2])
            _note_last(result, record, pending[2])
            pending = None
    if pending is not None:
        _, result.unapplied, result.unapplied_events = pending
        _count(result, result.unapplied_events)
    return result


def _replay_input(journal: Journal, table: Table, record: Record, body: dict[str, Any], result: Replay,
                  new_shoes: bool) -> tuple[Input, list[Event]]:
    """Hand the input of ``record`` to ``table``; note where the source was. Returns (input, its events)."""
    invalid = f"{journal.path}: record {record.seq} is not a valid input"
    try:
        item = Input.from_dict(body["input"])
        if not all(isinstance(text, str | None) for text in (item.card, item.approver)):
            raise TypeError("card and approver are text")
        position = body.get("position")
        if position is not None and not (
                isinstance(position, list) and len(position) == 2
                and all(isinstance(part, int) for part in position)):
            raise TypeError("position is [shoe, offset]")
    except (KeyError, ValueError, TypeError, AttributeError):
        raise JournalError(invalid) from None
    before = table.state
    try:
        events = table.handle(item)
    except Exception as error:  # a damaged input must not crash the controller
        raise JournalError(f"{invalid}: replaying it fails ({type(error).__name__}: {error})") from None
    result.inputs += 1
    if body.get("source"):
        result.position = (position[0], position[1]) if position else None
        result.new_shoes = 0
    elif new_shoes and before is State.SHOE_CLOSED and item.kind is InputKind.SHOE:
        result.new_shoes += 1
    return item, events


def _check_events(journal: Journal, record: Record, events: list[Event]) -> None:
    """The events record holds the events the replayed input gave."""
    if compact({"events": events}) != record.body and canonical(events) != canonical(
            _loads(journal, record).get("events")):
        raise JournalError(
            f"{journal.path}: record {record.seq}: replaying the journal gives other events than were "
            "journaled (was it written by another version of Croupier, or with other settings such as "
            "the [auth] badges?)")


def _note_last(result: Replay, record: Record, events: list[Event]) -> None:
    result.last_events = events
    result.last_events_seq = record.seq


def _loads(journal: Journal, record: Record) -> dict[str, Any]:
    try:
        body = json.loads(record.body)
    except ValueError:
        body = None
    if not isinstance(body, dict) or (record.kind in ("start", "events")
                                      and not isinstance(body.get("events"), list)):
        raise JournalError(f"{journal.path}: record {record.seq} is damaged (not a valid {record.kind} record)")
    return body


def _count(result: Replay, events: list[Event]) -> None:
    result.events.extend(events)
    result.rounds += sum(1 for event in events if event["event"] in ("result", "round_voided"))


# -- attaching to a runner -------------------------------------------------------------


def attach_journal(
    runner: Any,
    path: str | os.PathLike[str],
    *,
    argv_key: Any,
    header_events: list[Event] | None = None,
    replayed: Callable[[list[Event]], None] | None = None,
    notice: Callable[[str], None] | None = None,
) -> Journal:
    """Journal ``runner``'s inputs and events in ``path``, resuming from it if it has records.

    ``runner`` is a :class:`~controller.app.runner.Runner` whose table is fresh.
    On a new journal the header and ``header_events + table.start()`` are
    journaled, then shown. On an existing one (``argv_key`` and the settings
    must match) the inputs are replayed silently (``replayed`` receives their
    events, e.g. to keep counts), the source is moved back to where it was,
    and only the current instruction is shown again (or the last events in
    full, when they may not have been shown before the controller stopped).

    Afterwards every input is committed together with the events the core gave for it, in one
    transaction, before the runner's sink sees them (the core is pure: handling an input shows
    nothing). A source with a ``journaled(item)`` method is told each of its inputs once it is durable
    (a shoe should acknowledge a card only then, or a crash in between loses it). Returns the open journal
    (close it when the run ends). Raises :class:`JournalError` with a clear
    message on any problem.
    """
    table: Table = runner.table
    sink: Callable[[list[Event]], None] = runner.sink
    source = runner.source
    journal = Journal.create_or_open(path)
    try:
        identity = identity_of(table, argv_key)
        if journal.empty:
            start_events = list(header_events or []) + table.start()
            seq = journal.begin(identity, start_events, replay_extra(table))
            sink(start_events)
            journal.mark_delivered(seq)
        else:
            _resume(journal, runner, table, identity, sink, replayed, notice)
    except BaseException:
        journal.close()
        raise

    reader = reader_of(source)

    held: list[tuple[Input, bool, tuple[int, int] | None]] = []
    """The input the core is handling: committed together with its events, before they are shown."""

    def record(item: Input) -> None:
        from_source = item is getattr(runner, "received", None)
        position = reader.position if from_source and reader is not None else None
        held[:] = [(item, from_source, position)]

    def journaled_sink(events: list[Event]) -> None:
        if not held:
            raise JournalError(f"{journal.path}: events without an input reached the journal")
        (item, from_source, position), = held
        held.clear()
        seq = journal.append_input_and_events(item, from_source, position, events)
        if from_source and reader is not None:
            reader.journaled(item)  # a shoe may acknowledge the card only now that it is durable
        sink(events)
        journal.mark_delivered(seq)

    runner.record = record
    runner.sink = journaled_sink
    return journal


def reader_of(source: CardSource) -> Resumable | None:
    """The source that knows its place: ``source``, or the reader a merged source wraps; None for none.

    A source declares it by deriving from :class:`drivers.base.Resumable`; a source that
    wraps another (the reader plus the dealer's keyboard) names the wrapped one's.
    """
    return source.resumable


def _resume(journal: Journal, runner: Any, table: Table, identity: Mapping[str, Any],
            sink: Callable[[list[Event]], None], replayed: Callable[[list[Event]], None] | None,
            notice: Callable[[str], None] | None) -> None:
    verified = verify(journal)
    check_identity(journal.path, verified.header, identity)
    found = replay(journal, table, new_shoes=bool(getattr(runner, "new_shoes", False)))
    if found.unapplied is not None:
        # The input was journaled but its events never were: journal them, then show them.
        seq = journal.append_events(found.unapplied_events)
        show, old = found.unapplied_events, found.events[: len(found.events) - len(found.unapplied_events)]
    elif journal.delivered() < found.last_events_seq:
        # Journaled, but perhaps never shown: show the whole batch again.
        seq = found.last_events_seq
        show, old = found.last_events, found.events[: len(found.events) - len(found.last_events)]
    else:
        seq = 0
        show, old = found.last_events[-1:], found.events
    if replayed is not None:
        replayed(old)
    if not isinstance(getattr(type(runner), "rounds_played", None), property):
        runner.rounds_played = found.rounds  # a runner that counts rounds itself
    source = runner.source
    reader = reader_of(source)
    if found.position is not None and reader is not None:
        # A seekable source goes back to just after the last journaled source input,
        # then is told of the new shoes the dealer confirmed since (the mock loads them;
        # a live shoe, which keeps its own place, knows it is resuming and ignores them).
        reader.seek(*found.position)
        for _ in range(found.new_shoes):
            reader.indicate(Indication.NEW_SHOE)
        if table.model.state is State.SHOE_CLOSED and found.position[0] > table.shoe_number:
            runner.new_shoe_asked = table.shoe_number  # the source already holds the next shoe
    if notice is not None:
        notice(f"resumed from journal {journal.path}: {found.inputs} inputs replayed, "
               f"shoe {table.shoe_number} round {table.round}")
    sink(show)
    if seq:
        journal.mark_delivered(seq)
    source.indicate(table.expecting)

"""Replaying a journal: its identity, an independent replay, and resuming a runner from it (recovery).

Recovery (:func:`attach_journal` on an existing journal) replays the journaled inputs into a fresh
:class:`~controller.core.table.Table` silently, checks that the replay gives the journaled events, moves
the card source back to where it was, and shows the current instruction again.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

from config.loader import load_config
from config.schema import Settings, settings_data
from controller.core.codes import known_code
from controller.core.events import Event, EventShapeError, decode_event
from controller.core.exceptions import ConfigError, JournalDamagedError, JournalError, SnapshotError
from controller.core.inputs import Input
from controller.core.property_check import findings_in
from controller.core.snapshot import restore_into
from controller.core.table import Table
from controller.i18n.message import message
from controller.journal.about import is_training_header, refuse_training_header
from controller.journal.checkpoint import KIND as CHECKPOINT
from controller.journal.checkpoint import Cursor
from controller.journal.compat import (
    EVENTS_FORMAT,
    FIRST_TYPED_FORMAT,
    Upgrader,
    as_kept,
    edition_of_header,
    events_format,
    learns_findings,
    older_form,
)
from controller.journal.journaled import Journaled
from controller.journal.notes import KIND as NOTE
from controller.journal.notes import note_software, resumed
from controller.journal.places import SeededPlaces
from controller.journal.store import (
    IDENTITY_SECTIONS,
    REPLAY_EXTRA,
    Journal,
    Record,
    canonical,
    compact,
    encodes_as,
    parsed,
    written_as,
)
from controller.journal.verify import Verified, verify
from drivers.base import CardSource, Indication, Resumable

# -- identity -------------------------------------------------------------------


UNBOUND_TABLE_KEYS = ("language", "messages_dir", "id")
LATER_KEYS = {("procedures", "count_every"): 0}
"""Game settings added after journals were written, each with the value every journal before it was dealt at: the
identity holds one only when it is another, so those journals resume (and a default table's header is unchanged)."""


def identity_of(table: Table, argv_key: object) -> dict[str, Any]:
    """What a journal is tied to: the arguments key and the game settings."""
    settings = settings_data(table.settings)
    identity: dict[str, Any] = {
        "arguments": json.loads(canonical(argv_key)),
        "settings": {name: settings[name] for name in IDENTITY_SECTIONS},
    }
    for key in UNBOUND_TABLE_KEYS:  # how the table speaks, not how it deals: a resume may change it
        identity["settings"]["table"].pop(key, None)
    for (section, key), before in LATER_KEYS.items():
        if identity["settings"][section].get(key) == before:
            identity["settings"][section].pop(key)
    if table.settings.protection.property_check:  # the sequence check's bound depends on it (never the URL)
        identity["property_check"] = True
    return identity


def replay_extra(table: Table) -> dict[str, Any]:
    """Settings outside the identity that the table's behaviour depends on: ``[bets]`` (what is settled,
    the edge events), and ``[auth]`` when enabled.

    Every key is stored as it was in force (``two_person`` included), so that a journal written
    before a key existed replays as it was dealt.
    """
    settings = settings_data(table.settings)
    protection = {key: value for key, value in settings["protection"].items() if key != "archive"}
    extra = {"bets": settings["bets"], "protection": protection}  # the archive's URL may hold a password
    if table.authority is not None:
        extra.update({name: settings[name] for name in REPLAY_EXTRA})
    return extra


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
    """Refuse (JournalError) a training journal, a journal made with other arguments or settings, or one written by
    an earlier version."""
    refuse_training_header(path, header)
    if events_format(header) < EVENTS_FORMAT:
        raise JournalError(message("journal.earlier_version", "{path}: this journal was written by an earlier "
                                   "version of Croupier (event format {format}); croupier audit verify and croupier "
                                   "history read it, but dealing on needs that version: give a new --journal path",
                                   path=path, format=events_format(header)))
    stored = header.get("identity")
    given = json.loads(canonical(identity))
    if stored == given:
        return
    raise _other_arguments(path, _differences(stored, given))


def _other_arguments(path: str, differences: list[str]) -> JournalError:
    """The refusal of a resume with other arguments or settings, naming the first ``differences``."""
    shown = "; ".join(differences[:6]) + ("; ..." if len(differences) > 6 else "")
    return JournalError(message("journal.other_arguments", "{path}: this journal was made with other arguments "
                                "({differences}); run again with the same arguments to resume it, or give a new "
                                "--journal path", path=path, differences=shown))


REPLAYED_SECTIONS = ("bets", "protection")
"""The sections outside the identity that the header keeps for a replay (:func:`replay_extra`) and a resume must
deal on with: ``audit verify --replay`` replays the whole journal with them."""


def check_replayed_settings(path: str, header: Mapping[str, Any], table: Table) -> None:
    """Refuse (JournalError, naming each difference as :func:`check_identity` does) a resume whose ``[bets]`` or
    ``[protection]`` differ from those ``audit verify --replay`` replays the journal with (its header's): the rounds
    dealt on would give other events (settlements, edges, alerts) than the replay, and the audit would reject the
    journal as tampered."""
    replayed = replay_extra(table_from_header(path, header))
    now = replay_extra(table)
    differences = _differences({name: replayed[name] for name in REPLAYED_SECTIONS},
                               {name: now[name] for name in REPLAYED_SECTIONS})
    if differences:
        raise _other_arguments(path, differences)


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


def table_from_header(path: str, header: Mapping[str, Any]) -> Table:
    """A fresh table with the settings a journal was made with, dealing under the rules of its event format."""
    return Table(settings_from_header(path, header), edition_of_header(header))


def _replayed_reader(url: str) -> str:
    """``[auth] reader`` as a replay takes it: a journal written when the URL could carry more than the reader's
    name (a host, other options, a second reader: all ignored then) replays with the name it used (the replay opens
    no reader)."""
    from urllib.parse import parse_qs, quote, urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    names = parse_qs(parts.query).get("reader")
    if parts.scheme != "pcsc" or not names:
        return url  # refused then too
    if not parts.netloc and not parts.path and set(parse_qs(parts.query, keep_blank_values=True)) == {"reader"} \
            and len(names) == 1:
        return url  # the reader's name alone, as taken now
    return f"pcsc://?reader={quote(names[0], safe=' ')}"


def settings_from_header(path: str, header: Mapping[str, Any]) -> Settings:
    """The game settings a journal was made with (for an independent replay)."""
    stored = header.get("identity", {}).get("settings") if isinstance(header.get("identity"), dict) else None
    if not isinstance(stored, dict):
        raise JournalError(message("journal.no_settings", "{path}: the journal header has no settings", path=path))
    layers = {k: v for k, v in stored.items() if isinstance(v, dict)}
    extra = header.get("extra")
    if isinstance(extra, dict):
        layers.update({k: v for k, v in extra.items() if isinstance(v, dict)})
    if not isinstance(layers.get("bets"), dict):
        layers["bets"] = {"live_edge": False}  # written before bets were settings: no edge events
    if not isinstance(layers.get("protection"), dict):
        layers["protection"] = {"sequence_check": False}  # written before it: no sequence alerts
    if isinstance(layers.get("auth"), dict) and "two_person" not in layers["auth"]:
        layers["auth"] = {**layers["auth"], "two_person": False}  # written before approvals needed two people
    if isinstance(layers.get("auth"), dict) and "lockout_after" not in layers["auth"]:
        layers["auth"] = {**layers["auth"], "lockout_after": 0}  # written before refused badges locked the reader
    offered = layers["bets"].get("offered")
    if isinstance(offered, list) and all(isinstance(name, str) for name in offered):
        # written before a bet listed twice was refused: settled once then (the second dropped), as once now
        layers["bets"] = {**layers["bets"], "offered": list(dict.fromkeys(offered))}
    if isinstance(layers.get("auth"), dict) and isinstance(layers["auth"].get("reader"), str):
        layers["auth"] = {**layers["auth"], "reader": _replayed_reader(layers["auth"]["reader"])}
    try:
        return load_config(None, environ={}, overrides=layers)
    except ConfigError as error:
        raise JournalError(message("journal.settings_invalid", "{path}: the journal's settings are not valid here "
                                   "({reason})", path=path, reason=str(error))) from None


Unreadable = Callable[[Record, JournalError], None]
"""Told of each record that cannot be read (it is then left out): the record, and why."""


def journaled_events(journal: Journal, unreadable: Unreadable | None = None) -> Iterator[tuple[int, list[Event]]]:
    """(seq, events) of every start and events record, in order, each event checked by
    :func:`~controller.core.events.decode_event` (a format-1 journal's alerts given their id and severity:
    :mod:`controller.journal.compat`). A record that cannot be read raises :class:`JournalError`; with
    ``unreadable`` it is told instead, and left out (what can be read is still given)."""
    upgrade: Upgrader | None = None
    for record in journal.records():
        try:
            if record.kind == "header":
                upgrade = upgrader_of(journal, record)
            if record.kind not in ("start", "events"):
                continue
            events = events_of(journal, record, upgrade)
        except JournalError as error:
            if unreadable is None:
                raise
            unreadable(record, error)
            continue
        yield record.seq, events


def upgrader_of(journal: Journal, header: Record) -> Upgrader | None:
    """What gives the events of the journal whose header is ``header`` today's form (None: they have it)."""
    return Upgrader() if events_format(_loads(journal, header)) < FIRST_TYPED_FORMAT else None


def events_of(journal: Journal, record: Record, upgrade: Upgrader | None = None) -> list[Event]:
    """The events of start or events ``record``, checked (format-1 alerts given their id and severity by
    ``upgrade``); raises :class:`JournalError` naming it when it does not hold a list of the table's events."""
    try:
        raw = json.loads(record.body)["events"]
    except (ValueError, KeyError, TypeError):
        raw = None
    if not isinstance(raw, list):
        raise JournalError(f"{journal.path}: record {record.seq} is not a valid events record")
    return _decoded(journal, record, [upgrade(event) for event in raw] if upgrade else raw)


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
    """Inputs replayed (since the checkpoint resumed from, if any)."""
    events: list[Event] = field(default_factory=list)
    """The journaled events, in order: all of them (start events included) on a replay from the start;
    from the beginning of the current shoe on, when resumed from a checkpoint."""
    earlier: Counter[str] = field(default_factory=Counter)
    """The totals (:func:`~controller.core.tally.count_events`) of the journaled events before ``events``."""
    last_events: list[Event] = field(default_factory=list)
    """The events of the last record that has any (the start events or the last input's)."""
    last_events_seq: int = 0
    unapplied: Input | None = None
    """The last input, when its events were never journaled (a journal written before an input and its
    events were one transaction: the controller stopped in between)."""
    unapplied_events: list[Event] = field(default_factory=list)
    cursor: Cursor = field(default_factory=Cursor)
    """Where the game stands besides the table (what the next checkpoint keeps)."""
    checkpoints: int = 0
    """Checkpoints checked against the replay."""
    keeps_events: bool = True
    """``events`` holds the journaled events (a check that needs only the outcome keeps none)."""
    places: SeededPlaces | None = None
    """The check of each source input's place, when the journal's source is a seeded shoe."""

    @property
    def position(self) -> tuple[int, int] | None:
        """The source position after the last input that came from the source."""
        return self.cursor.position

    count_new_shoes: bool = True
    """The runner loads a new shoe after one closes (else the source never moved to one)."""

    @property
    def new_shoes(self) -> int:
        """Shoes the dealer confirmed after the last source input (the source moved to them)."""
        return self.cursor.new_shoes if self.count_new_shoes else 0

    @property
    def rounds(self) -> int:
        return self.cursor.rounds


def replay(journal: Journal, table: Table, new_shoes: bool = True, resume: Record | None = None,
           edges_from_journal: bool = False, keep_events: bool = True) -> Replay:
    """Apply the journaled inputs to ``table`` (fresh), checking the journaled events.

    From the start (``resume`` None), every checkpoint is checked against the replay. With ``resume``
    (the last checkpoint record) the table is restored from it and only the inputs after it are
    replayed; the events from the start of its shoe up to it are read back, not replayed.
    With ``edges_from_journal`` (a resume) each replayed round's bet values are taken from the journaled
    ``edge`` event of the input that began it instead of being computed again (the exact edge is a pure
    function of the cards shown, and every other event, the advantage alerts included, is still replayed
    and compared); ``audit verify --replay`` recomputes them all. Without ``keep_events`` (a check) the result's
    ``events`` stay empty and nothing before ``resume`` is read: memory does not hold a shoe's events.
    Raises :class:`JournalError` if the replay disagrees with the journal (the controller's rules
    changed since the journal was written, or a checkpoint was edited).
    """
    result = Replay(count_new_shoes=new_shoes, keeps_events=keep_events, places=_places_of(journal))
    records = journal.records() if resume is None else _resumed_from(journal, table, resume, result)
    pending: tuple[Record, dict[str, Any]] | None = None
    """An input record, handled when its events record is read (it may hold the round's edge)."""
    older = _older(journal)
    for record in records:
        if resume is not None and record.seq <= resume.seq:
            _read_back(journal, record, result)
        elif record.kind == "start":
            start_events = _decoded(journal, record, _loads(journal, record)["events"])
            _count(result, record.seq, start_events)
            _note_last(result, record, start_events)
        elif record.kind == "input":
            if pending is not None:
                raise JournalError(f"{journal.path}: record {pending[0].seq}: an input without its events "
                                   "is followed by another input; the journal is damaged")
            pending = (record, _loads(journal, record))
        elif record.kind in (CHECKPOINT, NOTE):
            _between_inputs(journal, table, record, result, pending is not None)
        elif record.kind != "header":
            if pending is None:
                raise JournalError(f"{journal.path}: record {record.seq}: events without an input")
            _replay_step(journal, table, pending, record, result, new_shoes, older, edges_from_journal)
            pending = None
    if pending is not None:
        result.unapplied, result.unapplied_events = _replay_input(journal, table, *pending, result, new_shoes)
        _count(result, journal.last_seq + 1, result.unapplied_events)
    if resume is not None and keep_events and learns_findings(_loads(journal, resume)["state"]):
        _learn_findings(table, result.events)
    return result


def _places_of(journal: Journal) -> SeededPlaces | None:
    """The check of the places a seeded shoe gave the journal's inputs at (None: no such shoe)."""
    header = journal.record(1)
    if header is None or header.kind != "header":
        return None
    try:
        body = json.loads(header.body)
    except ValueError:
        return None
    return SeededPlaces.of_header(body) if isinstance(body, dict) else None


def _between_inputs(journal: Journal, table: Table, record: Record, result: Replay, after_input: bool) -> None:
    """A checkpoint (checked against the replay) or a note (no part of the game), which never follow an input
    without its events."""
    if after_input:
        raise JournalError(f"{journal.path}: record {record.seq}: a {record.kind} follows an input without its "
                           "events; the journal is damaged")
    if record.kind == CHECKPOINT:
        _check_checkpoint(journal, table, record, result)


def _resumed_from(journal: Journal, table: Table, resume: Record, result: Replay) -> Iterator[Record]:
    """Restore ``table`` from checkpoint ``resume``; the records a resume from it reads (from its shoe's start)."""
    result.cursor = _restore(journal, table, resume)
    result.earlier = Counter(result.cursor.before_shoe)
    if "earlier" not in _loads(journal, resume)["state"]:
        table.with_earlier(result.earlier)
    return journal.records(result.cursor.shoe_from if result.keeps_events else resume.seq + 1)


def _learn_findings(table: Table, events: list[Event]) -> None:
    """Give ``table``, restored from a checkpoint written before tables kept their property findings, those its
    shoe's journaled ``events`` name (so a resumed property check does not give them again)."""
    table.with_findings(findings_in(events, table.shoe_number))


def _read_back(journal: Journal, record: Record, result: Replay) -> None:
    """A record of the current shoe up to the checkpoint resumed from: its events are read, not replayed."""
    if record.kind in ("start", "events"):
        events = _decoded(journal, record, _loads(journal, record)["events"])
        result.events.extend(events)
        _note_last(result, record, events)


def _replay_step(journal: Journal, table: Table, pending: tuple[Record, dict[str, Any]], record: Record,
                 result: Replay, new_shoes: bool, older: bool, edges_from_journal: bool) -> None:
    """Replay the input ``pending`` holds and check its events against events ``record``."""
    if edges_from_journal:
        table.known_edges.update(journaled_edges(record))
    _, events = _replay_input(journal, table, *pending, result, new_shoes)
    table.known_edges.clear()
    _check_events(journal, record, events, older)
    _count(result, record.seq, events)
    _note_last(result, record, events)


EDGE_MARK = '"event":"edge"'
"""How an events record that holds an ``edge`` event reads (compact JSON)."""


def journaled_edges(record: Record) -> dict[tuple[int, int], dict[str, Fraction]]:
    """(shoe, round) -> bet values of the ``edge`` events journaled in events ``record``; an edge that does not
    read as one is left out (the replay then computes it, and compares)."""
    if EDGE_MARK not in record.body:
        return {}
    try:
        events = json.loads(record.body)["events"]
    except (ValueError, KeyError, TypeError):
        return {}
    found: dict[tuple[int, int], dict[str, Fraction]] = {}
    for event in events if isinstance(events, list) else []:
        try:
            if event["event"] == "edge":
                found[(event["shoe"], event["round"])] = {str(name): Fraction(value["ev"])
                                                          for name, value in event["bets"].items()}
        except (KeyError, TypeError, ValueError, ZeroDivisionError, AttributeError):
            continue
    return found


def _shoe_start(anchor: Record) -> int:
    """The first record a resume from checkpoint ``anchor`` reads (its shoe's start), for the chain check;
    a checkpoint that does not name one is checked from itself (the resume then names it)."""
    try:
        shoe_from = json.loads(anchor.body).get("shoe_from")
    except (ValueError, AttributeError):
        return anchor.seq
    return shoe_from if isinstance(shoe_from, int) and 0 < shoe_from < anchor.seq else anchor.seq


def _restore(journal: Journal, table: Table, record: Record) -> Cursor:
    """Put ``table`` in the state checkpoint ``record`` keeps; returns the checkpoint's cursor."""
    body = _loads(journal, record)
    try:
        cursor = Cursor.from_body(body)
        restore_into(table, body["state"])
    except (KeyError, TypeError, ValueError, SnapshotError) as error:
        raise JournalError(f"{journal.path}: record {record.seq} is not a valid checkpoint ({error}); keep the "
                           "journal for the audit (croupier audit verify --replay)") from None
    if not 0 < cursor.shoe_from < record.seq:
        raise JournalError(f"{journal.path}: record {record.seq} is not a valid checkpoint (its shoe begins "
                           f"at record {cursor.shoe_from})")
    return cursor


def _check_checkpoint(journal: Journal, table: Table, record: Record, result: Replay) -> None:
    """Checkpoint ``record`` keeps the state the replay reached (names what differs when it does not)."""
    reached = result.cursor.body(table)
    result.checkpoints += 1
    if encodes_as(reached, record.body) or written_as(reached, record.body):  # as this version writes it: not read
        return
    body = _loads(journal, record)
    expected = as_kept(body, reached)
    if canonical(body) == canonical(expected):
        return
    differing = sorted(key for key in set(body) | set(expected) if canonical(body.get(key)) != canonical(
        expected.get(key)))
    raise JournalError(f"{journal.path}: record {record.seq}: the checkpoint does not match the replay "
                       f"(it differs in {', '.join(differing)}); it was edited, or written by another version "
                       "of Croupier")


def input_of(journal: Journal, record: Record, body: Mapping[str, Any]) -> Input:
    """The input the body of input ``record`` holds, checked (its ``position``, when it has one, is ``[shoe,
    offset]``); raises :class:`JournalError` naming the record when it is not a valid input."""
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
        raise JournalError(f"{journal.path}: record {record.seq} is not a valid input") from None
    return item


def handled(journal: Journal, table: Table, record: Record, item: Input) -> list[Event]:
    """The events ``table`` gives for ``item``, the input of ``record``; raises :class:`JournalError` naming the
    record when the table cannot take it (a damaged input must not crash the controller)."""
    try:
        return table.handle(item)
    except Exception as error:
        raise JournalError(f"{journal.path}: record {record.seq} is not a valid input: replaying it fails "
                           f"({type(error).__name__}: {error})") from None


def _replay_input(journal: Journal, table: Table, record: Record, body: dict[str, Any], result: Replay,
                  new_shoes: bool) -> tuple[Input, list[Event]]:
    """Hand the input of ``record`` to ``table``; note where the source was. Returns (input, its events)."""
    item = input_of(journal, record, body)
    closed = table.may("load_shoe")
    events = handled(journal, table, record, item)
    result.inputs += 1
    source = bool(body.get("source"))
    position = body.get("position")
    place = (position[0], position[1]) if source and position else None
    if place is not None and result.places is not None:
        result.places.check(journal.path, record.seq, item, result.cursor.position, place)
    result.cursor.note_input(item, closed, source, place)
    return item, events


def _older(journal: Journal) -> bool:
    """The journal's events are in format 1 (:mod:`controller.journal.compat`)."""
    first = next(iter(journal.records()), None)
    return first is not None and first.kind == "header" and events_format(_loads(journal, first)) < FIRST_TYPED_FORMAT


def _check_events(journal: Journal, record: Record, events: list[Event], older: bool = False) -> None:
    """The events record holds the events the replayed input gave (in the form of its time when the journal
    is ``older``: format 1)."""
    written = journal.events_body(events)
    if encodes_as(written, record.body) or compact(written) == record.body:
        return
    body = _loads(journal, record)
    stored = body.get("events")
    if ("codes" in body or "device" in body) and (
            body.get("device") != journal.device or body.get("codes") != [known_code(event) for event in events]):
        raise JournalError(f"{journal.path}: record {record.seq}: its device or event codes are not those of its "
                           "events (was it edited?)")
    if canonical(events) != canonical(stored) and not (
            older and canonical(older_form(list(events))) == canonical(stored)) and not (
            isinstance(stored, list) and canonical(_unworded(events)) == canonical(_unworded(stored))):
        raise JournalError(
            f"{journal.path}: record {record.seq}: replaying the journal gives other events than were "
            "journaled (was it written by another version of Croupier, or with other settings such as "
            "the [auth] badges?)")


WORDED_FIELD = {"cut_card": "detail", "alert": "detail", "misdeal": "detail"}
"""Events whose ``say_id`` words a field other than ``say``."""


def _unworded(events: list[Any]) -> list[Any]:
    """``events`` without the English that their message ids and parameters give (a ``say`` with its
    ``say_id``, a ``reason`` with its ``reason_id``, a misdeal's ``instruction`` from its ``resolutions``): a
    journal written before a message was reworded replays to the same ids, parameters and every machine field,
    which are all still compared."""
    plain: list[Any] = []
    for event in events:
        fields = event.to_dict() if isinstance(event, Event) else dict(event) if isinstance(event, dict) else event
        if isinstance(fields, dict):
            if "say_id" in fields:
                fields.pop(WORDED_FIELD.get(str(fields.get("event")), "say"), None)
            if "reason_id" in fields:
                fields.pop("reason", None)
                said = fields.get("say_params")
                if isinstance(said, dict) and "reason" in said:  # the same English, framed by the say
                    fields["say_params"] = {name: value for name, value in said.items() if name != "reason"}
            if fields.get("event") == "misdeal" and "resolutions" in fields:
                fields.pop("instruction", None)
        plain.append(fields)
    return plain


def _note_last(result: Replay, record: Record, events: list[Event]) -> None:
    result.last_events = events
    result.last_events_seq = record.seq


def body_of(journal: Journal, record: Record) -> dict[str, Any]:
    """The JSON body of ``record``; raises :class:`JournalError` naming it when it is not a valid record of its kind."""
    return _loads(journal, record)


def _loads(journal: Journal, record: Record) -> dict[str, Any]:
    try:
        body = parsed(record.body)
    except ValueError:
        body = None
    if not isinstance(body, dict) or (record.kind in ("start", "events")
                                      and not isinstance(body.get("events"), list)):
        raise JournalError(f"{journal.path}: record {record.seq} is damaged (not a valid {record.kind} record)")
    return body


def _count(result: Replay, seq: int, events: list[Event]) -> None:
    if result.keeps_events:
        result.events.extend(events)
    result.cursor.note_events(seq, events)


# -- trusting a journal ---------------------------------------------------------------


@dataclass
class Trusted:
    """What :func:`trust` checked: the whole chain, and the last checkpoint against a replay of its shoe."""

    verified: Verified
    checkpoint: int = 0
    """The last checkpoint's record (0: the journal has none)."""
    replayed: int = 0
    """The inputs replayed to check it (with no checkpoint: every input, from the journal's start)."""


def trust(journal: Journal) -> Trusted:
    """Check what ``croupier audit verify`` checks by default, and a resume before it opens the journal for
    writing: the whole hash chain (:func:`~controller.journal.verify.verify`) and the last checkpoint against a
    replay of its shoe, or, with no checkpoint yet, every event against a replay from the journal's start
    (:func:`check_last_checkpoint`). Raises :class:`JournalError` naming the record."""
    verified = verify(journal)
    last = journal.last_checkpoint()
    return Trusted(verified, last.seq if last is not None else 0,
                   check_last_checkpoint(journal, verified.header, last))


def check_last_checkpoint(journal: Journal, header: Mapping[str, Any], last: Record | None) -> int:
    """Check checkpoint ``last`` against a replay of its whole shoe; returns the inputs replayed.

    A fresh table with the header's settings is restored from the last checkpoint written before the shoe
    began (where it began is read from the journaled events, not from the checkpoint; none: the replay starts
    at the journal's start), and every input from there to the end is replayed and compared with its journaled
    events, each checkpoint on the way with the state the replay reached (:func:`replay`; each round's edge is
    taken from the journal, as a resume does). With no checkpoint yet (``last`` None) every input from the
    journal's start is replayed and compared, as a resume replays them (a training drill's journal, whose inputs
    are a trainee's answers and which is never resumed, has only its chain checked: 0). Raises
    :class:`JournalError` naming the first record that differs: a checkpoint forged with the hash chain
    recomputed after it, or an edited event of the shoe.
    """
    if last is None:
        if is_training_header(header):
            return 0
        return replay(journal, table_from_header(journal.path, header), edges_from_journal=True,
                      keep_events=False).inputs
    table = table_from_header(journal.path, header)
    try:
        Cursor.from_body(_loads(journal, last))
    except (KeyError, TypeError, ValueError) as error:  # named as what it is, before the replay
        raise JournalError(f"{journal.path}: record {last.seq} is not a valid checkpoint ({error})") from None
    began = _shoe_began(journal, last.seq)
    anchor = next(journal.records_back(began, (CHECKPOINT,)), None) if began else None
    return replay(journal, table, resume=anchor, edges_from_journal=True, keep_events=False).inputs


def _shoe_began(journal: Journal, before: int) -> int:
    """The record whose events began the shoe in play at record ``before``, read from the journaled events
    (0: none found)."""
    for record in journal.records_back(before, ("start", "events")):
        if '"shoe"' not in record.body or '"new"' not in record.body:
            continue
        try:
            events = json.loads(record.body)["events"]
        except (ValueError, KeyError, TypeError):
            continue
        if isinstance(events, list) and any(isinstance(event, dict) and event.get("event") == "shoe"
                                            and event.get("status") == "new" for event in events):
            return record.seq
    return 0


def _trusted_for_resume(journal: Journal) -> None:
    """:func:`trust` before a resume; a refusal says to keep the journal and give a new path."""
    try:
        trust(journal)
    except JournalDamagedError:
        raise  # it says what to do
    except JournalError as error:
        problem = error.message if error.message is not None else str(error)
        refusal = message("journal.not_resumed", "{problem}; it is not resumed: keep it for the audit (croupier "
                          "audit verify) and give a new --journal path", problem=problem)
        raise type(error)(refusal) from None


# -- attaching to a runner -------------------------------------------------------------


def attach_journal(
    runner: Journaled,
    path: str | os.PathLike[str],
    *,
    argv_key: object,
    header_events: list[Event] | None = None,
    replayed: Callable[[list[Event]], None] | None = None,
    notice: Callable[[str], None] | None = None,
    earlier: Callable[[Mapping[str, int]], None] | None = None,
    reserve: int = 0,
    device: str | None = None,
    start: Mapping[str, Any] | None = None,
) -> Journal:
    """Journal ``runner``'s inputs and events in ``path``, resuming from it if it has records.

    ``runner`` is the loop to journal (:class:`Journaled`: the app's runner), its table fresh.
    On a new journal the header and ``header_events + table.start()`` are
    journaled, then shown. On an existing one (``argv_key`` and the settings
    must match) the table is restored from the last checkpoint and the inputs after it are replayed
    silently (``replayed`` receives the journaled events from the start of the current shoe on, and
    ``earlier`` the totals of those before, e.g. to keep counts), the source is moved back to where it was,
    and only the current instruction is shown again (or the last events in
    full, when they may not have been shown before the controller stopped).

    Afterwards every input is committed together with the events the core gave for it, in one
    transaction, before the runner's sink sees them (the core is pure: handling an input shows
    nothing). The source that keeps its place (:attr:`~drivers.base.CardSource.resumable`) is told each of its inputs
    once it is durable
    (a shoe should acknowledge a card only then, or a crash in between loses it). Returns the open journal
    (close it when the run ends). ``reserve`` is :meth:`Journal.create_or_open`'s (a live table's WAL
    written up front). ``start`` is what a new journal's start record states beside its events
    (:meth:`Journal.begin`: the mode, the software); resuming, a ``software`` other than the journal last recorded
    is noted (:func:`~controller.journal.notes.note_software`). ``device``: the table's id, which a new journal's
    header and events records carry (with each event's code). Raises :class:`JournalError` with a clear message on
    any problem.
    """
    table = runner.table
    sink = runner.sink
    source = runner.source
    journal = Journal.create_or_open(path, reserve, vet=_trusted_for_resume)
    try:
        identity = identity_of(table, argv_key)
        if journal.empty:
            start_events = list(header_events or []) + table.start()
            seq = journal.begin(identity, start_events, replay_extra(table), start=start, device=device)
            cursor = Cursor()
            cursor.note_events(seq, start_events)
            sink(start_events)
            journal.mark_delivered(seq)
        else:
            cursor = _resume(journal, runner, table, identity, sink, replayed, notice, earlier)
            note_software(journal, (start or {}).get("software"))
    except BaseException:
        journal.close()
        raise

    reader = reader_of(source)
    every = table.settings.journal.checkpoint_every

    held: list[tuple[Input, bool, tuple[int, int] | None, bool]] = []
    """The input the core is handling: committed together with its events, before they are shown."""

    def record(item: Input) -> None:
        from_source = item is runner.received
        position = reader.position if from_source and reader is not None else None
        held[:] = [(item, from_source, position, table.may("load_shoe"))]

    def journaled_sink(events: list[Event]) -> None:
        if not held:
            raise JournalError(f"{journal.path}: events without an input reached the journal")
        (item, from_source, position, closed), = held
        held.clear()
        cursor.note_input(item, closed, from_source, position)
        began = cursor.note_events(journal.last_seq + 2, events)
        seq = journal.append_input_and_events(item, from_source, position, events)
        if from_source and reader is not None:
            reader.journaled(item)  # a shoe may acknowledge the card only now that it is durable
        sink(events)
        journal.mark_delivered(seq)
        if cursor.due(began, every):  # off the card's path: its prompt is shown
            journal.append_checkpoint(cursor.body(table))

    runner.record = record
    runner.sink = journaled_sink
    return journal


def _note_resumed(journal: Journal, table: Table, inputs: int) -> None:
    """Journal the restart (L2: a power cut or a crash is a significant event), after the last record before it."""
    last = journal.record(journal.last_seq)
    view = table.view
    journal.append_note(resumed(last.at if last is not None else "", inputs, table.shoe_number, table.round,
                                view.misdeal.kind if view.misdeal is not None else None, view.stopped_by))


def still_halted(table: Table) -> str:
    """What a table restored after a restart still waits for (an error from before it comes back: E3), or ""."""
    view = table.view
    if view.stopped_by is not None:
        return f"; still stopped on critical alert {view.stopped_by} from before the restart (release it: @ack)"
    if view.misdeal is not None:
        keys = " ".join(f"@{resolution}" for resolution in view.misdeal.resolutions)
        return f"; still halted on the {view.misdeal.kind} misdeal from before the restart (resolve it: {keys})"
    return ""


def journal_fault(path: str | os.PathLike[str], note: Mapping[str, Any], table: Table, argv_key: Any,
                  header_events: list[Event], start: Mapping[str, Any] | None = None) -> None:
    """Journal ``note`` (a fault that stops the table before it plays: the software failed its verification) in
    the journal at ``path``: a new journal is begun as :func:`attach_journal` would (``table`` fresh), an existing
    one is checked as a resume checks it first. Raises :class:`JournalError` when it cannot be journaled (a
    journal that ends with an input whose events were never written takes no note)."""
    journal = Journal.create_or_open(path, vet=_trusted_for_resume)
    try:
        if journal.empty:
            journal.begin(identity_of(table, argv_key), list(header_events) + table.start(), replay_extra(table),
                          start=start)
        else:
            last = journal.record(journal.last_seq)
            if last is not None and last.kind == "input":
                raise JournalError(message("journal.note_after_input", "{path}: the journal ends with an input whose "
                                           "events were never written; the fault is not journaled there",
                                           path=journal.path))
        journal.append_note(note)
    finally:
        journal.close()


def reader_of(source: CardSource) -> Resumable | None:
    """The source that knows its place: ``source``, or the reader a merged source wraps; None for none.

    A source declares it by deriving from :class:`drivers.base.Resumable`; a source that
    wraps another (the reader plus the dealer's keyboard) names the wrapped one's.
    """
    return source.resumable


def _resume(journal: Journal, runner: Journaled, table: Table, identity: Mapping[str, Any],
            sink: Callable[[list[Event]], None], replayed: Callable[[list[Event]], None] | None,
            notice: Callable[[str], None] | None,
            earlier: Callable[[Mapping[str, int]], None] | None) -> Cursor:
    anchor = journal.last_checkpoint()
    verified = verify(journal, since=_shoe_start(anchor) if anchor is not None else 1)
    check_identity(journal.path, verified.header, identity)
    check_replayed_settings(journal.path, verified.header, table)
    found = replay(journal, table, new_shoes=runner.new_shoes, resume=anchor,
                   edges_from_journal=True)
    if found.unapplied is not None:
        # An old journal's input whose events were never journaled: journal them, then show them.
        seq = journal.append_events(found.unapplied_events)
        show, old = found.unapplied_events, found.events[: len(found.events) - len(found.unapplied_events)]
    elif journal.delivered() < found.last_events_seq:
        # Journaled, but perhaps never shown: show the whole batch again.
        seq = found.last_events_seq
        show, old = found.last_events, found.events[: len(found.events) - len(found.last_events)]
    else:
        seq = 0
        show, old = found.last_events[-1:], found.events
    _note_resumed(journal, table, found.inputs)
    if earlier is not None and found.earlier:
        earlier(found.earlier)
    if replayed is not None:
        replayed(old)
    source = runner.source
    reader = reader_of(source)
    if found.position is not None and reader is not None:
        # A seekable source goes back to just after the last journaled source input,
        # then is told of the new shoes the dealer confirmed since (the mock loads them;
        # a live shoe, which keeps its own place, knows it is resuming and ignores them).
        reader.seek(*found.position)
        if not table.reader_online:
            reader.resumed_offline()  # the journal ends with the reader offline: its line may be back
        for _ in range(found.new_shoes):
            reader.indicate(Indication.NEW_SHOE)
        if table.may("load_shoe") and found.position[0] > table.shoe_number:
            runner.new_shoe_asked = table.shoe_number  # the source already holds the next shoe
    if notice is not None:
        notice(f"resumed from journal {journal.path}: {found.inputs} inputs replayed, "
               f"shoe {table.shoe_number} round {table.round}{still_halted(table)}")
    sink(show)
    if seq:
        journal.mark_delivered(seq)
    source.indicate(table.expecting)
    return found.cursor

"""The journal: a durable, tamper-evident record of every input and every event.

A journal is an SQLite database (stdlib :mod:`sqlite3`, WAL mode,
``synchronous=FULL``). It holds one hash-chained table of records:

``header``
    the first record: the format, and the identity of the arguments and
    settings the table was started with (a journal refuses other arguments);
``start``
    the events shown when the table started (the ``table`` header event and
    ``Table.start()``);
``input``
    one input to the table core (reader event, dealer input, approval), with
    whether it came from the card source and, when the source can say, its
    position ``[shoe, offset]`` just after the input was delivered;
``events``
    the events the core emitted for the input just before it (committed in one transaction with it);
``checkpoint``
    the table's state after the events before it, at every new shoe and every ``[journal]
    checkpoint_every`` inputs (:mod:`controller.journal.checkpoint`): a resume replays only what follows.
    Committed (fsync'd) on its own once those events were shown, so the card's commit stays one small
    transaction; a crash in between only means the resume starts from the checkpoint before;
``note``
    what happened to the software between two runs or before play (:mod:`controller.journal.notes`: the software
    changed since the journal last recorded it, or failed its verification), and each restart (``resumed``);
    never after an input, and no part of the table's game (a replay passes over it).

Every record is committed (fsync'd) before anything that follows from it
happens: an input and its events (the core is pure, so handling the input
shows nothing) before the events are passed on to the screen or the JSON stream. Each record carries the SHA-256
of the record before it, over a canonical serialization that includes its
sequence number, so an edited, deleted, inserted or reordered record breaks
the chain (``croupier audit verify``). Opening the file, its format check and
a new journal's draft are in :mod:`controller.journal.files`.

Recovery (:func:`attach_journal` on an existing journal) replays the
journaled inputs into a fresh :class:`~controller.core.table.Table` silently,
checks that the replay gives the journaled events, moves the card source back
to where it was, and shows the current instruction again. See
``docs/journal.md``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from controller.core.codes import known_code
from controller.core.events import Event, EventLike, as_json
from controller.core.exceptions import JournalError, JournalTamperedError
from controller.core.inputs import Input
from controller.journal.compat import EVENTS_FORMAT
from controller.journal.files import (
    APPLICATION_ID,
    FORMAT,
    VERSION,
    Draft,
    Tail,
    check_existing,
    connect,
    describe_error,
    lock,
    open_error,
    open_for_writing,
    open_read_only,
    reserve_wal,
    use_wal,
)
from controller.journal.files import GENESIS as GENESIS  # kept here too: the readers of records import them from here
from controller.journal.files import record_hash as record_hash

WAL_CHECKPOINT_EVERY = 200
"""Commits between two WAL checkpoints; each is run after a batch was shown (:meth:`Journal.mark_delivered`),
never between a card and its prompt (SQLite's automatic checkpoint would run inside a commit)."""
KINDS = ("header", "start", "input", "events", "checkpoint", "note")
IDENTITY_SECTIONS = ("table", "shoe", "procedures", "simulation")
"""Settings sections that make a table what it is; a journal refuses other values."""
REPLAY_EXTRA = ("auth",)
"""Optional sections the core reads: kept in the header for ``audit verify --replay``."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS journal_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
    seq  INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    at   TEXT NOT NULL,
    body TEXT NOT NULL,
    prev TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS delivered (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL
);
"""
# The feed's table ``feed_acked`` (the last record the archive confirmed) is created by the feed's own
# connection when a table publishes (controller/journal/outbox.py); a journal without a feed has none.


STORED = "seq, kind, at, body, prev, hash"
"""A record's fields as the database holds them."""
AS_TEXT = ", ".join(["seq"] + [f"coalesce(CAST({name} AS TEXT), '')"
                               for name in ("kind", "at", "body", "prev", "hash")])
"""A record's fields as text, for its readers: a field an edit stored as bytes is the text it holds (the audit names
that record: it reads them as stored), a missing one is empty."""


class Record(NamedTuple):
    """One stored record, as read from the database."""

    seq: int
    kind: str
    at: str
    body: str
    prev: str
    hash: str


def canonical(value: Any) -> str:
    """The canonical JSON text of ``value``: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=as_json)


def compact(value: Any) -> str:
    """The stored JSON text of a record body: compact, UTF-8, keys in the order given
    (so events read back exactly as the table emitted them)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=as_json)


_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=as_json)
_FAST_ENCODER = msgspec.json.Encoder()
_FAST_DECODER = msgspec.json.Decoder()


def encodes_as(value: Any, text: str) -> bool:
    """msgspec's compact JSON of ``value`` is ``text`` (several times faster than :func:`compact`). It writes what
    :func:`compact` writes but for a float's exponent (``1e-6`` for ``1e-06``, a form :func:`compact` never
    writes), so when it is a text :func:`compact` wrote, ``value`` is the JSON value that text holds; False
    also when it cannot encode ``value`` (the caller then compares as before)."""
    try:
        return _FAST_ENCODER.encode(value) == text.encode()
    except (TypeError, ValueError):
        return False


def parsed(text: str) -> Any:
    """``json.loads(text)``, through msgspec's decoder where it can read ``text`` (strict JSON: what it reads,
    it reads as :mod:`json` does), else :mod:`json`'s (which also takes ``NaN``, out-of-range numbers and lone
    surrogates, as a journal's check always has). Raises ValueError when neither can (nested too deep included)."""
    try:
        try:
            return _FAST_DECODER.decode(text)
        except msgspec.DecodeError:
            return json.loads(text)
    except RecursionError:
        raise ValueError("the JSON is nested too deep") from None


def written_as(value: Any, text: str) -> bool:
    """``compact(value) == text``, compared piece by piece as the text is made, never whole (a checkpoint's
    text grows with the day's open alerts and earlier shoes: a check holds none of it)."""
    position = 0
    for piece in _COMPACT.iterencode(value):
        end = position + len(piece)
        if text[position:end] != piece:
            return False
        position = end
    return position == len(text)


def input_body(item: Input, from_source: bool, position: tuple[int, int] | None) -> dict[str, Any]:
    """The body of an ``input`` record."""
    body: dict[str, Any] = {"input": item.to_dict(), "source": from_source}
    if position is not None:
        body["position"] = list(position)
    return body


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


# -- the database ---------------------------------------------------------------


class Journal:
    """An open journal database. Use :meth:`create_or_open` or :meth:`open_existing`."""

    def __init__(self, path: str, connection: sqlite3.Connection, tail: Tail = None) -> None:
        self.path = path
        self.connection = connection
        self.last_seq, self.last_hash = tail or (0, GENESIS)
        self.failed: str | None = None
        """Set when a write failed: the journal then refuses every further write."""
        self._lock_fd: int | None = None
        self._draft: Draft | None = None
        """The temporary file a new journal is written to until :meth:`begin` publishes it."""
        self._commits = 0
        """Commits since the last WAL checkpoint."""
        self._reserve = 0
        """The WAL's size to write up front once a new journal is published (``create_or_open``)."""
        self._device: str | bool | None = False
        """The table's id its header names (None: a journal written before event records carried it); False until
        read."""

    # -- opening ----------------------------------------------------------------
    @classmethod
    def create_or_open(cls, path: str | os.PathLike[str], reserve: int = 0,
                       vet: Callable[[Journal], None] | None = None) -> Journal:
        """Open ``path`` for writing; a path with no file is a new journal.

        An existing file is first checked read-only, so a file that is not a
        journal, or a journal that was emptied, is refused without being touched; with ``vet`` (a resume's
        checks: :func:`~controller.journal.replay.trust`) it is then locked and given to ``vet`` opened read-only,
        and opened for writing only if ``vet`` raises nothing.
        A new journal is written under a temporary name and appears at ``path``
        only once its first records are on disk (see :meth:`begin`). With ``reserve`` (bytes, a live
        table: :data:`~controller.journal.files.WAL_RESERVE`) the WAL is written to that size up front
        (:func:`~controller.journal.files.reserve_wal`), so a card's commit does not grow a file.
        """
        name = os.fspath(path)
        target = Path(name)
        if target.is_dir():
            raise JournalError(f"{name}: is a directory; give the path of a journal file")
        if os.path.lexists(name):
            check_existing(name)
            lock_fd = lock(name, name)
            try:
                if vet is not None:
                    reader = cls.open_existing(name)
                    try:
                        vet(reader)
                    finally:
                        reader.close()
                connection, tail = open_for_writing(name)
            except BaseException:
                os.close(lock_fd)
                raise
            journal = cls(name, connection, tail)
            journal._defer_wal_checkpoints()
            if reserve:
                reserve_wal(connection, reserve)
        else:
            parent = target.parent
            if not parent.is_dir():
                raise JournalError(f"{name}: cannot create the journal: directory {str(parent)!r} "
                                   "does not exist; create it or give another --journal path")
            draft, connection, lock_fd = Draft.create(name)
            journal = cls(name, connection)
            journal._draft = draft
            journal._reserve = reserve
        journal._lock_fd = lock_fd
        return journal

    @classmethod
    def open_existing(cls, path: str | os.PathLike[str]) -> Journal:
        """Open an existing journal read-only (for audit and history).

        Nothing is written, and the directory is left as it was: a journal whose
        controller closed it (no ``-wal`` beside it; a ``-shm`` alone is left as it is) is read as an
        immutable file, so it may be read-only to the user, on a read-only mount,
        or in a directory the user cannot write.
        """
        name = os.fspath(path)
        connection, tail = open_read_only(name)
        return cls(name, connection, tail)

    def _publish(self) -> None:
        """Give the draft of a new journal, its first records on disk, its real name."""
        draft = self._draft
        assert draft is not None
        limit = draft.checkpoint(self.connection)
        draft.link()
        self._draft = None
        self.connection = connect(self.path)
        use_wal(self.connection, self.path)
        self.connection.execute(f"PRAGMA max_page_count={limit}")
        self._defer_wal_checkpoints()
        if self._reserve:
            reserve_wal(self.connection, self._reserve)

    def _defer_wal_checkpoints(self) -> None:
        """The writer checkpoints the WAL itself, after a batch was shown (see :meth:`mark_delivered`)."""
        self.connection.execute("PRAGMA wal_autocheckpoint=0")

    @property
    def empty(self) -> bool:
        """No record yet (a new journal)."""
        return self.last_seq == 0

    # -- reading ----------------------------------------------------------------
    def records(self, since: int = 1, stored: bool = False) -> Iterator[Record]:
        """Every record in sequence order (from record ``since`` on), its fields as text (a field stored as bytes read
        as the text it holds, a missing one as ""); ``stored``: each field as the database holds it (the audit, which
        names a field of the wrong type). A damaged file is a :class:`JournalError` naming the last record read
        before the damage."""
        return self._in_order("seq >= ?", (since,), stored)

    def records_of(self, kinds: tuple[str, ...]) -> Iterator[Record]:
        """The records of ``kinds``, in sequence order, picked by the database (not every record read)."""
        return self._in_order(f"kind IN ({', '.join('?' for _ in kinds)})", kinds)

    def _in_order(self, where: str, parameters: tuple[object, ...], stored: bool = False) -> Iterator[Record]:
        """The records ``where`` picks, in sequence order (``stored``: see :meth:`records`); a damaged file is a
        :class:`JournalError` naming the last record read before the damage."""
        last = 0
        try:
            cursor = self.connection.execute(
                f"SELECT {STORED if stored else AS_TEXT} FROM records WHERE {where} ORDER BY seq", parameters)
            for row in cursor:
                if isinstance(row[0], int):
                    last = row[0]
                yield Record(*row)
        except sqlite3.Error as error:
            raise open_error(self.path, error, last) from None

    def record(self, seq: int, stored: bool = False) -> Record | None:
        """Record ``seq``, or None (``stored``: see :meth:`records`)."""
        found = next(iter(self.records(seq, stored)), None) if seq >= 1 else None
        return found if found is not None and found.seq == seq else None

    def last_checkpoint(self) -> Record | None:
        """The last checkpoint record (None: the journal has none), read from the end."""
        return next(self.records_back(None, ("checkpoint",)), None)

    def records_back(self, before: int | None, kinds: tuple[str, ...]) -> Iterator[Record]:
        """The records of ``kinds`` before record ``before`` (None: all of them), from the last one back."""
        try:
            cursor = self.connection.execute(
                f"SELECT {AS_TEXT} FROM records ORDER BY seq DESC" if before is None else
                f"SELECT {AS_TEXT} FROM records WHERE seq < ? ORDER BY seq DESC",
                () if before is None else (before,))
            for row in cursor:
                if row[1] in kinds:
                    yield Record(*row)
        except sqlite3.Error as error:
            raise open_error(self.path, error) from None

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Read inside one transaction: a consistent view while a controller keeps writing."""
        if self.connection.in_transaction:
            yield
            return
        self.connection.execute("BEGIN")
        try:
            yield
        finally:
            with contextlib.suppress(sqlite3.Error):
                self.connection.execute("ROLLBACK")

    def delivered(self) -> int:
        """The last events record known to have been passed on to the consumers (0: none)."""
        return self._mark("delivered", "the delivered mark")

    def feed_acked(self) -> int:
        """The last record the floor's archive confirmed to the table's feed (0: none, or no feed)."""
        return self._mark("feed_acked", "the feed's acknowledged mark")

    def _mark(self, table: str, name: str) -> int:
        """The record number a one-row mark table holds (0: none, or no such table); an edited one is named."""
        try:
            row = self.connection.execute(f"SELECT seq FROM {table} WHERE id = 1").fetchone()
        except sqlite3.Error:
            return 0
        if row is None:
            return 0
        mark = row[0]
        if not isinstance(mark, int) or mark < 0:
            raise JournalTamperedError(f"{self.path}: {name} was edited: {mark!r} is not a record number; "
                                       "keep the journal for the audit")
        return mark

    # -- writing ----------------------------------------------------------------
    def _write(self, rows: list[tuple[str, Any]], setup: bool = False) -> int:
        """Append ``rows`` (kind, body) in one durable transaction; returns the last seq."""
        if self.failed is not None:
            raise JournalError(self.failed)
        connection = self.connection
        seq, prev = self.last_seq, self.last_hash
        try:
            connection.execute("BEGIN IMMEDIATE")
            try:
                if setup:
                    for statement in SCHEMA.strip().split(";"):
                        if statement.strip():
                            connection.execute(statement)
                    connection.execute("INSERT OR REPLACE INTO journal_meta VALUES ('format', ?)", (FORMAT,))
                    connection.execute("INSERT OR REPLACE INTO journal_meta VALUES ('version', ?)",
                                       (str(VERSION),))
                    connection.execute(f"PRAGMA application_id={APPLICATION_ID}")
                at = _now()
                for kind, body in rows:
                    seq += 1
                    text = compact(body)
                    digest = record_hash(seq, kind, at, prev, text)
                    connection.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?)",
                                       (seq, kind, at, text, prev, digest))
                    prev = digest
                connection.execute("COMMIT")
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise
        except sqlite3.Error as error:
            self.failed = (f"{self.path}: cannot write the journal ({describe_error(error)}); the table is "
                           "halted because nothing may be shown that is not journaled. Fix the disk or "
                           "path, then run again with the same arguments to resume")
            raise JournalError(self.failed) from None
        self.last_seq, self.last_hash = seq, prev
        self._commits += 1
        if self._commits >= 8 * WAL_CHECKPOINT_EVERY:  # a writer that never marks a delivery
            self._checkpoint_wal()
        return seq

    def _checkpoint_wal(self) -> None:
        """Copy the WAL into the database (passive: never waits for readers); a failure is left to the next."""
        self._commits = 0
        with contextlib.suppress(sqlite3.Error):
            self.connection.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def begin(self, identity: Mapping[str, Any], start_events: list[Event],
              extra: Mapping[str, Any] | None = None, start: Mapping[str, Any] | None = None,
              device: str | None = None) -> int:
        """Write the header and the start events of a new journal; returns the start record's seq.

        ``extra`` holds settings kept for an independent replay but not compared on
        resume (``[auth]``: a badge added between two runs does not lock the journal;
        the replay check still catches any event it would change). ``start`` adds fields to the start record
        after its events (the ``mode``, the ``software`` that wrote it: docs/journal.md); its ``mode`` is stated in
        the header too. ``device``: the table's id (``[table] id``), which the header and every events record then
        carry, each record with its events' codes (:meth:`events_body`).
        """
        header: dict[str, Any] = {"format": FORMAT, "version": VERSION, "events": EVENTS_FORMAT,
                                  "identity": dict(identity)}
        if extra:
            header["extra"] = json.loads(canonical(extra))
        if start and "mode" in start:
            header["mode"] = start["mode"]
        if device is not None:
            header["device"] = device
        self._device = device
        start_body: dict[str, Any] = {**self.events_body(start_events), **(start or {})}
        seq = self._write([("header", header), ("start", start_body)], setup=True)
        if self._draft is not None:
            try:
                self._publish()
            except sqlite3.Error as error:
                self.failed = f"{self.path}: cannot create the journal ({describe_error(error)})"
                raise JournalError(self.failed) from None
        return seq

    @property
    def device(self) -> str | None:
        """The table's id the journal's header names (None: none, a journal written before records carried it)."""
        if self._device is False:
            first = self.record(1)
            found = None
            if first is not None and first.kind == "header":
                with contextlib.suppress(ValueError, AttributeError):
                    found = json.loads(first.body).get("device")
            self._device = found if isinstance(found, str) else None
        return self._device if isinstance(self._device, str) else None

    def events_body(self, events: Sequence[EventLike]) -> dict[str, Any]:
        """The body of an events record: the events, and in a journal that names its table (:attr:`device`) the
        table's id and each event's stable code (:mod:`controller.core.codes`), so that every event record says
        which device raised it and what it is."""
        device = self.device
        if device is None:
            return {"events": events}
        return {"events": events, "device": device, "codes": [known_code(event) for event in events]}

    def append_input(self, item: Input, from_source: bool, position: tuple[int, int] | None) -> int:
        """Durably append one input on its own; returns its seq (a journal written before inputs and
        their events were committed together has such inputs; :meth:`append_input_and_events` is the
        live path)."""
        return self._write([("input", input_body(item, from_source, position))])

    def append_input_and_events(self, item: Input, from_source: bool, position: tuple[int, int] | None,
                                events: list[Event], checkpoint: Mapping[str, Any] | None = None) -> int:
        """Durably append one input and the events it caused, in one transaction (one fsync), with a
        checkpoint after them when one is given; returns the events record's seq. A crash leaves all of
        them or none."""
        rows: list[tuple[str, Any]] = [("input", input_body(item, from_source, position)),
                                       ("events", self.events_body(events))]
        if checkpoint is not None:
            rows.append(("checkpoint", checkpoint))
        last = self._write(rows)
        return last - 1 if checkpoint is not None else last

    def append_checkpoint(self, body: Mapping[str, Any]) -> int:
        """Durably append a checkpoint (after the events record just journaled) in a transaction of its own;
        the live path writes it once those events were shown, off the card's commit. Returns its seq."""
        return self._write([("checkpoint", body)])

    def append_note(self, body: Mapping[str, Any]) -> int:
        """Durably append a ``note`` record (:mod:`controller.journal.notes`); returns its seq."""
        return self._write([("note", dict(body))])

    def last_of(self, kinds: tuple[str, ...]) -> Record | None:
        """The last record of one of ``kinds`` (None: none), found by the database, not by reading every record."""
        marks = ", ".join("?" for _ in kinds)
        try:
            row = self.connection.execute(
                f"SELECT {AS_TEXT} FROM records WHERE kind IN ({marks}) ORDER BY seq DESC LIMIT 1", kinds).fetchone()
        except sqlite3.Error as error:
            raise open_error(self.path, error) from None
        return Record(*row) if row is not None else None

    def append_events(self, events: list[Event]) -> int:
        """Durably append the events of the input just journaled; returns the record's seq."""
        return self._write([("events", self.events_body(events))])

    def append_step(self, input_body: Mapping[str, Any], events: Sequence[EventLike]) -> int:
        """Durably append, in one transaction, an input of another producer's own shape (a trainee's answer in
        a training journal) and the events it caused; returns the events record's seq."""
        return self._write([("input", dict(input_body)), ("events", self.events_body(list(events)))])

    def mark_delivered(self, seq: int) -> None:
        """Note that events record ``seq`` reached the consumers.

        Advisory: written without fsync (a lost mark only means the events are
        shown again on resume), and a failure here is ignored. Every
        :data:`WAL_CHECKPOINT_EVERY` commits the WAL is checkpointed here, once the events are shown.
        """
        if self.failed is not None:
            return
        connection = self.connection
        try:
            connection.execute("PRAGMA synchronous=OFF")
            connection.execute("INSERT OR REPLACE INTO delivered VALUES (1, ?)", (seq,))
            connection.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("PRAGMA synchronous=FULL")
        if self._commits >= WAL_CHECKPOINT_EVERY:
            self._checkpoint_wal()

    def close(self) -> None:
        """Close the database (a clean close checkpoints the WAL). Idempotent."""
        with contextlib.suppress(sqlite3.Error):
            self.connection.close()
        draft, self._draft = self._draft, None
        if draft is not None:
            draft.remove()
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            os.close(fd)

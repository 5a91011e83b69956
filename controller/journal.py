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
    the events the core emitted for the input just before it.

Every record is committed (fsync'd) before anything that follows from it
happens: the input before the core sees it, its events before they are
passed on to the screen or the JSON stream. Each record carries the SHA-256
of the record before it, over a canonical serialization that includes its
sequence number, so an edited, deleted, inserted or reordered record breaks
the chain (``croupier audit verify``).

Recovery (:func:`attach_journal` on an existing journal) replays the
journaled inputs into a fresh :class:`~controller.table.Table` silently,
checks that the replay gives the journaled events, moves the card source back
to where it was, and shows the current instruction again. See
``docs/journal.md``.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from config import Settings, load_config
from controller.exceptions import ConfigError, JournalError, JournalTamperedError
from controller.inputs import Input, InputKind
from controller.machine import State
from controller.table import Event, Table

FORMAT = "croupier-journal"
VERSION = 1
APPLICATION_ID = 0x43524A31
"""``PRAGMA application_id`` of a journal ("CRJ1")."""
GENESIS = "0" * 64
"""The ``prev`` hash of the first record."""
KINDS = ("header", "start", "input", "events")
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
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def compact(value: Any) -> str:
    """The stored JSON text of a record body: compact, UTF-8, keys in the order given
    (so events read back exactly as the table emitted them)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def record_hash(seq: int, kind: str, at: str, prev: str, body: str) -> str:
    """SHA-256 (hex) of a record's canonical serialization.

    The serialization is ``seq`` (decimal), ``kind``, ``at``, ``prev`` (the
    previous record's hash) and ``body`` (the stored JSON text, byte for byte),
    joined by newlines, in UTF-8. Only ``body`` may contain a newline (it never
    does: it is compact JSON), so the serialization is unambiguous.
    """
    return hashlib.sha256(f"{seq}\n{kind}\n{at}\n{prev}\n{body}".encode()).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _describe(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    if isinstance(error, sqlite3.OperationalError) and "disk is full" in text:
        return "the disk is full"
    return text


# -- the database ---------------------------------------------------------------


class Journal:
    """An open journal database. Use :meth:`create_or_open` or :meth:`open_existing`."""

    def __init__(self, path: str, connection: sqlite3.Connection) -> None:
        self.path = path
        self.connection = connection
        self.last_seq = 0
        self.last_hash = GENESIS
        self.failed: str | None = None
        """Set when a write failed: the journal then refuses every further write."""
        self._lock_fd: int | None = None
        self._draft: str | None = None
        """The temporary file a new journal is written to until :meth:`begin` publishes it."""

    # -- opening ----------------------------------------------------------------
    @classmethod
    def create_or_open(cls, path: str | os.PathLike[str]) -> Journal:
        """Open ``path`` for writing; a path with no file is a new journal.

        An existing file is first checked read-only, so a file that is not a
        journal, or a journal that was emptied, is refused without being touched.
        A new journal is written under a temporary name and appears at ``path``
        only once its first records are on disk (see :meth:`begin`).
        """
        name = os.fspath(path)
        target = Path(name)
        if target.is_dir():
            raise JournalError(f"{name}: is a directory; give the path of a journal file")
        if os.path.lexists(name):
            cls._check_existing(name)
            return cls._open_for_writing(name)
        parent = target.parent
        if not parent.is_dir():
            raise JournalError(f"{name}: cannot create the journal: directory {str(parent)!r} "
                               "does not exist; create it or give another --journal path")
        return cls._create(name)

    @classmethod
    def _check_existing(cls, name: str) -> None:
        if not Path(name).is_file():
            raise JournalError(f"{name}: not a regular file; give the path of a journal file")
        if os.stat(name).st_size == 0:
            raise JournalError(f"{name}: the file is empty (0 bytes), and a journal never is: a truncated "
                               "journal? Keep it for the audit; delete it only if it is not a journal, or "
                               "give another --journal path")
        probe = cls.open_existing(name)
        try:
            if probe.empty:
                raise JournalTamperedError(f"{name}: the journal has no records: it was emptied; keep it "
                                           "for the audit and give a new --journal path")
        finally:
            probe.close()

    @classmethod
    def _open_for_writing(cls, name: str) -> Journal:
        try:
            connection = sqlite3.connect(name, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as error:
            raise JournalError(f"{name}: cannot open the journal for writing ({_describe(error)})") from None
        journal = cls(name, connection)
        try:
            journal._lock(name)
            journal._check_format()
            journal._use_wal()
        except sqlite3.Error as error:
            journal.close()
            raise journal._open_error(error) from None
        except JournalError:
            journal.close()
            raise
        return journal

    @classmethod
    def _create(cls, name: str) -> Journal:
        target = Path(name)
        _remove_stale_drafts(target)
        draft = str(target.parent / f".{target.name}.{os.getpid()}{DRAFT_SUFFIX}")
        _remove_draft(draft)
        try:
            connection = sqlite3.connect(draft, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as error:
            raise JournalError(f"{name}: cannot create the journal ({_describe(error)}); check the "
                               "directory's permissions or give another --journal path") from None
        journal = cls(name, connection)
        journal._draft = draft
        try:
            journal._lock(draft)
            journal._use_wal()
        except sqlite3.Error as error:
            journal.close()
            raise journal._open_error(error) from None
        except JournalError:
            journal.close()
            raise
        return journal

    def _use_wal(self) -> None:
        mode = self.connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise JournalError(f"{self.path}: cannot put the journal in WAL mode (got {mode!r})")
        self.connection.execute("PRAGMA synchronous=FULL")

    def _publish(self) -> None:
        """Give the draft of a new journal, its first records on disk, its real name."""
        draft = self._draft
        assert draft is not None
        old = self.connection
        busy, _, _ = old.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        limit = old.execute("PRAGMA max_page_count").fetchone()[0]
        if busy:
            raise sqlite3.OperationalError("the new journal could not be checkpointed")
        old.close()
        if os.path.exists(draft + "-wal") and os.path.getsize(draft + "-wal"):
            raise sqlite3.OperationalError("the new journal's WAL was not checkpointed")
        try:
            os.link(draft, self.path)
        except FileExistsError:
            raise JournalError(f"{self.path}: another croupier created this journal at the same moment; "
                               "stop that one first, or give another --journal path") from None
        _remove_draft(draft)
        self._draft = None
        directory = os.open(os.path.dirname(os.path.abspath(self.path)), os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        self.connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._use_wal()
        self.connection.execute(f"PRAGMA max_page_count={int(limit)}")

    @classmethod
    def open_existing(cls, path: str | os.PathLike[str]) -> Journal:
        """Open an existing journal read-only (for audit and history).

        Nothing is written, and the directory is left as it was: a journal whose
        controller closed it (no ``-wal``/``-shm`` beside it) is read as an
        immutable file, so it may be read-only to the user, on a read-only mount,
        or in a directory the user cannot write.
        """
        name = os.fspath(path)
        target = Path(name)
        if not os.path.lexists(name):
            raise JournalError(f"{name}: no such journal file; give the path of a Croupier journal")
        if target.is_dir():
            raise JournalError(f"{name}: is a directory; give the path of a journal file")
        if not target.is_file():
            raise JournalError(f"{name}: not a regular file; give the path of a journal file")
        in_use = any(os.path.lexists(name + suffix) for suffix in ("-wal", "-shm"))
        query = "mode=ro" if in_use else "mode=ro&immutable=1"
        try:
            connection = sqlite3.connect(f"{target.resolve().as_uri()}?{query}", uri=True,
                                         isolation_level=None, check_same_thread=False)
        except sqlite3.Error as error:
            raise JournalError(f"{name}: cannot open the journal ({_describe(error)})") from None
        journal = cls(name, connection)
        try:
            journal._check_format()
        except sqlite3.Error as error:
            connection.close()
            if in_use and isinstance(error, sqlite3.OperationalError) and (
                    "readonly" in str(error) or "unable to open" in str(error)):
                raise JournalError(f"{name}: cannot read the journal ({_describe(error)}): its -wal and -shm "
                                   "files (a controller has it open, or stopped without closing it) must be "
                                   "writable to read it; read it as the journal's owner") from None
            raise journal._open_error(error) from None
        except JournalError:
            connection.close()
            raise
        return journal

    def _lock(self, name: str) -> None:
        """Hold an exclusive ``flock`` on the file while it is open for writing: one controller
        per journal. (SQLite's own locks are POSIX locks, independent of this; readers such as
        ``audit`` and ``history`` take none. A killed controller's lock goes with it.)"""
        try:
            fd = os.open(name, os.O_RDONLY)
        except OSError as error:
            raise JournalError(f"{self.path}: cannot open the journal ({error.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise JournalError(f"{self.path}: the journal is in use by another running croupier; stop "
                               "that one first, or give another --journal path") from None
        self._lock_fd = fd

    def _open_error(self, error: sqlite3.Error) -> JournalError:
        text = _describe(error)
        if "not a database" in text or "file is encrypted" in text:
            return JournalError(f"{self.path}: not a Croupier journal (not an SQLite database)")
        if "malformed" in text or "corrupt" in text:
            return JournalError(f"{self.path}: the journal file is damaged ({text}); keep it for the "
                                "audit and start a new journal from a backup")
        if isinstance(error, sqlite3.OperationalError) and ("readonly" in text or "unable to open" in text):
            return JournalError(f"{self.path}: cannot write the journal ({text}); check the path "
                                "and its permissions")
        return JournalError(f"{self.path}: cannot use the journal ({text})")

    def _check_format(self) -> None:
        tables = {row[0] for row in self.connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            raise JournalError(f"{self.path}: not a Croupier journal (an empty database)")
        if not {"journal_meta", "records"} <= tables:
            raise JournalError(f"{self.path}: not a Croupier journal (an SQLite database without "
                               "the journal tables)")
        meta = dict(self.connection.execute("SELECT key, value FROM journal_meta").fetchall())
        marked = self.connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        if meta.get("format") != FORMAT:
            error = JournalTamperedError if marked else JournalError
            raise error(f"{self.path}: not a Croupier journal (format {meta.get('format')!r})")
        if marked and set(meta) != {"format", "version"}:
            raise JournalTamperedError(f"{self.path}: the journal's metadata was changed "
                                       f"(keys {sorted(meta)}; a journal has format and version only)")
        if meta.get("version") != str(VERSION):
            raise (JournalTamperedError if marked else JournalError)(
                f"{self.path}: journal format version {meta.get('version')} is not "
                f"supported; this Croupier reads version {VERSION}")
        row = self.connection.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        if row is not None:
            self.last_seq, self.last_hash = int(row[0]), str(row[1])

    @property
    def empty(self) -> bool:
        """No record yet (a new journal)."""
        return self.last_seq == 0

    # -- reading ----------------------------------------------------------------
    def records(self) -> Iterator[Record]:
        """Every record in sequence order."""
        try:
            cursor = self.connection.execute("SELECT seq, kind, at, body, prev, hash FROM records ORDER BY seq")
            for row in cursor:
                yield Record(*row)
        except sqlite3.Error as error:
            raise self._open_error(error) from None

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
        try:
            row = self.connection.execute("SELECT seq FROM delivered WHERE id = 1").fetchone()
        except sqlite3.Error:
            return 0
        if row is None:
            return 0
        mark = row[0]
        if not isinstance(mark, int) or mark < 0:
            raise JournalTamperedError(f"{self.path}: the delivered mark was edited: {mark!r} is not a "
                                       "record number; keep the journal for the audit")
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
            self.failed = (f"{self.path}: cannot write the journal ({_describe(error)}); the table is "
                           "halted because nothing may be shown that is not journaled. Fix the disk or "
                           "path, then run again with the same arguments to resume")
            raise JournalError(self.failed) from None
        self.last_seq, self.last_hash = seq, prev
        return seq

    def begin(self, identity: Mapping[str, Any], start_events: list[Event],
              extra: Mapping[str, Any] | None = None) -> int:
        """Write the header and the start events of a new journal; returns the start record's seq.

        ``extra`` holds settings kept for an independent replay but not compared on
        resume (``[auth]``: a badge added between two runs does not lock the journal;
        the replay check still catches any event it would change).
        """
        header: dict[str, Any] = {"format": FORMAT, "version": VERSION, "identity": dict(identity)}
        if extra:
            header["extra"] = json.loads(canonical(extra))
        seq = self._write([("header", header), ("start", {"events": start_events})], setup=True)
        if self._draft is not None:
            try:
                self._publish()
            except sqlite3.Error as error:
                self.failed = f"{self.path}: cannot create the journal ({_describe(error)})"
                raise JournalError(self.failed) from None
        return seq

    def append_input(self, item: Input, from_source: bool, position: tuple[int, int] | None) -> int:
        """Durably append one input; returns its seq."""
        body: dict[str, Any] = {"input": item.to_dict(), "source": from_source}
        if position is not None:
            body["position"] = list(position)
        return self._write([("input", body)])

    def append_events(self, events: list[Event]) -> int:
        """Durably append the events of the input just journaled; returns the record's seq."""
        return self._write([("events", {"events": events})])

    def mark_delivered(self, seq: int) -> None:
        """Note that events record ``seq`` reached the consumers.

        Advisory: written without fsync (a lost mark only means the events are
        shown again on resume), and a failure here is ignored.
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

    def close(self) -> None:
        """Close the database (a clean close checkpoints the WAL). Idempotent."""
        with contextlib.suppress(sqlite3.Error):
            self.connection.close()
        draft, self._draft = self._draft, None
        if draft is not None:
            _remove_draft(draft)
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            os.close(fd)


DRAFT_SUFFIX = ".new-journal"


def _remove_draft(draft: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.lexists(draft + suffix):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(draft + suffix)


def _remove_stale_drafts(target: Path) -> None:
    """Remove drafts of ``target`` that a killed controller left; refuse while a live one holds one."""
    for draft in target.parent.glob(f".{glob.escape(target.name)}.*{DRAFT_SUFFIX}"):
        try:
            fd = os.open(draft, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise JournalError(f"{target}: the journal is in use by another running croupier (it is creating "
                               "it); stop that one first, or give another --journal path") from None
        else:
            _remove_draft(str(draft))
        finally:
            os.close(fd)


# -- verification ---------------------------------------------------------------


@dataclass
class Verified:
    """The outcome of a successful verification."""

    records: int
    head: str
    inputs: int
    events: int
    header: dict[str, Any]


def _holds_entry(record: Record, seq: int) -> bool:
    return record_hash(seq, record.kind, record.at, record.prev, record.body) == record.hash


def verify(journal: Journal) -> Verified:
    """Check the hash chain and the record structure of ``journal``.

    Raises :class:`JournalTamperedError` naming the first record that was
    edited, deleted, inserted or reordered.
    """
    path = journal.path
    with journal.snapshot():
        rows = list(journal.records())
        acknowledged = journal.delivered()
    if not rows:
        raise JournalTamperedError(f"{path}: the journal has no records: it was emptied")
    by_hash = {row.hash: index for index, row in enumerate(rows)}
    expected_prev = GENESIS
    header: dict[str, Any] = {}
    inputs = events = 0
    previous_kind = ""
    for index, row in enumerate(rows):
        seq = index + 1
        if not (isinstance(row.seq, int) and isinstance(row.kind, str) and isinstance(row.at, str)
                and isinstance(row.body, str) and isinstance(row.prev, str) and isinstance(row.hash, str)):
            raise JournalTamperedError.at(path, seq, "is damaged or was edited: a field is missing or has the "
                                       "wrong type")
        if row.seq != seq:
            if index == 0 and row.seq < 1:
                raise JournalTamperedError.at(path, row.seq, "was inserted before record 1 "
                                           "(records are numbered from 1)")
            if row.seq > seq:
                gap = f"{seq}" if row.seq == seq + 1 else f"{seq}-{row.seq - 1}"
                raise JournalTamperedError.at(path, seq, f"is missing: record(s) {gap} were deleted "
                                           f"(the next record is {row.seq})")
        if "\n" in row.at or "\n" in row.kind or len(row.prev) != 64:
            raise JournalTamperedError.at(path, row.seq, "was edited: a field has the wrong form")
        if not _holds_entry(row, row.seq):
            raise JournalTamperedError.at(path, *_why_mismatch(rows, index, by_hash))
        if row.prev != expected_prev:
            origin = by_hash.get(row.prev)
            if origin is not None and origin < index - 1:
                raise JournalTamperedError.at(path, row.seq, f"does not follow record {row.seq - 1}: "
                                           f"it was written after record {rows[origin].seq}, so the "
                                           "records between were deleted or reordered")
            raise JournalTamperedError.at(path, row.seq, f"does not follow record {row.seq - 1}: a record "
                                       "before it was inserted, deleted, edited or reordered")
        if row.kind not in KINDS:
            raise JournalTamperedError.at(path, row.seq, f"was edited: unknown record kind {row.kind!r}")
        try:
            body = json.loads(row.body)
        except ValueError:
            raise JournalTamperedError.at(path, row.seq, "was edited: its body is not JSON") from None
        if not isinstance(body, dict):
            raise JournalTamperedError.at(path, row.seq, "was edited: its body is not a JSON object")
        if (index == 0) != (row.kind == "header"):
            raise JournalTamperedError.at(path, row.seq, "is out of place: the header must be record 1, "
                                       "and only record 1")
        if row.kind == "header":
            if body.get("format") != FORMAT:
                raise JournalTamperedError.at(path, row.seq, "is not a Croupier journal header")
            header = body
        elif row.kind == "input":
            inputs += 1
        elif row.kind == "events":
            if previous_kind != "input":
                raise JournalTamperedError.at(path, row.seq, "is out of place: events must follow their input")
            events += 1
        previous_kind = row.kind
        expected_prev = row.hash
    if acknowledged > rows[-1].seq:
        raise JournalTamperedError.at(path, rows[-1].seq + 1, f"is missing: records {rows[-1].seq + 1}-"
                                   f"{acknowledged} were written and shown, then deleted from the end")
    return Verified(len(rows), rows[-1].hash, inputs, events, header)


def _why_mismatch(rows: list[Record], index: int, by_hash: dict[str, int]) -> tuple[int, str]:
    """Say why record ``rows[index]``'s contents do not match its hash: (record to name, problem)."""
    row = rows[index]
    seq = row.seq
    written_as = None
    if row.prev == GENESIS:
        written_as = 1 if _holds_entry(row, 1) else None
    elif row.prev in by_hash:
        candidate = rows[by_hash[row.prev]].seq + 1
        written_as = candidate if _holds_entry(row, candidate) else None
    if written_as is None:
        for candidate in range(max(1, seq - 8), seq + 9):
            if candidate != seq and _holds_entry(row, candidate):
                written_as = candidate
                break
    if written_as is None:
        return seq, "was edited: its contents do not match its hash"
    if written_as == seq + 1 and index + 1 < len(rows) and _holds_entry(rows[index + 1], seq):
        return seq, f"was reordered: records {seq} and {seq + 1} were swapped"
    if written_as > seq:
        return seq, (f"is missing: it was deleted and the records after it renumbered (record {seq} "
                     f"holds the entry written as record {written_as})")
    inserted = f"{written_as}" if written_as == seq - 1 else f"{written_as}-{seq - 1}"
    return written_as, (f"was inserted: record(s) {inserted} are not in the chain (record {seq} holds "
                        f"the entry written as record {written_as}, so records were inserted or moved "
                        "before it)")


# -- identity -------------------------------------------------------------------


def identity_of(table: Table, argv_key: Any) -> dict[str, Any]:
    """What a journal is tied to: the arguments key and the game settings."""
    settings = asdict(table.settings)
    identity: dict[str, Any] = {
        "arguments": json.loads(canonical(argv_key)),
        "settings": {name: settings[name] for name in IDENTITY_SECTIONS},
    }
    return identity


def replay_extra(table: Table) -> dict[str, Any]:
    """Settings outside the identity that the table's behaviour depends on (``[auth]``).

    ``two_person`` is stored as it was in force, so that a journal written before the key
    existed (when the dealer could approve their own input) replays as it was dealt.
    """
    extra = {name: dict(table.settings.extra[name]) for name in REPLAY_EXTRA if name in table.settings.extra}
    if "auth" in extra and table.authority is not None:
        extra["auth"]["two_person"] = table.authority.settings.two_person
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
    """(seq, events) of every start and events record, in order."""
    for record in journal.records():
        if record.kind in ("start", "events"):
            try:
                events = json.loads(record.body)["events"]
            except (ValueError, KeyError, TypeError):
                events = None
            if not isinstance(events, list) or not all(
                    isinstance(event, dict) and isinstance(event.get("event"), str) for event in events):
                raise JournalError(f"{journal.path}: record {record.seq} is not a valid events record")
            yield record.seq, events


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
        if record.kind == "header":
            continue
        if record.kind == "start":
            body = _loads(journal, record)
            result.events.extend(body["events"])
            result.last_events = body["events"]
            result.last_events_seq = record.seq
            continue
        if record.kind == "input":
            body = _loads(journal, record)
            if pending is not None:
                raise JournalError(f"{journal.path}: record {pending[0].seq}: an input without its events "
                                   "is followed by another input; the journal is damaged")
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
            pending = (record, item, events)
            continue
        # events
        if pending is None:
            raise JournalError(f"{journal.path}: record {record.seq}: events without an input")
        _, _, events = pending
        if compact({"events": events}) != record.body and canonical(events) != canonical(
                _loads(journal, record).get("events")):
            raise JournalError(
                f"{journal.path}: record {record.seq}: replaying the journal gives other events than were "
                "journaled (was it written by another version of Croupier, or with other settings such as "
                "the [auth] badges?)")
        _count(result, events)
        result.last_events = events
        result.last_events_seq = record.seq
        pending = None
    if pending is not None:
        _, item, events = pending
        result.unapplied = item
        result.unapplied_events = events
        _count(result, events)
    return result


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

    ``runner`` is a :class:`~controller.runner.Runner` whose table is fresh.
    On a new journal the header and ``header_events + table.start()`` are
    journaled, then shown. On an existing one (``argv_key`` and the settings
    must match) the inputs are replayed silently (``replayed`` receives their
    events, e.g. to keep counts), the source is moved back to where it was,
    and only the current instruction is shown again (or the last events in
    full, when they may not have been shown before the controller stopped).

    Afterwards every input is committed before the core sees it and every
    batch of events before the runner's sink does. A source with a
    ``journaled(item)`` method is told each of its inputs once it is durable
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
    journaled = getattr(reader, "journaled", None)

    def record(item: Input) -> None:
        from_source = item is getattr(runner, "received", None)
        position = _position_of(reader) if from_source else None
        journal.append_input(item, from_source, position)
        if from_source and callable(journaled):
            journaled(item)  # a shoe may acknowledge the card only now that it is durable

    def journaled_sink(events: list[Event]) -> None:
        seq = journal.append_events(events)
        sink(events)
        journal.mark_delivered(seq)

    runner.record = record
    runner.sink = journaled_sink
    return journal


def reader_of(source: Any) -> Any:
    """The source that knows its place: ``source``, or the reader a merged source wraps.

    A source that wraps another (``primary``, e.g. the reader plus the dealer's
    keyboard) and has no ``position``/``seek``/``journaled`` of its own is looked
    through, so the journal still positions and acknowledges the reader.
    """
    seen = 0
    while (not any(hasattr(source, name) for name in ("position", "seek", "journaled"))
           and hasattr(source, "primary") and seen < 8):
        source = source.primary
        seen += 1
    return source


def _position_of(source: Any) -> tuple[int, int] | None:
    position = getattr(source, "position", None)
    if (isinstance(position, tuple) and len(position) == 2
            and all(isinstance(part, int) for part in position)):
        return (position[0], position[1])
    return None


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
    if found.position is not None and hasattr(reader, "seek"):
        # A seekable source goes back to just after the last journaled source input,
        # then is told of the new shoes the dealer confirmed since (the mock loads them;
        # a live shoe, which keeps its own place, knows it is resuming and ignores them).
        reader.seek(*found.position)
        for _ in range(found.new_shoes):
            reader.indicate("new_shoe")
        if table.model.state is State.SHOE_CLOSED and found.position[0] > table.shoe_number:
            runner.new_shoe_asked = table.shoe_number  # the source already holds the next shoe
    if notice is not None:
        notice(f"resumed from journal {journal.path}: {found.inputs} inputs replayed, "
               f"shoe {table.shoe_number} round {table.round}")
    sink(show)
    if seq:
        journal.mark_delivered(seq)
    source.indicate(table.expecting)

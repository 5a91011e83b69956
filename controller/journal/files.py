"""Journal files: opening one, checking it is a journal, and creating a new one under a draft name.

:class:`~controller.journal.store.Journal` reads and writes records; this module gives it its SQLite
connection. A journal open for writing holds an exclusive ``flock`` (one controller per journal); a
new journal is written to a draft beside its path (``.NAME.PID.new-journal``) and linked to its name
only once its first records are on disk, so a journal file is never empty. See ``docs/journal.md``.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import hashlib
import json
import os
import resource
import sqlite3
from pathlib import Path

from controller.core.exceptions import JournalDamagedError, JournalError, JournalTamperedError
from controller.i18n.message import message
from controller.journal.compat import EVENTS_FORMAT, events_format

FORMAT = "croupier-journal"
VERSION = 1
APPLICATION_ID = 0x43524A31
"""``PRAGMA application_id`` of a journal ("CRJ1")."""
DRAFT_SUFFIX = ".new-journal"

GENESIS = "0" * 64
"""The ``prev`` hash of the first record."""

Tail = tuple[int, str] | None
"""The last record's (seq, hash); None for a journal with no record."""


def record_hash(seq: int, kind: str, at: str, prev: str, body: str) -> str:
    """SHA-256 (hex) of a record's canonical serialization.

    The serialization is ``seq`` (decimal), ``kind``, ``at``, ``prev`` (the
    previous record's hash) and ``body`` (the stored JSON text, byte for byte),
    joined by newlines, in UTF-8. Only ``body`` may contain a newline (it never
    does: it is compact JSON), so the serialization is unambiguous.
    """
    return hashlib.sha256(f"{seq}\n{kind}\n{at}\n{prev}\n{body}".encode()).hexdigest()


def decoded(data: bytes) -> str:
    """A text column as read: UTF-8, each byte that is not (an edited or damaged record) read as U+FFFD, so that
    the record fails its hash check, which names it, instead of failing the read."""
    return data.decode("utf-8", "replace")


def connect(target: str, uri: bool = False) -> sqlite3.Connection:
    """A connection to the journal ``target`` (autocommit; text read by :func:`decoded`)."""
    connection = sqlite3.connect(target, uri=uri, isolation_level=None, check_same_thread=False)
    connection.text_factory = decoded
    return connection


def describe_error(error: BaseException) -> str:
    """An SQLite or OS error as a message says it (an I/O error where this process may write no file past a size,
    ``ulimit -f``, says the limit: SQLite cannot tell that it was the cause)."""
    text = str(error) or type(error).__name__
    if isinstance(error, sqlite3.OperationalError) and "disk is full" in text:
        return "the disk is full"
    if str(getattr(error, "sqlite_errorname", "")).startswith("SQLITE_IOERR"):
        limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        if limit != resource.RLIM_INFINITY:
            return (f"{text}; this process may write no file past {limit} bytes, its file-size limit (ulimit -f): "
                    "raise it")
    return text


def open_error(path: str, error: sqlite3.Error, after: int = 0) -> JournalError:
    """What an SQLite error on opening or reading the journal at ``path`` means (``after``: the last record
    read before it, 0 none)."""
    text = describe_error(error)
    if "not a database" in text or "file is encrypted" in text:
        return JournalError(message("journal.not_sqlite", "{path}: not a Croupier journal (not an SQLite database); "
                                    "give the path of a journal a --journal run wrote", path=path))
    if ("malformed" in text or "corrupt" in text) and after:
        return JournalDamagedError(message("journal.damaged_after", "{path}: the journal file is damaged after "
                                           "record {seq} ({reason}); keep it for the audit and start a new journal "
                                           "from a backup", path=path, seq=after, reason=text))
    if "malformed" in text or "corrupt" in text:
        return JournalDamagedError(message("journal.damaged", "{path}: the journal file is damaged ({reason}); keep "
                                           "it for the audit and start a new journal from a backup", path=path,
                                           reason=text))
    if isinstance(error, sqlite3.OperationalError) and ("readonly" in text or "unable to open" in text):
        return JournalError(message("journal.cannot_write", "{path}: cannot write the journal ({reason}); check the "
                                "path and its permissions", path=path, reason=text))
    return JournalError(message("journal.cannot_use", "{path}: cannot use the journal ({reason})", path=path,
                                reason=text))


def check_format(connection: sqlite3.Connection, path: str) -> Tail:
    """Refuse a database that is not a journal of this version, or whose metadata was changed."""
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        raise JournalError(message("journal.empty_database", "{path}: not a Croupier journal (an empty database)",
                                   path=path))
    if not {"journal_meta", "records"} <= tables:
        raise JournalError(message("journal.no_tables", "{path}: not a Croupier journal (an SQLite database "
                                   "without the journal tables)", path=path))
    meta = dict(connection.execute("SELECT key, value FROM journal_meta").fetchall())
    marked = connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    if meta.get("format") != FORMAT:
        error = JournalTamperedError if marked else JournalError
        raise error(message("journal.other_format", "{path}: not a Croupier journal (format {format})", path=path,
                             format=repr(meta.get("format"))))
    if marked and set(meta) != {"format", "version"}:
        raise JournalTamperedError(message("journal.metadata_changed", "{path}: the journal's metadata was changed "
                                           "(keys {keys}; a journal has format and version only)", path=path,
                                           keys=str(sorted(meta))))
    if meta.get("version") != str(VERSION):
        raise (JournalTamperedError if marked else JournalError)(
            message("journal.other_version", "{path}: journal format version {found} is not supported; this "
                    "Croupier reads version {version}", path=path, found=str(meta.get("version")), version=VERSION))
    check_no_triggers(connection, path)
    check_event_format(connection, path)
    row = connection.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
    return (int(row[0]), str(row[1])) if row is not None else None


def check_no_triggers(connection: sqlite3.Connection, path: str) -> None:
    """Refuse a journal whose schema holds a trigger: a journal never has one, and one added would change or delete
    what a table commits (after it was shown) without any record changing before."""
    names = [str(row[0]) for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' "
                                                       "ORDER BY name")]
    if names:
        raise JournalTamperedError(message("journal.trigger_added", "{path}: the journal's schema was changed "
                                           "(trigger {names}; a journal has none): what is written to it may not stay "
                                           "as it was written; keep it for the audit and give a new --journal path",
                                           path=path, names=", ".join(names)))


def check_event_format(connection: sqlite3.Connection, path: str) -> None:
    """Refuse a journal whose header names an event format newer than :data:`EVENTS_FORMAT`: its events may mean
    what this software cannot know, so none is read as today's. Only an intact header counts: one that does not
    chain (an edit) is left to the reader, whose check names it (``croupier audit verify``)."""
    row = connection.execute("SELECT kind, at, prev, body, hash FROM records WHERE seq = 1").fetchone()
    if row is None or row[0] != "header" or row[2] != GENESIS or record_hash(1, *row[:4]) != row[4]:
        return
    try:
        header = json.loads(row[3])
    except (ValueError, RecursionError):
        return
    found = events_format(header) if isinstance(header, dict) else 1
    if found > EVENTS_FORMAT:
        raise JournalError(message("journal.newer_events", "{path}: journal event format {found} is not supported; "
                                   "this Croupier reads event format {newest} and earlier: use a newer Croupier "
                                   "for it", path=path, found=found, newest=EVENTS_FORMAT))


def use_wal(connection: sqlite3.Connection, path: str) -> None:
    """Put the journal in WAL mode with ``synchronous=FULL``: a commit is on disk when it returns."""
    mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise JournalError(message("journal.no_wal", "{path}: cannot put the journal in WAL mode (got {mode})",
                                   path=path, mode=repr(mode)))
    connection.execute("PRAGMA synchronous=FULL")


WAL_RESERVE = 8 * 1024 * 1024
"""The size a live table's journal gives its WAL before its first card (:func:`reserve_wal`): more than the
frames of :data:`~controller.journal.store.WAL_CHECKPOINT_EVERY` commits, after which the WAL starts again
from its beginning."""
WAL_RESERVE_SPARE = 4 * WAL_RESERVE
"""The free space a disk must keep after the reserve: the reserve never takes a nearly full disk's last room."""


def reserve_wal(connection: sqlite3.Connection, size: int = WAL_RESERVE) -> None:
    """Pad the WAL of ``connection`` with zeros, past its last frame, to ``size`` bytes in all.

    A commit that appends to the WAL grows the file, and its ``fdatasync`` must then also commit the file's
    new size; a commit into blocks already written costs the data alone (on this project's development disk
    the journal-on p99 was about a tenth lower with it, in runs taken in turn with and without it). SQLite
    reads a WAL only up to its last frame whose checksum chains, and writes a new header when it starts the
    WAL again, so the zeros are never taken for frames, and the frames before them are not touched. Call it
    before anything else writes to the journal. Best effort: where the disk would keep less than
    :data:`WAL_RESERVE_SPARE` free, nothing is written, and a failed write is cut off again, so the WAL
    is then as it was and the journal works as before.
    """
    try:
        connection.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()  # opens (creates) the WAL
        rows = connection.execute("PRAGMA database_list").fetchall()
    except sqlite3.Error:
        return
    files = [str(row[2]) for row in rows if row[1] == "main" and row[2]]
    if not files:
        return
    wal = files[0] + "-wal"  # SQLite's own name: beside the journal's real file, symlinks resolved
    try:
        fd = os.open(wal, os.O_WRONLY)
    except OSError:
        return
    try:
        start = end = os.fstat(fd).st_size
        disk = os.fstatvfs(fd)
        if start >= size or disk.f_bavail * disk.f_frsize < size - start + WAL_RESERVE_SPARE:
            return
        chunk = bytes(1024 * 1024)
        try:
            while end < size:
                end += os.pwrite(fd, chunk[:size - end], end)
            os.fdatasync(fd)
        except OSError:
            os.ftruncate(fd, start)
    except OSError:
        pass
    finally:
        os.close(fd)


def lock(path: str, name: str) -> int:
    """Hold an exclusive ``flock`` on file ``name`` (the journal at ``path``, or its draft); returns the fd.

    One controller per journal. (SQLite's own locks are POSIX locks, independent of this; readers such
    as ``audit`` and ``history`` take none. A killed controller's lock goes with it.)
    """
    try:
        fd = os.open(name, os.O_RDONLY)
    except OSError as error:
        raise JournalError(message("journal.cannot_open", "{path}: cannot open the journal ({reason})", path=path,
                                   reason=str(error.strerror))) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise JournalError(message("journal.in_use", "{path}: the journal is in use by another running croupier; "
                                   "stop that one first, or give another --journal path", path=path)) from None
    return fd


def open_read_only(name: str) -> tuple[sqlite3.Connection, Tail]:
    """Open the existing journal ``name`` read-only, leaving its directory as it was.

    A journal whose controller closed it (no ``-wal`` beside it) is read as an immutable file, so it may be
    read-only to the user, on a read-only mount, or in a directory the user cannot write. A ``-shm`` without
    its ``-wal`` (left by a copy or a killed controller) indexes no WAL and is left alone: reading through it
    would create an empty ``-wal`` and rewrite it.
    """
    target = Path(name)
    if not name or not os.path.lexists(name):
        raise JournalError(message("journal.no_such_file", "{path}: no such journal file; give the path of a Croupier "
                                   "journal", path=name or "''"))
    if target.is_dir():
        raise JournalError(message("journal.is_directory", "{path}: is a directory; give the path of a journal file",
                                   path=name))
    if not target.is_file():
        raise JournalError(message("journal.not_regular", "{path}: not a regular file; give the path of a journal file",
                                   path=name))
    in_use = os.path.lexists(name + "-wal")
    query = "mode=ro" if in_use else "mode=ro&immutable=1"
    try:
        connection = connect(f"{target.resolve().as_uri()}?{query}", uri=True)
    except sqlite3.Error as error:
        raise JournalError(message("journal.cannot_open", "{path}: cannot open the journal ({reason})", path=name,
                                   reason=describe_error(error))) from None
    try:
        return connection, check_format(connection, name)
    except sqlite3.Error as error:
        connection.close()
        if in_use and isinstance(error, sqlite3.OperationalError) and (
                "readonly" in str(error) or "unable to open" in str(error)):
            raise JournalError(message("journal.wal_not_writable", "{path}: cannot read the journal ({reason}): "
                                       "its -wal and -shm files (a controller has it open, or stopped without "
                                       "closing it) must be writable to read it; read it as the journal's owner",
                                       path=name, reason=describe_error(error))) from None
        raise open_error(name, error) from None
    except JournalError:
        connection.close()
        raise


def check_existing(name: str) -> None:
    """Refuse to write to ``name`` unless it is a journal with records, leaving it untouched."""
    if not Path(name).is_file():
        raise JournalError(message("journal.not_regular", "{path}: not a regular file; give the path of a journal file",
                                   path=name))
    if os.stat(name).st_size == 0:
        raise JournalError(message("journal.empty_file", "{path}: the file is empty (0 bytes), and a journal never "
                                   "is: a truncated journal? Keep it for the audit; delete it only if it is not a "
                                   "journal, or give another --journal path", path=name))
    connection, tail = open_read_only(name)
    try:
        if tail is None:  # no record at all; a last one that is no record (a damaged file) is named by the checks
            raise JournalTamperedError(message("journal.emptied_resume", "{path}: the journal has no records: it was "
                                               "emptied; keep it for the audit and give a new --journal path",
                                               path=name))
    finally:
        connection.close()


def open_for_writing(name: str) -> tuple[sqlite3.Connection, Tail]:
    """Open the existing journal ``name``, which the caller has locked (:func:`lock`), for writing:
    (connection, tail)."""
    try:
        connection = connect(name)
    except sqlite3.Error as error:
        raise JournalError(message("journal.cannot_open_writing", "{path}: cannot open the journal for writing "
                                   "({reason})", path=name, reason=describe_error(error))) from None
    try:
        tail = check_format(connection, name)
        use_wal(connection, name)
    except (sqlite3.Error, JournalError) as error:
        _close(connection, None)
        if isinstance(error, sqlite3.Error):
            raise open_error(name, error) from None
        raise
    return connection, tail


class Draft:
    """The temporary file a new journal is written to until its first records are on disk."""

    def __init__(self, target: str) -> None:
        self.target = target
        """The journal's path, which the draft takes once published."""
        path = Path(target)
        self.path = str(path.parent / f".{path.name}.{os.getpid()}{DRAFT_SUFFIX}")

    @classmethod
    def create(cls, name: str) -> tuple[Draft, sqlite3.Connection, int]:
        """Start a new journal for ``name`` (which has no file): (draft, its connection, lock fd)."""
        remove_stale_drafts(Path(name))
        draft = cls(name)
        draft.remove()
        try:
            connection = connect(draft.path)
        except sqlite3.Error as error:
            raise JournalError(message("journal.cannot_create", "{path}: cannot create the journal ({reason}); check "
                                       "the directory's permissions or give another --journal path", path=name,
                                       reason=describe_error(error))) from None
        fd: int | None = None
        try:
            fd = lock(name, draft.path)
            use_wal(connection, name)
        except (sqlite3.Error, JournalError) as error:
            _close(connection, fd)
            draft.remove()
            if isinstance(error, sqlite3.Error):
                raise open_error(name, error) from None
            raise
        return draft, connection, fd

    def checkpoint(self, connection: sqlite3.Connection) -> int:
        """Move the draft's WAL into its file and close ``connection``; returns its ``max_page_count``."""
        busy, _, _ = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        limit = int(connection.execute("PRAGMA max_page_count").fetchone()[0])
        if busy:
            raise sqlite3.OperationalError("the new journal could not be checkpointed")
        connection.close()
        if os.path.exists(self.path + "-wal") and os.path.getsize(self.path + "-wal"):
            raise sqlite3.OperationalError("the new journal's WAL was not checkpointed")
        return limit

    def link(self) -> None:
        """Give the checkpointed draft its real name, durably, and remove the draft's name."""
        try:
            os.link(self.path, self.target)
        except FileExistsError:
            raise JournalError(message("journal.created_meanwhile", "{path}: another croupier created this journal at "
                                       "the same moment; stop that one first, or give another --journal path",
                                       path=self.target)) from None
        self.remove()
        directory = os.open(os.path.dirname(os.path.abspath(self.target)), os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)

    def remove(self) -> None:
        """Remove the draft and its SQLite side files, if there."""
        remove_draft(self.path)


def remove_draft(draft: str) -> None:
    """Remove the draft file ``draft`` and its SQLite side files, if there."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.lexists(draft + suffix):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(draft + suffix)


def remove_stale_drafts(target: Path) -> None:
    """Remove drafts of ``target`` that a killed controller left; refuse while a live one holds one."""
    for draft in target.parent.glob(f".{glob.escape(target.name)}.*{DRAFT_SUFFIX}"):
        try:
            fd = os.open(draft, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise JournalError(message("journal.being_created", "{path}: the journal is in use by another running "
                                       "croupier (it is creating it); stop that one first, or give another "
                                       "--journal path", path=str(target))) from None
        else:
            remove_draft(str(draft))
        finally:
            os.close(fd)


def _close(connection: sqlite3.Connection, fd: int | None) -> None:
    with contextlib.suppress(sqlite3.Error):
        connection.close()
    if fd is not None:
        os.close(fd)

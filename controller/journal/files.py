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
import os
import sqlite3
from pathlib import Path

from controller.core.exceptions import JournalError, JournalTamperedError

FORMAT = "croupier-journal"
VERSION = 1
APPLICATION_ID = 0x43524A31
"""``PRAGMA application_id`` of a journal ("CRJ1")."""
DRAFT_SUFFIX = ".new-journal"

Tail = tuple[int, str] | None
"""The last record's (seq, hash); None for a journal with no record."""


def describe_error(error: BaseException) -> str:
    """An SQLite or OS error as a message says it."""
    text = str(error) or type(error).__name__
    if isinstance(error, sqlite3.OperationalError) and "disk is full" in text:
        return "the disk is full"
    return text


def open_error(path: str, error: sqlite3.Error) -> JournalError:
    """What an SQLite error on opening or reading the journal at ``path`` means."""
    text = describe_error(error)
    if "not a database" in text or "file is encrypted" in text:
        return JournalError(f"{path}: not a Croupier journal (not an SQLite database)")
    if "malformed" in text or "corrupt" in text:
        return JournalError(f"{path}: the journal file is damaged ({text}); keep it for the "
                            "audit and start a new journal from a backup")
    if isinstance(error, sqlite3.OperationalError) and ("readonly" in text or "unable to open" in text):
        return JournalError(f"{path}: cannot write the journal ({text}); check the path "
                            "and its permissions")
    return JournalError(f"{path}: cannot use the journal ({text})")


def check_format(connection: sqlite3.Connection, path: str) -> Tail:
    """Refuse a database that is not a journal of this version, or whose metadata was changed."""
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        raise JournalError(f"{path}: not a Croupier journal (an empty database)")
    if not {"journal_meta", "records"} <= tables:
        raise JournalError(f"{path}: not a Croupier journal (an SQLite database without "
                           "the journal tables)")
    meta = dict(connection.execute("SELECT key, value FROM journal_meta").fetchall())
    marked = connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    if meta.get("format") != FORMAT:
        error = JournalTamperedError if marked else JournalError
        raise error(f"{path}: not a Croupier journal (format {meta.get('format')!r})")
    if marked and set(meta) != {"format", "version"}:
        raise JournalTamperedError(f"{path}: the journal's metadata was changed "
                                   f"(keys {sorted(meta)}; a journal has format and version only)")
    if meta.get("version") != str(VERSION):
        raise (JournalTamperedError if marked else JournalError)(
            f"{path}: journal format version {meta.get('version')} is not "
            f"supported; this Croupier reads version {VERSION}")
    row = connection.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
    return (int(row[0]), str(row[1])) if row is not None else None


def use_wal(connection: sqlite3.Connection, path: str) -> None:
    """Put the journal in WAL mode with ``synchronous=FULL``: a commit is on disk when it returns."""
    mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise JournalError(f"{path}: cannot put the journal in WAL mode (got {mode!r})")
    connection.execute("PRAGMA synchronous=FULL")


def lock(path: str, name: str) -> int:
    """Hold an exclusive ``flock`` on file ``name`` (the journal at ``path``, or its draft); returns the fd.

    One controller per journal. (SQLite's own locks are POSIX locks, independent of this; readers such
    as ``audit`` and ``history`` take none. A killed controller's lock goes with it.)
    """
    try:
        fd = os.open(name, os.O_RDONLY)
    except OSError as error:
        raise JournalError(f"{path}: cannot open the journal ({error.strerror})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise JournalError(f"{path}: the journal is in use by another running croupier; stop "
                           "that one first, or give another --journal path") from None
    return fd


def open_read_only(name: str) -> tuple[sqlite3.Connection, Tail]:
    """Open the existing journal ``name`` read-only, leaving its directory as it was.

    A journal whose controller closed it (no ``-wal``/``-shm`` beside it) is read as an immutable
    file, so it may be read-only to the user, on a read-only mount, or in a directory the user
    cannot write.
    """
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
        raise JournalError(f"{name}: cannot open the journal ({describe_error(error)})") from None
    try:
        return connection, check_format(connection, name)
    except sqlite3.Error as error:
        connection.close()
        if in_use and isinstance(error, sqlite3.OperationalError) and (
                "readonly" in str(error) or "unable to open" in str(error)):
            raise JournalError(f"{name}: cannot read the journal ({describe_error(error)}): its -wal and -shm "
                               "files (a controller has it open, or stopped without closing it) must be "
                               "writable to read it; read it as the journal's owner") from None
        raise open_error(name, error) from None
    except JournalError:
        connection.close()
        raise


def check_existing(name: str) -> None:
    """Refuse to write to ``name`` unless it is a journal with records, leaving it untouched."""
    if not Path(name).is_file():
        raise JournalError(f"{name}: not a regular file; give the path of a journal file")
    if os.stat(name).st_size == 0:
        raise JournalError(f"{name}: the file is empty (0 bytes), and a journal never is: a truncated "
                           "journal? Keep it for the audit; delete it only if it is not a journal, or "
                           "give another --journal path")
    connection, tail = open_read_only(name)
    try:
        if (tail[0] if tail else 0) == 0:
            raise JournalTamperedError(f"{name}: the journal has no records: it was emptied; keep it "
                                       "for the audit and give a new --journal path")
    finally:
        connection.close()


def open_for_writing(name: str) -> tuple[sqlite3.Connection, int, Tail]:
    """Open the existing journal ``name`` for writing: (connection, lock fd, tail)."""
    try:
        connection = sqlite3.connect(name, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as error:
        raise JournalError(f"{name}: cannot open the journal for writing ({describe_error(error)})") from None
    fd: int | None = None
    try:
        fd = lock(name, name)
        tail = check_format(connection, name)
        use_wal(connection, name)
    except (sqlite3.Error, JournalError) as error:
        _close(connection, fd)
        if isinstance(error, sqlite3.Error):
            raise open_error(name, error) from None
        raise
    return connection, fd, tail


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
            connection = sqlite3.connect(draft.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as error:
            raise JournalError(f"{name}: cannot create the journal ({describe_error(error)}); check the "
                               "directory's permissions or give another --journal path") from None
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
            raise JournalError(f"{self.target}: another croupier created this journal at the same moment; "
                               "stop that one first, or give another --journal path") from None
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
            raise JournalError(f"{target}: the journal is in use by another running croupier (it is creating "
                               "it); stop that one first, or give another --journal path") from None
        else:
            remove_draft(str(draft))
        finally:
            os.close(fd)


def _close(connection: sqlite3.Connection, fd: int | None) -> None:
    with contextlib.suppress(sqlite3.Error):
        connection.close()
    if fd is not None:
        os.close(fd)

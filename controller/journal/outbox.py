"""The journal as an outbox: reading its records after a point, and the feed's two marks.

A table's feed (``controller/floor``) publishes the journal's records to a broker. It reads them
here on a connection of its own (WAL: reading never blocks the table's writer), and it keeps two
marks in the journal: in table ``feed_acked``, the last record the floor's archive confirmed it stored
(the table's record of delivery: the records after it are sent again when the table starts again), and
in table ``feed_published``, the last record whose messages the broker all acknowledged (a restarted
table does not publish the events up to it again).

The marks are advisory, like the ``delivered`` mark: written without fsync (a lost mark only means
records are published again, and receivers drop duplicates by ``seq``), outside the hash chain,
and only by the feed's connection. ``croupier audit verify`` checks ``feed_acked``: a mark beyond the
last record means records the archive stored were deleted from the end of the journal, and
``audit verify --archive`` holds the archive to it.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

from controller.core.exceptions import JournalError
from controller.journal.files import describe_error
from controller.journal.store import Record

FEED_SCHEMA = """CREATE TABLE IF NOT EXISTS feed_acked (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL
)"""
PUBLISHED_SCHEMA = """CREATE TABLE IF NOT EXISTS feed_published (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL
)"""
BUSY_TIMEOUT_SECONDS = 5.0
"""How long a statement here waits for the table's writer (it holds the write lock for milliseconds)."""


class Outbox:
    """A second connection to an open journal, for its feed: read records, keep the acknowledged mark."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            self.connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                                              timeout=BUSY_TIMEOUT_SECONDS)
            self.connection.execute(FEED_SCHEMA)
            self.connection.execute(PUBLISHED_SCHEMA)
        except sqlite3.Error as error:
            raise JournalError(f"{path}: cannot open the journal for its feed ({describe_error(error)})") from None

    def acked(self) -> int:
        """The last record the archive confirmed it stored (0: none yet)."""
        return self._mark("feed_acked")

    def published(self) -> int:
        """The last record whose messages the broker all acknowledged (0: none yet)."""
        return self._mark("feed_published")

    def _mark(self, table: str) -> int:
        row = self.connection.execute(f"SELECT seq FROM {table} WHERE id = 1").fetchone()
        mark = row[0] if row is not None else 0
        return mark if isinstance(mark, int) and mark >= 0 else 0

    def last_seq(self) -> int:
        """The journal's last record (0: none)."""
        row = self.connection.execute("SELECT max(seq) FROM records").fetchone()
        return int(row[0]) if row is not None and row[0] is not None else 0

    def hash_at(self, seq: int) -> str | None:
        """The hash of record ``seq`` (None: the journal has no such record)."""
        row = self.connection.execute("SELECT hash FROM records WHERE seq = ?", (seq,)).fetchone()
        return str(row[0]) if row is not None else None

    def records_after(self, seq: int, limit: int) -> list[Record]:
        """Up to ``limit`` records after ``seq``, in order."""
        cursor = self.connection.execute(
            "SELECT seq, kind, at, body, prev, hash FROM records WHERE seq > ? ORDER BY seq LIMIT ?", (seq, limit))
        return [Record(*row) for row in cursor]

    def records_upto(self, seq: int) -> Iterator[Record]:
        """Every record up to ``seq`` (included), in order."""
        cursor = self.connection.execute(
            "SELECT seq, kind, at, body, prev, hash FROM records WHERE seq <= ? ORDER BY seq", (seq,))
        for row in cursor:
            yield Record(*row)

    def mark(self, confirmed: int, published: int) -> bool:
        """Keep ``confirmed`` (archive) and ``published`` (broker) as the marks; False when the journal was busy
        (try again later)."""
        connection = self.connection
        try:
            connection.execute("PRAGMA synchronous=OFF")
            connection.execute("BEGIN")
            connection.execute("INSERT OR REPLACE INTO feed_acked VALUES (1, ?)", (confirmed,))
            connection.execute("INSERT OR REPLACE INTO feed_published VALUES (1, ?)", (published,))
            connection.execute("COMMIT")
            return True
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")
            return False
        finally:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("PRAGMA synchronous=FULL")

    def close(self) -> None:
        """Close the connection. Idempotent."""
        with contextlib.suppress(sqlite3.Error):
            self.connection.close()

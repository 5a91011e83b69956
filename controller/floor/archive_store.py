"""The archive's PostgreSQL store: every table's journal records, chain-checked, each stored once.

Tables (created when missing, see ``docs/floor.md``):

``journal_records``
    the archived records, key ``(site, table_id, seq)``: only records that chain (their own hash holds,
    and ``prev`` is the hash of the archived ``seq - 1``, or 64 zeros for record 1), so a table's rows
    are always a gap-free verified prefix of its journal; each row's ``mode`` (``live``, ``simulation``,
    ``training``) is the one its journal's record 1 gives (:func:`~controller.journal.about.header_mode`), so
    simulated play never passes for live play (an archive made before the column gains it, filled the same way:
    :meth:`ArchiveStore.create_schema`);
``journal_pending``
    records that arrived before their predecessor (several archive processes share the load, so a
    record may be handled before the one before it); each is checked and moved into
    ``journal_records`` as soon as its predecessor is archived;
``journal_rejects``
    records that do not chain, or whose content differs from the archived record of the same seq,
    or that are not journal records at all, with the reason: kept apart, never stored as good;
``journal_heads``
    each table's highest record the archive stored (and so confirmed to the table, on
    ``croupier/SITE/TABLE/archived``): ``croupier audit verify --archive`` finds rows deleted from the end
    of a table's archived records against it.

Each batch also gives every table's archived head after it, and the record the archive wants next when a
record waits for a predecessor (parked in ``journal_pending``, at most :data:`PENDING_LIMIT` a table) or was
deferred (beyond that bound): the archive asks the table for it (``docs/floor.md``, "Delivery").

Records are stored in batches: one transaction for many records, three round trips to the server and
a handful of statements whatever the batch's size (:meth:`ArchiveStore.store_batch`), so one
archive process keeps up with a whole floor. Work on one table is serialized across archive
processes by a transaction-scoped advisory lock per table; a batch takes the locks of all its tables
first, in one order (sorted by site and table), so two archive processes never deadlock.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import psycopg

from controller.core.exceptions import ArchiveError
from controller.floor.urls import redacted, refuse_undecodable_database_url, secrets_in
from controller.i18n.message import message
from controller.journal.about import header_mode
from controller.journal.store import GENESIS, Record, record_hash
from controller.terms import Mode

SCHEMA = """
CREATE TABLE IF NOT EXISTS journal_records (
    site        TEXT NOT NULL,
    table_id    TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    kind        TEXT NOT NULL,
    at          TEXT NOT NULL,
    body        TEXT NOT NULL,
    prev        TEXT NOT NULL,
    hash        TEXT NOT NULL,
    archived_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    mode        TEXT NOT NULL CHECK (mode IN ('live', 'simulation', 'training')),
    PRIMARY KEY (site, table_id, seq)
);
CREATE INDEX IF NOT EXISTS journal_records_by_hash ON journal_records (hash);
CREATE TABLE IF NOT EXISTS journal_pending (
    site        TEXT NOT NULL,
    table_id    TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    kind        TEXT NOT NULL,
    at          TEXT NOT NULL,
    body        TEXT NOT NULL,
    prev        TEXT NOT NULL,
    hash        TEXT NOT NULL,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (site, table_id, seq, hash)
);
CREATE TABLE IF NOT EXISTS journal_rejects (
    id          BIGSERIAL PRIMARY KEY,
    site        TEXT,
    table_id    TEXT,
    seq         BIGINT,
    reason      TEXT NOT NULL,
    payload     TEXT NOT NULL,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS journal_heads (
    site         TEXT NOT NULL,
    table_id     TEXT NOT NULL,
    seq          BIGINT NOT NULL,
    hash         TEXT NOT NULL,
    confirmed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (site, table_id)
)
"""
HAS_MODE = ("SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND "
            "table_name = 'journal_records' AND column_name = 'mode')")
SCHEMA_LOCK = 0x43524A31  # one archive creates the schema at a time ("CRJ1")
COLUMNS = "seq, kind, at, body, prev, hash"


MAX_SEQ = (1 << 63) - 1
PENDING_LIMIT = 1000
"""The most records of one table waiting in ``journal_pending`` for a predecessor; a record beyond it is
deferred (not kept: the archive asks the table to send again from its first missing record)."""


class Outcome(Enum):
    """What became of one received record."""

    STORED = "stored"
    DUPLICATE = "duplicate"
    PENDING = "pending"
    DEFERRED = "deferred"
    REJECTED = "rejected"


@dataclass(frozen=True)
class Rejection:
    """A record kept apart: which table and record, and why."""

    site: str | None
    table: str | None
    seq: int | None
    reason: str

    def __str__(self) -> str:
        where = f"{self.site}/{self.table}" if self.site is not None else "an unknown table"
        record = f" record {self.seq}" if self.seq is not None else ""
        return f"{where}{record}: {self.reason}"


@dataclass(frozen=True)
class Handled:
    """The outcome of one received record, and of the pending records it let through."""

    outcome: Outcome
    stored: int = 0
    """Records moved into ``journal_records`` (this one and any pending ones after it)."""
    rejections: tuple[Rejection, ...] = ()


Payload = str | bytes
"""A received message's text, or its bytes (a checked record's: UTF-8 without NUL, decoded only if refused)."""
Decoded = tuple[tuple[str, str, Record] | Rejection, Payload]
"""One received message: (site, table, record), or why it is not a record; and its text."""
Place = tuple[str, str]
"""(site, table)."""


@dataclass(frozen=True)
class Head:
    """A table's last archived record (``seq`` 0 and ``hash`` None: none yet)."""

    seq: int = 0
    hash: str | None = None


@dataclass(frozen=True)
class Progress:
    """A table after a batch: its archived head, and the record the archive wants next (None: no gap)."""

    head: Head
    wants: int | None
    pending: int = 0
    """Its records waiting in ``journal_pending``."""


@dataclass
class BatchResult:
    """The outcome of each message of a batch, in order, and each table's progress after it."""

    handled: list[Handled]
    progress: dict[Place, Progress]


def first_line(error: psycopg.Error) -> str:
    """The first line of a database error's message (its type's name when it has none): one line to show."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


CUSTOM_PLANS = "SET plan_cache_mode = force_custom_plan"
"""psycopg prepares a statement run five times, and PostgreSQL may then keep one generic plan for it:
planned while ``journal_records`` was small (a fresh archive), a sequential scan that each batch's
lookup of archived hashes then pays for every row archived since (5 ms a batch at 50,000 rows, 0.25 ms
with an index scan). Every execution is planned for its own arguments and the table as it is now."""


MINIMUM_SERVER = 120000
"""PostgreSQL 12, the first with ``plan_cache_mode`` (``server_version_num``)."""


def connect(url: str, option: str = "--db") -> psycopg.Connection[Any]:
    """A connection to the database at ``url``; raises :class:`ArchiveError` when it cannot be reached (a
    :class:`~controller.core.exceptions.FloorError` when ``url`` is not UTF-8 text)."""
    refuse_undecodable_database_url(url, option)
    try:
        connection = psycopg.connect(url, connect_timeout=10)
    except psycopg.Error as error:
        first = first_line(error)
        for secret in secrets_in(url):  # libpq may quote the part of the URL it could not read
            first = first.replace(secret, "***")
        raise ArchiveError(f"{option} {redacted(url)!r}: cannot connect to the database ({first}); "
                           "check that PostgreSQL runs there and the URL's user, password and database") from None
    if connection.info.server_version < MINIMUM_SERVER:
        version = connection.info.server_version
        connection.close()
        raise ArchiveError(f"{option} {redacted(url)!r}: PostgreSQL {version // 10000} is too old; the archive "
                           f"needs PostgreSQL {MINIMUM_SERVER // 10000} or later (plan_cache_mode)")
    try:
        with connection.transaction():
            connection.execute(CUSTOM_PLANS)
    except psycopg.Error as error:
        connection.close()
        raise database_failure(error) from None
    return connection


def database_failure(error: psycopg.Error) -> ArchiveError:
    """A database error during the run, as one line."""
    first = first_line(error)
    return ArchiveError(message("archive.database_failed", "the archive database failed ({reason}); what was not "
                                "committed is not acknowledged, so the broker sends it again on the next start",
                                reason=first))


class ArchiveStore:
    """The archive tables of one PostgreSQL database (one connection, used from one thread)."""

    def __init__(self, connection: psycopg.Connection[Any]) -> None:
        self.connection = connection
        self.seen_heads: dict[Place, int] = {}
        """Each table's archived head after this store's last batch of it: a record after it is new (it needs
        no lookup of archived hashes); the heads read under the locks say whether another process moved on."""
        self.modes: dict[Place, Mode] = {}
        """Each table's mode once known (its record 1's: it never changes)."""
        connection.autocommit = True  # every write below is in a transaction() of its own: a real one, never a
        # savepoint inside an implicit transaction that a read before it opened and nothing would commit

    def create_schema(self) -> None:
        """Create the archive's tables when they are missing (safe with several archives starting)."""
        with self.connection.transaction():
            self.connection.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            for statement in SCHEMA.strip().split(";"):
                self.connection.execute(statement)
            row = self.connection.execute(HAS_MODE).fetchone()
            if row is not None and not row[0]:
                self._add_modes()

    def _add_modes(self) -> None:
        """An archive made before modes gains the ``mode`` column (once, under the schema's lock): each table's rows
        get the mode of its first record (a table whose first archived record is not its header: live), then the
        column is required and checked as in a new archive."""
        connection = self.connection
        connection.execute("ALTER TABLE journal_records ADD COLUMN mode TEXT")
        empty = connection.execute(
            "SELECT site, table_id FROM journal_records WHERE mode IS NULL GROUP BY site, table_id").fetchall()
        for site, table in empty:
            first = connection.execute("SELECT kind, body FROM journal_records WHERE site = %s AND table_id = %s "
                                       "ORDER BY seq LIMIT 1", (site, table)).fetchone()
            mode: Mode = "live"
            if first is not None and first[0] == "header":
                mode = header_mode(_json_object(first[1]))
            connection.execute("UPDATE journal_records SET mode = %s WHERE site = %s AND table_id = %s AND mode IS "
                               "NULL", (mode, site, table))
        connection.execute("ALTER TABLE journal_records ALTER COLUMN mode SET NOT NULL")
        connection.execute("ALTER TABLE journal_records ADD CONSTRAINT journal_records_mode_check CHECK (mode IN "
                           "('live', 'simulation', 'training'))")

    def close(self) -> None:
        """Close the connection."""
        self.connection.close()

    # -- receiving -----------------------------------------------------------------
    def reject(self, rejection: Rejection, payload: Payload) -> Handled:
        """Keep a message that is not a journal record apart, with the reason."""
        return self.receive_batch([(rejection, payload)])[0]

    def receive(self, site: str, table: str, record: Record, payload: Payload) -> Handled:
        """Archive ``record`` of table ``site/table`` once, if it chains; see the module's docstring."""
        return self.receive_batch([((site, table, record), payload)])[0]

    def receive_batch(self, messages: Sequence[Decoded],
                      stamp: Callable[[str], None] | None = None) -> list[Handled]:
        """:meth:`store_batch`'s outcomes."""
        return self.store_batch(messages, stamp).handled

    def store_batch(self, messages: Sequence[Decoded], stamp: Callable[[str], None] | None = None) -> BatchResult:
        """Handle ``messages`` (records, or messages that are not records) in one transaction, in order.

        Each outcome is what :meth:`receive` or :meth:`reject` would give for it on its own, one after
        the other; nothing is committed unless everything is (a database error rolls the whole batch
        back). ``stamp``, when given, is called with each stage's name as the batch reaches it (``read``,
        ``judged``, ``written``, ``committed``: :mod:`controller.floor.archive_timing`). A batch costs three
        round trips to the server whatever its size: in one pipeline, the transaction's start, the tables' locks
        (one statement) and the archived hashes, heads and pending records the batch needs (three queries);
        then the records judged in memory, each new record copied in as soon as it is judged (``COPY``,
        PostgreSQL's bulk load, which takes the rows while the next ones are judged), and in a second pipeline
        one statement for each other kind of row written and the commit.
        """
        records = [item for item, _ in messages if not isinstance(item, Rejection)]
        lowest = _lowest_seqs(records)
        places = sorted(lowest)
        connection = self.connection
        try:
            expected = _at_or_before(records, lowest, self.seen_heads, MAX_SEQ)
            with connection.pipeline():
                connection.execute("BEGIN", prepare=False)  # in the pipeline: no round trip of its own
                if places:
                    connection.execute(LOCK_TABLES, ([f"{site}/{table}" for site, table in places],))
                archived, heads = self._archived_hashes(expected), self._heads(places)
                pending = self._pending(places)
                modes = self._modes([place for place in places if place not in self.modes])
            hashes, found_heads = _hashes(archived), _heads_of(heads)
            self._look_up_the_rest(records, lowest, expected, found_heads, hashes)
            with contextlib.ExitStack() as copying:
                judge = BatchJudge(hashes, _pending_records(pending), found_heads, {**self.modes, **_modes_of(modes)})
                judge.copy_row = self._copier(copying, judge)
                if stamp is not None:
                    stamp("read")
                handled = [judge.reject(item, payload) if isinstance(item, Rejection)
                           else judge.receive(*item, payload) for item, payload in messages]
                if stamp is not None:
                    stamp("judged")
            self._write(judge, stamp)
        except BaseException:
            with contextlib.suppress(psycopg.Error):
                connection.rollback()
            raise
        if stamp is not None:
            stamp("committed")
        progress = judge.progress(places)
        self.seen_heads.update((place, step.head.seq) for place, step in progress.items())
        self.modes.update(judge.modes)
        return BatchResult(handled, progress)

    def _look_up_the_rest(self, records: Sequence[tuple[str, str, Record]], lowest: dict[Place, int],
                          looked_up: Sequence[tuple[str, str, Record]], heads: dict[Place, Head],
                          hashes: dict[RecordKey, str]) -> None:
        """The archived hashes of the records at or before their table's head that were not looked up (another
        archive process moved the head on): a second query, in the batch's transaction."""
        done = {id(item) for item in looked_up}
        behind = _at_or_before(records, lowest, {place: head.seq for place, head in heads.items()}, 0)
        rest = [item for item in behind if id(item) not in done]
        if rest:
            hashes.update(_hashes(self._archived_hashes(rest)))
        for (site, table), head in heads.items():
            if head.hash is not None:
                hashes[(site, table, head.seq)] = head.hash

    def _copier(self, copying: contextlib.ExitStack, judge: BatchJudge) -> Callable[[tuple[Any, ...]], None]:
        """What copies ``judge``'s first new record in: it starts a ``COPY``, ended when ``copying`` closes (sent a
        failure when judging fails), that takes the next ones directly."""
        def first_row(row: tuple[Any, ...]) -> None:
            cursor = copying.enter_context(self.connection.cursor())
            copy = copying.enter_context(cursor.copy(COPY_RECORDS))
            copy.set_types(COPY_TYPES)
            judge.copy_row = copy.write_row
            copy.write_row(row)
        return first_row

    def _write(self, judge: BatchJudge, stamp: Callable[[str], None] | None) -> None:
        """The batch's other rows and its commit, in one pipeline after the new records were copied in: pending
        ones parked then released (a record parked in this batch may be released in it), the rejects, the heads
        and COMMIT."""
        connection = self.connection
        if stamp is not None:
            stamp("written")
        with connection.pipeline():
            for statement, parameters in judge.writes():
                connection.execute(statement, parameters)
            connection.execute("COMMIT", prepare=False)

    def heads(self, places: Sequence[Place]) -> dict[Place, Head]:
        """The archived head of each of ``places`` (one query; a table with no record has ``Head()``)."""
        if not places:
            return {}
        with self.connection.transaction():
            found = _heads_of(self._heads(sorted(set(places))))
        return {place: found.get(place, Head()) for place in places}

    def _heads(self, places: Sequence[Place]) -> psycopg.Cursor[Any] | None:
        """The query of the last archived record of each of ``places`` (one index lookup a table)."""
        if not places:
            return None
        sites, tables = (list(column) for column in zip(*places, strict=True))
        return self.connection.execute(
            "SELECT place.site, place.table_id, last.seq, last.hash FROM unnest(%b::text[], %b::text[]) AS "
            "place (site, table_id) CROSS JOIN LATERAL (SELECT seq, hash FROM journal_records AS archived WHERE "
            "archived.site = place.site AND archived.table_id = place.table_id ORDER BY seq DESC LIMIT 1) AS last",
            (sites, tables))

    def _archived_hashes(self, records: Sequence[tuple[str, str, Record]]) -> psycopg.Cursor[Any] | None:
        """The query of the hashes of the archived records ``seq - 1`` and ``seq`` of every record of ``records``."""
        wanted = sorted({(site, table, seq) for site, table, record in records
                         for seq in (record.seq - 1, record.seq) if seq >= 1})
        if not wanted:
            return None
        sites, tables, seqs = (list(column) for column in zip(*wanted, strict=True))
        return self.connection.execute(
            "SELECT site, table_id, seq, hash FROM journal_records WHERE (site, table_id, seq) IN "
            "(SELECT * FROM unnest(%b::text[], %b::text[], %b::bigint[]))", (sites, tables, seqs))

    def _modes(self, places: Sequence[Place]) -> psycopg.Cursor[Any] | None:
        """The query of the mode of each of ``places`` that has archived records (its first row's)."""
        if not places:
            return None
        sites, tables = (list(column) for column in zip(*places, strict=True))
        return self.connection.execute(
            "SELECT place.site, place.table_id, first.mode FROM unnest(%b::text[], %b::text[]) AS place (site, "
            "table_id) CROSS JOIN LATERAL (SELECT mode FROM journal_records AS archived WHERE archived.site = "
            "place.site AND archived.table_id = place.table_id ORDER BY seq LIMIT 1) AS first", (sites, tables))

    def _pending(self, places: Sequence[tuple[str, str]]) -> psycopg.Cursor[Any] | None:
        """The query of the pending records of the tables ``places``."""
        if not places:
            return None
        sites, tables = (list(column) for column in zip(*places, strict=True))
        return self.connection.execute(
            f"SELECT site, table_id, {COLUMNS} FROM journal_pending WHERE (site, table_id) IN "
            "(SELECT * FROM unnest(%b::text[], %b::text[])) ORDER BY site, table_id, seq, hash",
            (sites, tables))

    # -- reading -------------------------------------------------------------------
    def archived(self, site: str, table: str) -> list[Record]:
        """The archived records of ``site/table``, in order."""
        rows = self.connection.execute(
            f"SELECT {COLUMNS} FROM journal_records WHERE site = %s AND table_id = %s ORDER BY seq",
            (site, table)).fetchall()
        return [Record(*row) for row in rows]

    def tables(self) -> list[tuple[str, str]]:
        """Every (site, table) with archived records, in order; an archive without its tables is said in one line."""
        try:
            rows = self.connection.execute(
                "SELECT DISTINCT site, table_id FROM journal_records ORDER BY site, table_id").fetchall()
        except psycopg.errors.UndefinedTable:
            raise ArchiveError("the database holds no archive (no journal_records table); give the URL of "
                               "the database croupier archive writes to") from None
        except psycopg.Error as error:
            raise database_failure(error) from None
        return [(str(site), str(table)) for site, table in rows]

    def table_modes(self) -> dict[Place, Mode | None]:
        """Each archived table's mode (``journal_records.mode``; None for every table of an archive no archive of
        this version has started on yet: it has no such column)."""
        try:
            rows = self.connection.execute(
                "SELECT DISTINCT ON (site, table_id) site, table_id, mode FROM journal_records ORDER BY site, "
                "table_id, seq").fetchall()
        except psycopg.errors.UndefinedColumn:
            return {place: None for place in self.tables()}
        except psycopg.Error as error:
            raise database_failure(error) from None
        return {(str(site), str(table)): mode for site, table, mode in rows}

    def confirmed_head(self, site: str, table: str) -> Head:
        """The highest record of ``site/table`` the archive stored and confirmed, with its hash (``journal_heads``;
        ``Head()``: none, or an archive made before it kept them)."""
        try:
            with self.connection.transaction():
                row = self.connection.execute("SELECT seq, hash FROM journal_heads WHERE site = %s AND "
                                              "table_id = %s", (site, table)).fetchone()
        except psycopg.errors.UndefinedTable:
            return Head()
        return Head(int(row[0]), str(row[1])) if row is not None else Head()

    def tables_holding(self, seq: int, hash_: str) -> list[tuple[str, str]]:
        """The (site, table) whose archived record ``seq`` has hash ``hash_``."""
        rows = self.connection.execute(
            "SELECT site, table_id FROM journal_records WHERE seq = %s AND hash = %s ORDER BY site, table_id",
            (seq, hash_)).fetchall()
        return [(str(site), str(table)) for site, table in rows]


RecordKey = tuple[str, str, int]
"""(site, table, seq)."""

# Arrays are passed in binary (%b): psycopg dumps a list of texts or numbers so at a fraction of the CPU an array
# literal takes (0.1 ms instead of 0.25 for a batch's heads), and PostgreSQL reads it without parsing.
LOCK_TABLES = "SELECT pg_advisory_xact_lock(hashtextextended(place, 0)) FROM unnest(%b::text[]) AS place"
"""Each table's advisory lock, in the order given (a function scan returns an array's elements in order)."""
STORE_RECORDS = (f"INSERT INTO journal_records (site, table_id, {COLUMNS}) SELECT * FROM unnest(%b::text[], "
                 "%b::text[], %b::bigint[], %b::text[], %b::text[], %b::text[], %b::text[], %b::text[]) "
                 "ON CONFLICT DO NOTHING")
PARK_RECORDS = STORE_RECORDS.replace("journal_records", "journal_pending")
COPY_RECORDS = f"COPY journal_records (site, table_id, {COLUMNS}, mode) FROM STDIN (FORMAT BINARY)"
"""The new records of a batch, copied in: judged under the tables' locks, none is archived yet. In binary, each
value's bytes as they are (PostgreSQL still checks that each text is UTF-8 without NUL): a third less of our CPU
than COPY's text form, which escapes every value."""
COPY_TYPES = ("text", "text", "int8", "text", "text", "text", "text", "text", "text")
RELEASE_PENDING = ("DELETE FROM journal_pending AS pending USING unnest(%b::text[], %b::text[], %b::bigint[]) AS "
                   "released (site, table_id, seq) WHERE pending.site = released.site AND pending.table_id = "
                   "released.table_id AND pending.seq = released.seq")
KEEP_HEADS = ("INSERT INTO journal_heads AS heads (site, table_id, seq, hash) SELECT * FROM unnest(%b::text[], "
              "%b::text[], %b::bigint[], %b::text[]) ON CONFLICT (site, table_id) DO UPDATE SET seq = EXCLUDED.seq, "
              "hash = EXCLUDED.hash, confirmed_at = now() WHERE heads.seq < EXCLUDED.seq")
STORE_REJECTS = ("INSERT INTO journal_rejects (site, table_id, seq, reason, payload) SELECT * FROM unnest(%b::text[], "
                 "%b::text[], %b::bigint[], %b::text[], %b::text[])")


def _lowest_seqs(records: Sequence[tuple[str, str, Record]]) -> dict[Place, int]:
    """Each table's lowest record number among ``records``."""
    lowest: dict[Place, int] = {}
    for site, table, record in records:
        if record.seq < lowest.get((site, table), MAX_SEQ + 1):
            lowest[(site, table)] = record.seq
    return lowest


def _at_or_before(records: Sequence[tuple[str, str, Record]], lowest: dict[Place, int], heads: dict[Place, int],
                  unknown: int) -> list[tuple[str, str, Record]]:
    """The records at or before their table's seq in ``heads`` (``unknown`` for a table not in it); the common batch,
    every record after its table's head, costs no look at each record."""
    behind = {place for place, seq in lowest.items() if seq <= heads.get(place, unknown)}
    if not behind:
        return []
    return [item for item in records
            if (item[0], item[1]) in behind and item[2].seq <= heads.get((item[0], item[1]), unknown)]


def _hashes(cursor: psycopg.Cursor[Any] | None) -> dict[RecordKey, str]:
    rows = cursor.fetchall() if cursor is not None else []
    return {(str(site), str(table), int(seq)): str(hash_) for site, table, seq, hash_ in rows}


def _heads_of(cursor: psycopg.Cursor[Any] | None) -> dict[Place, Head]:
    rows = cursor.fetchall() if cursor is not None else []
    return {(str(site), str(table)): Head(int(seq), str(hash_)) for site, table, seq, hash_ in rows}


def _modes_of(cursor: psycopg.Cursor[Any] | None) -> dict[Place, Mode]:
    rows = cursor.fetchall() if cursor is not None else []
    return {(str(site), str(table)): mode for site, table, mode in rows}


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # a well-hashed body need not be JSON, nor one json.loads can read
        return {}
    return value if isinstance(value, dict) else {}


def _pending_records(cursor: psycopg.Cursor[Any] | None) -> dict[RecordKey, list[Record]]:
    pending: dict[RecordKey, list[Record]] = {}
    for site, table, *columns in cursor.fetchall() if cursor is not None else []:
        record = Record(*columns)
        pending.setdefault((str(site), str(table), record.seq), []).append(record)
    return pending


def _columns(rows: Sequence[tuple[Any, ...]]) -> tuple[list[Any], ...]:
    """``rows`` as one list per column (for ``unnest``)."""
    return tuple(list(column) for column in zip(*rows, strict=True))


STORED_ONE = Handled(Outcome.STORED, 1)
"""The common outcome (a record stored, none released after it), made once."""
DUPLICATE = Handled(Outcome.DUPLICATE)
HASH_DOES_NOT_HOLD = "its hash does not match its contents (edited or forged)"


class BatchJudge:
    """Judges a batch's records one after the other against what is archived and pending, in memory.

    Starts from the archived hashes and the pending records the batch needs (read under the tables'
    locks) and keeps them up to date as it goes, so each record is judged exactly as if the ones
    before it had been committed; :meth:`writes` are the few statements that make it so.
    """

    def __init__(self, archived: dict[RecordKey, str], pending: dict[RecordKey, list[Record]],
                 heads: dict[Place, Head] | None = None, modes: dict[Place, Mode] | None = None) -> None:
        self.archived = archived
        self.stored: list[tuple[Any, ...]] = []
        self.copy_row: Callable[[tuple[Any, ...]], None] = self.stored.append
        """Given each new record's row as it is stored: the batch sets it to copy the row in at once; else the rows
        are kept in :attr:`stored`."""
        self.modes: dict[Place, Mode] = dict(modes or {})
        """Each table's mode (its record 1's), as read and as stored in this batch."""
        self.pending = pending
        self.tips: dict[Place, tuple[int, str]] = {place: (head.seq, head.hash) for place, head in (heads or {}).items()
                                                   if head.hash is not None}
        """Each table's archived head (seq, hash), as read and as stored in this batch."""
        self.waiting: dict[Place, int] = {}
        """Each table's records in ``journal_pending`` (as read, then as parked and released)."""
        for site, table, _ in pending:
            self.waiting[(site, table)] = self.waiting.get((site, table), 0) + 1
        self.parking: set[Place] = set(self.waiting)
        """The tables with records in ``journal_pending`` at any time in this batch (a record stored may release
        some)."""
        self.gaps: set[Place] = set()
        """The tables of which a record came before its predecessor in this batch."""
        self.advanced: set[Place] = set()
        self.parked: list[tuple[Any, ...]] = []
        self.released: list[RecordKey] = []
        self.rejected: list[tuple[Any, ...]] = []

    def writes(self) -> list[tuple[str, tuple[list[Any], ...]]]:
        """One statement for each kind of row the batch changes besides the new records (:attr:`stored`, copied
        in as they are judged: no other row depends on them), in an order that gives the same rows as the
        records' own writes one after the other: a record parked in this batch may be released in it (parked,
        then deleted), but a released record is archived, so it is never parked again."""
        heads = [(site, table, seq, hash_) for (site, table), (seq, hash_) in sorted(self.tips.items())
                 if (site, table) in self.advanced]
        kinds = ((PARK_RECORDS, self.parked), (RELEASE_PENDING, self.released), (STORE_REJECTS, self.rejected),
                 (KEEP_HEADS, heads))
        return [(statement, _columns(rows)) for statement, rows in kinds if rows]

    def progress(self, places: Sequence[Place]) -> dict[Place, Progress]:
        """Each of ``places`` after the batch: its head, and its first missing record when one of its
        records waits (or was deferred) for a predecessor."""
        found = {}
        for place in places:
            tip = self.tips.get(place)
            head = Head() if tip is None else Head(*tip)
            waiting = self.waiting.get(place, 0)
            gap = place in self.gaps or waiting > 0
            found[place] = Progress(head, head.seq + 1 if gap else None, waiting)
        return found

    def reject(self, rejection: Rejection, payload: Payload) -> Handled:
        """Keep a message that is not a journal record apart, with the reason."""
        self._insert_reject(rejection, payload)
        return Handled(Outcome.REJECTED, rejections=(rejection,))

    def receive(self, site: str, table: str, record: Record, payload: Payload) -> Handled:
        """Archive ``record`` once, if it chains; park it when its predecessor is missing."""
        place = (site, table)
        tip = self.tips.get(place)
        if tip is not None and record.seq == tip[0] + 1 and record.prev == tip[1]:
            # the common case, judged as below in fewer steps: the record after its table's head, chaining to it
            # (none is archived after the head, so it is new)
            if record_hash(record.seq, record.kind, record.at, record.prev, record.body) != record.hash:
                return self.reject(Rejection(site, table, record.seq, HASH_DOES_NOT_HOLD), payload)
            self._store(site, table, record)
            if place not in self.parking:
                return STORED_ONE
            stored, rejections = self._release_pending(site, table, record)
            return Handled(Outcome.STORED, 1 + stored, rejections)
        return self._receive_any(site, table, record, payload)

    def _receive_any(self, site: str, table: str, record: Record, payload: Payload) -> Handled:
        archived = self.archived.get((site, table, record.seq))
        before = self.archived.get((site, table, record.seq - 1))
        if archived == record.hash and _hash_holds(record):  # the same record again, not one edited with its hash kept
            return DUPLICATE
        problem = _problem(record, archived)
        if problem is None and record.seq > 1 and before is None:
            self.gaps.add((site, table))
            if self.waiting.get((site, table), 0) >= PENDING_LIMIT:
                return Handled(Outcome.DEFERRED)
            self._park(site, table, record)
            return Handled(Outcome.PENDING)
        if problem is None:
            problem = _chain_problem(record, before)
        if problem is not None:
            return self.reject(Rejection(site, table, record.seq, problem), payload)
        self._store(site, table, record)
        stored, rejections = self._release_pending(site, table, record)
        return Handled(Outcome.STORED, 1 + stored, rejections)

    def _release_pending(self, site: str, table: str, stored_last: Record) -> tuple[int, tuple[Rejection, ...]]:
        """Move the pending records that now chain after ``stored_last`` into ``journal_records``."""
        stored = 0
        rejections: list[Rejection] = []
        seq, before = stored_last.seq + 1, stored_last.hash
        while True:
            waiting = self.pending.pop((site, table, seq), [])
            if not waiting:
                return stored, tuple(rejections)
            self.released.append((site, table, seq))
            self.waiting[(site, table)] = max(0, self.waiting.get((site, table), 0) - len(waiting))
            chained = [record for record in waiting if _chain_problem(record, before) is None]
            for record in waiting:
                if not chained or record != chained[0]:
                    problem = _chain_problem(record, before) or "another record with this seq chains"
                    rejection = Rejection(site, table, record.seq, problem)
                    self._insert_reject(rejection, record_payload(record))
                    rejections.append(rejection)
            if not chained:
                return stored, tuple(rejections)
            self._store(site, table, chained[0])
            stored += 1
            seq, before = seq + 1, chained[0].hash

    def _store(self, site: str, table: str, record: Record) -> None:
        place = (site, table)
        seq = record.seq
        self.archived[(site, table, seq)] = record.hash
        if seq == 1:
            self.modes[place] = header_mode(_json_object(record.body))
        row = place + record + (self.modes.get(place, "live"),)
        self.copy_row(row)
        tip = self.tips.get(place)
        if tip is None or seq > tip[0]:
            self.tips[place] = (seq, record.hash)
            self.advanced.add(place)

    def _park(self, site: str, table: str, record: Record) -> None:
        self.parking.add((site, table))
        waiting = self.pending.setdefault((site, table, record.seq), [])
        if record not in waiting:
            waiting.append(record)
            waiting.sort(key=lambda parked: parked.hash)
            self.waiting[(site, table)] = self.waiting.get((site, table), 0) + 1
        self.parked.append((site, table, *record))

    def _insert_reject(self, rejection: Rejection, payload: Payload) -> None:
        text = payload if isinstance(payload, str) else payload.decode("utf-8", errors="replace")
        self.rejected.append((rejection.site, rejection.table, rejection.seq, rejection.reason, text))


def _hash_holds(record: Record) -> bool:
    """``record``'s hash is the SHA-256 of its contents."""
    return record_hash(record.seq, record.kind, record.at, record.prev, record.body) == record.hash


def _problem(record: Record, archived: str | None) -> str | None:
    """Why ``record`` cannot be archived on its own merits (None: it may be)."""
    if not _hash_holds(record):
        return HASH_DOES_NOT_HOLD
    if archived is not None:
        return (f"differs from the archived record {record.seq} (hash {record.hash[:16]}..., archived "
                f"{archived[:16]}...): a forged or rewritten record")
    if record.seq == 1 and record.prev != GENESIS:
        return "record 1 must follow no record (prev 64 zeros)"
    return None


def _chain_problem(record: Record, before: str | None) -> str | None:
    """Why ``record`` does not follow the archived record before it, of hash ``before`` (None: it does)."""
    if record.seq == 1:
        return None
    if before == record.prev:
        return None
    return (f"does not chain: its prev {record.prev[:16]}... is not the hash of the archived record "
            f"{record.seq - 1} ({str(before)[:16]}...)")


def record_payload(record: Record) -> str:
    """The JSON text of a record as published on ``croupier/SITE/TABLE/journal``."""
    return json.dumps(record._asdict(), separators=(",", ":"), ensure_ascii=False)


def create_schema(store: ArchiveStore, option: str = "--db") -> None:
    """:meth:`ArchiveStore.create_schema`, a database error said in one line."""
    try:
        store.create_schema()
    except psycopg.Error as error:
        first = first_line(error)
        raise ArchiveError(f"{option}: cannot create the archive's tables ({first}); give the archive's "
                           "user the right to create tables in that database") from None

"""``croupier audit verify PATH --archive postgresql://...``: a local journal against its archived copy.

The archive holds each table's records as they were published, chain-checked, so a local journal that
was edited, cut or rewritten (even a whole chain recomputed from some record on, which the local hash
chain alone cannot reveal) no longer matches it. The table is found by the hash of the journal's
record 1 (its header, unique to that journal), or named with ``--site`` and ``--table``.

Both sides are checked, and the side that changed is named. The archive's rows must hold on their own:
each row's hash is the SHA-256 of its contents, the rows run 1, 2, 3 ... without a gap, each follows the
one before it, and none is missing from the end of what the archive stored and confirmed to the table
(its ``journal_heads`` row, and the journal's own ``feed_acked`` mark: the last record the archive
confirmed to the table), and the archived record at that ``journal_heads`` row still has the hash it kept (rows
rewritten with their chain recomputed no longer do). A row that fails is "the archive was altered at record N"; a
local record that differs from an archive that holds is "the local journal was edited or rewritten at record N"; a
journal the archive holds nothing of, and that no archive ever confirmed, is "not archived".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum

import psycopg

from controller.core.exceptions import ArchiveError
from controller.floor.archive_store import ArchiveStore, Head, connect, first_line
from controller.i18n.message import Message, message
from controller.journal.store import GENESIS, Record, record_hash


class Verdict(Enum):
    """What the comparison found."""

    SAME = "same"
    """Every archived record is the local one (the local journal may run further: not archived yet)."""
    LOCAL_CHANGED = "local"
    """The archive holds; the local journal differs from it (edited, cut or rewritten)."""
    ARCHIVE_CHANGED = "archive"
    """The archive's own rows do not hold (edited, deleted from the middle or the end)."""
    NOT_ARCHIVED = "not_archived"
    """The archive holds nothing of this journal, and no archive ever confirmed a record of it."""


@dataclass(frozen=True)
class Comparison:
    """How a local journal compares with the archive."""

    verdict: Verdict
    lines: tuple[Message, ...]
    """What was compared, or what differs (the first difference first)."""

    @property
    def matches(self) -> bool:
        return self.verdict is Verdict.SAME


Later = Callable[[int], Iterable[Record]]
"""The journal's records from a seq on, read now (a table deals on while it is audited)."""


def compare_with_archive(local: list[Record], url: str, site: str | None = None,
                         table: str | None = None, confirmed: int = 0, later: Later | None = None) -> Comparison:
    """Compare ``local`` (a verified journal's records) with the archived copy at ``url``; ``confirmed`` is the
    journal's ``feed_acked`` mark (the last record an archive confirmed to the table; 0: none); ``later`` reads the
    journal's records now, for the archived ones past ``local``'s end (:func:`compare_records`).

    Raises :class:`ArchiveError` when the database cannot be used or the table is ambiguous.
    """
    store = ArchiveStore(connect(url, "--archive"))
    try:
        return _compare(store, local, site, table, confirmed, later)
    except psycopg.Error as error:
        first = first_line(error)
        raise ArchiveError(message("archive_check.unreadable", "--archive: cannot read the archive ({reason}); is "
                                   "it a Croupier archive (croupier archive creates its tables)?",
                                   reason=first)) from None
    finally:
        store.close()


def _compare(store: ArchiveStore, local: list[Record], site: str | None, table: str | None,
             confirmed: int, later: Later | None) -> Comparison:
    if site is None or table is None:
        found = store.tables_holding(1, local[0].hash)
        if not found:
            return _unknown(store, local, confirmed)
        if len(found) > 1:
            names = ", ".join(f"{s}/{t}" for s, t in found)
            raise ArchiveError(message("archive_check.ambiguous", "--archive: several archived tables start with "
                                       "this journal's record 1 ({names}); name one with --site and --table",
                                       names=names))
        site, table = found[0]
    head = store.confirmed_head(site, table)
    return compare_records(local, store.archived(site, table), f"{site}/{table}", max(confirmed, head.seq), head,
                           later)


def _unknown(store: ArchiveStore, local: list[Record], confirmed: int) -> Comparison:
    """No archived table starts with this journal's record 1."""
    if confirmed:
        return Comparison(Verdict.ARCHIVE_CHANGED, (message(
            "archive_check.confirmed_but_missing", "an archive confirmed records 1-{last} of this journal to the "
            "table, but the archive holds no table whose record 1 is this journal's: the archive was altered (or this "
            "journal rewritten from record 1; name its table with --site and --table to tell)", last=confirmed),))
    return Comparison(Verdict.NOT_ARCHIVED, (message(
        "archive_check.not_archived", "not archived: the archive holds no table whose record 1 is this journal's "
        "record 1, and no archive ever confirmed a record of it (archive it with croupier archive import, or name "
        "its table with --site and --table if it was rewritten from record 1)"),))


def archive_problem(archived: list[Record], name: str, confirmed: int) -> Message | None:
    """Why the archived rows of table ``name`` do not hold on their own (None: they hold): a row whose hash is
    not its contents', a gap, a row that does not follow the one before it, or rows missing from the end of
    what the archive confirmed (``confirmed``)."""
    before, expected = GENESIS, 1
    for row in archived:
        if row.seq != expected:
            return message("archive_check.archive_gap", "the archive was altered: records {first}-{last} of table "
                           "{name} are missing from it (deleted), though record {after} is archived",
                           first=expected, last=row.seq - 1, name=name, after=row.seq)
        if record_hash(row.seq, row.kind, row.at, row.prev, row.body) != row.hash:
            return message("archive_check.archive_edited", "the archive was altered at record {seq} of table "
                           "{name}: its archived row's hash does not match its contents", seq=row.seq, name=name)
        if row.prev != before:
            return message("archive_check.archive_unchained", "the archive was altered at record {seq} of table "
                           "{name}: its archived row does not follow the archived record before it", seq=row.seq,
                           name=name)
        before, expected = row.hash, row.seq + 1
    if confirmed >= expected:
        return message("archive_check.archive_cut", "the archive was altered: records {first}-{last} of table "
                       "{name}, which the archive stored and confirmed to the table, are missing from its end",
                       first=expected, last=confirmed, name=name)
    return None


def rewritten_problem(local: list[Record], archived: list[Record], name: str, head: Head) -> Message | None:
    """Why rows that hold on their own were still altered (None: they were not): the archived record at the head
    the archive stored and confirmed (``journal_heads``) no longer has the hash it had then, so the rows were
    rewritten with their chain recomputed; named from the first record that differs from the local journal."""
    if head.hash is None or not 1 <= head.seq <= len(archived) or archived[head.seq - 1].hash == head.hash:
        return None
    by_seq = {record.seq: record for record in local}
    first = next((copy.seq for copy in archived[:head.seq] if by_seq.get(copy.seq, copy) != copy), head.seq)
    return message("archive_check.archive_rewritten", "the archive was altered from record {first} of table {name} "
                   "on: its rows were rewritten, their hashes recomputed (record {seq}, which the archive stored and "
                   "confirmed to the table, had hash {hash}...)", first=first, name=name, seq=head.seq,
                   hash=head.hash[:16])


def compare_records(local: list[Record], archived: list[Record], name: str, confirmed: int = 0,
                    head: Head | None = None, later: Later | None = None) -> Comparison:
    """Compare a journal's records with the archived ones of table ``name`` (``confirmed``: the last record the
    archive confirmed to the table, by its own ``journal_heads`` or the journal's mark; ``head``: the record and
    hash ``journal_heads`` holds). The archive is read after ``local``: the archived records past its end that the
    table journaled meanwhile are compared with the journal as ``later`` reads it now (they are not cut)."""
    altered = archive_problem(archived, name, confirmed) or rewritten_problem(local, archived, name, head or Head())
    if altered is not None:
        return Comparison(Verdict.ARCHIVE_CHANGED, (altered,))
    if not archived:
        return Comparison(Verdict.NOT_ARCHIVED, (message(
            "archive_check.no_records", "the archive holds no record of table {name}", name=name),))
    by_seq = {record.seq: record for record in local}
    if later is not None and archived[-1].seq > local[-1].seq:
        for record in later(local[-1].seq + 1):
            if record.seq > archived[-1].seq:
                break
            by_seq[record.seq] = record
    for copy in archived:
        mine = by_seq.get(copy.seq)
        if mine is None:
            return Comparison(Verdict.LOCAL_CHANGED, (message(
                "archive_check.cut", "records {first}-{last} of table {name} are archived but missing from the local "
                "journal, which ends at record {end}: it was cut", first=copy.seq, last=archived[-1].seq, name=name,
                end=local[-1].seq),))
        if mine != copy:
            fields = [field for field in Record._fields if getattr(mine, field) != getattr(copy, field)]
            return Comparison(Verdict.LOCAL_CHANGED, (
                message("archive_check.differs", "record {seq} differs from the archived copy of table {name} "
                        "({fields}): the local journal was edited or rewritten from record {seq} on", seq=copy.seq,
                        name=name, fields=", ".join(fields)),
                message("archive_check.archived_hash", "archived: record {seq} sha256 {hash}", seq=copy.seq,
                        hash=copy.hash),
                message("archive_check.local_hash", "local:    record {seq} sha256 {hash}", seq=mine.seq,
                        hash=mine.hash),
            ))
    lines = [message("archive_check.matches", "matches the archive of table {name}: records 1-{last} are the same",
                     name=name, last=min(archived[-1].seq, local[-1].seq))]  # the moment audited
    if local[-1].seq > archived[-1].seq:
        lines.append(message("archive_check.not_yet", "records {first}-{last} are not archived yet",
                             first=archived[-1].seq + 1, last=local[-1].seq))
    return Comparison(Verdict.SAME, tuple(lines))

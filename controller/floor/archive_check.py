"""``croupier audit verify PATH --archive postgresql://...``: a local journal against its archived copy.

The archive holds each table's records as they were published, chain-checked, so a local journal that
was edited, cut or rewritten (even a whole chain recomputed from some record on, which the local hash
chain alone cannot reveal) no longer matches it. The table is found by the hash of the journal's
record 1 (its header, unique to that journal), or named with ``--site`` and ``--table``.
"""

from __future__ import annotations

from dataclasses import dataclass

import psycopg

from controller.core.exceptions import ArchiveError
from controller.floor.archive_store import ArchiveStore, connect, first_line
from controller.i18n.message import Message, message
from controller.journal.store import Record


@dataclass(frozen=True)
class Comparison:
    """How a local journal compares with the archive."""

    matches: bool
    lines: tuple[Message, ...]
    """What was compared, or what differs (the first difference first)."""


def compare_with_archive(local: list[Record], url: str, site: str | None = None,
                         table: str | None = None) -> Comparison:
    """Compare ``local`` (a verified journal's records) with the archived copy at ``url``.

    Raises :class:`ArchiveError` when the database cannot be used or the table is ambiguous.
    """
    store = ArchiveStore(connect(url, "--archive"))
    try:
        return _compare(store, local, site, table)
    except psycopg.Error as error:
        first = first_line(error)
        raise ArchiveError(message("archive_check.unreadable", "--archive: cannot read the archive ({reason}); is "
                                   "it a Croupier archive (croupier archive creates its tables)?",
                                   reason=first)) from None
    finally:
        store.close()


def _compare(store: ArchiveStore, local: list[Record], site: str | None, table: str | None) -> Comparison:
    if site is None or table is None:
        found = store.tables_holding(1, local[0].hash)
        if not found:
            return Comparison(False, (message(
                "archive_check.no_table", "the archive holds no table whose record 1 is this journal's record 1: "
                "the journal was rewritten from record 1, or it was never archived (name its table with --site and "
                "--table)"),))
        if len(found) > 1:
            names = ", ".join(f"{s}/{t}" for s, t in found)
            raise ArchiveError(message("archive_check.ambiguous", "--archive: several archived tables start with "
                                       "this journal's record 1 ({names}); name one with --site and --table",
                                       names=names))
        site, table = found[0]
    return compare_records(local, store.archived(site, table), f"{site}/{table}")


def compare_records(local: list[Record], archived: list[Record], name: str) -> Comparison:
    """Compare a journal's records with the archived ones of table ``name``."""
    if not archived:
        return Comparison(False, (message("archive_check.no_records", "the archive holds no record of table {name}",
                                          name=name),))
    by_seq = {record.seq: record for record in local}
    for copy in archived:
        mine = by_seq.get(copy.seq)
        if mine is None:
            return Comparison(False, (message(
                "archive_check.cut", "records {first}-{last} of table {name} are archived but missing from the local "
                "journal, which ends at record {end}: it was cut", first=copy.seq, last=archived[-1].seq, name=name,
                end=local[-1].seq),))
        if mine != copy:
            fields = [field for field in Record._fields if getattr(mine, field) != getattr(copy, field)]
            return Comparison(False, (
                message("archive_check.differs", "record {seq} differs from the archived copy of table {name} "
                        "({fields}): the local journal was edited or rewritten from record {seq} on", seq=copy.seq,
                        name=name, fields=", ".join(fields)),
                message("archive_check.archived_hash", "archived: record {seq} sha256 {hash}", seq=copy.seq,
                        hash=copy.hash),
                message("archive_check.local_hash", "local:    record {seq} sha256 {hash}", seq=mine.seq,
                        hash=mine.hash),
            ))
    lines = [message("archive_check.matches", "matches the archive of table {name}: records 1-{last} are the same",
                     name=name, last=archived[-1].seq)]
    if local[-1].seq > archived[-1].seq:
        lines.append(message("archive_check.not_yet", "records {first}-{last} are not archived yet",
                             first=archived[-1].seq + 1, last=local[-1].seq))
    return Comparison(True, tuple(lines))

"""``croupier archive import JOURNAL... --db URL``: a journal file stored in the archive without a broker.

For a table that ran without a broker, or ended before an archive existed, or whose archived copy misses
records: the journal is verified (its hash chain, as ``croupier audit verify``), then its records are
handed to the archive's store in order, in batches, exactly as if the table had published them: each
record is checked against the archived record before it, stored once (a record already archived is a
duplicate and changes nothing, so a second import stores nothing new), and one that does not chain with
what the archive holds is refused and named. The table is the one whose archived record 1 is the
journal's record 1, or the one named with ``--site`` and ``--table`` (a journal the archive holds
nothing of needs them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.core.exceptions import ArchiveError
from controller.floor.archive import BATCH_LIMIT
from controller.floor.archive_store import ArchiveStore, Outcome, Rejection, record_payload
from controller.i18n.message import message
from controller.journal.store import Journal, Record
from controller.journal.verify import verify


@dataclass
class Imported:
    """What one journal's import did."""

    site: str
    table: str
    records: int
    stored: int = 0
    duplicates: int = 0
    rejections: list[Rejection] = field(default_factory=list)
    unstored: int = 0
    """Records neither stored nor refused: each follows one the archive does not hold (parked in
    ``journal_pending``, or beyond what it parks)."""


def journal_records(path: str) -> list[Record]:
    """The records of the journal at ``path``, its hash chain verified (raises :class:`JournalError` or
    :class:`JournalTamperedError` as ``croupier audit verify`` would)."""
    journal = Journal.open_existing(path)
    try:
        verify(journal)
        with journal.snapshot():
            return list(journal.records())
    finally:
        journal.close()


def import_records(store: ArchiveStore, records: list[Record], site: str | None, table: str | None,
                   path: str) -> Imported:
    """Store ``records`` (one journal's, verified) in the archive as table ``site/table`` (None: the table whose
    archived record 1 is the journal's record 1)."""
    if site is None or table is None:
        site, table = _table_of(store, records, path)
    done = Imported(site, table, len(records))
    for start in range(0, len(records), BATCH_LIMIT):
        batch = records[start:start + BATCH_LIMIT]
        result = store.store_batch([((site, table, record), record_payload(record)) for record in batch])
        for handled in result.handled:
            done.stored += handled.stored
            done.duplicates += handled.outcome is Outcome.DUPLICATE
            done.unstored += handled.outcome in (Outcome.PENDING, Outcome.DEFERRED)
            done.rejections.extend(handled.rejections)
    return done


def _table_of(store: ArchiveStore, records: list[Record], path: str) -> tuple[str, str]:
    found = store.tables_holding(1, records[0].hash)
    if not found:
        raise ArchiveError(message("archive_import.name_it", "{path}: the archive holds no table whose record 1 is "
                                   "this journal's; name the table it is with --site SITE --table TABLE (as its "
                                   "feed URL named it)", path=path))
    if len(found) > 1:
        raise ArchiveError(message("archive_import.ambiguous", "{path}: several archived tables start with this "
                                   "journal's record 1 ({names}); name one with --site and --table", path=path,
                                   names=", ".join(f"{s}/{t}" for s, t in found)))
    return found[0]

"""``croupier archive import JOURNAL... --db URL``: a journal file stored in the archive without a broker.

For a table that ran without a broker, or ended before an archive existed, or whose archived copy misses
records: the journal is verified (its hash chain, as ``croupier audit verify``), then its records are
handed to the archive's store in order, in batches, exactly as if the table had published them: each
record is checked against the archived record before it, stored once (a record already archived is a
duplicate and changes nothing, so a second import stores nothing new), and one that does not chain with
what the archive holds is refused and named. Each of the journal's records is counted once, by what became of
it: stored by this import (directly, or let through by the record before it when it waited in
``journal_pending``), already archived, refused, or not stored.

The table is the one named with ``--site`` and ``--table``; else the one whose archived record 1 is the
journal's record 1; else the one the journal names (its header's ``device``, the table's id: ``SITE/TABLE``
for a table that had a feed, or a table name alone, archived under the site :data:`LOCAL_SITE`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from controller.core.exceptions import ArchiveError
from controller.floor.archive import BATCH_LIMIT
from controller.floor.archive_store import ArchiveStore, Handled, Outcome, Rejection, record_payload
from controller.floor.urls import NAME
from controller.i18n.message import message
from controller.journal.store import Journal, Record
from controller.journal.verify import verify

LOCAL_SITE = "local"
"""The site of a table whose journal names the table alone (a table that ran without a feed: its ``[table] id``,
else its host's name), when the import is not told the table."""


@dataclass
class Imported:
    """What one journal's import did: each of its records counted once."""

    site: str
    table: str
    records: int
    stored: int = 0
    """Records this import put in ``journal_records`` (directly, or let through from ``journal_pending``)."""
    duplicates: int = 0
    """Records that were archived before this import."""
    refused: int = 0
    rejections: list[Rejection] = field(default_factory=list)
    """Every rejection this import caused (its records', and those of waiting records it let through)."""
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
    archived record 1 is the journal's record 1, else the one the journal names)."""
    if site is None or table is None:
        site, table = _table_of(store, records, path)
    fates: dict[int, Outcome] = {}
    rejections: list[Rejection] = []
    for start in range(0, len(records), BATCH_LIMIT):
        batch = records[start:start + BATCH_LIMIT]
        result = store.store_batch([((site, table, record), record_payload(record)) for record in batch])
        for record, handled in zip(batch, result.handled, strict=True):
            _note_fate(fates, record.seq, handled)
            rejections.extend(handled.rejections)
    outcomes = [fates.get(record.seq) for record in records]
    return Imported(site, table, len(records), stored=outcomes.count(Outcome.STORED),
                    duplicates=outcomes.count(Outcome.DUPLICATE), refused=outcomes.count(Outcome.REJECTED),
                    rejections=rejections, unstored=outcomes.count(Outcome.PENDING))


def _note_fate(fates: dict[int, Outcome], seq: int, handled: Handled) -> None:
    """Keep what became of record ``seq`` in ``fates``: a record stored by this import stays stored when the import
    reaches it again as a duplicate (it waited in ``journal_pending`` and the record before it let it through)."""
    outcome = handled.outcome
    if outcome is Outcome.STORED:
        for released in range(seq, seq + handled.stored):
            fates[released] = Outcome.STORED
    elif outcome is Outcome.DUPLICATE:
        fates.setdefault(seq, Outcome.DUPLICATE)
    elif outcome is Outcome.REJECTED:
        fates[seq] = Outcome.REJECTED
    else:  # waiting for a predecessor (parked or deferred); stored if a later record lets it through
        fates.setdefault(seq, Outcome.PENDING)


def _table_of(store: ArchiveStore, records: list[Record], path: str) -> tuple[str, str]:
    found = store.tables_holding(1, records[0].hash)
    if len(found) > 1:
        raise ArchiveError(message("archive_import.ambiguous", "{path}: several archived tables start with this "
                                   "journal's record 1 ({names}); name one with --site and --table", path=path,
                                   names=", ".join(f"{s}/{t}" for s, t in found)))
    if found:
        return found[0]
    return _named_table(records[0], path)


def _named_table(header: Record, path: str) -> tuple[str, str]:
    """The (site, table) the journal's header names by its ``device``: ``SITE/TABLE``, or a table of
    :data:`LOCAL_SITE`."""
    device = journal_device(header)
    if device is None:
        raise ArchiveError(message("archive_import.name_it", "{path}: the journal does not name its table (written "
                                   "before journals carried the table's id) and the archive holds no table whose "
                                   "record 1 is this journal's; name the table it is with --site SITE --table TABLE "
                                   "(as its feed URL named it)", path=path))
    site, _, table = device.rpartition("/") if "/" in device else (LOCAL_SITE, "", device)
    if NAME.fullmatch(site) and NAME.fullmatch(table):
        return site, table
    raise ArchiveError(message("archive_import.unusable_id", "{path}: the journal's table id {device} is neither "
                               "SITE/TABLE nor a table name (1-64 letters, digits, '-', '_' or '.'), and the archive "
                               "holds no table whose record 1 is this journal's; name the table it is with --site "
                               "SITE --table TABLE", path=path, device=repr(device)))


def journal_device(header: Record) -> str | None:
    """The table's id a journal's header record names (its ``device``), None when it names none."""
    if header.kind != "header" or header.seq != 1:
        return None
    try:
        device = json.loads(header.body).get("device")
    except (ValueError, AttributeError):
        return None
    return device if isinstance(device, str) and device else None

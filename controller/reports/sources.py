"""Where a report's timelines come from: table journals (read only), or the floor archive's copies."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from datetime import datetime

from controller.core.events import EventShapeError, decode_event
from controller.core.exceptions import CroupierError, JournalError, JournalTamperedError
from controller.i18n.message import Message, message
from controller.journal.about import about, is_training_record, training_refusal
from controller.journal.store import Journal, Record
from controller.journal.verify import first_tampering
from controller.reports.dealers import TimedEvent
from controller.terms import Mode


class ReportInputError(CroupierError):
    """A path or URL given to ``croupier report`` cannot be read as a table's journal."""


def timeline(name: str, records: Iterable[Record],
             unreadable: Callable[[Message], None] | None = None) -> list[TimedEvent]:
    """The events of a journal's ``start`` and ``events`` records, each with its record's time. A record that
    cannot be read is a :class:`ReportInputError`; with ``unreadable`` it is told instead (a warning that names
    it) and left out, the rest still given."""
    timed: list[TimedEvent] = []
    for record in records:
        if is_training_record(record):
            raise ReportInputError(training_refusal(name))
        if record.kind not in ("start", "events"):
            continue
        try:
            at = datetime.fromisoformat(record.at)
            timed.extend([TimedEvent(at, decode_event(raw)) for raw in json.loads(record.body)["events"]])
        except (ValueError, KeyError, TypeError, EventShapeError, RecursionError) as error:
            if unreadable is None:
                raise ReportInputError(f"{name}: record {record.seq} is not a valid events record ({error}); "
                                       "check it with croupier audit verify") from None
            unreadable(message("report.unreadable_record", "WARNING: {name}: record {seq} is not a valid events "
                               "record ({reason}); it is left out of the report: check the journal with croupier "
                               "audit verify --replay", name=name, seq=record.seq, reason=str(error)))
    return timed


def journal_timeline(path: str, unreadable: Callable[[Message], None] | None = None,
                     untrusted: Callable[[Message], None] | None = None) -> list[TimedEvent]:
    """The timeline of the journal at ``path``, opened read only (``unreadable``: see :func:`timeline`). With
    ``untrusted``, the journal's hash chain is checked first (:func:`~controller.journal.verify.first_tampering`)
    and a journal that fails it is told (a warning naming the record), its timeline still given."""
    if not path or not os.path.lexists(path):
        raise ReportInputError(f"{path or repr(path)}: no such journal; give the path of a table's journal "
                               "(or a postgresql:// URL of the floor archive)")
    if os.path.isdir(path):
        raise ReportInputError(f"{path}: is a directory; give the path of a table's journal")
    try:
        journal = Journal.open_existing(path)
    except JournalError as error:
        raise ReportInputError(str(error)) from None
    try:
        if untrusted is not None:
            tampering = first_tampering(journal)
            if tampering is not None:
                untrusted(verification_warning(path, tampering))
        return timeline(path, journal.records(), unreadable)
    finally:
        journal.close()


def verification_warning(path: str, tampering: JournalTamperedError) -> Message:
    """The warning that the journal at ``path`` fails verification (``tampering`` names the record and why)."""
    return message("report.verification_warning", "WARNING: the journal failed verification: {problem}; the report's "
                   "figures from it cannot be trusted: run croupier audit verify {path}, and keep the journal as it "
                   "is", problem=tampering.message or str(tampering), path=path)


def journal_mode(path: str) -> Mode | None:
    """The mode the journal at ``path`` states (:mod:`controller.journal.about`); None when it does not say."""
    try:
        journal = Journal.open_existing(path)
    except JournalError as error:
        raise ReportInputError(str(error)) from None
    try:
        return about(journal).mode
    finally:
        journal.close()


def archive_modes(url: str) -> dict[str, Mode | None]:
    """The mode of every table the floor archive at ``url`` holds, by ``SITE/TABLE`` (its rows' ``mode``)."""
    from controller.floor.archive_store import ArchiveStore, connect

    store = ArchiveStore(connect(url, option="PATH"))
    try:
        return {f"{site}/{table}": mode for (site, table), mode in store.table_modes().items()}
    finally:
        store.close()


def archive_timelines(url: str, unreadable: Callable[[Message], None] | None = None) -> dict[str, list[TimedEvent]]:
    """The timeline of every table the floor archive at ``url`` holds, by ``SITE/TABLE`` (``unreadable``: see
    :func:`timeline`)."""
    from controller.floor.archive_store import ArchiveStore, connect

    store = ArchiveStore(connect(url, option="PATH"))
    try:
        return {f"{site}/{table}": timeline(f"{site}/{table}", store.archived(site, table), unreadable)
                for site, table in store.tables()}
    finally:
        store.close()

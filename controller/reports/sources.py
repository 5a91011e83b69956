"""Where a report's timelines come from: table journals (read only), or the floor archive's copies."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import datetime

from controller.core.events import EventShapeError, decode_event
from controller.core.exceptions import CroupierError, JournalError
from controller.journal.store import Journal, Record
from controller.reports.dealers import TimedEvent


class ReportInputError(CroupierError):
    """A path or URL given to ``croupier report`` cannot be read as a table's journal."""


def timeline(name: str, records: Iterable[Record]) -> list[TimedEvent]:
    """The events of a journal's ``start`` and ``events`` records, each with its record's time."""
    timed: list[TimedEvent] = []
    for record in records:
        if record.kind == "header" and json.loads(record.body).get("identity", {}).get(
                "arguments", {}).get("command") == "train":
            raise ReportInputError(f"{name}: is a training journal (croupier train); give a table's journal")
        if record.kind not in ("start", "events"):
            continue
        try:
            at = datetime.fromisoformat(record.at)
            timed.extend(TimedEvent(at, decode_event(raw)) for raw in json.loads(record.body)["events"])
        except (ValueError, KeyError, TypeError, EventShapeError) as error:
            raise ReportInputError(f"{name}: record {record.seq} is not a valid events record ({error}); "
                                   "check it with croupier audit verify") from None
    return timed


def journal_timeline(path: str) -> list[TimedEvent]:
    """The timeline of the journal at ``path``, opened read only."""
    if not os.path.lexists(path):
        raise ReportInputError(f"{path}: no such journal; give the path of a table's journal "
                               "(or a postgresql:// URL of the floor archive)")
    if os.path.isdir(path):
        raise ReportInputError(f"{path}: is a directory; give the path of a table's journal")
    try:
        journal = Journal.open_existing(path)
    except JournalError as error:
        raise ReportInputError(str(error)) from None
    try:
        return timeline(path, journal.records())
    finally:
        journal.close()


def archive_timelines(url: str) -> dict[str, list[TimedEvent]]:
    """The timeline of every table the floor archive at ``url`` holds, by ``SITE/TABLE``."""
    from controller.floor.archive_store import ArchiveStore, connect

    store = ArchiveStore(connect(url, option="PATH"))
    try:
        return {f"{site}/{table}": timeline(f"{site}/{table}", store.archived(site, table))
                for site, table in store.tables()}
    finally:
        store.close()

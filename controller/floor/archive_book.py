"""The archive's book of the tables: what it told each table, what it asks of it, and its health.

After every batch the archive tells each table its archived head on the retained
``croupier/SITE/TABLE/archived`` (:func:`archived_message`): ``{"seq", "hash", "wants"}``, where ``wants``
is the first record the archive misses when a later one came before it (null: no gap). A table counts a
record delivered only once that head reaches it, and sends its journal again from ``wants``. The archive
also reads each table's retained ``state`` (its journal head, from a state that is one:
:func:`~controller.floor.archive_decode.decode_state`; a bad one makes no table): a table whose head stays ahead of the
archive's for :data:`GAP_GRACE` seconds (records the broker lost, an archive started late or on an empty
database, a table that went quiet) is asked for what is missing, without waiting for its next record
(the grace starts again whenever a batch moves its archived head on: a table being caught up on is not asked).
A request is repeated every :data:`ASK_AGAIN` seconds while the gap lasts.

The book is shared by the archive's writers (after their batches), its MQTT thread (the states) and its
keeper (the requests due, the health every :data:`HEALTH_INTERVAL` seconds): every method takes its lock.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from controller.floor.archive_store import Head, Place, Progress

GAP_GRACE = 3.0
"""Seconds a table's published head may stay ahead of the archive's before the archive asks for the rest."""
ASK_AGAIN = 5.0
"""Seconds between two requests for the same missing record."""
HEALTH_INTERVAL = 5.0
"""Seconds between two health messages."""


@dataclass
class TableEntry:
    """What the archive knows of one table."""

    head: Head = field(default_factory=Head)
    known: bool = False
    """``head`` was read from the database (or set by a batch)."""
    wants: int | None = None
    told: Head | None = None
    """The last announcement published (None: none yet in this run)."""
    asked_at: float = 0.0
    published: int = 0
    """The table's own head, from its retained ``state``."""
    behind_since: float | None = None
    """Since when ``published`` is ahead of ``head`` (None: it is not)."""
    pending: int = 0
    deferred: int = 0
    rejected: int = 0


@dataclass(frozen=True)
class Announcement:
    """One ``archived`` message to publish."""

    place: Place
    head: Head
    wants: int | None


def archived_message(head: Head, wants: int | None) -> bytes:
    """The retained ``croupier/SITE/TABLE/archived`` payload."""
    return json.dumps({"seq": head.seq, "hash": head.hash, "wants": wants}, separators=(",", ":")).encode()


class TableBook:
    """Every table the archive has heard of in this run."""

    def __init__(self) -> None:
        self._tables: dict[Place, TableEntry] = {}
        self._lock = threading.Lock()

    def _entry(self, place: Place) -> TableEntry:
        entry = self._tables.get(place)
        if entry is None:
            entry = self._tables[place] = TableEntry()
        return entry

    def after_batch(self, progress: dict[Place, Progress], now: float | None = None) -> list[Announcement]:
        """Take a batch's progress; the announcements it calls for (a new head, a new or repeated request)."""
        moment = time.monotonic() if now is None else now
        out = []
        with self._lock:
            for place, step in progress.items():
                entry = self._entry(place)
                moved = step.head.seq > entry.head.seq
                entry.head, entry.known, entry.pending = step.head, True, step.pending
                if entry.published <= step.head.seq:
                    entry.behind_since = None
                elif moved and entry.behind_since is not None:
                    entry.behind_since = moment  # behind, but its records are coming: not "staying" behind
                if self._should_tell(entry, step.head, step.wants, moment):
                    out.append(self._tell(place, entry, step.head, step.wants, moment))
        return out

    @staticmethod
    def _should_tell(entry: TableEntry, head: Head, wants: int | None, now: float) -> bool:
        if entry.told is None or entry.told != head or entry.wants != wants:
            return True
        return wants is not None and now - entry.asked_at >= ASK_AGAIN

    @staticmethod
    def _tell(place: Place, entry: TableEntry, head: Head, wants: int | None, now: float) -> Announcement:
        entry.told, entry.wants = head, wants
        if wants is not None:
            entry.asked_at = now
        return Announcement(place, head, wants)

    def state(self, place: Place, head: Head, now: float | None = None) -> None:
        """A table's retained ``state`` named its journal head ``head``."""
        moment = time.monotonic() if now is None else now
        with self._lock:
            entry = self._entry(place)
            entry.published = max(entry.published, head.seq)
            if entry.published > entry.head.seq and entry.behind_since is None:
                entry.behind_since = moment

    def count(self, place: Place, *, rejected: int = 0, deferred: int = 0) -> None:
        """Count a table's refused and deferred records (for the health)."""
        with self._lock:
            entry = self._entry(place)
            entry.rejected += rejected
            entry.deferred += deferred

    def unknown_heads(self) -> list[Place]:
        """The tables whose archived head the archive has not read yet but that published theirs."""
        with self._lock:
            return [place for place, entry in self._tables.items() if not entry.known and entry.published]

    def heads_read(self, heads: dict[Place, Head]) -> None:
        """The archived heads read from the database for :meth:`unknown_heads`."""
        with self._lock:
            for place, head in heads.items():
                entry = self._entry(place)
                if not entry.known:
                    entry.head, entry.known = head, True
                    if entry.published <= head.seq:
                        entry.behind_since = None

    def requests_due(self, now: float | None = None) -> list[Announcement]:
        """The tables whose published head stayed ahead of the archive's for :data:`GAP_GRACE` seconds."""
        moment = time.monotonic() if now is None else now
        out = []
        with self._lock:
            for place, entry in self._tables.items():
                behind = entry.behind_since
                if not entry.known or behind is None or moment - behind < GAP_GRACE:
                    continue
                wants = entry.head.seq + 1
                if entry.wants != wants or moment - entry.asked_at >= ASK_AGAIN:
                    out.append(self._tell(place, entry, entry.head, wants, moment))
        return out

    def announcements(self) -> list[Announcement]:
        """What to tell every known table again (after the archive reconnected to the broker)."""
        with self._lock:
            return [Announcement(place, entry.head, entry.wants) for place, entry in self._tables.items()
                    if entry.told is not None]

    def tables(self) -> dict[str, dict[str, Any]]:
        """Each table's part of the health message, by ``SITE/TABLE``."""
        with self._lock:
            return {f"{site}/{table}": {"head": entry.head.seq, "pending": entry.pending,
                                        "deferred": entry.deferred, "rejected": entry.rejected,
                                        "wants": entry.wants}
                    for (site, table), entry in sorted(self._tables.items())}


def utc_now() -> str:
    """Now, as the journal writes times."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")

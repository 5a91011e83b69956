"""The pit's view of the floor: one tile per table, kept from the tables' retained ``state`` and ``status``.

:class:`FloorBoard` takes the payloads of ``croupier/SITE/TABLE/state`` and ``.../status`` (docs/floor.md)
as they arrive, from any thread, and gives a snapshot (the dashboard's ``/tables.json``): the tables in
order of site and table, each with the status the pit should see. Both topics are retained, so a board
that subscribes afresh (a dashboard restarted) gets every table's last word at once and rebuilds itself.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import message

TABLE_STATUSES = ("online", "halted", "closed", "offline")
CONNECTION_STATUSES = ("online", "offline")
ATTENTION = frozenset({"halted", "offline"})
"""The statuses that make a tile stand out."""
STATE_FIELDS = ("shoe", "round", "slot_due", "dealer", "last_result", "results", "misdeal", "alerts",
                "cards_left", "last_card_at", "updated_at", "events", "head")
"""The ``state`` fields a tile shows as they are (docs/floor.md, ``state``)."""


@dataclass
class Tile:
    """What the board knows of one table."""

    site: str
    table: str
    state: dict[str, Any] | None = None
    """The last retained ``state`` message."""
    connection: str | None = None
    """The last retained ``status``: ``online``, or ``offline`` (a clean stop, or the Last Will)."""

    @property
    def status(self) -> str:
        """What the pit sees: ``offline`` when the table is gone, else the table's own status."""
        if self.connection == "offline":
            return "offline"
        told = str(self.state.get("status")) if self.state else "online"
        if told == "offline" and self.connection == "online":
            return "online"  # started again: its first new state follows
        return told

    def view(self, now: datetime) -> dict[str, Any]:
        """The tile as ``/tables.json`` gives it."""
        state = self.state or {}
        status = self.status
        tile: dict[str, Any] = {"site": self.site, "table": self.table, "status": status,
                                "attention": status in ATTENTION, "connection": self.connection}
        tile.update({name: state.get(name) for name in STATE_FIELDS})
        tile["seconds_since_last_card"] = seconds_since(tile["last_card_at"], now)
        return tile


def seconds_since(moment: object, now: datetime) -> float | None:
    """Seconds from the journal time ``moment`` (``2026-01-05T20:14:03.123456Z``) to ``now``; None if none."""
    if not isinstance(moment, str):
        return None
    try:
        then = datetime.fromisoformat(moment.replace("Z", "+00:00"))
    except ValueError:
        return None
    if then.tzinfo is None:
        then = then.replace(tzinfo=UTC)
    return round(max(0.0, (now - then).total_seconds()), 1)


def topic_place(topic: str) -> tuple[str, str, str] | None:
    """(site, table, what) of ``croupier/SITE/TABLE/what``, or None for any other topic."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != "croupier" or not all(parts[1:]):
        return None
    return parts[1], parts[2], parts[3]


class FloorBoard:
    """Every table's tile, updated from the broker's messages (thread safe).

    ``report`` gets one line for each message the board cannot use (it is never dropped silently);
    ``changed`` is called after every change (the dashboard pushes the new snapshot to its pages).
    """

    def __init__(self, broker: str, *, report: Callable[[str], None] = lambda line: None,
                 changed: Callable[[], None] = lambda: None, words: Catalogue = ENGLISH) -> None:
        self.broker = broker
        self.report = report
        self.words = words
        """The language of the lines it reports (the command's)."""
        self.changed = changed
        self.connected = False
        self.seq = 0
        """Counts the changes: a page shows the snapshot with the highest."""
        self._tiles: dict[tuple[str, str], Tile] = {}
        self._lock = threading.Lock()

    def receive(self, topic: str, payload: bytes) -> None:
        """Take one message of ``croupier/SITE/TABLE/state`` or ``.../status``."""
        place = topic_place(topic)
        if place is None or place[2] not in ("state", "status"):
            self.report("floor: " + self.words.text(message(
                "floor.ignored_topic", "ignored a message on {topic}: not croupier/SITE/TABLE/state or /status",
                topic=repr(topic))))
            return
        site, table, what = place
        problem = self._store_state(site, table, payload) if what == "state" else \
            self._store_status(site, table, payload)
        if problem:
            self.report("floor: " + self.words.text(message("floor.ignored", "ignored a message on {topic}: {problem}",
                                                            topic=repr(topic), problem=problem)))
            return
        self._bump()

    def set_connected(self, connected: bool) -> None:
        """The dashboard's own connection to the broker came or went."""
        with self._lock:
            if self.connected == connected:
                return
            self.connected = connected
        self._bump()

    def snapshot(self, now: datetime | None = None) -> dict[str, Any]:
        """The floor now: ``seq``, ``now``, ``broker``, ``connected``, ``counts`` and ``tables``."""
        moment = now or datetime.now(UTC)
        with self._lock:
            tiles = [self._tiles[key].view(moment) for key in sorted(self._tiles)]
            seq, connected = self.seq, self.connected
        counts = {status: sum(tile["status"] == status for tile in tiles) for status in TABLE_STATUSES}
        return {"seq": seq, "now": moment.isoformat(timespec="microseconds").replace("+00:00", "Z"),
                "broker": self.broker, "connected": connected, "counts": counts, "tables": tiles}

    def snapshot_json(self) -> str:
        """:meth:`snapshot` as JSON text."""
        return json.dumps(self.snapshot(), ensure_ascii=False)

    # -- storing -----------------------------------------------------------------------
    def _store_state(self, site: str, table: str, payload: bytes) -> str | None:
        if not payload:
            self._forget(site, table, "state")
            return None
        try:
            state = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return "the state is not JSON"
        if not isinstance(state, dict):
            return "the state is not a JSON object"
        if state.get("site") != site or state.get("table") != table:
            return f"the state names {state.get('site')!r}/{state.get('table')!r}, not the topic's {site}/{table}"
        if state.get("status") not in TABLE_STATUSES:
            return f"the state's status {state.get('status')!r} is not one of {', '.join(TABLE_STATUSES)}"
        with self._lock:
            self._tile(site, table).state = state
        return None

    def _store_status(self, site: str, table: str, payload: bytes) -> str | None:
        if not payload:
            self._forget(site, table, "connection")
            return None
        text = payload.decode("utf-8", errors="replace")
        if text not in CONNECTION_STATUSES:
            return f"the status {text[:40]!r} is not online or offline"
        with self._lock:
            self._tile(site, table).connection = text
        return None

    def _forget(self, site: str, table: str, part: str) -> None:
        """An empty retained message clears it; a tile with nothing left goes."""
        with self._lock:
            tile = self._tiles.get((site, table))
            if tile is None:
                return
            setattr(tile, part, None)
            if tile.state is None and tile.connection is None:
                del self._tiles[(site, table)]

    def _tile(self, site: str, table: str) -> Tile:
        key = (site, table)
        if key not in self._tiles:
            self._tiles[key] = Tile(site, table)
        return self._tiles[key]

    def _bump(self) -> None:
        with self._lock:
            self.seq += 1
        self.changed()

"""The pit's view of the floor: one tile per table, kept from the tables' retained ``state`` and ``status``.

:class:`FloorBoard` takes the payloads of ``croupier/SITE/TABLE/state`` and ``.../status`` (docs/floor.md)
as they arrive, from any thread, and gives a snapshot (the dashboard's ``/tables.json``): the tables in
order of site and table, each with the status the pit should see. Both topics are retained, so a board
that subscribes afresh (a dashboard restarted) gets every table's last word at once and rebuilds itself.
It also takes each archive's health (``croupier-archive/NAME/health``): the archives in the snapshot, and
each table's archived head, waiting and refused records on its tile.

A table's Last Will (``offline`` while its state does not say it stopped) shows it offline only after
:data:`WILL_GRACE` seconds, and not before :data:`RECONNECT_GRACE` seconds after the board connected to
the broker again: a broker that restarts publishes every table's will as it goes down, and the tables are
back (``online``) within seconds of it, so a planned broker restart shows no running table offline.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import message

TABLE_STATUSES = ("online", "halted", "closed", "offline")
CONNECTION_STATUSES = ("online", "offline")
ATTENTION = frozenset({"halted", "offline"})
"""The statuses that make a tile stand out (and so does an open critical alert)."""
STATE_FIELDS = ("shoe", "round", "in_round", "slot_due", "dealer", "last_result", "results", "misdeal", "stopped_by",
                "alerts", "cards_left", "stub_count", "last_card_at", "updated_at", "events", "head", "mode",
                "software")
"""The ``state`` fields a tile shows as they are (docs/floor.md, ``state``)."""
KINDS: dict[str, Callable[[object], bool]] = {
    "text": lambda value: isinstance(value, str),
    "a whole number": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "true or false": lambda value: isinstance(value, bool),
    "a JSON object": lambda value: isinstance(value, dict),
    "a list": lambda value: isinstance(value, list),
    "a list of JSON objects": lambda value: isinstance(value, list) and all(isinstance(item, dict) for item in value),
}
"""Each kind a ``state`` field may be, by the words that name it, and its test."""
_TEXT, _NUMBER, _OBJECT = "text", "a whole number", "a JSON object"
STATE_KINDS: dict[str, str] = {
    "shoe": _NUMBER, "round": _NUMBER, "in_round": "true or false", "stopped_by": _TEXT, "slot_due": _TEXT,
    "dealer": _TEXT, "last_result": _OBJECT, "results": "a list", "misdeal": _OBJECT,
    "alerts": "a list of JSON objects", "cards_left": _NUMBER, "stub_count": _NUMBER, "last_card_at": _TEXT,
    "updated_at": _TEXT, "events": _NUMBER, "head": _OBJECT, "mode": _TEXT, "software": _OBJECT}
"""What each ``state`` field is when a table gives it (:data:`KINDS`; null, or missing from an earlier version's,
is always taken): a state with one of another kind is refused, as the page and its texts read them by their kind."""
WILL_GRACE = 3.0
"""Seconds after a Last Will before the tile shows the table offline."""
RECONNECT_GRACE = 15.0
"""Seconds after the board's own reconnection during which no Last Will shows a table offline."""
MAX_STATE_BYTES = 256 * 1024
"""A larger ``state`` is refused (a table's is about a kilobyte): it would slow every snapshot."""
MAX_HEALTH_BYTES = 4 << 20
"""A larger archive health message is refused (2,000 tables make about 200 KB)."""
ARCHIVE_ROOT = "croupier-archive"
HEALTH_FIELDS = ("status", "at", "broker", "database", "lag", "stored", "duplicates", "pending", "deferred",
                 "rejected")
"""The fields of an archive's health shown as they are (``archives`` in the snapshot)."""


@dataclass
class Tile:
    """What the board knows of one table."""

    site: str
    table: str
    state: dict[str, Any] | None = None
    """The last retained ``state`` message."""
    connection: str | None = None
    """The last retained ``status``: ``online``, or ``offline`` (a clean stop, or the Last Will)."""
    will_shown_from: float | None = None
    """When the ``offline`` status is a Last Will: the monotonic time from which it shows (None: not a will)."""
    archived: dict[str, Any] | None = None
    """The archive's last word on the table (its retained ``archived``: ``seq``, ``hash``, ``wants``)."""

    def status(self, clock: float, connected: bool = True) -> str:
        """What the pit sees at the monotonic time ``clock`` (``connected``: the board to the broker): ``offline``
        when the table is gone, else the table's own status. A Last Will is held while its grace lasts, and
        while the board is not connected (the table could not say it is back)."""
        told = str(self.state.get("status")) if self.state else "online"
        if self.connection == "offline":
            held = self.will_shown_from is not None and (clock < self.will_shown_from or not connected)
            return ("online" if told == "offline" else told) if held else "offline"
        if told == "offline" and self.connection == "online":
            return "online"  # started again: its first new state follows
        return told

    def view(self, now: datetime, clock: float, archived: dict[str, Any] | None = None,
             connected: bool = True) -> dict[str, Any]:
        """The tile as ``/tables.json`` gives it at ``now`` (``clock``: the monotonic time; ``archived``: what the
        archives say of it, or None; ``connected``: the board to the broker)."""
        state = self.state or {}
        status = self.status(clock, connected)
        told = state.get("alerts")
        alerts: list[Any] = told if isinstance(told, list) else []
        critical = sum(isinstance(alert, dict) and alert.get("severity") == "critical" for alert in alerts)
        lost = status == "offline" and state.get("status") not in (None, "offline")
        tile: dict[str, Any] = {"site": self.site, "table": self.table, "status": status,
                                "attention": status in ATTENTION or critical > 0, "connection": self.connection,
                                "critical": critical, "warnings": len(alerts) - critical, "lost": lost,
                                "lost_mid_round": lost and state.get("in_round") is True}
        tile.update({name: state.get(name) for name in STATE_FIELDS})
        tile["seconds_since_last_card"] = seconds_since(tile["last_card_at"], now)
        if self.archived is not None:  # the archive's live word on the table, beside its health's counts
            told = {"head": _number(self.archived.get("seq")), "wants": self.archived.get("wants")}
            archived = {"pending": 0, "deferred": 0, "rejected": 0, **(archived or {}), **told}
        tile["archive"] = archived
        return tile


def state_problem(state: dict[str, Any]) -> str | None:
    """Why ``state`` cannot be shown: its first field that is not of its kind (:data:`STATE_KINDS`), or None."""
    for name, kind in STATE_KINDS.items():
        if state.get(name) is not None and not KINDS[kind](state[name]):
            return f"the state's {name} {json.dumps(state[name])[:40]} is not {kind}"
    return None


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


def _number(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


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
                 changed: Callable[[], None] = lambda: None, words: Catalogue = ENGLISH,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.broker = broker
        self.clock = clock
        """The monotonic clock the Last Wills' grace is counted on."""
        self.report = report
        self.words = words
        """The language of the lines it reports (the command's)."""
        self.changed = changed
        self.connected = False
        self.seq = 0
        """Counts the changes: a page shows the snapshot with the highest."""
        self._tiles: dict[tuple[str, str], Tile] = {}
        self._archives: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._reconnected_at: float | None = None
        """When the board connected to the broker again (None: not since its first connection)."""
        self._disconnected_at: float | None = None
        self._ever_connected = False

    def receive(self, topic: str, payload: bytes, retained: bool = False) -> None:
        """Take one message of ``croupier/SITE/TABLE/state`` or ``.../status``, or an archive's health
        (``retained``: the broker sent it for the board's subscription, not as it was published)."""
        if topic.startswith(ARCHIVE_ROOT + "/"):
            self._receive_health(topic, payload)
            return
        place = topic_place(topic)
        if place is None or place[2] not in ("state", "status", "archived"):
            self.report("floor: " + self.words.text(message(
                "floor.ignored_topic", "ignored a message on {topic}: not croupier/SITE/TABLE/state or /status",
                topic=repr(topic))))
            return
        site, table, what = place
        if what == "state":
            problem = self._store_state(site, table, payload)
        elif what == "archived":
            problem = self._store_archived(site, table, payload)
        else:
            problem = self._store_status(site, table, payload, retained)
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
            if not connected:
                self._disconnected_at = self.clock()
            elif self._ever_connected:
                self._reconnected_at = self.clock()
                gone = self._disconnected_at if self._disconnected_at is not None else self._reconnected_at
                for tile in self._tiles.values():  # the wills still held when the broker went
                    if tile.will_shown_from is not None and tile.will_shown_from > gone:
                        tile.will_shown_from = max(tile.will_shown_from, self._reconnected_at + RECONNECT_GRACE)
                        self._bump_at(tile.will_shown_from)
            self._ever_connected = self._ever_connected or connected
        self._bump()

    def _bump_at(self, moment: float) -> None:
        """Push a new snapshot at the monotonic time ``moment`` (a Last Will held until then shows)."""
        timer = threading.Timer(max(0.0, moment - self.clock()) + 0.05, self._bump)
        timer.daemon = True
        timer.start()

    def snapshot(self, now: datetime | None = None) -> dict[str, Any]:
        """The floor now: ``seq``, ``now``, ``broker``, ``connected``, ``counts`` and ``tables``."""
        moment = now or datetime.now(UTC)
        with self._lock:
            archived = self._archived_tables()
            clock = self.clock()
            tiles = [self._tiles[key].view(moment, clock, archived.get(f"{key[0]}/{key[1]}"), self.connected)
                     for key in sorted(self._tiles)]
            seq, connected = self.seq, self.connected
            archives = [{"archive": name, **{field: health.get(field) for field in HEALTH_FIELDS},
                         "tables": len(health.get("tables") or {})} for name, health in sorted(self._archives.items())]
        counts = {status: sum(tile["status"] == status for tile in tiles) for status in TABLE_STATUSES}
        for archive in archives:
            archive["seconds_since"] = seconds_since(archive["at"], moment)
        alerts = {"critical": sum(tile["critical"] for tile in tiles),
                  "warning": sum(tile["warnings"] for tile in tiles),
                  "tables_critical": sum(tile["critical"] > 0 for tile in tiles)}
        return {"seq": seq, "now": moment.isoformat(timespec="microseconds").replace("+00:00", "Z"),
                "broker": self.broker, "connected": connected, "counts": counts, "alerts": alerts,
                "archives": archives, "tables": tiles}

    def _archived_tables(self) -> dict[str, dict[str, Any]]:
        """What the running archives say of each table (``SITE/TABLE``): the highest head, the records
        waiting, deferred and refused (summed over the archives sharing the floor), the first one wanted."""
        merged: dict[str, dict[str, Any]] = {}
        for health in self._archives.values():
            if health.get("status") != "online":
                continue
            for name, said in (health.get("tables") or {}).items():
                if not isinstance(said, dict):
                    continue
                into = merged.setdefault(name, {"head": 0, "pending": 0, "deferred": 0, "rejected": 0,
                                                "wants": None})
                into["head"] = max(into["head"], _number(said.get("head")))
                for field in ("pending", "deferred", "rejected"):
                    into[field] += _number(said.get(field))
                wants = said.get("wants")
                if isinstance(wants, int) and (into["wants"] is None or wants < into["wants"]):
                    into["wants"] = wants
        return merged

    def snapshot_json(self) -> str:
        """:meth:`snapshot` as JSON text."""
        return json.dumps(self.snapshot(), ensure_ascii=False)

    # -- storing -----------------------------------------------------------------------
    def _receive_health(self, topic: str, payload: bytes) -> None:
        """Take an archive's health (an empty retained message clears it)."""
        parts = topic.split("/")
        problem = None
        if len(parts) != 3 or parts[2] != "health" or not parts[1]:
            problem = "not croupier-archive/NAME/health"
        elif not payload:
            with self._lock:
                self._archives.pop(parts[1], None)
        elif len(payload) > MAX_HEALTH_BYTES:
            problem = f"the health is {len(payload)} bytes, more than the dashboard takes ({MAX_HEALTH_BYTES})"
        else:
            try:
                health = json.loads(payload.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError):
                health = None
            if not isinstance(health, dict):
                problem = "the health is not a JSON object"
            elif not isinstance(health.get("tables") or {}, dict):
                problem = "the health's tables is not a JSON object"
            else:
                with self._lock:
                    self._archives[parts[1]] = health
        if problem:
            self.report("floor: " + self.words.text(message("floor.ignored", "ignored a message on {topic}: {problem}",
                                                            topic=repr(topic), problem=problem)))
            return
        self._bump()

    def _store_state(self, site: str, table: str, payload: bytes) -> str | None:
        if not payload:
            self._forget(site, table, "state")
            return None
        if len(payload) > MAX_STATE_BYTES:
            return f"the state is {len(payload)} bytes, more than the dashboard takes ({MAX_STATE_BYTES})"
        try:
            state = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return "the state is not JSON"
        if not isinstance(state, dict):
            return "the state is not a JSON object"
        if state.get("site") != site or state.get("table") != table:
            return f"the state names {state.get('site')!r}/{state.get('table')!r}, not the topic's {site}/{table}"
        if state.get("status") not in TABLE_STATUSES:
            return f"the state's status {state.get('status')!r} is not one of {', '.join(TABLE_STATUSES)}"
        problem = state_problem(state)
        if problem:
            return problem
        with self._lock:
            self._tile(site, table).state = state
        return None

    def _store_archived(self, site: str, table: str, payload: bytes) -> str | None:
        if not payload:
            with self._lock:
                if (site, table) in self._tiles:
                    self._tiles[(site, table)].archived = None
            return None
        try:
            told = json.loads(payload[:4096].decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            told = None
        if not isinstance(told, dict) or not isinstance(told.get("seq"), int):
            return "the archived head is not {\"seq\", \"hash\", \"wants\"}"
        with self._lock:
            if (site, table) in self._tiles:  # only for a table the board shows
                self._tiles[(site, table)].archived = told
        return None

    def _store_status(self, site: str, table: str, payload: bytes, retained: bool = False) -> str | None:
        if not payload:
            self._forget(site, table, "connection")
            return None
        text = payload[:64].decode("utf-8", errors="replace")
        if text not in CONNECTION_STATUSES:
            return f"the status {text[:40]!r} is not online or offline"
        with self._lock:
            tile = self._tile(site, table)
            before, tile.connection = tile.connection, text
            if text != "offline":
                tile.will_shown_from = None
            elif before != "offline":
                tile.will_shown_from = self._will_shown_from(tile, retained)
                if tile.will_shown_from is not None:
                    self._bump_at(tile.will_shown_from)
        return None

    def _will_shown_from(self, tile: Tile, retained: bool) -> float | None:
        """When an ``offline`` status that just came shows the table offline (None: at once). A clean stop
        (its state says offline), a table with no state, or a retained will at the board's first connection
        (old news) show at once; a Last Will as it is published after :data:`WILL_GRACE`, and after
        :data:`RECONNECT_GRACE` from the board's reconnection."""
        if tile.state is None or tile.state.get("status") == "offline":
            return None
        if retained and self._reconnected_at is None:
            return None
        return max(self.clock() + WILL_GRACE, (self._reconnected_at or -RECONNECT_GRACE) + RECONNECT_GRACE)

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

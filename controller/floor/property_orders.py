"""The property's earlier shoes, read from the floor archive for the property check.

The archive holds every table's journal records (``journal_records``, kept exactly as
``docs/floor.md`` says). A table's dealt orders are not stored as such: they are what the core
counts while it replays the table's inputs, so :class:`PropertyOrders` replays each archived table
into a fresh core :class:`~controller.core.table.Table` (the settings from its journal header), the
same replay ``croupier audit verify --replay`` does, and reads the dealt order of every shoe from it.
Each table is replayed once: a later :meth:`PropertyOrders.shoes` reads and applies only the records
archived since (the shoe a table is dealing is included as far as it was archived).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import msgspec.structs
import psycopg

from config.schema import ProtectionSettings
from controller.core.exceptions import ArchiveError
from controller.core.inputs import Input
from controller.core.property_check import PropertyShoe
from controller.core.table import Table
from controller.floor.archive_store import connect, first_line
from controller.floor.urls import redacted
from controller.journal.replay import settings_from_header

TableName = tuple[str, str]
"""(site, table)."""


@dataclass
class ReplayedTable:
    """One archived table replayed as far as its archived records go."""

    site: str
    table: str
    core: Table | None = None
    last_seq: int = 0
    problem: str | None = None
    """Why its records could not be replayed (the table is then left out)."""

    def apply(self, kind: str, body: str, seq: int) -> None:
        """Replay archived record ``seq``: the header makes the table, each input is handed to it."""
        self.last_seq = seq
        if self.problem is not None:
            return
        try:
            if kind == "header":
                settings = settings_from_header(f"{self.site}/{self.table}", json.loads(body))
                self.core = Table(msgspec.structs.replace(settings, protection=ProtectionSettings(sequence_check=True)))
                self.core.start()
            elif kind == "input" and self.core is not None:
                self.core.handle(Input.from_dict(json.loads(body)["input"]))
        except Exception as error:  # a damaged archived record must not stop the table
            self.problem = f"record {seq} cannot be replayed ({error})"

    def shoes(self) -> list[PropertyShoe]:
        """The dealt order of every shoe of this table so far, the one in play included."""
        core = self.core
        if core is None or self.problem is not None:
            return []
        found = [PropertyShoe(self.site, self.table, reference.shoe, reference.cards)
                 for reference in core.archive.references if reference.order == "dealt" and reference.shoe]
        current = core.ledger.sequence.cards
        if current:
            found.append(PropertyShoe(self.site, self.table, core.shoe_number, tuple(current)))
        return found


@dataclass
class PropertyOrders:
    """The earlier shoes of every archived table but ``exclude`` (this table), from the archive at ``url``."""

    url: str
    exclude: frozenset[TableName] = frozenset()
    option: str = "--archive"
    tables: dict[TableName, ReplayedTable] = field(default_factory=dict)
    connection: psycopg.Connection[Any] | None = None
    reported: set[TableName] = field(default_factory=set)

    def shoes(self) -> list[PropertyShoe]:
        """Every earlier shoe of the property's other tables; raises :class:`ArchiveError` in one line."""
        try:
            if self.connection is None or self.connection.closed:
                self.connection = connect(self.url, self.option)
                self.connection.autocommit = True
            self._read_new_records(self.connection)
        except psycopg.errors.UndefinedTable:
            raise ArchiveError(f"{self.option} {redacted(self.url)!r}: the database holds no archive (no "
                               "journal_records table); give the URL of the database croupier archive writes to"
                               ) from None
        except psycopg.Error as error:
            first = first_line(error)
            self.close()
            raise ArchiveError(f"{self.option} {redacted(self.url)!r}: cannot read the archive ({first})") from None
        return [shoe for name in sorted(self.tables) for shoe in self.tables[name].shoes()]

    def problems(self) -> list[str]:
        """The archived tables left out because their records do not replay, each said once."""
        said = []
        for name, replayed in sorted(self.tables.items()):
            if replayed.problem is not None and name not in self.reported:
                self.reported.add(name)
                said.append(f"{name[0]}/{name[1]}: {replayed.problem}; its shoes are not compared")
        return said

    def _read_new_records(self, connection: psycopg.Connection[Any]) -> None:
        heads = connection.execute("SELECT site, table_id, max(seq) FROM journal_records GROUP BY site, table_id"
                                   ).fetchall()
        for site, table, last in heads:
            name = (str(site), str(table))
            if name in self.exclude:
                continue
            replayed = self.tables.setdefault(name, ReplayedTable(*name))
            if int(last) <= replayed.last_seq:
                continue
            rows = connection.execute(
                "SELECT seq, kind, body FROM journal_records WHERE site = %s AND table_id = %s AND seq > %s "
                "AND kind IN ('header', 'input') ORDER BY seq", (site, table, replayed.last_seq)).fetchall()
            for seq, kind, body in rows:
                replayed.apply(str(kind), str(body), int(seq))
            replayed.last_seq = int(last)

    def close(self) -> None:
        """Close the connection (a later :meth:`shoes` opens a new one)."""
        if self.connection is not None:
            self.connection.close()
            self.connection = None

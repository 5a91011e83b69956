"""A careful forger for the journal tests: edits a record and recomputes the hash chain after it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from controller.core.snapshot import earlier_codes
from controller.journal.store import record_hash


def forge_record(path: Path, seq: int, body: str) -> None:
    """Replace record ``seq``'s body and recompute the whole chain from it (a careful forger)."""
    _forge(path, seq, body=body)


def rewrite_body(path: Path, seq: int, body: str, chained: bool) -> None:
    """Write ``body`` over record ``seq``'s: with ``chained``, as a careful forger who recomputes the hash chain after
    it (so only reading the record shows it), else as an editor who leaves the chain as it was."""
    if chained:
        forge_record(path, seq, body)
        return
    connection = sqlite3.connect(path)
    connection.execute("UPDATE records SET body = ? WHERE seq = ?", (body, seq))
    connection.commit()
    connection.close()


def forge_time(path: Path, seq: int, at: str) -> None:
    """Replace record ``seq``'s time and recompute the whole chain from it (a careful forger)."""
    _forge(path, seq, at=at)


def _forge(path: Path, seq: int, body: str | None = None, at: str | None = None) -> None:
    connection = sqlite3.connect(path)
    tail = connection.execute("SELECT seq, kind, at, body, prev FROM records WHERE seq >= ? ORDER BY seq",
                              (seq,)).fetchall()
    prev = tail[0][4]
    for number, kind, old_at, old_body, _ in tail:
        when = at if number == seq and at is not None else old_at
        text = body if number == seq and body is not None else old_body
        digest = record_hash(number, kind, when, prev, text)
        connection.execute("UPDATE records SET at = ?, body = ?, prev = ?, hash = ? WHERE seq = ?",
                           (when, text, prev, digest, number))
        prev = digest
    connection.commit()
    connection.close()


def with_listed_orders(value: Any) -> Any:
    """A checkpoint body (or any part of one) as a Croupier before this one kept it: every earlier shoe's
    order, wherever it is kept (the table's state, an undo point's), a list of codes, not one string."""
    if isinstance(value, dict):
        return {key: [[shoe, earlier_codes(cards)] for shoe, cards in item] if key == "earlier_shoes"
                else with_listed_orders(item) for key, item in value.items()}
    if isinstance(value, list):
        return [with_listed_orders(item) for item in value]
    return value

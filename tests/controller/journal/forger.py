"""A careful forger for the journal tests: edits a record and recomputes the hash chain after it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from controller.journal.store import record_hash


def forge_record(path: Path, seq: int, body: str) -> None:
    """Replace record ``seq``'s body and recompute the whole chain from it (a careful forger)."""
    connection = sqlite3.connect(path)
    tail = connection.execute("SELECT seq, kind, at, body, prev FROM records WHERE seq >= ? ORDER BY seq",
                              (seq,)).fetchall()
    prev = tail[0][4]
    for number, kind, at, old, _ in tail:
        text = body if number == seq else old
        digest = record_hash(number, kind, at, prev, text)
        connection.execute("UPDATE records SET body = ?, prev = ?, hash = ? WHERE seq = ?",
                           (text, prev, digest, number))
        prev = digest
    connection.commit()
    connection.close()

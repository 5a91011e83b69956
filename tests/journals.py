"""Journals for tests: the records' kinds and bodies as stored, and a journal of live play on a serial reader."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from tests.inprocess import croupier_process, start_croupier


def record_bodies(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """Each record of the journal at ``path``, in order: its kind and its body read as JSON."""
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute("SELECT kind, body FROM records ORDER BY seq").fetchall()
    finally:
        connection.close()
    return [(kind, json.loads(body)) for kind, body in rows]


def live_journal(path: Path) -> subprocess.CompletedProcess[str]:
    """Write at ``path`` the journal of one round of ``croupier run`` on a serial reader (the shoe emulator on a pty):
    live play. Returns the run."""
    emulator = start_croupier("shoe-emulator", "--seed", "7", "--interval", "0")
    try:
        assert emulator.stdout is not None
        first = emulator.stdout.readline().split()
        assert first[0] == "PTY"
        done = croupier_process("run", "--driver", f"serial://{first[1]}", "--auto-next", "--rounds", "1", "--json",
                                "--no-keyboard", "--journal", str(path))
    finally:
        emulator.kill()
        emulator.wait(timeout=30)
    return done

"""L2 and E3 of docs/compliance.md: a restart (a power cut, a crash, a stop and a start) is journaled where it
happens, as a ``resumed`` note, and ``croupier history`` says when the table came back, where it resumed and what
fault came back with it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.inprocess import croupier_in_process


def records(path: Path) -> list[tuple[int, str, str, dict[str, Any]]]:
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute("SELECT seq, kind, at, body FROM records ORDER BY seq").fetchall()
    finally:
        connection.close()
    return [(seq, kind, at, json.loads(body)) for seq, kind, at, body in rows]


def notes(path: Path) -> list[tuple[int, str, dict[str, Any]]]:
    return [(seq, at, body) for seq, kind, at, body in records(path) if kind == "note"]


def test_every_restart_is_journaled_where_it_happens_and_history_says_so(tmp_path: Path) -> None:
    journal = tmp_path / "table.journal"
    simulate = ("simulate", "--seed", "4", "--rounds", "3", "--quiet", "--journal", str(journal))
    first = croupier_in_process(*simulate)
    assert first.returncode == 0, first.stderr
    assert notes(journal) == [], "a new journal is no restart"
    ends = []
    for _ in range(2):
        ends.append(records(journal)[-1])
        again = croupier_in_process(*simulate)
        assert again.returncode == 0, again.stderr
        assert "resumed from journal" in again.stderr

    found = notes(journal)
    assert [body["note"] for _, _, body in found] == ["resumed", "resumed"], found
    for (seq, at, body), (last_seq, _, last_at, _) in zip(found, ends, strict=True):
        assert seq == last_seq + 1, "journaled at the restart, right after what the table wrote before it"
        assert body["previous_at"] == last_at and at >= last_at
        assert (body["shoe"], body["round"], body["halted"], body["stopped_by"]) == (1, 3, None, None)
        assert body["inputs"] > 0

    history = croupier_in_process("history", str(journal))
    assert history.returncode == 0, history.stderr
    restarts = [line for line in history.stdout.splitlines() if "restarted" in line]
    assert [line.split()[1] for line in restarts] == [at for _, at, _ in found], history.stdout
    assert "software changed" not in history.stdout, "a restart under the same software changes none"
    audit = croupier_in_process("audit", "verify", str(journal), "--replay")
    assert audit.returncode == 0, audit.stdout + audit.stderr


def test_a_restart_while_halted_notes_the_halt_that_came_back(tmp_path: Path) -> None:
    journal = tmp_path / "table.journal"
    simulate = ("simulate", "--no-burn", "--quiet", "--journal", str(journal), "--cards", "9S 8H KD 2C 3S 4H @double")
    for status in (4, 4):
        done = croupier_in_process(*simulate)
        assert done.returncode == status, done.stderr
    (_, _, body), = notes(journal)
    assert (body["note"], body["shoe"], body["round"], body["halted"]) == ("resumed", 1, 2, "two_cards")
    history = croupier_in_process("history", str(journal))
    (line,) = [line for line in history.stdout.splitlines() if "restarted" in line]
    assert "still halted on two cards together" in line, line

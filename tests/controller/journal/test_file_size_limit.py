"""A table whose process may write no file past a size (``ulimit -f``, RLIMIT_FSIZE) stops at the journal's first
write past it with one line that says so (docs/journal.md: a write that fails halts the table, exit 2), and the
journal it leaves verifies and resumes to the uninterrupted game."""

from __future__ import annotations

import json
import resource
import subprocess
from pathlib import Path

from tests.inprocess import CROUPIER, DEADLINE, ROOT, croupier_in_process

GAME = ["simulate", "--seed", "9", "--decks", "1", "--rounds", "120", "--json"]
LIMIT = 160 * 1024
"""Bytes a file may grow to: the journal reaches it within the game's first shoes."""


def limited() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, resource.RLIM_INFINITY))


def events_of(path: Path) -> list[dict[str, object]]:
    done = croupier_in_process("history", str(path), "--json")
    assert done.returncode == 0, done.stderr
    return [{key: value for key, value in json.loads(line).items() if key != "at"} for line in done.stdout.splitlines()]


def test_a_file_size_limit_stops_the_table_with_one_line_and_the_journal_resumes(tmp_path: Path) -> None:
    journal = tmp_path / "table.journal"
    stopped = subprocess.run([*CROUPIER, *GAME, "--journal", str(journal)], cwd=ROOT, capture_output=True,
                             text=True, timeout=DEADLINE, preexec_fn=limited)
    assert stopped.returncode == 2, stopped.stderr
    lines = stopped.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in stopped.stderr, stopped.stderr
    assert str(journal) in lines[0] and "file-size limit" in lines[0] and f"{LIMIT} bytes" in lines[0], lines[0]
    assert croupier_in_process("audit", "verify", str(journal)).returncode == 0
    resumed = croupier_in_process(*GAME, "--journal", str(journal))
    assert resumed.returncode == 0, resumed.stderr
    reference = tmp_path / "reference.journal"
    assert croupier_in_process(*GAME, "--journal", str(reference)).returncode == 0
    assert events_of(journal) == events_of(reference)
    assert croupier_in_process("audit", "verify", "--replay", str(journal)).returncode == 0


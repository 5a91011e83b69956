"""``audit verify --replay`` replays the journal in a child process while it checks the chain: it says and exits
exactly as the replay after the chain does, whatever was done to the journal."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.journal import beside
from tests.controller.journal.forger import forge_record
from tests.inprocess import ROOT, Completed, croupier_in_process


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A journal of two shoes and a few rounds (a checkpoint at each new shoe)."""
    journal = tmp_path_factory.mktemp("day") / "day.db"
    run = croupier_in_process("simulate", "--seed", "7", "--rounds", "90", "--decks", "1", "--quiet", "--journal",
                              str(journal))
    assert run.returncode == 0, run.stderr
    return journal


def copy_of(day: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy.db"
    copy.write_bytes(day.read_bytes())
    return copy


def rows(path: Path, kind: str) -> list[tuple[int, str]]:
    connection = sqlite3.connect(path)
    try:
        return list(connection.execute("SELECT seq, body FROM records WHERE kind = ? ORDER BY seq", (kind,)))
    finally:
        connection.close()


def edit(path: Path, seq: int, body: str) -> None:
    """Change record ``seq``'s body and leave its hash as it was (a careless forger: the chain breaks there)."""
    connection = sqlite3.connect(path)
    connection.execute("UPDATE records SET body = ? WHERE seq = ?", (body, seq))
    connection.commit()
    connection.close()


def audited(path: Path, monkeypatch: pytest.MonkeyPatch, alongside: bool) -> Completed:
    monkeypatch.setattr(beside, "_may_fork", lambda: alongside)
    return croupier_in_process("audit", "verify", "--replay", str(path))


def forged_card(path: Path) -> int:
    """A careful forger gives an input another card and rehashes the chain: only the replay can tell."""
    seq, body = next((seq, body) for seq, body in rows(path, "input")[40:] if '"card":"' in body)
    text = json.loads(body)
    text["input"]["card"] = "KD" if text["input"]["card"] != "KD" else "QS"
    forge_record(path, seq, json.dumps(text, separators=(",", ":")))
    return seq


def careless_card(path: Path) -> int:
    """The same edit without rehashing: the chain breaks at the input, and the replay would refuse it too."""
    seq, body = next((seq, body) for seq, body in rows(path, "input")[40:] if '"card":"' in body)
    text = json.loads(body)
    text["input"]["card"] = "KD" if text["input"]["card"] != "KD" else "QS"
    edit(path, seq, json.dumps(text, separators=(",", ":")))
    return seq


def forged_checkpoint(path: Path) -> int:
    seq, body = rows(path, "checkpoint")[-1]
    text = json.loads(body)
    text["rounds"] += 1
    forge_record(path, seq, json.dumps(text, separators=(",", ":")))
    return seq


def intact(path: Path) -> int:
    return 0


@pytest.mark.parametrize("change", [intact, forged_card, careless_card, forged_checkpoint])
def test_the_replay_beside_says_what_the_replay_after_the_chain_says(day: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     change: Callable[[Path], int]) -> None:
    journal = copy_of(day, tmp_path)
    seq = change(journal)
    after = audited(journal, monkeypatch, alongside=False)
    along = audited(journal, monkeypatch, alongside=True)
    assert (along.returncode, along.stdout, along.stderr) == (after.returncode, after.stdout, after.stderr)
    assert after.returncode == (0 if change is intact else 1), after.stdout + after.stderr
    if seq:  # the changed record is named, or the events record its input gave
        assert f"record {seq}" in after.stdout or f"record {seq + 1}:" in after.stdout, after.stdout


def test_a_fresh_command_replays_beside(day: Path) -> None:
    """A command of its own (one thread, the compiled kernel) forks the child, whose count the audit takes."""
    code = ("import sys\n"
            "from controller.journal.beside import ReplayBeside\n"
            "from controller.journal.store import Journal\n"
            "from controller.journal.verify import verify\n"
            "journal = Journal.open_existing(sys.argv[1])\n"
            "with ReplayBeside(journal) as beside:\n"
            "    print(beside.beside, beside.inputs(verify(journal)))\n")
    run = subprocess.run([sys.executable, "-c", code, str(day)], capture_output=True, text=True, cwd=ROOT,
                         timeout=120, check=True)
    inputs = len(rows(day, "input"))
    assert run.stdout.split() == ["True", str(inputs)]

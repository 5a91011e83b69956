"""A journal of an event format newer than this Croupier knows is refused, never read as today's format.

Its events may mean what this software cannot know; read as today's, a report would be silently wrong. Every
reader opens a journal through the same opener, which refuses it once for all, as it refuses a newer metadata
version: one line naming the journal, its format, the newest this software reads and what to do (exit 2).
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from controller.journal.compat import EVENTS_FORMAT
from tests.controller.journal.forger import forge_record
from tests.inprocess import croupier_in_process

FUTURE = 99


def future_journal(where: Path) -> Path:
    """A real journal whose header says it was written in event format :data:`FUTURE`, its chain kept whole."""
    path = where / "future.journal"
    dealt = croupier_in_process("simulate", "--seed", "1", "--rounds", "5", "--journal", str(path), "--quiet")
    assert dealt.returncode == 0, dealt.stderr
    connection = sqlite3.connect(path)
    kind, body = connection.execute("SELECT kind, body FROM records WHERE seq = 1").fetchone()
    connection.close()
    assert kind == "header"
    today = f'"events":{EVENTS_FORMAT},'
    assert today in body, body
    forge_record(path, 1, body.replace(today, f'"events":{FUTURE},'))
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


READERS = [
    ("history",),
    ("audit", "verify"),
    ("audit", "verify", "--replay"),
    ("recall",),
    ("report", "dealers"),
]


@pytest.mark.parametrize("command", READERS, ids=[" ".join(command) for command in READERS])
def test_a_reader_refuses_a_journal_of_a_newer_event_format(command: tuple[str, ...], tmp_path: Path) -> None:
    journal = future_journal(tmp_path)
    before = digest(journal)
    refused = croupier_in_process(*command, str(journal))
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert refused.stdout == ""
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1, refused.stderr
    assert str(journal) in lines[0]
    assert f"event format {FUTURE}" in lines[0], lines[0]
    assert f"format {EVENTS_FORMAT}" in lines[0] and "newer Croupier" in lines[0], lines[0]
    assert digest(journal) == before


@pytest.mark.parametrize("option", ["--journal"])
def test_roads_and_odds_refuse_a_journal_of_a_newer_event_format(option: str, tmp_path: Path) -> None:
    journal = future_journal(tmp_path)
    for command in (("roads",), ("odds",)):
        refused = croupier_in_process(*command, option, str(journal))
        assert refused.returncode == 2, (command, refused.stdout + refused.stderr)
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and str(journal) in lines[0] and f"event format {FUTURE}" in lines[0], refused.stderr


def test_a_resume_refuses_a_journal_of_a_newer_event_format_and_leaves_it_untouched(tmp_path: Path) -> None:
    journal = future_journal(tmp_path)
    before = digest(journal)
    resumed = croupier_in_process("simulate", "--seed", "1", "--rounds", "8", "--journal", str(journal), "--quiet")
    assert resumed.returncode == 2, resumed.stdout + resumed.stderr
    assert f"event format {FUTURE}" in resumed.stderr and "newer Croupier" in resumed.stderr, resumed.stderr
    assert digest(journal) == before
    assert not any(Path(str(journal) + suffix).exists() for suffix in ("-wal", "-shm"))


def test_an_edited_header_naming_a_newer_event_format_is_reported_as_edited(tmp_path: Path) -> None:
    journal = future_journal(tmp_path)
    connection = sqlite3.connect(journal)
    connection.execute("UPDATE records SET hash = ? WHERE seq = 1", ("0" * 64,))  # the header no longer chains
    connection.commit()
    connection.close()
    verified = croupier_in_process("audit", "verify", str(journal))
    assert verified.returncode == 1, verified.stdout + verified.stderr
    assert "record 1" in verified.stdout + verified.stderr and "newer Croupier" not in verified.stderr


@pytest.mark.parametrize("command", [("history",), ("audit", "verify", "--replay")])
def test_a_journal_of_todays_event_format_still_reads(command: tuple[str, ...], tmp_path: Path) -> None:
    path = tmp_path / "today.journal"
    assert croupier_in_process("simulate", "--seed", "1", "--rounds", "5", "--journal", str(path),
                               "--quiet").returncode == 0
    assert croupier_in_process(*command, str(path)).returncode == 0

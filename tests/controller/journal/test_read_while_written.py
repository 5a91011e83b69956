"""Reading a journal while a running table writes it (docs/journal.md: a journal a controller has open is read
through its ``-wal`` and ``-shm`` files): every reader shows one moment of it, never a mix of two."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.inprocess import croupier_in_process, start_croupier

DEADLINE = 120.0
"""Seconds the writer may take to write its first records (a loaded machine is slow, never wrong)."""

READERS = (
    ("history",), ("history", "--csv"), ("history", "--cards", "--csv"), ("history", "--json"),
    ("recall",), ("recall", "--json"), ("audit", "verify"), ("audit", "verify", "--replay"),
)


def records_in(journal: Path) -> int:
    """The records of ``journal`` as a reader sees them now (0: not there yet)."""
    if not journal.exists():
        return 0
    connection = sqlite3.connect(f"{journal.as_uri()}?mode=ro", uri=True)
    try:
        return int(connection.execute("SELECT count(*) FROM records").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        connection.close()


@contextmanager
def table_writing(journal: Path) -> Iterator[subprocess.Popen[str]]:
    """A simulated table dealing into ``journal`` card after card until the test ends, once it holds a few shoes."""
    writer = start_croupier("simulate", "--seed", "3", "--decks", "1", "--rounds", "1000000", "--pace", "0.01",
                            "--quiet", "--journal", str(journal))
    try:
        deadline = time.monotonic() + DEADLINE
        while records_in(journal) < 1500:
            assert writer.poll() is None, writer.communicate()[1]
            assert time.monotonic() < deadline, "the table wrote too few records"
            time.sleep(0.1)
        yield writer
    finally:
        writer.kill()
        writer.communicate()


@pytest.mark.slow
def test_readers_of_a_journal_being_written_show_one_moment_of_it(tmp_path: Path) -> None:
    journal = tmp_path / "table.journal"
    with table_writing(journal) as writer:
        for reader in READERS:
            for _ in range(3):
                before = records_in(journal)
                read = croupier_in_process(*reader, str(journal))
                assert read.returncode == 0, (reader, read.stderr)
                assert "Traceback" not in read.stderr and "WARNING" not in read.stderr, (reader, read.stderr)
                assert writer.poll() is None and records_in(journal) > before, "the table stopped writing"
                checked = re.search(r"\((\d+) inputs, .*replayed (\d+) inputs", read.stdout)
                if "--replay" in reader:  # the records replayed are the records whose chain was checked
                    assert checked is not None and checked[1] == checked[2], read.stdout

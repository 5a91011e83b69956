"""Journals written under earlier rules stay verifiable: an upgrade must not make yesterday's journal fail its audit.

The journals of ``tests/fixtures/journals/events2`` were written by an earlier Croupier (its README says which and
how). Replayed, each must give exactly the events it journaled: the table replays a journal under the rules of the
event format its header names.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from tests.inprocess import croupier_in_process

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "journals" / "events2"


def unpacked(name: str, where: Path) -> Path:
    path = where / name.removesuffix(".gz")
    with gzip.open(FIXTURES / name, "rb") as packed, path.open("wb") as plain:
        shutil.copyfileobj(packed, plain)
    return path


@pytest.mark.parametrize("name", sorted(path.name for path in FIXTURES.glob("*.journal.gz")))
def test_a_journal_of_the_earlier_rules_replays_as_it_was_dealt(name: str, tmp_path: Path) -> None:
    journal = unpacked(name, tmp_path)
    verified = croupier_in_process("audit", "verify", "--replay", str(journal))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith("OK: "), verified.stdout
    shown = croupier_in_process("history", str(journal))
    assert shown.returncode == 0, shown.stderr

"""`croupier audit verify` exits 1 for any change to a journal, not only to its chained records."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller import cli


def journal(tmp_path: Path) -> Path:
    path = tmp_path / "j.db"
    assert cli.main(["simulate", "--seed", "4", "--rounds", "3", "--journal", str(path), "--quiet"]) == 0
    assert cli.main(["audit", "verify", str(path)]) == 0
    return path


@pytest.mark.parametrize("statement", [
    "DELETE FROM records",
    "UPDATE journal_meta SET value = '2' WHERE key = 'version'",
    "UPDATE journal_meta SET value = 'something-else' WHERE key = 'format'",
    "INSERT INTO journal_meta VALUES ('x', 'y')",
])
def test_changed_journal_is_reported_tampered(tmp_path: Path, statement: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = journal(tmp_path)
    connection = sqlite3.connect(path)
    connection.execute(statement)
    connection.commit()
    connection.close()
    capsys.readouterr()
    assert cli.main(["audit", "verify", str(path)]) == 1
    assert "TAMPERED" in capsys.readouterr().out


def test_a_file_that_is_no_journal_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.db"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE t (x)")
    connection.commit()
    connection.close()
    assert cli.main(["audit", "verify", str(other)]) == 2
    assert "not a Croupier journal" in capsys.readouterr().err

"""`croupier audit verify` exits 1 for any change to a journal, not only to its chained records."""

from __future__ import annotations

import re
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import main as cli
from tests.inprocess import croupier_in_process, croupier_process


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


# -- a journal is only ever read by audit and history, and never reused once emptied ----------------

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


croupier = croupier_in_process


def listing(directory: Path) -> dict[str, bytes]:
    return {entry.name: entry.read_bytes() for entry in sorted(directory.iterdir()) if entry.is_file()}


def closed_journal(directory: Path) -> Path:
    """A journal a finished run left: the database file alone."""
    path = directory / "j.db"
    done = croupier("simulate", "--seed", "4", "--rounds", "3", "--journal", str(path), "--quiet")
    assert done.returncode == 0, done
    assert sorted(entry.name for entry in directory.iterdir()) == ["j.db"]
    return path


def emptied(tmp_path: Path) -> Path:
    path = closed_journal(tmp_path)
    connection = sqlite3.connect(path)
    connection.execute("DELETE FROM records")
    connection.commit()
    connection.close()
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["j.db"]
    return path


def test_simulate_refuses_an_emptied_journal_and_leaves_it_as_it_was(tmp_path: Path) -> None:
    path = emptied(tmp_path)
    before = listing(tmp_path)
    done = croupier("simulate", "--seed", "4", "--rounds", "3", "--journal", str(path), "--json")
    assert done.returncode == 2, done
    assert done.stdout == ""
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert str(path) in done.stderr and "emptied" in done.stderr
    assert listing(tmp_path) == before
    assert croupier("audit", "verify", str(path)).returncode == 1


@pytest.mark.slow
def test_run_refuses_an_emptied_journal(tmp_path: Path) -> None:
    path = emptied(tmp_path)
    before = listing(tmp_path)
    done = croupier("run", "--driver", "mock://?seed=4", "--auto-next", "--rounds", "1", "--json",
                    "--journal", str(path))
    assert done.returncode == 2 and "emptied" in done.stderr and "Traceback" not in done.stderr, done
    assert listing(tmp_path) == before


def test_a_zero_byte_journal_is_not_restarted(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    path.write_bytes(b"")
    done = croupier("simulate", "--seed", "4", "--rounds", "1", "--journal", str(path), "--json")
    assert done.returncode == 2 and done.stdout == "", done
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert f"{path}: the file is empty (0 bytes)" in done.stderr
    assert listing(tmp_path) == {"j.db": b""}


@pytest.mark.slow
def test_a_new_path_is_still_a_new_journal(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    done = croupier("simulate", "--seed", "4", "--rounds", "2", "--journal", str(path), "--quiet")
    assert done.returncode == 0, done
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["j.db"]
    assert croupier("audit", "verify", str(path)).returncode == 0


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory another user can reach (pytest's tmp_path is private to root)."""
    directory = Path(tempfile.mkdtemp(prefix="croupier-ro-"))
    directory.chmod(0o755)
    try:
        yield directory
    finally:
        directory.chmod(0o755)
        shutil.rmtree(directory)


@pytest.mark.slow
@pytest.mark.parametrize("locked", ["file", "directory"])
def test_audit_and_history_read_a_journal_read_only_to_them(shared_dir: Path, locked: str) -> None:
    path = closed_journal(shared_dir)
    path.chmod(0o444)
    if locked == "directory":
        shared_dir.chmod(0o555)
    before = listing(shared_dir)
    assert croupier_process("simulate", "--seed", "4", "--rounds", "4", "--journal", str(path), "--quiet",
                            before=NOBODY, timeout=300).returncode == 2  # the user really cannot write it
    verified = croupier_process("audit", "verify", str(path), before=NOBODY, timeout=300)
    assert verified.returncode == 0, verified
    assert verified.stdout.startswith("OK: 58 records checked")
    shown = croupier_process("history", str(path), "--csv", before=NOBODY, timeout=300)
    assert shown.returncode == 0, shown
    assert len(shown.stdout.splitlines()) == 4 and shown.stderr == ""
    assert listing(shared_dir) == before


def test_audit_and_history_leave_the_directory_as_they_found_it(tmp_path: Path) -> None:
    path = closed_journal(tmp_path)
    before = listing(tmp_path)
    assert croupier("audit", "verify", str(path)).returncode == 0
    assert croupier("history", str(path), "--json").returncode == 0
    assert listing(tmp_path) == before


@pytest.mark.slow
@pytest.mark.parametrize("mark", ["'abc'", "x'00ff'", "2.5"])
def test_an_edited_delivered_mark_is_named(tmp_path: Path, mark: str) -> None:
    path = closed_journal(tmp_path)
    connection = sqlite3.connect(path)
    connection.execute(f"UPDATE delivered SET seq = {mark}")
    connection.commit()
    connection.close()
    for argv, status in ((["audit", "verify", str(path)], 1), (["history", str(path)], 1),
                         (["simulate", "--seed", "4", "--rounds", "3", "--journal", str(path), "--quiet"], 2)):
        done = croupier(*argv)
        assert done.returncode == status, done
        said = done.stdout + done.stderr
        assert "Traceback" not in said and "the delivered mark" in said and str(path) in said, done


def test_dev_null_is_not_a_regular_file() -> None:
    done = croupier("simulate", "--seed", "1", "--rounds", "1", "--journal", "/dev/null")
    assert done.returncode == 2
    assert done.stderr.strip() == ("croupier simulate: /dev/null: not a regular file; give the path of a "
                                   "journal file")


def test_a_text_byte_that_is_not_utf8_names_its_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A flipped byte in a record's text: reading it failed ("Could not decode to UTF-8", exit 2, no record
    named); it is an edited record like any other."""
    path = journal(tmp_path)
    connection = sqlite3.connect(path)
    body = connection.execute("SELECT body FROM records WHERE seq = 5").fetchone()[0]
    connection.close()
    data = bytearray(path.read_bytes())
    data[data.index(body.encode()) + 2] ^= 0xFF
    path.write_bytes(bytes(data))
    capsys.readouterr()
    assert cli.main(["audit", "verify", str(path)]) == 1
    assert "record 5 was edited: its contents do not match its hash" in capsys.readouterr().out


def test_a_damaged_page_names_the_last_record_read_before_it(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.db"
    assert cli.main(["simulate", "--seed", "4", "--rounds", "30", "--journal", str(path), "--quiet"]) == 0
    connection = sqlite3.connect(path)
    digest = connection.execute("SELECT hash FROM records WHERE seq = 200").fetchone()[0]
    size = connection.execute("PRAGMA page_size").fetchone()[0]
    connection.close()
    data = bytearray(path.read_bytes())
    page = data.index(digest.encode()) // size
    data[page * size:(page + 1) * size] = b"\x5a" * size
    path.write_bytes(bytes(data))
    capsys.readouterr()
    assert cli.main(["audit", "verify", str(path)]) == 2
    err = capsys.readouterr().err
    found = re.search(r"the journal file is damaged after record (\d+) \(database disk image is malformed\); keep "
                      r"it for the audit", err)
    assert found and 0 < int(found.group(1)) < 200, err

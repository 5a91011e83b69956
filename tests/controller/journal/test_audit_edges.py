"""`croupier audit verify` exits 1 for any change to a journal, not only to its chained records."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import main as cli
from tests.inprocess import Completed, croupier_in_process

ROOT = Path(__file__).resolve().parents[3]


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
    "CREATE TRIGGER forged BEFORE UPDATE ON delivered BEGIN SELECT 1; END",
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
    text = tmp_path / "notes.db"
    text.write_text("hello\n" * 200, encoding="utf-8")
    assert cli.main(["audit", "verify", str(text)]) == 2
    assert capsys.readouterr().err.strip().endswith(
        f"{text}: not a Croupier journal (not an SQLite database); give the path of a journal a --journal run "
        "wrote")


# -- a journal is only ever read by audit and history, and never reused once emptied ----------------

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
PACKAGES = ("controller", "config", "drivers")


def croupier(*argv: str, user: list[str] | None = None) -> subprocess.CompletedProcess[str] | Completed:
    """``croupier ARGV``: as another ``user`` in a process of its own (from a copy that user can read, wherever
    the checkout is), else in this process."""
    if user is None:
        return croupier_in_process(*argv)
    python, site = readable_copy()
    return subprocess.run([*user, python, "-s", "-m", "controller.cli.main", *argv], capture_output=True, text=True,
                          timeout=300, cwd=site, env={**os.environ, "PYTHONPATH": str(site)})


def runtime_distributions() -> list[importlib.metadata.Distribution]:
    """croupier's runtime dependencies (no extra), and theirs, as installed here."""
    found: dict[str, importlib.metadata.Distribution] = {}
    wanted = list(importlib.metadata.requires("croupier") or [])
    while wanted:
        requirement = wanted.pop()
        if "extra ==" in requirement:
            continue
        name = re.split(r"[^A-Za-z0-9._-]", requirement.strip(), maxsplit=1)[0].lower()
        if name in found:
            continue
        try:
            found[name] = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue  # a dependency of another Python version or platform
        wanted += found[name].requires or []
    return list(found.values())


def copy_distribution(distribution: importlib.metadata.Distribution, site: Path) -> None:
    """The files ``distribution`` installed in its site-packages, copied into ``site``."""
    home = Path(str(distribution.locate_file(""))).resolve()
    for file in distribution.files or []:
        source = Path(str(distribution.locate_file(file))).resolve()
        if source.is_file() and source.is_relative_to(home):
            target = site / source.relative_to(home)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def interpreter_for(user: list[str]) -> str | None:
    """A Python of this version that ``user`` can run: this one's base, else the system's."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (getattr(sys, "_base_executable", sys.executable), f"/usr/bin/python{version}"):
        ran = subprocess.run([*user, candidate, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True,
                             text=True, timeout=60)
        if ran.returncode == 0 and ran.stdout.strip() == str(sys.version_info[:2]):
            return candidate
    return None


_readable: tuple[str, Path] | None = None


def readable_copy() -> tuple[str, Path]:
    """(the interpreter, a directory holding croupier and its runtime dependencies) that ``nobody`` can use:
    a checkout in a directory other users cannot enter (a clone in root's home) is not one (made once)."""
    global _readable
    if _readable is None:
        python = interpreter_for(NOBODY)
        if python is None:
            pytest.skip(f"no Python {sys.version_info.major}.{sys.version_info.minor} that another user can run")
        site = Path(tempfile.mkdtemp(prefix="croupier-for-nobody-"))
        for package in PACKAGES:
            shutil.copytree(ROOT / package, site / package)
        for distribution in runtime_distributions():
            copy_distribution(distribution, site)
        for directory, _, files in os.walk(site):
            os.chmod(directory, 0o755)
            for name in files:
                os.chmod(os.path.join(directory, name), 0o644)
        _readable = (python, site)
    return _readable


@pytest.fixture(scope="module", autouse=True)
def _remove_the_readable_copy() -> Iterator[None]:
    yield
    global _readable
    if _readable is not None:
        shutil.rmtree(_readable[1], ignore_errors=True)
        _readable = None


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
    assert croupier("simulate", "--seed", "4", "--rounds", "4", "--journal", str(path), "--quiet",
                    user=NOBODY).returncode == 2  # the user really cannot write it
    verified = croupier("audit", "verify", str(path), user=NOBODY)
    assert verified.returncode == 0, verified
    assert verified.stdout.startswith("OK: 58 records checked")
    shown = croupier("history", str(path), "--csv", user=NOBODY)
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

"""The survey of what runs (issue 29 item 1): a dependency's files checked against the hashes its distribution
records, and the signature's stability."""

from __future__ import annotations

import base64
import hashlib
from importlib import metadata
from pathlib import Path

from config.loader import load_config
from controller.integrity.software import Hashes, Problem, config_bytes, recorded, sha256_records, survey


def record_line(root: Path, name: str) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256((root / name).read_bytes()).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{(root / name).stat().st_size}"


def fake_distribution(root: Path) -> metadata.Distribution:
    """``fakedep 1.0`` installed in ``root``: two modules, its metadata, and a RECORD of them."""
    (root / "fakedep").mkdir(parents=True)
    (root / "fakedep" / "__init__.py").write_text("VALUE = 1\n", encoding="utf-8")
    (root / "fakedep" / "data.txt").write_text("some data\n", encoding="utf-8")
    info = root / "fakedep-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakedep\nVersion: 1.0\n", encoding="utf-8")
    lines = [record_line(root, name) for name in ("fakedep/__init__.py", "fakedep/data.txt",
                                                   "fakedep-1.0.dist-info/METADATA")]
    lines += ["fakedep/__pycache__/__init__.cpython-311.pyc,,", "fakedep-1.0.dist-info/RECORD,,"]
    (info / "RECORD").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return metadata.PathDistribution(info)


def test_a_recorded_file_that_changed_or_went_is_named(tmp_path: Path) -> None:
    distribution = fake_distribution(tmp_path)
    problems: list[Problem] = []
    items = recorded(distribution, problems, Hashes())
    assert [item.path for item in items] == ["fakedep/__init__.py", "fakedep/data.txt",
                                             "fakedep-1.0.dist-info/METADATA"]
    assert problems == []

    (tmp_path / "fakedep" / "__init__.py").write_text("VALUE = 2\n", encoding="utf-8")
    (tmp_path / "fakedep" / "data.txt").unlink()
    recorded(distribution, problems, Hashes())
    assert [problem.why.english() for problem in problems] == [
        f"{tmp_path / 'fakedep' / '__init__.py'}: changed since fakedep 1.0 was installed (its hash is not the one "
        "its RECORD gives)",
        f"{tmp_path / 'fakedep' / 'data.txt'}: missing (fakedep 1.0 records it)",
    ]


def test_the_records_read_are_what_the_distributions_files_name(tmp_path: Path) -> None:
    """Read from RECORD in one pass, each file is named and hashed as ``Distribution.files`` gives it: for every
    installed distribution, and for a RECORD with unusual paths (doubled slashes, "." parts, no hash, a size)."""
    def by_files(distribution: metadata.Distribution) -> list[tuple[str, str]]:
        return [(str(entry), entry.hash.value) for entry in distribution.files or []
                if entry.hash is not None and entry.hash.mode == "sha256"]

    distributions = list(metadata.distributions())
    assert len(distributions) > 10
    for distribution in distributions:
        assert sha256_records(distribution) == by_files(distribution), distribution.metadata["Name"]
    info = tmp_path / "odd-1.0.dist-info"
    info.mkdir()
    (info / "RECORD").write_text('odd//a.py,sha256=AAAA,4\n./odd/./b.py,sha256=BBBB\nodd/c/,sha256=CCCC,1\n'
                                 '"odd/d,e.py",sha256=DDDD,2\nodd/f.py,,\nodd/g.py,md5=EEEE,3\n'
                                 '../../bin/odd,sha256=FFFF,9\n', encoding="utf-8")
    odd = metadata.PathDistribution(info)
    assert sha256_records(odd) == by_files(odd) == [("odd/a.py", "AAAA"), ("odd/b.py", "BBBB"), ("odd/c", "CCCC"),
                                                    ("odd/d,e.py", "DDDD"), ("../../bin/odd", "FFFF")]


def test_the_signature_is_stable_and_follows_the_config() -> None:
    config = config_bytes(load_config(None, environ={}))
    first = survey(config)
    assert first.problems == [], [problem.why.english() for problem in first.problems]
    assert survey(config).signature == first.signature
    other = survey(config_bytes(load_config(None, environ={"CROUPIER_TABLE_DECKS": "6"})))
    assert other.signature != first.signature
    changed = {component.name for component in other.components
               if first.component(component.name) is None
               or first.component(component.name).digest != component.digest}  # type: ignore[union-attr]
    assert changed == {"config"}
    names = {component.name for component in first.components}
    assert {"croupier", "python", "config", "msgspec", "transitions", "babel"} <= names
    assert not names & {"pytest", "hypothesis", "mypy", "ruff"}, "the test suite's tools never run at a table"


def test_a_file_that_cannot_be_read_is_a_problem_named_not_a_crash(tmp_path: Path, monkeypatch: object) -> None:
    """As a user who cannot read the interpreter (a Python under root's home, run as nobody) the survey crashed with a
    traceback in every command that journals; it names the file instead (and ``run``, which needs a clean survey,
    then refuses to play)."""
    import sys

    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    unreadable = tmp_path / "python3.11"
    unreadable.mkdir()  # opening a directory as a file fails for every user, root included
    monkeypatch.setattr(sys, "executable", str(unreadable))
    surveyed = survey(None)
    reasons = [problem.why.english() for problem in surveyed.problems]
    assert any(reason.startswith(f"{unreadable}: cannot be read (") for reason in reasons), reasons
    assert len(surveyed.signature) == 64

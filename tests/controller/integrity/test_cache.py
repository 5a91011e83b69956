"""Known hashes (the journal's ``software`` when nothing is verified): what a dependency's RECORD and METADATA gave is
remembered, and never stands for a file changed, gone or recorded otherwise since."""

from __future__ import annotations

import os
from importlib import metadata
from pathlib import Path

from controller.integrity.cache import KnownHashes
from controller.integrity.software import Hashes, Problem, _Described, recorded
from tests.controller.integrity.test_software import fake_distribution, record_line


def distribution_in(root: Path) -> metadata.Distribution:
    """The fake distribution installed in ``root`` (installed there the first time)."""
    info = root / "fakedep-1.0.dist-info"
    return metadata.PathDistribution(info) if info.exists() else fake_distribution(root)


def survey_twice(root: Path, cache: Path) -> tuple[list[str], list[str]]:
    """The items' paths and digests, and the problems' words, of the distribution in ``root`` surveyed with known
    hashes kept in ``cache`` (read from the file each time, as by a new process)."""
    hashes = KnownHashes(str(cache))
    problems: list[Problem] = []
    items = recorded(distribution_in(root), problems, hashes)
    hashes.save()
    return [f"{item.path} {item.digest}" for item in items], [problem.why.english() for problem in problems]


def test_remembered_items_are_the_surveyed_ones_and_a_later_change_is_named(tmp_path: Path) -> None:
    root, cache = tmp_path / "site", tmp_path / "known.cache"
    first, problems = survey_twice(root, cache)
    assert problems == [] and len(first) == 3
    assert KnownHashes(str(cache)).records  # remembered
    again, problems = survey_twice(root, cache)
    assert (again, problems) == (first, [])
    assert again == survey_with_every_byte(root)

    module = root / "fakedep" / "__init__.py"
    module.write_text("VALUE = 3\n", encoding="utf-8")  # changed after it was remembered
    _, problems = survey_twice(root, cache)
    assert problems == [f"{module}: changed since fakedep 1.0 was installed (its hash is not the one its RECORD "
                        "gives)"]
    _, problems = survey_twice(root, cache)  # and again: a problem is never remembered as good
    assert len(problems) == 1


def test_a_file_gone_or_a_record_rewritten_is_surveyed_again(tmp_path: Path) -> None:
    root, cache = tmp_path / "site", tmp_path / "known.cache"
    survey_twice(root, cache)
    data = root / "fakedep" / "data.txt"
    data.write_text("other data\n", encoding="utf-8")  # changed, and its RECORD line with it: no problem
    record = root / "fakedep-1.0.dist-info" / "RECORD"
    lines = record.read_text(encoding="utf-8").splitlines()
    record.write_text("\n".join(record_line(root, "fakedep/data.txt") if line.startswith("fakedep/data.txt,")
                                else line for line in lines) + "\n", encoding="utf-8")
    items, problems = survey_twice(root, cache)
    assert problems == [] and items == survey_with_every_byte(root)
    os.unlink(data)
    _, problems = survey_twice(root, cache)
    assert problems == [f"{data}: missing (fakedep 1.0 records it)"]


def test_metadata_read_once_says_what_it_said(tmp_path: Path) -> None:
    distribution = fake_distribution(tmp_path / "site")
    cache = tmp_path / "known.cache"
    hashes = KnownHashes(str(cache))
    described = _Described.of(distribution, hashes)
    hashes.save()
    assert (described.version, described.requires) == ("1.0", [])
    remembered = _Described.of(distribution, KnownHashes(str(cache)))
    assert (remembered.version, remembered.requires) == ("1.0", [])
    metadata_file = tmp_path / "site" / "fakedep-1.0.dist-info" / "METADATA"
    metadata_file.write_text("Metadata-Version: 2.1\nName: fakedep\nVersion: 1.1\nRequires-Dist: msgspec\n",
                             encoding="utf-8")
    changed = _Described.of(distribution, KnownHashes(str(cache)))
    assert (changed.version, changed.requires) == ("1.1", ["msgspec"])


def survey_with_every_byte(root: Path) -> list[str]:
    items = recorded(distribution_in(root), [], Hashes())
    return [f"{item.path} {item.digest}" for item in items]

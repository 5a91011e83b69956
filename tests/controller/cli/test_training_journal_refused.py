"""A training journal (``croupier train --journal``) given where a table's journal is expected is refused in one
line, exit 2, the file untouched: as ``history`` and ``report dealers`` already did."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.inprocess import croupier_process

REFUSAL = "is a training journal (croupier train); give a table's journal"


@pytest.fixture(scope="module")
def training_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("train") / "drill.journal"
    done = croupier_process("train", "--seed", "5", "--rounds", "1", "--journal", str(path), stdin="stand\n")
    assert path.is_file(), done.stderr
    return path


@pytest.mark.parametrize("command", [
    ["recall"], ["roads", "--journal"], ["odds", "--journal"], ["simulate", "--seed", "5", "--rounds", "1",
                                                              "--journal"],
    ["run", "--driver", "mock://?seed=5", "--auto-next", "--rounds", "1", "--no-keyboard", "--journal"],
], ids=["recall", "roads", "odds", "simulate", "run"])
def test_a_training_journal_is_refused_where_a_tables_is_expected(training_journal: Path, command: list[str]) -> None:
    before = training_journal.read_bytes()
    done = croupier_process(*command, str(training_journal))
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert f"{training_journal}: {REFUSAL}" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert training_journal.read_bytes() == before


@pytest.mark.parametrize("options", [[], ["--replay"]], ids=["audit verify", "audit verify --replay"])
def test_the_audit_checks_a_training_journals_chain_and_finds_it_intact(training_journal: Path,
                                                                        options: list[str]) -> None:
    """docs/training.md: ``croupier audit verify`` checks a training journal (its chain; its inputs are a trainee's
    answers, no table's: nothing replays them); an intact one is OK, exit 0, with or without --replay."""
    done = croupier_process("audit", "verify", *options, str(training_journal))
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert done.stdout.startswith("OK: ") and "TAMPERED" not in done.stdout, done.stdout
    assert "mode: TRAINING" in done.stderr, done.stderr

"""The flooded-halt benchmark measures what it says: its table is halted, every flooded card is held and set
aside by the ``@burn``, its command runs end where the core says, and its section names each figure's peer."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import flood
from benchmarks.__main__ import BENCHMARKS


def test_the_flood_is_held_whole_and_set_aside_by_the_burn() -> None:
    measured = flood.core_flood(3 * len(flood.FLOOD))
    assert measured.held == 1 + 3 * (len(flood.FLOOD) + 1), "the extra card, then the flood (@double holds two)"
    assert measured.per_card > 0 and measured.resolution > 0


def test_the_command_runs_the_flood_and_its_journal_grows_with_it(tmp_path: Path) -> None:
    _, none = flood.command(tmp_path, 0, journal=False)
    _, small = flood.command(tmp_path, len(flood.FLOOD), journal=True)
    _, large = flood.command(tmp_path, 4 * len(flood.FLOOD), journal=True)
    assert none == 0 and 0 < small < large
    assert not list(tmp_path.glob("*.journal*")), "each journal is removed once measured"


def test_the_section_sets_each_figure_beside_its_peer(tmp_path: Path) -> None:
    text = flood.report((len(flood.FLOOD), 2 * len(flood.FLOOD)), str(tmp_path))
    rows = [line for line in text.splitlines() if line.startswith("| ") and "held)" in line]
    assert len(rows) == 2
    assert "Peers in the same run: an input of an ordinary seeded 8-deck shoe" in text
    assert "the command without the flood" in text
    for name in ("core", "`--json`", "journaled", "journal bytes"):
        assert f"{name} " in text.split("(target at most")[1]


def test_one_size_or_a_size_under_a_cycle_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for wrong in (["--cards", "100"], ["--cards", "10", "100"]):
        with pytest.raises(SystemExit) as exited:
            flood.main(wrong)
        assert exited.value.code == 2
        assert "--cards takes two or more sizes of at least 55" in capsys.readouterr().err


def test_python_m_benchmarks_runs_it() -> None:
    assert "benchmarks.flood" in BENCHMARKS

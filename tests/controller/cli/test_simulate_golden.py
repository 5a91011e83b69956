"""``croupier simulate`` writes byte for byte what it wrote before the start-up work (recorded in
tests/fixtures/simulate/ from the code before it): the JSON events, the transcript and the summaries."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main as cli

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "simulate"
RECORDED = {
    "seed42_rounds50.jsonl": ("--seed", "42", "--rounds", "50", "--json"),
    "seed42_rounds50.txt": ("--seed", "42", "--rounds", "50"),
    "seed42_rounds50_quiet.txt": ("--seed", "42", "--rounds", "50", "--quiet"),
    "seed42_rounds3_decks1_noburn.jsonl": ("--seed", "42", "--rounds", "3", "--decks", "1", "--no-burn", "--json"),
}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_simulate_output_is_byte_identical(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["simulate", *RECORDED[name]])
    out = capsys.readouterr().out
    assert status == 0
    assert out == (FIXTURES / name).read_text(encoding="utf-8")

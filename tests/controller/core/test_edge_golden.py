"""``croupier odds --seen ... --json`` and the ``edge`` events give exactly what they gave before the compiled
kernel (issue 30's contract): both recorded from the code before it (tests/fixtures/edge/record.py), 1-8 decks,
fresh and partial shoes down to six cards, several seeded shoes through ``croupier simulate --json``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fixtures.edge import record


def _recorded(path: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


ODDS = _recorded(record.ODDS_FILE)
EDGES = _recorded(record.EDGES_FILE)


@pytest.mark.parametrize("case", ODDS, ids=lambda case: f"decks{case['args'][2]}-seen{len(case['args']) > 4}")
def test_croupier_odds_seen_json_gives_the_recorded_fractions(case: dict[str, Any]) -> None:
    assert json.loads(record.run(case["args"])) == case["out"]


def test_the_recorded_odds_cover_every_deck_count_and_shoes_down_to_six_cards() -> None:
    assert {int(case["args"][2]) for case in ODDS} == set(range(1, 9))
    assert min(case["out"]["cards_left"] for case in ODDS) == 6


@pytest.mark.parametrize("case", EDGES, ids=lambda case: " ".join(case["args"]))
def test_the_edge_events_of_croupier_simulate_are_the_recorded_ones(case: dict[str, Any]) -> None:
    lines = record.edge_lines(tuple(case["args"]))
    assert len(lines) == case["count"]
    if "events" in case:
        assert [json.loads(line) for line in lines] == case["events"]
    assert record.digest(lines) == case["sha256"]

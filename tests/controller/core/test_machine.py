"""The round machine: the compiled table the core fires equals the ``transitions`` machine built from the same
rows, state by state, trigger by trigger; and the dependency is pinned compatibly, not exactly."""

from __future__ import annotations

import itertools
import re
import tomllib
from pathlib import Path

import pytest

from controller.core.cards import Card
from controller.core.machine import (
    FLOW_STATES,
    TRANSITIONS,
    TRIGGERS,
    DiagramModel,
    RoundState,
    Rules,
    State,
    build_machine,
    fire,
    may,
    mermaid,
)

ROOT = Path(__file__).resolve().parents[3]
CARDS = [Card(rank, "S") for rank in "A23456789TJQK"]


def round_states() -> list[RoundState]:
    """Every state of the flow with hands and burn counts that reach every guard's both answers."""
    hands = [((), ()), (tuple(CARDS[i] for i in (1, 2)), tuple(CARDS[i] for i in (3, 4)))]
    hands += [((CARDS[a], CARDS[b], CARDS[c]), (CARDS[d], CARDS[e]))
              for a, b, c, d, e in itertools.product((0, 4, 7), (9, 2), (5, 7), (1, 6), (9, 3))]
    hands += [((CARDS[a], CARDS[b]), (CARDS[d], CARDS[e]))
              for a, b, d, e in itertools.product(range(0, 13, 2), (9, 4), range(0, 13, 3), (9, 5))]
    states = []
    for state in FLOW_STATES:
        drawn = hands if state in (State.B2, State.P3) else hands[:2]  # only there do the hands decide
        for (player, banker), burn, (number, last) in itertools.product(drawn, (0, 1, 3), ((1, None), (3, 3),
                                                                                              (2, 3), (4, 3))):
            states.append(RoundState(state, number, player, banker, burn, last))
    return states


@pytest.mark.parametrize("burn", ["first_card", "fixed", "none"])
def test_the_compiled_table_is_the_transitions_machine(burn: str) -> None:
    house = Rules(burn)
    model = DiagramModel(house=house)
    machine = build_machine(model)
    checked = 0
    for round_state in round_states():
        model.round = round_state
        for trigger in TRIGGERS:
            machine.set_state(round_state.state.name)
            allowed = getattr(model, f"may_{trigger}")()
            moved = getattr(model, trigger)()
            row = fire(trigger, round_state, house)
            assert may(trigger, round_state, house) is allowed is (row is not None), (trigger, round_state)
            assert bool(moved) is allowed
            if row is not None:
                assert model.state == row.dest.name, (trigger, round_state)
            checked += 1
    assert checked > 2_000


def test_every_row_has_a_named_guard_or_none_and_halt_is_no_state_of_the_flow() -> None:
    assert State.HALTED not in FLOW_STATES
    assert all(State.HALTED not in row.source and row.dest is not State.HALTED for row in TRANSITIONS)
    text = mermaid()
    assert text.count("HALTED") == 2  # one halt, one resume: the overlay beside the flow
    assert "resume_to" not in text


def test_transitions_is_pinned_compatibly_and_no_runtime_dependency_exactly() -> None:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert not [dep for dep in dependencies if "==" in dep], dependencies
    assert any(re.fullmatch(r"transitions~=[0-9.]+", dep.split(";")[0].strip()) for dep in dependencies)

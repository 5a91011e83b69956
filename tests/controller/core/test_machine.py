"""The round machine: the compiled table the core fires equals the ``transitions`` machine built from the same
rows, state by state, trigger by trigger; and the dependency is pinned compatibly, not exactly."""

from __future__ import annotations

import ast
import itertools
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
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
        drawn = hands if state in (State.B2, State.P3, State.B3) else hands[:2]  # only there do the hands decide
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


CONTROLLER = ROOT / "controller"
SHOWN_BY_STATE = {
    ("dealing", "not_due"): "the words of a card read when none is due, by what the round waits for",
    ("dealing", "unread_detail"): "the words of an unread card: the turned burn card's own",
    ("dealing", "burn_card"): "what the card due is: the turned burn card's value is the burn count",
    ("dealing", "unidentified"): "what the card due is: a burn card after the turned one is burned unread",
    ("view", "stands_said"): "the words after a card: the hands that stand, read off the machine's move",
    ("view", "_between_cards"): "the dealer's instruction between cards, by what the round waits for",
    ("published", "view_of"): "the result shown: the round's, once it is over",
    ("published", "_status"): "the status shown: closed",
    ("published", "_layout"): "the cards shown face up: all, once the round is over",
    ("shoeflow", "_why_not_next"): "the words of an @next refused, by what the round waits for",
    ("snapshot", "state_from"): "the snapshot's format: a halted table is written HALTED with the state it resumes to",
    ("state", "state"): "what the table shows: HALTED over the round's state while a misdeal is pending",
    ("step", "state"): "what the table shows (a step's draft of it): HALTED over the round's state",
}
"""The only places outside the machine that read the round's state by name, and why: each words or shows the state
(or reads a file's format); none decides a move of the round, which the machine's table does."""


def _state_names(tree: ast.AST) -> Iterator[tuple[str, ast.Attribute]]:
    """Each ``State.MEMBER`` in ``tree``, with the function it is in."""
    members = set(State.__members__)

    def walk(node: ast.AST, function: str) -> Iterator[tuple[str, ast.Attribute]]:
        for child in ast.iter_child_nodes(node):
            inside = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function
            if (isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name) and child.value.id == "State"
                    and child.attr in members):
                yield inside, child
            yield from walk(child, inside)

    yield from walk(tree, "<module>")


def test_the_core_reads_the_rounds_state_by_name_only_to_word_or_show_it() -> None:
    """Issue 26 item 3: 32 checks of the round's state by hand decided moves of the round; every such decision now
    asks the machine (``may``, ``fire``, or a set read off its table), and what is left only words or shows it."""
    found: dict[tuple[str, str], list[int]] = {}
    for path in sorted((CONTROLLER / "core").glob("*.py")):
        if path.name == "machine.py":
            continue
        for function, node in _state_names(ast.parse(path.read_text(encoding="utf-8"))):
            found.setdefault((path.stem, function), []).append(node.lineno)
    by_hand = {f"{module}.py {function} (lines {lines})": lines for (module, function), lines in found.items()
               if (module, function) not in SHOWN_BY_STATE}
    assert not by_hand, f"decides by the round's state instead of asking the machine: {sorted(by_hand)}"
    assert set(SHOWN_BY_STATE) == set(found), f"no longer reads the state: {set(SHOWN_BY_STATE) - set(found)}"


def test_nothing_above_the_core_reads_the_rounds_state() -> None:
    """The app, the journal, the consoles and the floor ask the table (``Table.may``, its view), never the state."""
    allowed = {"build_machine", "mermaid"}
    offenders = []
    for path in sorted(CONTROLLER.rglob("*.py")):
        if path.parent.name == "core" or "core" in path.relative_to(CONTROLLER).parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "controller.core.machine":
                offenders += [f"{path.relative_to(ROOT)}: {alias.name}" for alias in node.names
                              if alias.name not in allowed]
    assert not offenders, offenders


RUN_WITHOUT_THE_LIBRARY = """
import contextlib, io, sys
from controller.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(["simulate", "--seed", "1", "--rounds", "40", "--json"])
print(status, "transitions" in sys.modules)
"""


def test_a_running_table_never_loads_the_library() -> None:
    """The library is kept for the table's drawing and the cross-check above: a table that deals asks the compiled
    table, so ``simulate`` (the whole command) never imports ``transitions``."""
    done = subprocess.run([sys.executable, "-c", RUN_WITHOUT_THE_LIBRARY], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.stdout.split() == ["0", "False"], done.stderr

"""machine.py subclasses private ``transitions`` internals (Transition.execute, _change_state, State):
the installed version is the one pinned in pyproject.toml, the one they were written for."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

import transitions

from controller.core.machine import RoundMachine, RoundModel, State, build_machine

ROOT = Path(__file__).resolve().parents[3]


def test_transitions_is_the_pinned_version() -> None:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    pins = [re.fullmatch(r"transitions==([0-9.]+)", dep.split(";")[0].strip()) for dep in dependencies]
    pinned = [match.group(1) for match in pins if match]
    assert pinned, "pyproject.toml must pin transitions exactly (machine.py uses its private internals)"
    assert version("transitions") == pinned[0]


def test_the_private_internals_machine_py_overrides_still_exist() -> None:
    assert callable(transitions.Transition._change_state)
    assert callable(transitions.Transition.execute)
    machine = build_machine(RoundModel())
    assert isinstance(machine, RoundMachine)
    assert machine.get_state(State.P1) is machine.get_state("P1")


def test_round_start_callback_runs_only_when_a_round_begins() -> None:
    started: list[int] = []
    model = RoundModel("none")
    build_machine(model, on_round_start=lambda: started.append(1))
    model.shoe_ready()
    assert model.state is State.P1 and started == [1]
    model.resume_state = State.P1
    model.halt()
    model.resume()
    assert model.state is State.P1 and started == [1]

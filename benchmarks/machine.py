"""The round machine: what a question of the round's flow costs in the compiled table the core asks, and in the
``transitions`` library the same table is built in (issue 26 item 3: "if the library cannot serve at the speed
needed, say so with measurements and keep it for the table and the diagram only").

The questions are the real ones: every ``fire`` (each ``may`` is one) the full controller path asks of the table in
a run of seeded 8-deck shoes (mock shoe -> runner -> table, live edge off), recorded with the round's state and the
house's rules it was asked with, and the app's ``Table.may`` calls counted beside them. Each is then asked again,
timed in a loop: of the compiled table (:func:`controller.core.machine.fire`), and of the ``transitions`` machine
(:func:`controller.core.machine.build_machine`): the trigger itself, and its ``may_<trigger>``, the machine set to
the round's state first (that setting timed alone and taken off). CPU time, best of 3.

Run: .venv/bin/python -m benchmarks.machine [--rounds N] [--write]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.report import write_section
from config.loader import load_config
from controller.app.runner import Runner
from controller.core import machine
from controller.core.events import Event
from controller.core.machine import DiagramModel, RoundState, Rules, build_machine
from controller.core.table import Table
from drivers.mock import MockShoe

Question = tuple[str, RoundState, Rules]
"""One question of the flow: (trigger, the round's state, the house's rules)."""


def discard(events: list[Event]) -> None:
    """An event sink that drops everything."""


@dataclass
class Run:
    """The questions one run of the full path asked, and how long it took."""

    rounds: int
    questions: list[Question]
    app_asks: int
    """``Table.may`` calls (the app's: the runner's, once a trigger with no row is refused at once, not counted in
    :attr:`questions`)."""
    seconds: float
    """CPU time of the run without the recording (a run of its own)."""


def replace(*attributes: tuple[object, str, object]) -> None:
    """Set each (owner, name, value): the recording stand-ins of a recorded run, and the originals after it."""
    for owner, name, value in attributes:
        setattr(owner, name, value)


def full_path(rounds: int, record: bool) -> tuple[float, list[Question], int]:
    """A run of ``rounds`` through the runner: its CPU seconds, and (``record``) the questions asked of the table."""
    questions: list[Question] = []
    asks = [0]
    fire, may = machine.fire, Table.may
    if record:
        def recording_fire(trigger: str, round_state: RoundState, house: Rules) -> machine.Row | None:
            questions.append((trigger, round_state, house))
            return fire(trigger, round_state, house)

        def counting_may(table: Table, trigger: str) -> bool:
            asks[0] += 1
            return may(table, trigger)

        replace((machine, "fire", recording_fire), (Table, "may", counting_may))
    try:
        table = Table(load_config(environ={}, overrides={"bets": {"live_edge": False}}))
        runner = Runner(table, MockShoe("mock://?seed=1&decks=8"), discard, rounds=rounds, new_shoes=True)
        start = time.process_time()
        runner.run()
        elapsed = time.process_time() - start
    finally:
        replace((machine, "fire", fire), (Table, "may", may))
    assert runner.rounds_played == rounds
    return elapsed, questions, asks[0]


def measure_run(rounds: int) -> Run:
    _, questions, asks = full_path(rounds, record=True)
    seconds = min(full_path(rounds, record=False)[0] for _ in range(3))
    return Run(rounds, questions, asks, seconds)


def best(timed: Callable[[], float]) -> float:
    return min(timed() for _ in range(3))


def compiled_seconds(questions: list[Question]) -> float:
    """CPU seconds to ask every question of the compiled table."""
    fire = machine.fire
    start = time.process_time()
    for trigger, round_state, house in questions:
        fire(trigger, round_state, house)
    return time.process_time() - start


def library_seconds(questions: list[Question], ask: str) -> float:
    """CPU seconds to ask every question of the ``transitions`` machine (``ask``: ``""`` the trigger itself,
    ``"may_"`` its may_ method), the setting of the machine to each question's state taken off."""
    model = DiagramModel()
    built = build_machine(model)
    calls = [(getattr(model, ask + trigger), round_state, house, round_state.state.name)
             for trigger, round_state, house in questions]
    start = time.process_time()
    for _, round_state, house, name in calls:
        model.round, model.rules = round_state, house
        built.set_state(name)
    setting = time.process_time() - start
    start = time.process_time()
    for call, round_state, house, name in calls:
        model.round, model.rules = round_state, house
        built.set_state(name)
        call()
    return time.process_time() - start - setting


def same_answers(questions: list[Question]) -> bool:
    """The library's machine answers every question as the compiled table does (what is timed is the same work)."""
    model = DiagramModel()
    built = build_machine(model)
    for trigger, round_state, house in questions:
        model.round, model.rules = round_state, house
        built.set_state(round_state.state.name)
        row = machine.fire(trigger, round_state, house)
        if getattr(model, "may_" + trigger)() is not (row is not None):
            return False
        if row is not None and (not getattr(model, trigger)() or model.state != row.dest.name):
            return False
    return True


def report(run: Run) -> str:
    questions = run.questions
    per_round = len(questions) / run.rounds
    compiled = best(lambda: compiled_seconds(questions)) / len(questions)
    trigger = best(lambda: library_seconds(questions, "")) / len(questions)
    may = best(lambda: library_seconds(questions, "may_")) / len(questions)
    round_us = run.seconds / run.rounds * 1e6
    assert same_answers(questions)

    def row(what: str, seconds: float) -> str:
        cost = seconds * per_round * 1e6
        return (f"| {what} | {seconds * 1e6:.2f} µs | {cost:.1f} µs ({cost / round_us:.0%} of a round) |")

    lines = [
        f"Questions the full path asks the table ({run.rounds:,} rounds, seeded 8-deck shoes, live edge off): "
        f"{per_round:.1f} a round reach its rows (`fire`; a `may` is one), and the app asks `Table.may` "
        f"{run.app_asks / run.rounds:.1f} times a round (a trigger with no row from the round's state is refused "
        f"there at once). A round of the full path: {round_us:.0f} µs of CPU ({1e6 / round_us:,.0f} rounds/s, best "
        "of 3).",
        "",
        "| asked of | a question | the questions of a round |",
        "|---|---|---|",
        row("the compiled table (`machine.fire`, what the core asks)", compiled),
        row("`transitions`, the trigger (`model.<trigger>()`)", trigger),
        row("`transitions`, `model.may_<trigger>()`", may),
        "",
        f"So the library cannot serve the running table: asked there, its questions alone would take "
        f"{min(trigger, may) * per_round * 1e6 / round_us:.0%} of a round's CPU on top of the round (and the app's "
        f"`Table.may` calls would be questions of it too), against {compiled * per_round * 1e6 / round_us:.0%} for "
        "the compiled table. It is kept for the table and the diagram only (issue 26 item 3's fallback): "
        "`croupier diagram` draws the machine it builds from the same rows, a test drives it side by side with the "
        "compiled table on every state, trigger and guard, and no command that deals imports it. Load average "
        f"(1 min) at the end: {os.getloadavg()[0]:.1f}; the machine (2 cores) was shared with other work.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5_000)
    parser.add_argument("--write", action="store_true", help="write the results to docs/performance.md")
    args = parser.parse_args()
    text = report(measure_run(args.rounds))
    print(text)
    if args.write:
        write_section("The round machine", "python -m benchmarks.machine --write", text)


if __name__ == "__main__":
    main()

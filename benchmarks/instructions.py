"""Where a round of ``croupier simulate --seed 1 --json`` goes (live edge off), counted in CPU instructions.

Instructions, not seconds: valgrind's callgrind counts them exactly, the same on a busy machine as on an idle one.
Each layer is run for two numbers of rounds in a fresh interpreter and the difference divided by the rounds between
them, so the start-up and the set-up cancel out:

- ``core``: the table alone (:meth:`controller.core.table.Table.handle`) given the inputs the simulation gives it
  (recorded beforehand, outside the count);
- ``runner``: the mock shoe, the simulated dealer and the runner around the table, the events discarded;
- ``command``: the whole command, its JSON stream written to a pipe; and the same command at issue 26's start.

Run: .venv/bin/python -m benchmarks.instructions [--start DIR] [--write]   (needs valgrind; DIR: a checkout of
b1a6f05, default a temporary git worktree of it)
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.report import write_section
from benchmarks.targets import ISSUE_START, ROOT

FEWER, MORE = 500, 1_500
"""The two numbers of rounds each layer is counted at."""
LAYER = """
import pickle, sys
from config.loader import load_config
from controller.app.runner import Runner
from controller.core.table import Table
from drivers.mock import MockShoe
layer, rounds, recorded = sys.argv[1], int(sys.argv[2]), sys.argv[3]
settings = load_config(environ={}, overrides={"bets": {"live_edge": False}})
table = Table(settings)
if layer == "record":
    inputs, handle = [], table.handle
    def kept(item):
        inputs.append(item)
        return handle(item)
    table.handle = kept
if layer in ("record", "runner"):
    Runner(table, MockShoe("mock://?seed=1&decks=8&cut=16"), lambda events: None, rounds=rounds, new_shoes=True).run()
if layer == "record":
    with open(recorded, "wb") as file:
        pickle.dump(inputs, file)
if layer == "core":
    with open(recorded, "rb") as file:
        inputs = pickle.load(file)
    handle = table.handle
    for item in inputs:
        handle(item)
print(table.value.rounds_dealt)
"""
"""A layer of the simulation in a fresh interpreter: ``python -c LAYER record|core|runner ROUNDS FILE`` (``record``
runs the runner and keeps the table's inputs in FILE, ``core`` gives them to a fresh table); prints the rounds
dealt."""


def instructions(command: list[str], cwd: Path, env: dict[str, str]) -> int:
    """The instructions ``command`` runs (its children not counted), as callgrind counts them."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command], cwd=cwd,
                          env=env, capture_output=True, text=True, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"{' '.join(command)}: exit {done.returncode}: {done.stderr[-400:]}")
    return int(found.group(1))


def per_round(measure: dict[int, int]) -> float:
    """Instructions a round: the difference between the two counts over the rounds between them."""
    return (measure[MORE] - measure[FEWER]) / (MORE - FEWER)


def environment(code: Path) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("CROUPIER_")}
    return {**env, "PYTHONPATH": str(code), "CROUPIER_BETS_LIVE_EDGE": "false"}


def layers(code: Path, scratch: Path) -> dict[str, float]:
    """Instructions a round of each layer of ``code``'s Croupier."""
    env = environment(code)
    counts: dict[str, dict[int, int]] = {"core": {}, "runner": {}, "command": {}}
    for rounds in (FEWER, MORE):
        recorded = scratch / f"inputs-{rounds}.pickle"
        subprocess.run([sys.executable, "-c", LAYER, "record", str(rounds), str(recorded)], cwd=code, env=env,
                       check=True, stdout=subprocess.DEVNULL)
        for layer in ("core", "runner"):
            counts[layer][rounds] = instructions([sys.executable, "-c", LAYER, layer, str(rounds), str(recorded)],
                                                 code, env)
        counts["command"][rounds] = command_instructions(code, rounds)
    return {layer: per_round(measure) for layer, measure in counts.items()}


def command_instructions(code: Path, rounds: int) -> int:
    return instructions([sys.executable, "-m", "controller.cli", "simulate", "--seed", "1", "--rounds", str(rounds),
                         "--json"], code, environment(code))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--start", type=Path, help=f"a checkout of issue 26's start ({ISSUE_START})")
    parser.add_argument("--write", action="store_true", help="write the results to docs/performance.md")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("benchmarks.instructions: valgrind is not installed (Debian: apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as scratch:
        start = args.start
        if start is None:
            start = Path(scratch) / "start"
            subprocess.run(["git", "worktree", "add", "--detach", str(start), ISSUE_START], cwd=ROOT, check=True,
                           capture_output=True)
        try:
            report(start.resolve(), Path(scratch), args.write)
        finally:
            if args.start is None:
                subprocess.run(["git", "worktree", "remove", "--force", str(start)], cwd=ROOT, check=False,
                               capture_output=True)


def report(start: Path, scratch: Path, write: bool) -> None:
    for code in (ROOT, start):  # both from their bytecode, as after .ci/setup
        subprocess.run([sys.executable, "-m", "compileall", "-q", "controller", "config", "drivers"], cwd=code,
                       check=True, stdout=subprocess.DEVNULL)
    now = layers(ROOT, scratch)
    then = per_round({rounds: command_instructions(start, rounds) for rounds in (FEWER, MORE)})
    target = then / 5
    rows = [
        ("the table alone (`Table.handle`, the simulation's inputs)", now["core"]),
        ("the mock shoe, the simulated dealer and the runner", now["runner"] - now["core"]),
        ("the events to the JSON stream (the display stage, `encode_lines`, the writes)",
         now["command"] - now["runner"]),
        ("**the whole command**", now["command"]),
        ("the whole command at the issue's start", then),
        ("issue 26's target: a fifth of the start's", target),
    ]
    table = "\n".join(["| part of a round | thousand instructions a round |", "|---|---|",
                       *(f"| {name} | {count / 1000:,.0f} |" for name, count in rows)])
    needed = now["command"] - target
    left = now["core"] - needed
    share = (f"with the runner and the stream as they are, the table alone would have to take {left / 1000:,.0f} "
             f"thousand, {now['core'] / left:.0f} times fewer than now" if left > 0 else
             "more than the table alone takes: the runner and the stream would have to shrink too")
    body = (f"{table}\n\nCounted by callgrind at {FEWER} and {MORE} rounds (the difference over the rounds between "
            f"them); the command's own instructions only (no child process). The whole command now runs "
            f"{then / now['command']:.2f}x fewer instructions a round than at the issue's start; the target needs "
            f"5x, {needed / 1000:,.0f} thousand fewer a round: {share}.\n")
    print(body)
    if write:
        write_section("Where a round goes, in instructions", "python -m benchmarks.instructions --write", body)


if __name__ == "__main__":
    main()

"""Rounds per second through the full controller path, and the exact-odds time.

mock driver -> runner -> transitions machine -> events, output discarded. The exact odds are timed as
``croupier odds --decks 8`` runs them: the command itself, in a fresh interpreter each time.
Run: .venv/bin/python -m benchmarks.rounds [--rounds N] [--write]
Targets: at least 10,000 rounds/s on the 2-core reference machine without the live edge, 100 with it;
`croupier odds --decks 8` under 0.5 s.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import tracemalloc

from benchmarks.report import write_section
from config.loader import load_config
from controller.app.runner import Runner
from controller.core.events import Event
from controller.core.table import Table
from drivers.mock import MockShoe


def discard(events: list[Event]) -> None:
    """An event sink that drops everything."""


def rounds_per_second(rounds: int, seed: int = 1, live_edge: bool = False) -> tuple[float, float]:
    """Rounds per second; the live edge (benchmarks/edge.py measures it alone) is off unless asked for."""
    settings = load_config(environ={}, overrides={"bets": {"live_edge": live_edge}})
    table = Table(settings)
    source = MockShoe(f"mock://?seed={seed}&decks=8")
    runner = Runner(table, source, discard, rounds=rounds, new_shoes=True)
    start = time.perf_counter()
    runner.run()
    elapsed = time.perf_counter() - start
    assert runner.rounds_played == rounds
    return rounds / elapsed, elapsed


def peak_memory(rounds: int) -> int:
    tracemalloc.start()
    rounds_per_second(rounds)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


ODDS_IN_PROCESS = """
import contextlib, io, sys, time
from controller.cli.main import main
printed = io.StringIO()
start = time.perf_counter()
with contextlib.redirect_stdout(printed):
    status = main(["odds", "--decks", "8"])
sys.stdout.write(f"{time.perf_counter() - start!r} {status}\\n{printed.getvalue()}")
"""
"""Run in a fresh interpreter: ``croupier odds --decks 8`` through the command line's ``main``, timed."""


def odds_in_process() -> tuple[float, str]:
    """Seconds ``croupier odds --decks 8`` takes in a fresh interpreter, its start-up left out: the command's own
    imports, its tables and its enumeration, as the command runs them (nothing cached by an earlier call); and what
    it printed."""
    run = subprocess.run([sys.executable, "-c", ODDS_IN_PROCESS], capture_output=True, text=True, check=True)
    first, _, printed = run.stdout.partition("\n")
    seconds, status = first.split()
    if status != "0":
        raise RuntimeError(f"croupier odds --decks 8 exited {status}: {run.stderr.strip()}")
    return float(seconds), printed


def odds_command_seconds() -> float:
    """Wall time of the whole command, interpreter start-up included."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "controller.cli.main", "odds", "--decks", "8"], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20_000)
    parser.add_argument("--write", action="store_true", help="write the results to docs/performance.md")
    args = parser.parse_args()
    best = max(rounds_per_second(args.rounds)[0] for _ in range(3))
    with_edge = rounds_per_second(max(1, args.rounds // 50), live_edge=True)[0]
    odds = min(odds_in_process()[0] for _ in range(3))
    command = min(odds_command_seconds() for _ in range(3))
    peak = peak_memory(2_000)
    lines = [
        "| measure | result | target |",
        "|---|---|---|",
        f"| rounds/s, full controller path, `[bets] live_edge = false` ({args.rounds} rounds, best of 3) "
        f"| {best:,.0f} | >= 10,000 |",
        f"| rounds/s, the same with the live edge (the default; {max(1, args.rounds // 50)} rounds) "
        f"| {with_edge:,.0f} | >= 100 (edge p99 < 10 ms) |",
        f"| `croupier odds --decks 8` in process: its imports, tables and enumeration, in a fresh interpreter "
        f"(best of 3) | {odds * 1000:.0f} ms | < 500 ms |",
        f"| `croupier odds --decks 8`, whole command with start-up (best of 3) | {command * 1000:.0f} ms | < 500 ms |",
        f"| peak traced memory, 2,000 rounds | {peak / 1024:.0f} KiB | - |",
    ]
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section("Core engine", "python -m benchmarks.rounds --write", text)


if __name__ == "__main__":
    main()

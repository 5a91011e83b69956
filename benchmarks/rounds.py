"""Rounds per second through the full controller path, and the exact-odds time.

mock driver -> runner -> transitions machine -> events, output discarded.
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
from controller.core.odds import compute_odds
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


def odds_seconds() -> float:
    start = time.perf_counter()
    compute_odds(8)
    return time.perf_counter() - start


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
    odds = min(odds_seconds() for _ in range(3))
    command = min(odds_command_seconds() for _ in range(3))
    peak = peak_memory(2_000)
    lines = [
        "| measure | result | target |",
        "|---|---|---|",
        f"| rounds/s, full controller path, `[bets] live_edge = false` ({args.rounds} rounds, best of 3) "
        f"| {best:,.0f} | >= 10,000 |",
        f"| rounds/s, the same with the live edge (the default; {max(1, args.rounds // 50)} rounds) "
        f"| {with_edge:,.0f} | >= 100 (edge p99 < 10 ms) |",
        f"| `croupier odds --decks 8` enumeration (best of 3) | {odds * 1000:.0f} ms | < 500 ms |",
        f"| `croupier odds --decks 8`, whole command with start-up (best of 3) | {command * 1000:.0f} ms | < 500 ms |",
        f"| peak traced memory, 2,000 rounds | {peak / 1024:.0f} KiB | - |",
    ]
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section("Core engine", "python -m benchmarks.rounds --write", text)


if __name__ == "__main__":
    main()

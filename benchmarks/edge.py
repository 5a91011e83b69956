"""The live edge: time to compute the ``edge`` event (every bet, exact) before each round of 8-deck shoes.

The shoes are dealt through the real table (mock driver, live edge off); at each round's start the cards
the players could have seen are taken from the table, and the ``edge`` computation (``edge_events``:
the counts left, every bet's exact value, the alerts) is timed on them, wall clock and thread CPU time.
Run: .venv/bin/python -m benchmarks.edge [--shoes N] [--write]
Target: p99 under 10 ms per round on the 2-core reference machine.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import sys
import time
from collections import Counter

from benchmarks.report import write_section
from config.loader import load_config
from controller.app.runner import Runner
from controller.core.alerts import AlertBook, AlertOpener
from controller.core.bets import exact_tables
from controller.core.bets.catalogue import CATALOGUE
from controller.core.bets.live import edge_events
from controller.core.events import Event
from controller.core.odds import compute_odds
from controller.core.table import Table
from drivers.mock import MockShoe


def round_starts(shoes: int, seed: int = 1) -> list[Counter[str]]:
    """The cards seen at the start of each round of about ``shoes`` seeded 8-deck shoes."""
    settings = load_config(environ={}, overrides={"bets": {"live_edge": False}})
    table = Table(settings)
    snapshots: list[Counter[str]] = []

    def sink(events: list[Event]) -> None:
        if any(event["event"] == "round" for event in events):
            snapshots.append(Counter(table.ledger.shown))

    source = MockShoe(f"mock://?seed={seed}&decks=8")
    Runner(table, source, sink, rounds=ROUNDS_PER_SHOE * shoes, new_shoes=True).run()
    return snapshots


ROUNDS_PER_SHOE = 80
"""About the rounds of an 8-deck shoe cut 16 cards from the end."""


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shoes", type=int, default=10)
    parser.add_argument("--write", action="store_true", help="write the results to docs/performance.md")
    args = parser.parse_args()
    settings = load_config(environ={}).bets
    starts = round_starts(args.shoes)
    edge_events(settings, 8, 1, 1, Counter(), AlertOpener(AlertBook()))  # loads the shipped tables, once a process
    from controller.core.bets import exact

    wall: list[float] = []
    cpu: list[float] = []
    reference_cpu: list[float] = []
    for number, seen in enumerate(starts, 1):
        wall_start, cpu_start = time.perf_counter(), time.thread_time()
        edge_events(settings, 8, 1, number, seen, AlertOpener(AlertBook()))
        cpu.append(time.thread_time() - cpu_start)
        wall.append(time.perf_counter() - wall_start)
        cpu_start = time.thread_time()
        exact.bet_odds(exact.Shoe.of(8, seen))
        reference_cpu.append(time.thread_time() - cpu_start)
    packing = min(_timed(_pack_columns) for _ in range(3))
    build = min(_timed(exact.build_table_data) for _ in range(3))
    compileall.compile_file(exact_tables.__file__, quiet=1)  # as installed: the bytecode compiled
    load = min(_timed(_load_tables) for _ in range(3))
    straightforward = min(_timed(lambda: compute_odds.__wrapped__(8)) for _ in range(3))
    ms = 1000
    lines = [
        "| measure | result | target |",
        "|---|---|---|",
        f"| `edge` for all {len(CATALOGUE)} bets, 8 decks, {len(starts)} rounds (~{args.shoes} shoes): "
        f"p50 / p99 / max wall | {statistics.median(wall) * ms:.1f} / {percentile(wall, 0.99) * ms:.1f} / "
        f"{max(wall) * ms:.1f} ms | p99 < 10 ms |",
        f"| the same, thread CPU time p50 / p99 / max | {statistics.median(cpu) * ms:.1f} / "
        f"{percentile(cpu, 0.99) * ms:.1f} / {max(cpu) * ms:.1f} ms | - |",
        f"| the reference path in the same loop (`bet_odds`, one sum per position and multiset, a fraction per "
        f"pay class), thread CPU time p50 / p99 | {statistics.median(reference_cpu) * ms:.1f} / "
        f"{percentile(reference_cpu, 0.99) * ms:.1f} ms | - |",
        f"| packing the multisets' columns by sum class (`controller/core/bets/packed.py`), once per process | "
        f"{packing * ms:.1f} ms | - |",
        f"| loading the shipped multiset tables (`controller/core/bets/exact_tables.py`, compiled), once per "
        f"process | {load * ms:.1f} ms | - |",
        f"| classifying them (`build_table_data`, run by `python -m controller.cli.gendata` and the tests) | "
        f"{build * ms:.0f} ms | - |",
        f"| for comparison: the fresh-shoe enumerator card by card (`controller.core.odds`, "
        f"player/banker/tie only) | {straightforward * ms:.0f} ms | - |",
    ]
    text = "\n".join(lines) + f"\n\nLoad average (1 min) at the end: {os.getloadavg()[0]:.1f}.\n\n" + METHOD
    print(text)
    if args.write:
        write_section("Live edge", "python -m benchmarks.edge --write", text)


def _load_tables() -> None:
    """Import the generated tables' module afresh (from its bytecode) and index them, as a new process does."""
    from controller.core.bets import exact

    sys.modules.pop("controller.core.bets.exact_tables", None)
    exact._tables.cache_clear()
    exact._tables()


def _pack_columns() -> None:
    from controller.core.bets import packed

    packed._packed.cache_clear()
    packed._packed(packed.NARROW_BITS)


def _timed(work: object) -> float:
    start = time.perf_counter()
    work()  # type: ignore[operator]
    return time.perf_counter() - start


METHOD = (
    "Method (`controller/core/bets/exact.py`): the value bets depend only on the baccarat values of the\n"
    "round's four to six cards, and an ordered value sequence's probability only on its multiset of\n"
    "values. Every deal of four to six values is classified into its final position (totals and card\n"
    "counts), counting orderings per multiset (7,722 multisets, 205 positions): a constant of the rules,\n"
    "shipped as a generated module (a test classifies again and compares) and loaded once per process. Per\n"
    "round, the weight of each multiset (a product of falling factorials of the counts left) is built\n"
    "level by level from its parent multiset. A multiset's values fix the sum of the two final totals, so\n"
    "its orderings per final position are packed, 53 bits a lane, into one integer per multiset and sum\n"
    "class (`controller/core/bets/packed.py`): one multiply-add per multiset gives ten positions' sums at\n"
    "once, all in whole numbers with C-level `map`/`itemgetter` loops, then one exact fraction per bet. Pair\n"
    "bets come in closed form from the rank and rank-and-suit counts. The test suite checks the results\n"
    "against a second enumerator, every deal of tiny shoes, and the published house edges."
)


if __name__ == "__main__":
    main()

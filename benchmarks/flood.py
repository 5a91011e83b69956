"""A reader that floods a halted table: what a card read while halted costs at 16,000 and at 200,000 cards.

A stuck or noisy reader keeps sending while the table is halted; every card is held with the misdeal (and
journaled) until the dealer resolves it. Measured: the core alone (``Table.handle``), then the whole
``croupier simulate`` command on a script of the flood (JSON lines, and journaled), each card's cost beside
its peer in the same run: an ordinary shoe dealt through the same core, and the command with no flood (its
start-up and the halt). The flood ends with ``@burn``, which sets every held card aside at once.

Run: .venv/bin/python -m benchmarks.flood [--cards N ...] [--dir DIR] [--write]
Target (issue 25): no quadratic path: a card read while halted costs no more with the most cards held than
with the fewest (at most 1.5 times, in the core and in the command, journal on and off), and the journal
grows by the same bytes a card.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from benchmarks.report import write_section
from config.loader import load_config
from controller.app.runner import Runner
from controller.core.events import Event
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.machine import State
from controller.core.table import Table
from drivers.mock import MockShoe

CODES = [rank + suit for rank in "A23456789TJQK" for suit in "SHDC"]
FLOOD = [*CODES, "??", "@double", "ZZ"]
"""One cycle of the flood: every card code (foreign ones once every copy is out), an unread card, two cards at
once, a code that is no card."""
HALT = "9S 8H KD 2C 3S"
"""A natural, then a card before the next round was started: the table halts on an extra card."""
SIZES = (16_000, 200_000)
FLAT = 1.5
"""A card's cost counts as flat when, with the most cards held, it is at most this times the fewest's."""
SEED = 2026


def discard(events: list[Event]) -> None:
    """An event sink that drops everything."""


def flood_tokens(cards: int) -> Iterator[str]:
    """The flood's first ``cards`` tokens."""
    return itertools.islice(itertools.cycle(FLOOD), cards)


def halted_table() -> Table:
    """A table halted on an extra card between rounds (no burn, rounds started by the dealer)."""
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}, "simulation": {"auto_next": False}}))
    table.start()
    table.handle(Input(InputKind.SHOE))
    for item in parse_tokens(HALT):
        table.handle(item)
    assert table.state is State.HALTED
    return table


@dataclass
class CoreFlood:
    """The core fed ``cards`` inputs while halted."""

    cards: int
    per_card: float
    """Seconds a card."""
    resolution: float
    """Seconds of the ``@burn`` that set every held card aside."""
    held: int


def core_flood(cards: int) -> CoreFlood:
    table = halted_table()
    inputs = parse_tokens(" ".join(flood_tokens(cards)))
    started = time.perf_counter()
    for item in inputs:
        table.handle(item)
    elapsed = time.perf_counter() - started
    assert table.misdeal is not None
    held = len(table.misdeal.held)
    started = time.perf_counter()
    table.handle(Input(InputKind.BURN))
    resolution = time.perf_counter() - started
    assert table.misdeal is None
    return CoreFlood(cards, elapsed / cards, resolution, held)


def ordinary_shoe() -> float:
    """Seconds an input of a seeded 8-deck shoe dealt to the cut card through the same core, no halt."""
    table = Table(load_config(environ={}, overrides={"bets": {"live_edge": False}}))
    inputs = [0]

    def count(events: list[Event]) -> None:
        inputs[0] += 1

    runner = Runner(table, MockShoe(f"mock://?seed={SEED}&decks=8"), count)
    started = time.perf_counter()
    runner.run()
    return (time.perf_counter() - started) / inputs[0]


def command(directory: Path, cards: int, journal: bool) -> tuple[float, int]:
    """Wall seconds of ``croupier simulate --json`` on the halt, ``cards`` of the flood and ``@burn``; and the
    journal's bytes (0 without one)."""
    script = directory / f"flood-{cards}.txt"
    script.write_text(" ".join([HALT, *flood_tokens(cards), "@burn"]) + "\n", encoding="utf-8")
    argv = [sys.executable, "-m", "controller.cli.main", "simulate", "--no-burn", "--manual-next", "--script",
            str(script), "--json"]
    path = directory / f"flood-{cards}.journal"
    if journal:
        argv += ["--journal", str(path)]
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    size = sum(part.stat().st_size for part in directory.glob(f"flood-{cards}.journal*")) if journal else 0
    for part in directory.glob(f"flood-{cards}.journal*"):
        part.unlink()
    return elapsed, size


def ratio_verdict(ratio: float) -> str:
    return f"{ratio:.2f} times: {'meets' if ratio <= FLAT else 'MISSES'}"


def report(sizes: tuple[int, ...], directory: str) -> str:
    """Measure; the section's text."""
    load_before = os.getloadavg()[0]
    ordinary = min(ordinary_shoe() for _ in range(3))
    cores = [core_flood(cards) for cards in sizes]
    rows: list[str] = []
    per_card: dict[str, list[float]] = {"core": [], "json": [], "journal": [], "bytes": []}
    with tempfile.TemporaryDirectory(dir=directory) as scratch:
        scratch_path = Path(scratch)
        bare, _ = command(scratch_path, 0, journal=False)
        bare_journaled, bare_size = command(scratch_path, 0, journal=True)
        for core in cores:
            plain, _ = command(scratch_path, core.cards, journal=False)
            journaled, size = command(scratch_path, core.cards, journal=True)
            json_card = (plain - bare) / core.cards
            journal_card = (journaled - bare_journaled) / core.cards
            bytes_card = (size - bare_size) / core.cards
            for key, value in (("core", core.per_card), ("json", json_card), ("journal", journal_card),
                               ("bytes", bytes_card)):
                per_card[key].append(value)
            rows.append(f"| {core.cards:,} ({core.held:,} held) | {core.per_card * 1e6:.1f} µs | "
                        f"{core.resolution * 1000:.1f} ms | {json_card * 1e6:.0f} µs (whole run {plain:.1f} s) | "
                        f"{journal_card * 1e6:.0f} µs (whole run {journaled:.1f} s) | {bytes_card:.0f} B |")
    most, fewest = f"{sizes[-1]:,}", f"{sizes[0]:,}"
    verdicts = "; ".join(f"{name} {ratio_verdict(values[-1] / values[0])}" for name, values in (
        ("core", per_card["core"]), ("`--json`", per_card["json"]), ("journaled", per_card["journal"]),
        ("journal bytes", per_card["bytes"])))
    return "\n".join([
        f"A table halted on an extra card between rounds, then a reader sending a cycle of every card code, an "
        f"unread card, two cards at once and a code that is no card, {' and '.join(f'{s:,}' for s in sizes)} "
        "inputs in all (every one held with the misdeal), then `@burn`. The command is `croupier simulate "
        f"--no-burn --manual-next --script FLOOD --json` (output discarded; journal in `{directory}`), each card's "
        "cost the run's time less the same command's without the flood (start-up, the halt), measured in the same "
        "run.",
        "",
        "| cards read while halted | core: per card (`Table.handle`) | core: the `@burn` that sets them all aside "
        "| `croupier simulate --json`: per card | the same journaled (`--journal`): per card | journal: bytes per "
        "card |",
        "| --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
        f"Peers in the same run: an input of an ordinary seeded 8-deck shoe through the same core (no halt, "
        f"`[bets] live_edge = false`): {ordinary * 1e6:.1f} µs; the command without the flood: {bare:.2f} s, "
        f"journaled {bare_journaled:.2f} s. A card at {most} held against one at {fewest} (target at most "
        f"{FLAT} times): {verdicts}. Before issue 25 each card listed every card already held "
        "(`core/tablestate.py`) and the journal's checkpoints, every 250 inputs, held them all: 16,000 cards took "
        f"29 s and 200,000 did not finish in 5 minutes. Load average (1 min) {load_before:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after: the machine (2 cores, one disk) was shared with other work while this ran.",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.flood", description=__doc__)
    parser.add_argument("--cards", type=int, nargs="+", default=list(SIZES),
                        help="the flood sizes, fewest first (default: %(default)s)")
    parser.add_argument("--dir", default="/dev/shm", help="directory of the scripts and journals")
    parser.add_argument("--write", action="store_true", help="write the section of docs/performance.md")
    args = parser.parse_args(argv)
    sizes = tuple(sorted(args.cards))
    if len(sizes) < 2 or sizes[0] < len(FLOOD):
        parser.error(f"--cards takes two or more sizes of at least {len(FLOOD)} (one cycle of the flood)")
    text = report(sizes, args.dir)
    print(text)
    if args.write:
        write_section("Halted table flooded by its reader", "python -m benchmarks.flood --write", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The journal's cost: time per card with every input and its events fsync'd, and recovery time.

Run: .venv/bin/python -m benchmarks.journal [--repeat N] [--dir DIR] [--write]
Target: recovering (open, verify the hash chain, replay into a fresh table,
seek the source, show the instruction) a full 8-deck shoe's journal in under 200 ms.
The journal lives in ``--dir`` (default: a temporary directory under /var/tmp, on disk,
so the fsyncs are real).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.report import write_section
from config.loader import load_config
from controller.app.runner import Runner
from controller.core.events import Event
from controller.core.table import Table
from controller.journal.replay import attach_journal
from drivers.mock import MockShoe

SEED = 2026
TARGET_RECOVERY_MS = 200.0
LONG_ROUNDS = 750


def discard(events: list[Event]) -> None:
    """An event sink that drops everything."""


class Counter:
    """A sink that counts cards (dealt and burned) and batches."""

    def __init__(self) -> None:
        self.cards = 0
        self.batches = 0

    def __call__(self, events: list[Event]) -> None:
        self.batches += 1
        self.cards += sum(1 for event in events if event["event"] in ("card", "burn"))


def _runner(sink: Counter | None = None, rounds: int = 0) -> Runner:
    settings = load_config(None, environ={})
    return Runner(Table(settings), MockShoe(f"mock://?seed={SEED}&decks=8"), sink or discard,
                  rounds=rounds, new_shoes=rounds > 0)


def deal(path: Path | None, rounds: int = 0) -> tuple[float, int, int]:
    """Deal one 8-deck shoe to the cut card (or ``rounds`` rounds over as many shoes as it takes),
    journaled in ``path`` (None: not journaled). Returns (seconds, cards, inputs)."""
    counter = Counter()
    runner = _runner(counter, rounds)
    journal = None
    inputs = 0
    started = time.perf_counter()
    if path is not None:
        journal = attach_journal(runner, path, argv_key={"benchmark": SEED})
    runner.run()
    elapsed = time.perf_counter() - started
    if journal is not None:
        inputs = journal.connection.execute("SELECT count(*) FROM records WHERE kind = 'input'").fetchone()[0]
        journal.close()
    return elapsed, counter.cards, inputs


def recover(path: Path, rounds: int = 0) -> float:
    """Seconds to resume from ``path`` into a fresh table (in process, no interpreter start-up)."""
    runner = _runner(rounds=rounds)
    started = time.perf_counter()
    journal = attach_journal(runner, path, argv_key={"benchmark": SEED})
    elapsed = time.perf_counter() - started
    journal.close()
    return elapsed


def resume_process(path: Path) -> float:
    """Seconds for ``croupier simulate`` to resume a finished one-shoe journal, interpreter included."""
    command = [sys.executable, "-m", "controller.cli.main", "simulate", "--seed", str(SEED), "--json",
               "--journal", str(path)]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print (and with ``--write``, record) the results."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.journal", description=__doc__)
    parser.add_argument("--repeat", type=int, default=5, help="repetitions (median reported)")
    parser.add_argument("--dir", default="/var/tmp", help="directory for the journals (on a real disk)")
    parser.add_argument("--write", action="store_true", help="write the section of docs/performance.md")
    args = parser.parse_args(argv)
    plain_times, journal_times, recover_times = [], [], []
    cards = inputs = 0
    size = 0
    with tempfile.TemporaryDirectory(dir=args.dir) as scratch:
        for attempt in range(args.repeat):
            plain, cards, _ = deal(None)
            plain_times.append(plain)
            path = Path(scratch) / f"shoe-{attempt}.db"
            journaled, _, inputs = deal(path)
            journal_times.append(journaled)
            size = path.stat().st_size
            recover_times.append(recover(path))
        long_path = Path(scratch) / "ten-shoes.db"
        _, long_cards, long_inputs = deal(long_path, LONG_ROUNDS)
        long_recovery = statistics.median(recover(long_path, LONG_ROUNDS) for _ in range(args.repeat))
        simulate = [sys.executable, "-m", "controller.cli.main", "simulate", "--seed", str(SEED), "--json"]
        started = time.perf_counter()
        subprocess.run(simulate, check=True, capture_output=True)
        baseline = time.perf_counter() - started
        made = Path(scratch) / "simulate.db"
        subprocess.run([*simulate, "--journal", str(made)], check=True, capture_output=True)
        process = statistics.median(resume_process(made) for _ in range(args.repeat))
    plain = statistics.median(plain_times)
    journaled = statistics.median(journal_times)
    recovery = statistics.median(recover_times)
    per_card = (journaled - plain) / cards * 1e6
    per_input = (journaled - plain) / inputs * 1e6
    verdict = "meets" if recovery * 1000 < TARGET_RECOVERY_MS else "MISSES"
    body = "\n".join([
        f"One seeded 8-deck shoe (seed {SEED}): {cards} cards dealt or burned, {inputs} inputs, "
        f"{2 * inputs + 2} journal records, {size / 1024:.0f} KiB. Median of {args.repeat}; journal in "
        f"`{args.dir}`, WAL mode, `synchronous=FULL` (two fsync'd commits per input: the input, then its "
        "events).",
        "",
        "| measure | value |",
        "| --- | --- |",
        f"| dealing the shoe, no journal | {plain * 1000:.1f} ms |",
        f"| dealing the shoe, journaled | {journaled * 1000:.1f} ms |",
        f"| journal cost per card | {per_card:.0f} µs |",
        f"| journal cost per input | {per_input:.0f} µs |",
        f"| recovery of the full shoe's journal (open, verify chain, replay, seek) | "
        f"{recovery * 1000:.1f} ms ({verdict} the {TARGET_RECOVERY_MS:.0f} ms target) |",
        f"| recovery of a {LONG_ROUNDS}-round journal ({long_cards} cards, {long_inputs} inputs, "
        f"about 10 shoes) | {long_recovery * 1000:.0f} ms |",
        f"| `croupier simulate` resuming the one-shoe journal, interpreter start-up included | {process * 1000:.0f} ms "
        f"(plain `croupier simulate` of the shoe: {baseline * 1000:.0f} ms) |",
        "",
        "Recovery grows with the journal: it replays every input since the journal began "
        "(one shoe ≈ 500 inputs). Start a new journal per shoe or per session for long tables.",
    ])
    print(body)
    if args.write:
        write_section("Journal", "python -m benchmarks.journal --write", body)
    return 0 if verdict == "meets" else 1


if __name__ == "__main__":
    sys.exit(main())

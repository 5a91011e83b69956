"""The journal's cost: time per card with every input and its events fsync'd, and recovery time by journal size.

Run: .venv/bin/python -m benchmarks.journal [--repeat N] [--dir DIR] [--build-dir DIR] [--write]
Targets: resuming (check the journal as ``audit verify`` does: the whole hash chain and the last checkpoint
against a replay of its shoe, issue 25; then open it, restore the last checkpoint, replay what follows, seek the
source, show the instruction, issue 17) under 1000 ms and flat memory for a journal of one shoe, 10 shoes and
a 40-shoe day; beside each, in the same run, those checks alone, and the replay of the whole journal from its
start (what resuming cost before checkpoints, and what ``audit verify --replay`` does).
The one-shoe journal lives in ``--dir`` (default: /var/tmp, on disk, so the fsyncs are real); the long
journals are dealt in ``--build-dir`` (default /dev/shm: dealing 3,000 rounds with a real fsync per
input takes minutes on a busy disk) and read back from the page cache, as a resume on the same machine is.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from benchmarks.report import write_section
from config.loader import load_config
from controller.app.runner import Runner
from controller.core.events import Event
from controller.core.sequence_check import SequenceArchive
from controller.core.snapshot import earlier_codes
from controller.core.table import Table
from controller.journal.replay import attach_journal, replay, settings_from_header, trust
from controller.journal.store import Journal
from controller.journal.verify import verify
from drivers.mock import MockShoe

SEED = 2026
TARGET_RECOVERY_MS = 1000.0
FLAT_MEMORY = 1.25
"""A resume's peak memory counts as flat when no longer journal's is over this times the one-shoe journal's."""
SIZES = (("one shoe", 0), ("10 shoes", 750), ("a 40-shoe day", 3000))
"""(name, rounds; 0 = one shoe to the cut card) of the journals recovered."""


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


def recover_peak(path: Path, rounds: int = 0) -> int:
    """Peak bytes Python allocates while resuming from ``path`` (tracemalloc; timed separately)."""
    runner = _runner(rounds=rounds)
    tracemalloc.start()
    try:
        journal = attach_journal(runner, path, argv_key={"benchmark": SEED})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    journal.close()
    return peak


def checks(path: Path) -> float:
    """Seconds for what a resume checks before it opens the journal for writing (``audit verify`` without
    ``--replay``): the whole chain, and the last checkpoint against a replay of its shoe."""
    started = time.perf_counter()
    journal = Journal.open_existing(path)
    try:
        trust(journal)
    finally:
        journal.close()
    return time.perf_counter() - started


def replay_from_start(path: Path) -> tuple[float, int]:
    """Seconds (and peak bytes, in a second pass) to verify the whole chain and replay every input from
    the start, checking every checkpoint: what resuming did before checkpoints, and ``audit verify --replay``."""

    def once() -> None:
        journal = Journal.open_existing(path)
        try:
            verified = verify(journal)
            replay(journal, Table(settings_from_header(journal.path, verified.header)))
        finally:
            journal.close()

    started = time.perf_counter()
    once()
    elapsed = time.perf_counter() - started
    tracemalloc.start()
    try:
        once()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return elapsed, peak


def archive_peak(path: Path) -> int:
    """Bytes the repeated-sequence archive (every earlier shoe's dealt order and its trigram index) takes when
    rebuilt from the last checkpoint of ``path``: the part of a resume's memory that grows with the day."""
    journal = Journal.open_existing(path)
    try:
        anchor = journal.last_checkpoint()
        shoes = json.loads(anchor.body)["state"]["earlier_shoes"] if anchor is not None else []
    finally:
        journal.close()
    tracemalloc.start()
    try:
        archive = SequenceArchive(8)
        for shoe, cards in shoes:
            archive.add_shoe(shoe, earlier_codes(cards))
        size, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return size


def journal_counts(path: Path) -> tuple[int, int, int]:
    """(records, inputs, checkpoints) of the journal at ``path``."""
    journal = Journal.open_existing(path)
    try:
        rows = journal.connection.execute("SELECT kind, count(*) FROM records GROUP BY kind").fetchall()
    finally:
        journal.close()
    kinds = dict(rows)
    return sum(kinds.values()), kinds.get("input", 0), kinds.get("checkpoint", 0)


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
    parser.add_argument("--dir", default="/var/tmp", help="directory for the one-shoe journal (on a real disk)")
    parser.add_argument("--build-dir", default="/dev/shm", help="directory the long journals are dealt in")
    parser.add_argument("--write", action="store_true", help="write the section of docs/performance.md")
    args = parser.parse_args(argv)
    plain_times, journal_times = [], []
    cards = inputs = 0
    size = 0
    rows: list[str] = []
    verdicts: list[bool] = []
    peaks: list[int] = []
    with tempfile.TemporaryDirectory(dir=args.dir) as scratch, \
            tempfile.TemporaryDirectory(dir=args.build_dir) as build:
        for attempt in range(args.repeat):
            plain, cards, _ = deal(None)
            plain_times.append(plain)
            path = Path(scratch) / f"shoe-{attempt}.db"
            journaled, _, inputs = deal(path)
            journal_times.append(journaled)
            size = path.stat().st_size
        for name, rounds in SIZES:
            path = Path(scratch if rounds == 0 else build) / f"recover-{rounds}.db"
            _, dealt, _ = deal(path, rounds)
            records, journal_inputs, checkpoints = journal_counts(path)
            timings = [(recover(path, rounds), checks(path)) for _ in range(args.repeat)]  # in turn: the same load
            recovery = statistics.median(resumed for resumed, _ in timings)
            checked = statistics.median(alone for _, alone in timings)
            peak = recover_peak(path, rounds)
            archive = archive_peak(path)
            peaks.append(peak)
            full, full_peak = replay_from_start(path)
            verdicts.append(recovery * 1000 < TARGET_RECOVERY_MS)
            rows.append(f"| {name}: {dealt} cards, {journal_inputs} inputs, {records} records, "
                        f"{checkpoints} checkpoints | {recovery * 1000:.1f} ms, peak {peak / 2**20:.1f} MiB "
                        f"(of which the sequence archive {archive / 2**20:.1f} MiB) | {checked * 1000:.0f} ms | "
                        f"{full * 1000:.0f} ms, peak {full_peak / 2**20:.1f} MiB |")
        simulate = [sys.executable, "-m", "controller.cli.main", "simulate", "--seed", str(SEED), "--json"]
        started = time.perf_counter()
        subprocess.run(simulate, check=True, capture_output=True)
        baseline = time.perf_counter() - started
        made = Path(scratch) / "simulate.db"
        subprocess.run([*simulate, "--journal", str(made)], check=True, capture_output=True)
        process = statistics.median(resume_process(made) for _ in range(args.repeat))
    plain = statistics.median(plain_times)
    journaled = statistics.median(journal_times)
    per_card = (journaled - plain) / cards * 1e6
    per_input = (journaled - plain) / inputs * 1e6
    verdict = "meets" if all(verdicts) else "MISSES"
    flat = "meets" if max(peaks) <= FLAT_MEMORY * peaks[0] else "MISSES"
    every = load_config(None, environ={}).journal.checkpoint_every
    body = "\n".join([
        f"One seeded 8-deck shoe (seed {SEED}): {cards} cards dealt or burned, {inputs} inputs, "
        f"{size / 1024:.0f} KiB. Median of {args.repeat}; journal in `{args.dir}`, WAL mode, `synchronous=FULL` "
        "(one fsync'd commit per input: the input and its events in one transaction; a checkpoint due after "
        "it is a commit of its own once its events were shown).",
        "",
        "| measure | value |",
        "| --- | --- |",
        f"| dealing the shoe, no journal | {plain * 1000:.1f} ms |",
        f"| dealing the shoe, journaled | {journaled * 1000:.1f} ms |",
        f"| journal cost per card | {per_card:.0f} µs |",
        f"| journal cost per input | {per_input:.0f} µs |",
        f"| `croupier simulate` resuming a one-shoe journal, interpreter start-up included | {process * 1000:.0f} ms "
        f"(plain `croupier simulate` of the shoe: {baseline * 1000:.0f} ms) |",
        "",
        f"Recovery by journal size (`[journal] checkpoint_every = {every}`; median of {args.repeat}; peak = "
        "Python's allocations during the step, tracemalloc), beside the checks it makes first and the replay of "
        "the same journal from its start, in the same run. A resume trusts nothing `audit verify` would reject "
        "(issue 25), so it reads the whole chain: the checks grow with the journal, by about the time of a hash "
        "and a JSON parse a record; the rest does not (issue 17). "
        f"Target: resume under {TARGET_RECOVERY_MS:.0f} ms ({verdict}) and flat memory "
        f"(peak at most {FLAT_MEMORY:g} times the one-shoe peak: {flat}). "
        f"The long journals were dealt in `{args.build_dir}`.",
        "",
        "| journal | resume (the checks of the next column, then restore the last checkpoint, replay since, each "
        "replayed round's edge read from the journal) | its checks alone, as `audit verify` makes them (the whole "
        "chain, and the last checkpoint's shoe replayed from the checkpoint before that shoe began) | "
        "replay from the start (`audit verify --replay`) |",
        "| --- | --- | --- | --- |",
        *rows,
        "",
        "What grows with the day in a resume's memory is the repeated-sequence check's archive "
        "(`[protection] sequence_check`: every earlier shoe's dealt order and the index of its three-card runs, "
        "which the check must see; measured on its own in the resume column; one byte a card and about seven "
        "for its index, `controller/core/gram_index.py`) and the last checkpoint, which "
        "holds those orders and the alerts still open (in a simulation nobody acknowledges the advantage "
        f"alerts). Load average (1 min) at the end: {os.getloadavg()[0]:.1f}; the machine (2 cores, one disk) "
        "was shared with other engineers' builds and tests while this ran.",
    ])
    print(body)
    if args.write:
        write_section("Journal", "python -m benchmarks.journal --write", body)
    return 0 if verdict == flat == "meets" else 1


if __name__ == "__main__":
    sys.exit(main())

"""Simulation speed beside its peers, in one run (the command line's start-up: :mod:`benchmarks.startup`).

Rounds per second of CPU time, one core, 8-deck seeded shoes (cut card 16 from the end, first-card burn):
the fast path (``controller.app.fastsim``, what ``croupier simulate --quiet`` uses), a plain straight-line
Python simulator over the same seeded shoes (``benchmarks/simulation_peers.py``), pybaccarat's engine
(when ``--pybaccarat-python`` names an interpreter that has it), and the full controller path.

Run: .venv/bin/python -m benchmarks.simulation [--rounds N] [--pybaccarat-python PATH] [--write]
pybaccarat 0.18 imports the Windows-only ``msvcrt`` at import (for its interactive play), so it neither
builds nor imports on Linux as published; install it in an environment of its own with the shim this module
writes (``python -m benchmarks.simulation --print-shim-dir`` prints its directory):
``python3 -m venv ENV && ENV/bin/pip install wheel &&
PYTHONPATH=SHIM_DIR ENV/bin/pip install --no-build-isolation pybaccarat``. Targets: the fast path
at least the baseline's speed and ahead of pybaccarat.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.report import write_section
from benchmarks.simulation_peers import PYBACCARAT_LOOP, baseline
from controller.app.fastsim import Procedure, simulate

ROOT = Path(__file__).resolve().parents[1]
SEED = 1
MSVCRT_SHIM = '''"""Benchmark shim: pybaccarat imports msvcrt.getch (Windows-only) at import; nothing else sees it."""
import sys

_caller = sys._getframe(1)
while _caller is not None and "importlib" in _caller.f_code.co_filename:
    _caller = _caller.f_back
if _caller is None or "baccarat" not in _caller.f_code.co_filename.lower():
    del sys.modules[__name__]
    raise ModuleNotFoundError("No module named 'msvcrt'", name="msvcrt")


def getch():
    raise OSError("msvcrt.getch is Windows-only")
'''


def fast_rate(rounds: int, workers: int = 1) -> tuple[float, tuple[int, int, int, int]]:
    """Rounds per CPU second of this process (wall seconds with workers), and the totals."""
    clock = time.process_time if workers == 1 else time.perf_counter
    start = clock()
    counts = simulate(Procedure(seed=SEED, decks=8, cut_from_end=16), rounds, workers=workers)
    elapsed = clock() - start
    return rounds / elapsed, (counts["rounds"], counts["banker"], counts["player"], counts["tie"])


def baseline_rate(rounds: int) -> tuple[float, tuple[int, int, int, int]]:
    start = time.process_time()
    totals = baseline(SEED, 8, 16, rounds)
    return totals[0] / (time.process_time() - start), totals


def full_path_rate(rounds: int) -> float:
    from benchmarks.rounds import rounds_per_second

    start = time.process_time()
    rounds_per_second(rounds, seed=SEED)
    return rounds / (time.process_time() - start)


def shim_directory() -> Path:
    directory = Path(tempfile.gettempdir()) / "croupier-bench-msvcrt"
    directory.mkdir(exist_ok=True)
    (directory / "msvcrt.py").write_text(MSVCRT_SHIM, encoding="utf-8")
    return directory


def pybaccarat_rate(python: str, rounds: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(shim_directory())}
    run = subprocess.run([python, "-c", PYBACCARAT_LOOP, str(rounds), str(SEED)], capture_output=True, text=True,
                         env=env, check=True, timeout=600)
    played, seconds = run.stdout.split()
    return int(played) / float(seconds)


def command_seconds(rounds: int) -> tuple[float, float]:
    """Wall and CPU seconds of ``croupier simulate --seed 1 --rounds N --quiet`` as a user runs it."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "controller.cli", "simulate", "--seed", str(SEED), "--rounds", str(rounds),
                    "--quiet"], check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--pybaccarat-python", metavar="PATH", default=os.environ.get("PYBACCARAT_PYTHON"),
                        help="an interpreter that has pybaccarat installed (default: $PYBACCARAT_PYTHON)")
    parser.add_argument("--write", action="store_true", help="write the results to docs/performance.md")
    parser.add_argument("--print-shim-dir", action="store_true", help="write the msvcrt shim and print its directory")
    args = parser.parse_args()
    if args.print_shim_dir:
        print(shim_directory())
        return
    subprocess.run([sys.executable, "-m", "compileall", "-q", "controller", "config", "drivers"], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)
    rows: list[tuple[str, str]] = []
    plain, plain_totals = max(baseline_rate(args.rounds) for _ in range(3))
    fast, fast_totals = max(fast_rate(plain_totals[0]) for _ in range(3))
    same = "the same" if fast_totals == plain_totals else "DIFFERENT"
    full = full_path_rate(20_000)
    rows.append((f"fast path (`controller.app.fastsim`), {fast_totals[0]:,} rounds (whole shoes), best of 3",
                 f"{fast:,.0f}"))
    rows.append((f"plain straight-line Python loop over the same shoes (`benchmarks/simulation_peers.py`), "
                 f"best of 3; rounds and banker/player/tie {same} as the fast path's", f"{plain:,.0f}"))
    if args.pybaccarat_python:
        peer = max(pybaccarat_rate(args.pybaccarat_python, 200_000) for _ in range(3))
        rows.append(("pybaccarat 0.18 `Game.play_hand` (its own shoes), 200,000 rounds, best of 3", f"{peer:,.0f}"))
    else:
        rows.append(("pybaccarat", "not measured (give --pybaccarat-python)"))
    rows.append(("full controller path (every event, `[bets] live_edge = false`), 20,000 rounds", f"{full:,.0f}"))
    workers_rate, workers_totals = fast_rate(plain_totals[0], workers=2)
    rows.append((f"fast path, `--workers 2` (wall clock, 2 cores shared with other work); totals "
                 f"{'the same' if workers_totals == fast_totals else 'DIFFERENT'}", f"{workers_rate:,.0f}"))
    wall, cpu = command_seconds(args.rounds)
    lines = ["| simulation | rounds/s (CPU, one core) |", "| --- | --- |", *(f"| {a} | {b} |" for a, b in rows), "",
             f"`croupier simulate --seed {SEED} --rounds {args.rounds} --quiet`, the whole command: "
             f"{wall:.2f} s wall, {cpu:.2f} s CPU. The command line's start-up: the Start-up section "
             "(`python -m benchmarks.startup`).", "", f"Load average (1 min) at the end: {os.getloadavg()[0]:.1f}."]
    text = "\n".join(lines)
    print(text)
    if args.write:
        command = "python -m benchmarks.simulation --pybaccarat-python PATH --write"
        write_section("Simulation", command, text)


if __name__ == "__main__":
    main()

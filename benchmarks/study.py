"""The risk study's speed (issue 30 item 3): ``croupier study`` over 10,000 seeded eight-deck shoes with every bet's
exact edge before every round (``--bets all``: the catalogue's 16 and the two published reference bets), on every
core, as a user runs it; beside it, in the same run, the rounds/s of the same study through the pure-Python path
(a few shoes in one process, as the kernel's one-process rate is measured on the same shoes).

Run: .venv/bin/python -m benchmarks.study [--shoes N] [--save FILE] [--write]. Target: 10,000 shoes in under
5 minutes on the 2-core machine. ``--save FILE`` keeps the study's JSON (docs/data/study.json is written so,
trimmed by ``controller.core.bets.document``'s reader to what docs/bets.md shows).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.report import write_section
from config.loader import load_config
from controller.app.fastsim import Procedure
from controller.app.study import Plan, StudiedBet, _Studier
from controller.cli.study import chosen_bets

ROOT = Path(__file__).resolve().parents[1]
CROUPIER = shutil.which("croupier", path=str(Path(sys.executable).parent)) or "croupier"
TARGET_SECONDS = 300


def one_process_rate(use_kernel: bool, shoes: int) -> float:
    """Rounds/s of the study of ``shoes`` shoes in this process, with or without the compiled kernel."""
    settings = load_config(environ={})
    bets = tuple(StudiedBet(name, bet.name, bet.pays) for name, bet in chosen_bets("all", settings))
    plan = Plan(Procedure(seed=1, decks=8, cut_from_end=16), bets, use_kernel=use_kernel)
    studier = _Studier(plan)
    studier.chunk(0, 1)
    start = time.process_time()
    tally = studier.chunk(1, shoes)
    return tally.rounds / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shoes", type=int, default=10_000)
    parser.add_argument("--save", type=Path, help="keep the study's JSON here")
    parser.add_argument("--write", action="store_true", help="write the results to docs/performance.md")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    start = time.perf_counter()
    run = subprocess.run([CROUPIER, "study", "--shoes", str(args.shoes), "--seed", "1", "--bets", "all", "--json"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    wall = time.perf_counter() - start
    report = json.loads(run.stdout)
    if args.save is not None:
        args.save.write_text(run.stdout, encoding="utf-8")
    rounds = report["rounds"]
    kernel_rate = one_process_rate(True, 40)
    pure_rate = one_process_rate(False, 4)
    verdict = "meets" if wall < TARGET_SECONDS else "MISSES"
    text = "\n".join([
        "| measure | result | target |",
        "|---|---|---|",
        f"| `croupier study --shoes {args.shoes} --seed 1 --bets all --json` ({len(report['bets'])} bets, "
        f"{rounds:,} rounds, every core: {os.cpu_count()}), wall | {wall:.0f} s ({rounds / wall:,.0f} rounds/s) | "
        f"< {TARGET_SECONDS} s: {verdict} |",
        f"| the same study in one process, compiled kernel (40 shoes), CPU | {kernel_rate:,.0f} rounds/s | - |",
        f"| the same study in one process, pure-Python path (4 shoes), CPU | {pure_rate:,.0f} rounds/s "
        f"(10,000 shoes would take about {rounds / pure_rate / (os.cpu_count() or 1) / 60:.0f} min on every core) "
        "| - |",
        "",
        f"Load average (1 min) before → after: {load:.1f} → {os.getloadavg()[0]:.1f} (2 cores shared with other "
        "work).",
    ])
    print(text)
    if args.write:
        write_section("Risk study", f"python -m benchmarks.study --shoes {args.shoes} --write", text)


if __name__ == "__main__":
    main()

"""Issue 26's speed targets, each beside its peers measured in the same run: this checkout, the code at the issue's
start (a checkout of it, ``--start DIR``), and the plain straight-line Python loop (``benchmarks.simulation``'s
baseline) that says how fast this machine runs Python at the moment.

- the full controller path in process (every event, ``[bets] live_edge = false``): at least 20,000 rounds/s;
- ``croupier simulate --seed 1 --rounds 5000 --json`` (``CROUPIER_BETS_LIVE_EDGE=false``): the same output as at the
  issue's start, at least 5 times its rate, as a share of the baseline;
- ``audit verify --replay`` of a 40-shoe day: under 2 s;
- ``croupier simulate --rounds 1``: CPU at most 4 times ``python -c pass``, with ``PYTHONDONTWRITEBYTECODE=1``;
- the journal: at most 2 KB a round.

Run: .venv/bin/python -m benchmarks.targets [--start DIR] [--write]   (DIR: a checkout of b1a6f05; without it the
benchmark checks one out in a temporary git worktree and removes it after)
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.report import write_section
from benchmarks.simulation import baseline_rate

ROOT = Path(__file__).resolve().parents[1]
ISSUE_START = "b1a6f05"
FULL_PATH = """
import sys, time
from benchmarks.rounds import rounds_per_second
rounds = int(sys.argv[1])
rounds_per_second(200)
start = time.process_time()
rounds_per_second(rounds)
print(rounds / (time.process_time() - start))
"""


def child_seconds(command: list[str], cwd: Path, env: dict[str, str], stdout: int | None = subprocess.DEVNULL
                  ) -> tuple[float, float, bytes]:
    """Wall and CPU seconds of ``command`` run in ``cwd`` with ``env``, and what it printed. The CPU is the
    children's resource usage (microseconds), not ``os.times`` (clock ticks of 10 ms: ``python -c pass`` read as
    10 or 20 ms, a 4x target as 40 or 80)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE if stdout is None else stdout,
                          stderr=subprocess.PIPE, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: exit {done.returncode}: {done.stderr.decode()[-400:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), (done.stdout or b"")


def environment(code: Path, **variables: str) -> dict[str, str]:
    """The environment that runs ``code``'s Croupier with this interpreter (the other checkout on PYTHONPATH)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("CROUPIER_")}
    return {**env, "PYTHONPATH": str(code), **variables}


def full_path(code: Path, rounds: int) -> float:
    _, _, printed = child_seconds([sys.executable, "-c", FULL_PATH, str(rounds)], code, environment(code), None)
    return float(printed.decode().split()[-1])


def simulate_json(code: Path, rounds: int) -> tuple[float, bytes]:
    """CPU seconds of ``croupier simulate --seed 1 --rounds N --json`` without the live edge, and its output."""
    _, cpu, printed = child_seconds(
        [sys.executable, "-m", "controller.cli", "simulate", "--seed", "1", "--rounds", str(rounds), "--json"],
        code, environment(code, CROUPIER_BETS_LIVE_EDGE="false"), None)
    return cpu, printed


def best(times: int, measure: Callable[[], float]) -> float:
    return min(measure() for _ in range(times))


def start_up(code: Path, script: bool = False) -> tuple[float, float, float | None]:
    """CPU seconds of ``python -m controller.cli simulate --rounds 1``, of ``python -c pass`` and, with ``script``,
    of the same command through the environment's ``croupier`` executable (PYTHONDONTWRITEBYTECODE=1; best of 7,
    the commands taken in turns so that a busy machine slows them alike)."""
    env = environment(code, PYTHONDONTWRITEBYTECODE="1")
    commands = [[sys.executable, "-m", "controller.cli", "simulate", "--rounds", "1"], [sys.executable, "-c", "pass"]]
    if script:
        commands.append([str(Path(sys.executable).with_name("croupier")), "simulate", "--rounds", "1"])
    found = [min(times) for times in zip(*([child_seconds(command, code, env)[1] for command in commands]
                                           for _ in range(7)), strict=True)]
    return found[0], found[1], found[2] if script else None


def day(code: Path, where: Path, rounds: int) -> tuple[Path, int]:
    """A journal of ``rounds`` seeded rounds (8 decks: about 40 shoes for 3,200), dealt by ``code``'s Croupier."""
    path = where / f"day-{code.name}.db"
    child_seconds([sys.executable, "-m", "controller.cli", "simulate", "--seed", "1", "--rounds", str(rounds),
                   "--quiet", "--journal", str(path)], code, environment(code))
    return path, rounds


def journal_sizes(path: Path, rounds: int) -> tuple[float, float, int]:
    """Bytes a round: the file's, and the records' bodies; and the shoes it holds."""
    connection = sqlite3.connect(path)
    try:
        bodies = connection.execute("SELECT SUM(LENGTH(body)) FROM records").fetchone()[0]
        shoes = connection.execute("SELECT COUNT(*) FROM records WHERE body LIKE '%\"status\":\"new\"%'").fetchone()[0]
    finally:
        connection.close()
    return path.stat().st_size / rounds, bodies / rounds, shoes


def audit(code: Path, path: Path, replay: bool) -> tuple[float, float]:
    """Wall and CPU seconds (each the best of 3) of ``audit verify`` (``--replay``) of ``path``; the CPU counts every
    process of the command (the replay beside the chain check is a child of it)."""
    command = [sys.executable, "-m", "controller.cli", "audit", "verify", str(path), *(["--replay"] if replay else [])]
    runs = [child_seconds(command, code, environment(code))[:2] for _ in range(3)]
    return min(wall for wall, _ in runs), min(cpu for _, cpu in runs)


def verdict(ok: bool) -> str:
    return "meets" if ok else "MISSES"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--start", type=Path, help=f"a checkout of the issue's start ({ISSUE_START}; default: a "
                        "temporary git worktree of it)")
    parser.add_argument("--rounds", type=int, default=20_000, help="rounds of the full path (default 20000)")
    parser.add_argument("--day", type=int, default=3_200, help="rounds of the day's journal (default 3200)")
    parser.add_argument("--write", action="store_true", help="write the results to docs/performance.md")
    args = parser.parse_args()
    if args.start is not None:
        measure(args, args.start.resolve())
        return
    with tempfile.TemporaryDirectory() as scratch:
        checkout = Path(scratch) / "start"
        subprocess.run(["git", "worktree", "add", "--detach", str(checkout), ISSUE_START], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            measure(args, checkout)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(checkout)], cwd=ROOT, check=False,
                           capture_output=True)


def measure(args: argparse.Namespace, start_code: Path) -> None:
    """Measure every target against the checkout ``start_code``; print the table (and write it with --write)."""
    load_before = os.getloadavg()[0]
    for code in (ROOT, start_code):  # both run from their bytecode, as after .ci/setup (PYTHONDONTWRITEBYTECODE)
        subprocess.run([sys.executable, "-m", "compileall", "-q", "controller", "config", "drivers"], cwd=code,
                       check=True, stdout=subprocess.DEVNULL)
    plain, _ = baseline_rate(200_000)
    paths: dict[Path, list[float]] = {ROOT: [], start_code: []}
    simulations: dict[Path, list[tuple[float, bytes]]] = {ROOT: [], start_code: []}
    for turn in range(3):  # best of 3, this checkout and the start's taking turns first
        for code in (ROOT, start_code) if turn % 2 == 0 else (start_code, ROOT):
            paths[code].append(full_path(code, args.rounds))
            simulations[code].append(simulate_json(code, 5_000))
    now_path, then_path = max(paths[ROOT]), max(paths[start_code])
    now_cpu, now_out = min(simulations[ROOT])
    then_cpu, then_out = min(simulations[start_code])
    plain_after, _ = baseline_rate(200_000)
    now_start, bare, script_start = start_up(ROOT, script=True)
    then_start, _, _ = start_up(start_code)
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as scratch:
        now_day, rounds = day(ROOT, Path(scratch), args.day)
        then_day, _ = day(start_code, Path(scratch), args.day)
        now_file, now_bodies, shoes = journal_sizes(now_day, rounds)
        then_file, then_bodies, _ = journal_sizes(then_day, rounds)
        (replay_now, replay_cpu), (chain_now, _) = audit(ROOT, now_day, True), audit(ROOT, now_day, False)
        replay_then, _ = audit(start_code, then_day, True)
    plain_mean = (plain + plain_after) / 2
    speed_up = (5_000 / now_cpu / plain_mean) / (5_000 / then_cpu / plain_mean)
    rows = [
        ("the plain straight-line loop (baseline), rounds/s, before / after the rest", f"{plain:,.0f} / "
         f"{plain_after:,.0f}", "-"),
        (f"full controller path in process, live edge off, rounds/s CPU ({args.rounds} rounds, best of 3)",
         f"{now_path:,.0f} (at the issue's start {then_path:,.0f}; {now_path / plain_mean:.3f} of the baseline)",
         f">= 20,000: {verdict(now_path >= 20_000)}"),
        ("`simulate --seed 1 --rounds 5000 --json`, live edge off: CPU s (rounds/s), best of 3",
         f"{now_cpu:.2f} s ({5_000 / now_cpu:,.0f}); at the issue's start {then_cpu:.2f} s ({5_000 / then_cpu:,.0f}): "
         f"{speed_up:.2f}x; output {'identical' if now_out == then_out else 'DIFFERENT'}",
         f">= 5x: {verdict(speed_up >= 5)}"),
        (f"`audit verify --replay` of a {shoes}-shoe day ({rounds} rounds)",
         f"{replay_now:.2f} s ({replay_cpu:.2f} s of CPU; the chain alone, `audit verify`: {chain_now:.2f} s; the "
         f"issue's start's replay of its own journal of the same day: {replay_then:.2f} s)",
         f"< 2 s: {verdict(replay_now < 2)}"),
        ("`python -m controller.cli simulate --rounds 1` CPU, PYTHONDONTWRITEBYTECODE=1 (best of 7)",
         f"{now_start * 1000:.0f} ms = {now_start / bare:.1f}x `python -c pass` ({bare * 1000:.0f} ms); the "
         f"`croupier` executable {(script_start or 0) * 1000:.0f} ms; at the issue's start {then_start * 1000:.0f} ms",
         f"<= 4x: {verdict(now_start <= 4 * bare)}"),
        ("journal bytes a round: the file / the records' bodies",
         f"{now_file:,.0f} / {now_bodies:,.0f} (at the issue's start {then_file:,.0f} / {then_bodies:,.0f})",
         f"<= 2,048: {verdict(now_file <= 2048)}"),
    ]
    table = "\n".join(["| measure | this checkout (peers in the same run) | target |", "|---|---|---|",
                       *(f"| {a} | {b} | {c} |" for a, b, c in rows)])
    body = (f"{table}\n\nThe issue's start is commit {ISSUE_START}, run from a checkout of it with this interpreter "
            f"and packages. Load average (1 min) {load_before:.1f} before, {os.getloadavg()[0]:.1f} after: the machine "
            "(2 cores) was shared with other engineers' builds and tests while this ran.\n")
    print(body)
    if args.write:
        write_section("Issue 26 speed targets", f"python -m benchmarks.targets --rounds {args.rounds} --write", body)


if __name__ == "__main__":
    main()

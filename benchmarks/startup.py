"""The command line's start-up beside the interpreter's own, in one run.

Wall time, CPU time and peak resident memory of each command as a user runs it (the ``croupier`` entry point
of the environment, with ``PYTHONDONTWRITEBYTECODE=1`` as on this machine, this tree's bytecode compiled first
as ``.ci/setup`` does), taken in rounds: every round runs every command once, in the same order, so that a
busy machine slows them alike; the figures are medians over the rounds. ``python -c pass`` is the floor no
command can go under; the config rows tell what the typed config (msgspec and ``config/schema.py``) costs of
it. ``--before DIR`` adds ``python -m controller.cli simulate --rounds 1`` and ``... odds --decks 8`` run
from DIR, an earlier commit's tree (``mkdir DIR && git archive COMMIT | tar -x -C DIR``) as its own set-up
left it (nothing compiled: with ``PYTHONDONTWRITEBYTECODE=1`` every run compiles what it imports), beside
the same commands run from this tree, in the same rounds.

Run: .venv/bin/python -m benchmarks.startup [--rounds N] [--before DIR] [--write]. Targets: ``croupier --help``
and ``croupier simulate --rounds 1`` each under 100 ms of wall time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.report import write_section

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 100
PYTHON = sys.executable
CROUPIER = shutil.which("croupier", path=str(Path(sys.executable).parent)) or "croupier"
COMMANDS: tuple[tuple[str, list[str], bool], ...] = (
    ("`python -c pass` (the interpreter alone)", [PYTHON, "-c", "pass"], False),
    ("`croupier --help`", [CROUPIER, "--help"], True),
    ("`croupier simulate --rounds 1`", [CROUPIER, "simulate", "--rounds", "1"], True),
    ("`croupier simulate --rounds 1 --json`", [CROUPIER, "simulate", "--rounds", "1", "--json"], False),
    ("`croupier simulate --rounds 1 --quiet`", [CROUPIER, "simulate", "--rounds", "1", "--quiet"], False),
    ("`croupier odds --decks 8`", [CROUPIER, "odds", "--decks", "8"], False),
    ("`python -c 'import msgspec'` (the typed config's library alone)", [PYTHON, "-c", "import msgspec"], False),
    ("`python -c 'from config.loader import load_config; load_config()'` (the typed config: msgspec, "
     "its sections, one load)", [PYTHON, "-c", "from config.loader import load_config; load_config()"], False),
)
"""Each row: its label, the command, and whether the 100 ms target applies."""
INTERPRETER, SIMULATE, LIBRARY, CONFIG = 0, 2, 6, 7
"""Rows of :data:`COMMANDS` the breakdown below the table is computed from."""
NOTE = ("`croupier --help` imports no command module (the commands are listed from one table in "
        "`controller/cli/main.py`). What a process used to compute or parse before the first round's events and "
        "the summary is shipped as generated files (`python -m controller.cli.gendata`; "
        "`tests/controller/cli/test_gendata.py` recomputes each from its source and compares): the live "
        "edge's multiset tables (`controller/core/bets/exact_tables.bin`, 129 KiB of package data read once; "
        "about 300 ms of classification before), "
        "every fresh 1-8 deck shoe's exact odds for the summary's comparison (`controller/core/fresh_odds.py`, "
        "about 45 ms of enumeration) and the shipped catalogues' messages (`controller/i18n/builtin/<language>.json`, "
        "only the command's language read: "
        "neither Babel nor a `.po` file is read unless `[table] messages_dir` names a house's own), and the "
        "embedded `config/default.toml`, parsed (`config/default_data.py`: `tomllib` is imported only for a "
        "`--config` file). The typed config is built on msgspec (`config/schema.py`, each section converted whole by "
        "`config/typed.py`) instead of pydantic, whose import alone took about 57 ms of CPU; `importlib.metadata` "
        "(about 10 ms) is imported only when a driver URL names no built-in scheme, and the `croupier` executable "
        "(`controller.cli.main.entry`) freezes what is left out of the garbage collector's reach before the "
        "interpreter exits (about 10 ms).")


Row = tuple[str, list[str], bool, Path]
"""A command to measure: its label, its argv, whether the target applies, and where it runs."""


def rows(before: Path | None, uncompiled: Path | None = None) -> list[Row]:
    """:data:`COMMANDS` run from this tree, and with ``before`` (and ``uncompiled``) the simulation and the odds run
    from those trees too."""
    found = [(label, argv, targeted, ROOT) for label, argv, targeted in COMMANDS]
    if before is not None:
        for words in (["simulate", "--rounds", "1"], ["odds", "--decks", "8"]):
            module = [PYTHON, "-m", "controller.cli", *words]
            found += [(f"`python -m controller.cli {' '.join(words)}` from this tree", module, False, ROOT),
                      (f"the same from `{before.name}` (`--before`: an earlier commit's tree, from "
                       "`git archive COMMIT`, nothing compiled)", module, False, before)]
            if uncompiled is not None:
                found.append((f"the same from `{uncompiled.name}` (`--uncompiled`: this commit's tree from "
                              "`git archive HEAD`, nothing compiled, the kernel built beside it)", module, False,
                              uncompiled))
    return found


Samples = tuple[list[float], list[float], list[float]]
"""Wall seconds, CPU seconds and peak resident MiB of one command, a sample a run."""


def run_once(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak resident MiB of one run of ``argv`` (its own rusage)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, cwd=cwd, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, argv)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def measure(commands: list[Row], rounds: int) -> list[Samples]:
    """Wall and CPU seconds and peak memory of every command, ``rounds`` times each, interleaved."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("CROUPIER_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    found: list[Samples] = [([], [], []) for _ in commands]
    for _ in range(rounds):
        for (_, argv, _, cwd), samples in zip(commands, found, strict=True):
            for sample, value in zip(samples, run_once(argv, cwd, env), strict=True):
                sample.append(value)
    return found


def report(commands: list[Row], found: list[Samples], rounds: int, load: tuple[float, float]) -> str:
    """The section's text: one row a command, and whether each target is met."""
    ms = 1000
    lines = [f"| command (median of {rounds} rounds, `PYTHONDONTWRITEBYTECODE=1`) | wall | fastest wall | CPU | "
             "peak resident memory | target |", "| --- | --- | --- | --- | --- | --- |"]
    misses = []
    for (label, _, targeted, _), (wall, cpu, memory) in zip(commands, found, strict=True):
        median = statistics.median(wall) * ms
        verdict = "-"
        if targeted:
            verdict = f"< {TARGET_MS} ms: {'meets' if median < TARGET_MS else 'MISSES'}"
            if median >= TARGET_MS:
                misses.append(label)
        lines.append(f"| {label} | {median:.0f} ms | {min(wall) * ms:.0f} ms | "
                     f"{statistics.median(cpu) * ms:.0f} ms | {statistics.median(memory):.0f} MiB | {verdict} |")
    cpu_of = [statistics.median(cpu) * ms for _, cpu, _ in found]
    lines += ["", f"Of `croupier simulate --rounds 1`'s {cpu_of[SIMULATE]:.0f} ms of CPU, the interpreter's start "
              f"takes {cpu_of[INTERPRETER]:.0f} ms and the typed config {cpu_of[CONFIG] - cpu_of[INTERPRETER]:.0f} ms "
              f"(of which `import msgspec` {cpu_of[LIBRARY] - cpu_of[INTERPRETER]:.0f} ms; the rest: the sections "
              f"of `config/schema.py` and `config/typed.py`, one load of the embedded default); "
              f"everything else (the table core and `transitions`, one round with its live edge, the "
              f"summary) {cpu_of[SIMULATE] - cpu_of[CONFIG]:.0f} ms.", "", NOTE]
    lines += ["", f"Load average (1 min) before → after: {load[0]:.1f} → {load[1]:.1f} (2 cores shared with "
              "other work: compare rows of this run with each other, not with another run's)."]
    if misses:
        waiting = statistics.median(found[INTERPRETER][0]) * ms - cpu_of[INTERPRETER]
        lines += ["", f"MISSES the {TARGET_MS} ms target on the median wall time: {', '.join(misses)}. At this "
                  f"load a process waits for a core (`python -c pass`: {waiting:.0f} ms of its median wall time "
                  f"is not CPU); the simulation's own CPU is {cpu_of[SIMULATE]:.0f} ms and its fastest wall time "
                  f"{min(found[SIMULATE][0]) * ms:.0f} ms."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=21, help="how many times to run each command (default 21)")
    parser.add_argument("--before", type=Path, help="a checkout of an earlier commit to run the simulation from too")
    parser.add_argument("--uncompiled", type=Path, help="with --before: this commit's tree, not compiled, run too")
    parser.add_argument("--write", action="store_true", help="write the results to docs/performance.md")
    args = parser.parse_args()
    commands = rows(args.before, args.uncompiled)
    subprocess.run([PYTHON, "-m", "compileall", "-q", "controller", "config", "drivers"], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)  # as .ci/setup does
    load = os.getloadavg()[0]
    found = measure(commands, args.rounds)
    text = report(commands, found, args.rounds, (load, os.getloadavg()[0]))
    print(text)
    if args.write:
        before = f" --before {args.before}" if args.before is not None else ""
        before += f" --uncompiled {args.uncompiled}" if args.uncompiled is not None else ""
        write_section("Start-up", f"python -m benchmarks.startup{before} --write", text)


if __name__ == "__main__":
    main()

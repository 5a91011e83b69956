"""Run every benchmark and write the results to docs/performance.md: ``python -m benchmarks``.

``python -m benchmarks --check [PYTEST OPTIONS]`` runs the benchmarks' own checks instead (``benchmarks/checks``,
with pytest): that each benchmark measures what it says. They are not part of the test suite, which imports
nothing from the benchmarks (``tests/test_architecture.py``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CHECKS = Path(__file__).resolve().parent / "checks"

BENCHMARKS = ("benchmarks.rounds", "benchmarks.machine", "benchmarks.simulation", "benchmarks.startup",
              "benchmarks.edge", "benchmarks.study", "benchmarks.serial_latency", "benchmarks.journal",
              "benchmarks.floor", "benchmarks.floor_store", "benchmarks.floor_bridge", "benchmarks.sequence",
              "benchmarks.flood", "benchmarks.targets", "benchmarks.instructions")


def check(options: list[str]) -> int:
    """The benchmarks' own checks, with pytest in this interpreter; its exit status."""
    return subprocess.call([sys.executable, "-m", "pytest", str(CHECKS), "-p", "no:cacheprovider", *options],
                           cwd=CHECKS.parents[1])


def main() -> int:
    if sys.argv[1:2] == ["--check"]:
        return check(sys.argv[2:])
    status = 0
    for module in BENCHMARKS:
        print(f"== {module}", flush=True)
        status |= subprocess.call([sys.executable, "-m", module, "--write", *sys.argv[1:]])
    return status


if __name__ == "__main__":
    sys.exit(main())

"""Run every benchmark and write the results to docs/performance.md: ``python -m benchmarks``."""

from __future__ import annotations

import subprocess
import sys

BENCHMARKS = ("benchmarks.rounds", "benchmarks.simulation", "benchmarks.startup", "benchmarks.edge", "benchmarks.study",
              "benchmarks.serial_latency", "benchmarks.journal", "benchmarks.floor", "benchmarks.floor_store",
              "benchmarks.floor_bridge", "benchmarks.sequence", "benchmarks.flood")


def main() -> int:
    status = 0
    for module in BENCHMARKS:
        print(f"== {module}", flush=True)
        status |= subprocess.call([sys.executable, "-m", module, "--write", *sys.argv[1:]])
    return status


if __name__ == "__main__":
    sys.exit(main())

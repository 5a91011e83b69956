"""The instructions benchmark measures what it says: its ``core`` layer gives a fresh table exactly the inputs the
simulation gave, so the table deals the same rounds, and the ``runner`` layer deals the rounds asked for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks import instructions
from benchmarks.targets import ROOT


def layer(name: str, rounds: int, recorded: Path) -> int:
    done = subprocess.run([sys.executable, "-c", instructions.LAYER, name, str(rounds), str(recorded)], cwd=ROOT,
                          env=instructions.environment(ROOT), capture_output=True, text=True, check=True, timeout=300)
    return int(done.stdout.split()[-1])


def test_the_core_layer_deals_the_rounds_the_simulation_dealt(tmp_path: Path) -> None:
    recorded = tmp_path / "inputs.pickle"
    assert layer("record", 120, recorded) == 120
    assert layer("core", 120, recorded) == 120
    assert layer("runner", 120, recorded) == 120


def test_a_round_is_the_difference_between_two_counts_over_the_rounds_between_them() -> None:
    fewer, more = instructions.FEWER, instructions.MORE
    assert instructions.per_round({fewer: 7_000 + 300 * fewer, more: 7_000 + 300 * more}) == 300

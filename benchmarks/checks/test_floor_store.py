"""The archive store benchmark measures what it says: both stores alternate A B B A within a pair, a pair's figures
are its runs together, the verdict names a pair below 3x, and a store measured is the checkout's own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import floor_store
from benchmarks.floor_store import START, TODAY, Measured, Pair, Run, pair_order, together, verdict


def measured(name: str, wall: float, client: float, rows: int = 1000) -> Measured:
    return Measured(name, rows, wall, client, client / 2)


def test_each_pair_runs_both_stores_twice_the_first_of_one_pair_last_in_the_next() -> None:
    assert [pair_order(number) for number in range(3)] == [
        (START, TODAY, TODAY, START), (TODAY, START, START, TODAY), (START, TODAY, TODAY, START)]


def test_a_pairs_figures_are_its_runs_together() -> None:
    both = together([measured(TODAY, 1.0, 0.5), measured(TODAY, 3.0, 1.5)])
    assert (both.rows, both.wall, both.client_cpu, both.server_cpu) == (2000, 4.0, 2.0, 1.0)
    pair = Pair(measured("copy", 0.1, 0.01), both, together([measured(START, 6.0, 4.0), measured(START, 6.0, 4.0)]))
    assert pair.ratios() == pytest.approx((3.0, 4.0, 4.0))


def test_the_verdict_says_met_only_when_every_pair_is_three_times_faster() -> None:
    copy = measured("copy", 0.1, 0.01)
    good = Pair(copy, measured(TODAY, 1.0, 1.0), measured(START, 3.5, 5.0))
    slow = Pair(copy, measured(TODAY, 1.0, 1.0), measured(START, 2.9, 5.0))
    archive = measured("archive", 5.0, 5.0)
    assert "met in every pair: 3.50-3.50x" in verdict(Run([good, good], archive))
    assert "MISSED in this run: 2.90-3.50x" in verdict(Run([good, slow], archive))


def test_a_store_is_measured_from_the_checkout_it_names(tmp_path: Path) -> None:
    """Run from a directory without Croupier, the measuring lines import the installed one: refused, not measured
    as that checkout's."""
    subprocess.run([sys.executable, "-c", "import controller"], cwd=tmp_path, check=True)
    with pytest.raises(RuntimeError, match=rf"is not the store of {tmp_path}"):
        floor_store.by_store("a store", tmp_path, "postgresql://nobody@127.0.0.1:1/none", tmp_path / "m.pickle", 1)

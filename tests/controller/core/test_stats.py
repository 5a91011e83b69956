"""The mean and the nearest-rank percentile the reports use."""

from __future__ import annotations

from controller.core.stats import mean, percentile


def test_nearest_rank_percentile() -> None:
    values = [30.0, 60.0, 50.0, 45.0]
    assert percentile(values, 0.9) == 60.0
    assert percentile(values, 0.5) == 45.0
    assert percentile(list(map(float, range(1, 11))), 0.9) == 9.0
    assert percentile([7.0], 0.9) == 7.0
    assert percentile([], 0.9) is None


def test_mean() -> None:
    assert mean([30.0, 60.0, 50.0]) == 140 / 3
    assert mean([]) is None

"""Small summary statistics shared by the reports: the mean and a nearest-rank percentile."""

from __future__ import annotations

import math
from collections.abc import Sequence


def mean(values: Sequence[float]) -> float | None:
    """The arithmetic mean, or None for no values."""
    return sum(values) / len(values) if values else None


def percentile(values: Sequence[float], share: float) -> float | None:
    """The nearest-rank percentile (``share`` 0.9 is the p90): the smallest value with at least
    ``share`` of the values at or below it; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]

"""The risk study's recommended alert threshold (:func:`controller.app.study.recommended`): the lowest grid step
with at most ``target`` alerts a shoe, ``target`` read as the decimal the user typed."""

from __future__ import annotations

import pytest

from controller.app.study import recommended


@pytest.mark.parametrize(("target", "shoes", "alerts", "step"), [
    (0.29, 100, [30, 29, 28], 1),  # 29 alerts over 100 shoes are 0.29 a shoe: at most 0.29
    (0.57, 100, [58, 57, 10], 1),
    (0.05, 10_000, [501, 500, 499], 1),
    (0.29, 100, [30, 30, 30], 1000),  # none is: the top of the grid
])
def test_the_lowest_step_with_at_most_target_alerts_a_shoe(target: float, shoes: int, alerts: list[int],
                                                           step: int) -> None:
    assert recommended(alerts, shoes, target) == step

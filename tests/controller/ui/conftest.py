"""Fixtures the user interface tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.ui.scoreboard import Scoreboard, start_scoreboard


@pytest.fixture
def board() -> Iterator[Scoreboard]:
    """A scoreboard serving on a free port of 127.0.0.1, closed after the test."""
    scoreboard = start_scoreboard("127.0.0.1", 0)
    try:
        yield scoreboard
    finally:
        scoreboard.close()

"""A page server that cannot import websockets says so and how to install it: an import failure is never worded
as an address that cannot be used (issue 28 item 16)."""

from __future__ import annotations

import sys

import pytest

from controller.core.exceptions import FloorError, ScoreboardError
from controller.floor.board import FloorBoard
from controller.floor.dashboard import start_dashboard
from controller.ui.scoreboard import start_scoreboard


@pytest.fixture
def without_websockets(monkeypatch: pytest.MonkeyPatch) -> None:
    """``import websockets...`` fails as it does where the package is not installed."""
    for name in [name for name in sys.modules if name == "websockets" or name.startswith("websockets.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "websockets", None)


@pytest.mark.usefixtures("without_websockets")
def test_the_dashboard_names_the_missing_package_not_the_address() -> None:
    with pytest.raises(FloorError) as info:
        start_dashboard(FloorBoard("mqtt://127.0.0.1:1883", report=lambda line: None), "127.0.0.1", 0)
    said = str(info.value)
    assert "cannot listen" not in said and "HOST:PORT" not in said, said
    assert "needs the websockets package" in said and ".ci/setup" in said, said
    assert "pip install 'croupier[" not in said, said


@pytest.mark.usefixtures("without_websockets")
def test_the_scoreboard_names_the_missing_package_and_the_command_of_a_checkout() -> None:
    with pytest.raises(ScoreboardError) as info:
        start_scoreboard("127.0.0.1", 0)
    said = str(info.value)
    assert "needs the websockets package" in said and ".ci/setup" in said, said
    assert "pip install 'croupier[" not in said, said

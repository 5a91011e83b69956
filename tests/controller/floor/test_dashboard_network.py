"""The pit dashboard over a network that goes dark: the page must say the dashboard is unreachable rather than show
the floor as it was, and show the floor as it is once the network is back (the board alone, no broker)."""

from __future__ import annotations

import json
import time

import pytest

from controller.floor.board import FloorBoard
from controller.floor.dashboard import start_dashboard
from tests.browser import browser
from tests.cable import Cable


def state(round_number: int) -> bytes:
    return json.dumps({"site": "s", "table": "t1", "status": "online", "shoe": 1, "round": round_number,
                       "head": {"seq": round_number, "hash": "ab"}}).encode()


@pytest.mark.slow
def test_a_pulled_cable_shows_the_dashboard_unreachable_and_the_floor_comes_back_current() -> None:
    board = FloorBoard("mqtt://127.0.0.1:1883", report=lambda line: None)
    dashboard = start_dashboard(board, "127.0.0.1", 0)
    board.changed = dashboard.changed
    board.set_connected(True)
    board.receive("croupier/s/t1/status", b"online")
    board.receive("croupier/s/t1/state", state(4))
    cable = Cable(dashboard.port)
    unreachable = "document.getElementById('connection').textContent.includes('unreachable')"
    try:
        with browser(f"http://127.0.0.1:{cable.port}/") as page:
            page.wait_for("document.querySelector('.tile[data-table=\"t1\"]')?.dataset.head === '4'")
            assert not page.evaluate(unreachable)
            cable.out.set()
            board.receive("croupier/s/t1/state", state(5))  # the floor moves on; the page cannot hear it
            cut = time.monotonic()
            page.wait_for(unreachable, timeout=15)
            assert time.monotonic() - cut <= 8, "the page took too long to say it lost the dashboard"
            cable.out.clear()
            page.wait_for(f"!({unreachable})", timeout=20)
            page.wait_for("document.querySelector('.tile[data-table=\"t1\"]')?.dataset.head === '5'")
    finally:
        cable.close()
        dashboard.close()

"""The web scoreboard over a network that goes silent: a pulled cable closes no socket, so the page must not
take silence for "nothing happened". The server sends the state again after a quiet while; a page that hears
nothing for longer says the controller is offline and connects again, and once the network is back it shows the
table as it is then, never the board from before the cut."""

from __future__ import annotations

import json
import time

import pytest
from websockets.sync.client import connect

from controller.ui.scoreboard import Scoreboard
from controller.ui.tableview import ViewEvent
from tests.browser import browser
from tests.cable import Cable
from tests.typed_events import untyped_event

WINNERS = {"B": "banker", "P": "player", "T": "tie"}


def result(round_number: int, letter: str) -> ViewEvent:
    return untyped_event({"event": "result", "round": round_number, "shoe": 1, "winner": WINNERS[letter],
                          "player": {"cards": ["2S", "3H"], "total": 5}, "banker": {"cards": ["4D", "3C"], "total": 7},
                          "natural": False, "player_pair": False, "banker_pair": False})


def test_a_quiet_page_gets_the_state_again_so_it_can_tell_a_live_connection(board: Scoreboard) -> None:
    board.publish(result(1, "B"))
    with connect(board.ws_url) as ws:
        first = json.loads(ws.recv(timeout=5))
        started = time.monotonic()
        again = json.loads(ws.recv(timeout=10))  # nothing changed: the same state, sent again
        waited = time.monotonic() - started
    assert again == first
    assert waited <= 2.5 + 0.5


@pytest.mark.slow
def test_a_pulled_cable_shows_offline_and_the_board_comes_back_current(board: Scoreboard) -> None:
    board.publish_many([result(1, "B"), result(2, "P")])
    cable = Cable(board.port)
    try:
        with browser(f"http://127.0.0.1:{cable.port}/") as page:
            page.wait_for("document.getElementById('status').dataset.state === 'live'")
            assert page.evaluate("document.querySelectorAll('#bead-plate .bead').length") == 2
            cable.out.set()
            board.publish(result(3, "P"))  # the table plays on; the page cannot hear it
            cut = time.monotonic()
            page.wait_for("document.body.classList.contains('offline')", timeout=15)
            assert time.monotonic() - cut <= 8, "the page took too long to say it lost the controller"
            assert page.evaluate("document.getElementById('status').dataset.state") == "reconnecting"
            board.publish(result(4, "B"))
            cable.out.clear()
            page.wait_for("document.getElementById('status').dataset.state === 'live'", timeout=20)
            page.wait_for(f"document.body.dataset.seq === '{board.state()['seq']}'")
            assert page.evaluate("document.querySelectorAll('#bead-plate .bead').length") == 4
            assert page.evaluate("document.querySelector('#stats td[data-stat=\"rounds\"]').textContent") == "4"
    finally:
        cable.close()

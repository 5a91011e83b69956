"""The web scoreboard: a real server on 127.0.0.1, real WebSocket clients, real headless Chromium."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from controller.core.events import decode_event
from controller.core.exceptions import ScoreboardError
from controller.ui.roads import roads_from_results
from controller.ui.scoreboard import Scoreboard, parse_address, start_scoreboard
from controller.ui.tableview import ViewEvent
from tests.browser import browser
from tests.typed_events import untyped_event

WINNERS = {"B": "banker", "P": "player", "T": "tie"}


def result_event(round_number: int, letter: str, **flags: object) -> ViewEvent:
    """A result as another producer may send it: without the ``shoe`` and ``say`` fields."""
    return untyped_event({"event": "result", "round": round_number, "winner": WINNERS[letter],
                          "player": {"cards": ["2S", "3H"], "total": 5}, "banker": {"cards": ["4D", "3C"], "total": 7},
                          "natural": False, "player_pair": False, "banker_pair": False, **flags})


def results(letters: str, first_round: int = 1) -> list[ViewEvent]:
    return [result_event(first_round + i, letter) for i, letter in enumerate(letters)]


def receive_until(ws: ClientConnection, predicate: Any, timeout: float = 5.0) -> dict[str, Any]:
    """The first state message that satisfies ``predicate`` (later ones may coalesce earlier)."""
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError("no matching state message in time")
        message: dict[str, Any] = json.loads(ws.recv(timeout=remaining))
        assert message["type"] == "state"
        if predicate(message):
            return message


def big_road_of(message: dict[str, Any]) -> list[tuple[int, int, str, int]]:
    return [(e["col"], e["row"], e["winner"], e["ties"]) for e in message["roads"]["big_road"]]


def expected_big_road(letters: str) -> list[tuple[int, int, str, int]]:
    return [(e.col, e.row, e.winner, e.ties) for e in roads_from_results(letters).big_road]


def test_state_on_connect_and_after_each_change(board: Scoreboard) -> None:
    with connect(board.ws_url) as ws:
        first = json.loads(ws.recv(timeout=5))
        assert first["roads"]["big_road"] == [] and first["statistics"]["rounds"] == 0
        assert first["responsible_gaming"] == ["Past results do not predict the next one.",
                                               "지난 결과는 다음 결과를 예측하지 않습니다."]
        board.publish_many(results("BPPTB"))
        board.publish({"event": "shoe", "cards_left": 300})
        board.publish(decode_event({"event": "card", "round": 6, "slot": "P1", "card": "9H"}))
        board.publish(untyped_event({"event": "cut_card"}))
        state = receive_until(ws, lambda m: m["shoe"]["cut_card_out"])
        assert big_road_of(state) == expected_big_road("BPPTB")
        assert state["roads"]["big_eye_boy"][0]["colour"] == "blue"
        assert state["statistics"] == {"rounds": 5, "banker": 2, "player": 2, "tie": 1,
                                       "player_pair": 0, "banker_pair": 0, "natural": 0}
        assert state["shoe"]["cards_left"] == 299 and state["shoe"]["round"] == 6
        assert [r["winner"] for r in state["last_results"]] == list("BPPTB")
        assert state["last_results"][-1] == {"round": 5, "winner": "B", "player_total": 5,
                                             "banker_total": 7, "natural": False,
                                             "player_pair": False, "banker_pair": False, "game": 5}
        # A void is exact: round 5's B disappears from every road.
        board.publish(untyped_event({"event": "round_voided", "round": 5}))
        state = receive_until(ws, lambda m: m["statistics"]["rounds"] == 4)
        assert big_road_of(state) == expected_big_road("BPPT")
        # Events that change nothing send nothing.
        board.publish(untyped_event({"event": "settlement_unknown_kind"}))
        with pytest.raises(TimeoutError):
            ws.recv(timeout=0.3)


def test_reload_and_second_page_get_the_same_full_state(board: Scoreboard) -> None:
    board.publish_many(results("TTBBBBBBBBPPTPB"))
    with connect(board.ws_url) as first:
        state_one = json.loads(first.recv(timeout=5))
    with connect(board.ws_url) as again, connect(board.ws_url) as other:  # a reload, and a second page
        state_two = json.loads(again.recv(timeout=5))
        state_three = json.loads(other.recv(timeout=5))
    assert state_one == state_two == state_three
    assert big_road_of(state_one) == expected_big_road("TTBBBBBBBBPPTPB")
    assert state_one["roads"]["leading_ties"] == 2
    assert state_one == board.state()
    with urllib.request.urlopen(board.url + "state.json", timeout=5) as response:
        assert json.loads(response.read()) == state_one


def test_a_restarted_controller_that_republishes_its_history_shows_the_same_board() -> None:
    history = [*results("BPBBPT"), untyped_event({"event": "round_voided", "round": 2}), result_event(7, "P")]
    first = start_scoreboard("127.0.0.1", 0)
    try:
        first.publish_many(history)
        before = first.state()
    finally:
        first.close()
    second = start_scoreboard("127.0.0.1", 0)
    try:
        second.publish_many(history)
        with connect(second.ws_url) as ws:
            after = json.loads(ws.recv(timeout=5))
    finally:
        second.close()
    assert after == before


def test_publish_is_thread_safe(board: Scoreboard) -> None:
    def feed(start: int) -> None:
        for offset in range(50):
            board.publish(result_event(start + offset, "B"))

    threads = [threading.Thread(target=feed, args=(start,)) for start in (1, 101, 201, 301)]
    with connect(board.ws_url) as ws:
        ws.recv(timeout=5)
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        state = receive_until(ws, lambda m: m["statistics"]["rounds"] == 200)
    assert len(state["roads"]["big_road"]) == 200 and state == board.state()


def test_http_page_and_errors(board: Scoreboard) -> None:
    with urllib.request.urlopen(board.url, timeout=5) as response:
        assert response.headers["Content-Type"].startswith("text/html")
        page = response.read().decode("utf-8")
    assert 'id="big-road"' in page and "Past results do not predict the next one." in page
    assert "지난 결과는 다음 결과를 예측하지 않습니다." in page
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(board.url + "nothing-here", timeout=5)
    assert missing.value.code == 404
    missing.value.close()
    with pytest.raises(ScoreboardError, match=r"cannot listen on 127\.0\.0\.1"):
        start_scoreboard("127.0.0.1", board.port)
    assert board.url == f"http://127.0.0.1:{board.port}/"


def test_parse_address() -> None:
    assert parse_address("127.0.0.1:8080") == ("127.0.0.1", 8080)
    assert parse_address("[::1]:0") == ("::1", 0)
    for bad in ("8080", "host:port", "host:70000", ":80"):
        with pytest.raises(ScoreboardError, match=r"HOST:PORT|port must be"):
            parse_address(bad)


@pytest.mark.parametrize("bad", ["[::1:8080", "::1]:8080", "::1:8080", "[]:8080", " :8080", "127.0.0.1:8_080",
                                 "127.0.0.1: 8080", "127.0.0.1:+8080", "127.0.0.1:\u0668\u0660", "bad host:8080"])
def test_an_address_that_is_not_host_port_is_refused_never_guessed(bad: str) -> None:
    """A bracket left open, IPv6 without its brackets, an empty host (which would listen on every interface), or a
    port Python's int() reads but is not written in digits: each is refused, not taken for some address."""
    with pytest.raises(ScoreboardError, match=r"HOST:PORT|port must be"):
        parse_address(bad)


def test_close_is_idempotent_and_publish_after_close_is_ignored() -> None:
    scoreboard = start_scoreboard("127.0.0.1", 0)
    scoreboard.close()
    scoreboard.close()
    scoreboard.publish(result_event(1, "B"))


# --------------------------------------------------------------------------- a real browser


@pytest.mark.slow
def test_chromium_draws_the_roads_live_and_after_a_reload(board: Scoreboard) -> None:
    board.publish_many(results("BPPTB"))
    board.publish(result_event(6, "P", player_pair=True, natural=True))
    with browser(board.url) as page:
        page.wait_for("location.href.startsWith('http') && Number(document.body?.dataset.seq ?? -1) >= 0")
        assert page.evaluate("document.querySelectorAll('#big-road .ring').length") == 5
        assert page.evaluate("document.querySelectorAll('#bead-plate .bead').length") == 6
        assert page.evaluate(
            "[...document.querySelectorAll('#big-road .ring')].map(n => n.dataset.logical + n.dataset.winner"
            " + n.dataset.ties).join(' ')") == "0,0B0 1,0P0 1,1P1 2,0B0 3,0P0"
        assert page.evaluate("document.querySelectorAll('#big-road .dot.pp').length") == 1
        # Big eye boy of B P P T B P, L = [1, 2, 1, 1]: (1,1) L0=1 == 1 blue;
        # (2,0) L1=2 vs L0=1 blue; (3,0) L2=1 vs L1=2 blue.
        assert page.evaluate(
            "[...document.querySelectorAll('#big-eye-boy .derived')].map(n => n.dataset.colour).join()"
        ) == "blue,blue,blue"
        assert page.evaluate("document.getElementById('status').textContent") == "live"
        text = page.evaluate("document.body.innerText")
        assert "Past results do not predict the next one." in text
        assert "지난 결과는 다음 결과를 예측하지 않습니다." in text

        # Live: a long dragon turns right along the bottom row on the page.
        board.publish_many(results("BBBBBBB", first_round=7))
        page.wait_for("document.querySelectorAll('#big-road .ring').length === 12")
        assert page.evaluate(
            "[...document.querySelectorAll('#big-road .ring')].slice(-2).map(n => n.dataset.col + ','"
            " + n.dataset.row + '@' + n.dataset.logical).join(' ')") == "4,5@4,5 5,5@4,6"
        # A void while the page is open, then a reload: the same exact board.
        board.publish(untyped_event({"event": "round_voided", "round": 13}))
        page.wait_for("document.querySelectorAll('#big-road .ring').length === 11")
        before = page.evaluate("document.getElementById('big-road').innerHTML")
        page.reload()
        page.wait_for("document.body && document.body.dataset.seq === '" + str(board.state()["seq"]) + "'")
        assert page.evaluate("document.getElementById('big-road').innerHTML") == before
        assert page.evaluate(
            "document.querySelector('#stats td[data-stat=\"rounds\"]').textContent") == "12"


def test_a_whole_shoe_from_the_table_core(board: Scoreboard) -> None:
    from controller.core.inputs import Input, InputKind, card_read
    from controller.core.machine import State
    from controller.core.shoe import shoe_with_cut_card
    from controller.core.table import Table
    from controller.ui.roads import roads_from_events

    table = Table()
    events = table.start() + table.handle(Input(InputKind.SHOE))
    for token in shoe_with_cut_card(3, table.decks):
        if table.state is State.SHOE_CLOSED:
            break
        if table.state is State.ROUND_OVER:
            events += table.handle(Input(InputKind.NEXT))
        events += table.handle(Input(InputKind.CUT) if token == "@cut" else card_read(token))
    with connect(board.ws_url) as ws:
        ws.recv(timeout=5)
        board.publish_many(events)
        state = receive_until(ws, lambda m: m["shoe"]["closed"])
    closed = next(event for event in events if event["event"] == "shoe_closed")
    assert {key: state["statistics"][key] for key in ("banker", "player", "tie")} == closed["results"]
    assert state["shoe"]["cards_left"] == closed["cards_remaining"] and state["shoe"]["cut_card_out"]
    assert state["shoe"]["shoe"] == 1 and state["shoe"]["decks"] == 8
    expected = roads_from_events(events).to_state()
    assert state["roads"] == json.loads(json.dumps(expected))
    assert len(state["last_results"]) == 12
    assert state["last_results"][-1]["round"] == table.results[-1]["round"]


def test_a_bad_event_is_skipped_not_raised(board: Scoreboard) -> None:
    board.publish(untyped_event({"event": "result", "round": 1, "winner": "dragon"}))
    board.publish(untyped_event({"event": "result", "round": None, "winner": None}))
    board.publish(result_event(2, "P"))
    assert [r["winner"] for r in board.state()["last_results"]] == ["P"]


def test_the_last_results_carry_the_hand_totals_of_the_cores_results(board: Scoreboard) -> None:
    """The board's last results read each hand's total from the core's ``result`` (docs/scoreboard.md), so the
    page draws " — P 4 : B 0" under each of them."""
    from controller.core.inputs import Input, InputKind, parse_tokens
    from controller.core.table import Table

    table = Table()
    events = table.start()
    for item in parse_tokens("@shoe 3S 9H 5D 6C @next 7H 8D 2S TC @next 9D 4C KH 2H"):
        events += table.handle(item)
    events += table.handle(Input(InputKind.NEXT))
    board.publish_many(events)
    board.show(table.view)
    expected = [(result.round, result.player.total, result.banker.total) for result in table.view.results]
    assert len(expected) >= 2
    assert [(entry["round"], entry["player_total"], entry["banker_total"])
            for entry in board.state()["last_results"]] == expected


@pytest.mark.parametrize("cards", [
    "9S 8H KD 2D @next 3S 4S 2C ?? @manual 4D",  # an unread card entered by hand
    "9S 8H KD 2D @next 3S 4S 2C ?? @manual 3D @undo @manual 4D",  # ... entered again after an undo
    "9S 8H KD 2D 5C 6D @burn @next 3S 4S 2C 4D",  # cards out while no card was due, burned
    "9S 8H KD 2D @next 3S 4S ?? @burn 2C 4D",  # an unread card burned
    "9S 8H KD 2D @next 6H 7D 7H 8C @exposed @use 6D 9C",  # an exposed card kept where it was dealt
    "9S 8H KD 2D @next 6H 7D 7H 8C @exposed @burn 8D 6D 9C",  # an exposed card burned
    "9S 8H KD 2D @next 9S @void @next 7S 7C 2H 3C",  # a foreign card (not the shoe's) and a void
    "9S 8H KD 2D @next KS 9C @double @void @next 3D 3H 4H 4S",  # two cards out together, the round voided
], ids=["manual", "manual undone", "extra burned", "unread burned", "exposed used", "exposed burned", "foreign",
        "two cards"])
def test_a_board_fed_events_alone_counts_every_card_out_of_the_shoe(cards: str) -> None:
    """docs/scoreboard.md: fed events by another producer, the board counts the cards left from them; before the
    shoe report sets it exactly, it says what the report then says."""
    from tests.inprocess import croupier_in_process

    run = croupier_in_process("simulate", "--no-burn", "--decks", "1", "--manual-next", "--json",
                              "--cards", cards + " @close")
    assert run.returncode == 0, run.stderr
    events = [decode_event(json.loads(line)) for line in run.stdout.splitlines()]
    closing = next(index for index, event in enumerate(events) if event["event"] == "shoe_closing")
    board = start_scoreboard("127.0.0.1", 0)
    try:
        board.publish_many(events[:closing])
        before = board.state()["shoe"]["cards_left"]
        board.publish_many(events[closing:])
    finally:
        board.close()
    closed = next(event for event in events if event["event"] == "shoe_closed")
    assert before == closed["cards_remaining"]

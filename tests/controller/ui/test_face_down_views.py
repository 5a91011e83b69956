"""Face-down dealing in the views: the scoreboard's /state.json (a real server) and the console's view model
never hold a card code, total or winner of a hand not yet revealed."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Callable
from typing import Any

from textual.geometry import Region
from textual.widget import Widget

from config.loader import load_config
from controller.core.cards import parse_card
from controller.core.events import Event
from controller.core.exceptions import CardCodeError
from controller.core.inputs import Input, InputKind, card_read
from controller.core.shoe import shuffled_shoe
from controller.core.table import Table
from controller.ui.console import DealerConsole, card_text
from controller.ui.scoreboard import start_scoreboard
from controller.ui.tableview import FACE_DOWN, TableView
from tests.pilot_wait import press, settle


def rendered(app: DealerConsole, selector: str) -> str:
    """The text a widget shows on screen, line by line."""
    widget = app.screen.query_one(selector, Widget)
    width, height = widget.outer_size
    return "\n".join(strip.text.strip() for strip in widget.render_lines(Region(0, 0, width, height))).strip("\n")


def face_down_table() -> Table:
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"},
                                                     "table": {"dealing": "face_down"}}))
    return table


def strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in [key, *strings_in(item)]]
    if isinstance(value, list):
        return [text for item in value for text in strings_in(item)]
    return []


def card_codes_in(value: Any) -> set[str]:
    codes = set()
    for text in strings_in(value):
        try:
            codes.add(parse_card(text).code)
        except CardCodeError:
            continue
    return codes


class Hidden:
    """Follows the stream: the cards dealt face down and not yet revealed, and the round awaiting its result."""

    def __init__(self) -> None:
        self.cards: dict[str, str] = {}
        self.unsettled: int | None = None

    def apply(self, events: list[Event]) -> None:
        for event in events:
            if event["event"] == "card" and event.get("face_down"):
                self.cards[event["slot"]] = event["card"]
                self.unsettled = event["round"]
            elif event["event"] == "revealed":
                for slot in event["slots"]:
                    self.cards.pop(slot)
            elif event["event"] in ("result", "round_voided"):
                self.cards = {}
                self.unsettled = None


def deal_forty_face_down(table: Table, step: Callable[[Input], None]) -> None:
    """Confirm the shoe and deal its first 40 cards (seed 11), starting each round and revealing each hand as the
    table asks: one input at a time, through ``step`` (which looks at the screens in between)."""
    step(Input(InputKind.SHOE))
    for code in shuffled_shoe(11, 8)[:40]:
        if table.state.value == "round_over":
            step(Input(InputKind.NEXT))
        step(card_read(code))
        if table.reveal_due is not None:
            step(Input(InputKind.REVEAL))


def test_state_json_never_holds_an_unrevealed_card_total_or_winner() -> None:
    """A face-down round in progress, the page's state read over HTTP after every input: no code of a
    card not yet revealed, and no result of the round in play, until its last reveal."""
    table = face_down_table()
    hidden = Hidden()
    board = start_scoreboard("127.0.0.1", 0)
    reads = {"while_hidden": 0, "results": 0}

    def step(item: Input) -> None:
        events = table.handle(item)
        board.publish_many(events)
        hidden.apply(events)
        with urllib.request.urlopen(board.url + "state.json", timeout=10) as response:
            state = json.loads(response.read())
        assert not card_codes_in(state) & set(hidden.cards.values())
        rounds = [entry["round"] for entry in state["last_results"]]
        assert hidden.unsettled not in rounds
        reads["while_hidden"] += bool(hidden.cards)
        reads["results"] = len(rounds)

    try:
        board.publish_many(table.start())
        deal_forty_face_down(table, step)
        while table.reveal_due is not None:
            step(Input(InputKind.REVEAL))
    finally:
        board.close()
    assert reads["while_hidden"] > 20 and reads["results"] > 2


def test_the_console_view_shows_face_down_cards_until_their_hand_is_revealed() -> None:
    table = face_down_table()
    view = TableView()
    for event in [*table.start(), *table.handle(Input(InputKind.SHOE))]:
        view.apply(event)
    for code in ["2C", "4D", "3S", "2H"]:
        for event in table.handle(card_read(code)):
            view.apply(event)
    assert view.slots == {"P1": FACE_DOWN, "B1": FACE_DOWN, "P2": FACE_DOWN, "B2": FACE_DOWN}
    assert view.total("player") is None and view.total("banker") is None
    assert card_text(view.slots["P1"]).plain == "▒▒"
    for event in table.handle(Input(InputKind.REVEAL)):
        view.apply(event)
    assert view.slots == {"P1": "2C", "B1": FACE_DOWN, "P2": "3S", "B2": FACE_DOWN}
    assert view.total("player") == 5 and view.total("banker") is None
    assert view.result is None


def test_the_console_shows_face_down_cards_and_r_reveals() -> None:
    table = face_down_table()
    events = [*table.start(), *table.handle(Input(InputKind.SHOE))]
    for code in ["2C", "4D", "3S", "2H"]:
        events += table.handle(card_read(code))
    sent: list[Input] = []

    async def main() -> None:
        app = DealerConsole(on_input=sent.append, events=list(events), table=table.view)
        async with app.run_test(size=(120, 50)) as pilot:
            await settle(pilot)
            player = rendered(app, "#player-hand")
            assert "P1 ▒▒" in player and "P2 ▒▒" in player and "2♣" not in player and "total –" in player
            await press(pilot, "r")
            app.apply_batch(table.handle(sent[-1]), table.view)
            await settle(pilot)
            player = rendered(app, "#player-hand")
            assert "P1 2♣" in player and "P2 3♠" in player and "total 5" in player
            assert "▒▒" in rendered(app, "#banker-hand")

    asyncio.run(main())
    assert sent == [Input(InputKind.REVEAL)]


def shown_keys(app: DealerConsole) -> str:
    """The keys the footer shows now (those whose action applies)."""
    return " ".join(key for key, active in app.screen.active_bindings.items()
                    if active.binding.show and active.enabled and app.screen.check_action(
                        active.binding.action.split("(")[0], tuple(
                            part.strip("')") for part in active.binding.action.split("(")[1:])) is not False)


def keyed_total_table() -> Table:
    return Table(load_config(environ={}, overrides={"shoe": {"burn": "none"},
                                                     "table": {"dealing": "face_down", "reveal_confirm": "total"}}))


def keyed_total_run(keys: list[str], table: Table) -> tuple[list[Input], dict[str, str]]:
    """Deal 2C 4D 3S 2H face down (player 5, banker 6), press ``keys`` on the console, feeding what it sends to
    the real table; returns what it sent and what the screen showed along the way."""
    events = [*table.start(), *table.handle(Input(InputKind.SHOE))]
    for code in ["2C", "4D", "3S", "2H"]:
        events += table.handle(card_read(code))
    sent: list[Input] = []
    seen: dict[str, str] = {}

    async def main() -> None:
        app = DealerConsole(on_input=sent.append, events=list(events), table=table.view, reveal_total=True)
        async with app.run_test(size=(120, 50)) as pilot:
            await settle(pilot)
            seen["footer"] = shown_keys(app)
            await press(pilot, "r")
            await settle(pilot)
            seen["question"] = rendered(app, "#reveal-question")
            for key in keys:
                before = len(sent)
                await press(pilot, key)
                await settle(pilot)
                if key == "enter" and len(sent) == before and app.screen.query("#reveal-error"):
                    seen["error"] = rendered(app, "#reveal-error")
            for item in sent:
                app.apply_batch(table.handle(item), table.view)
            await settle(pilot)
            seen["misdeal"] = rendered(app, "#misdeal")
            seen["action"] = rendered(app, "#next-action-text")
            seen["halted"] = str(app.screen.has_class("halted"))
            seen["player"] = rendered(app, "#player-hand")
            seen["footer_after"] = shown_keys(app)

    asyncio.run(main())
    return sent, seen


def test_the_reveal_key_asks_the_total_the_dealer_sees_and_sends_it() -> None:
    table = keyed_total_table()
    sent, seen = keyed_total_run(["5", "enter"], table)
    assert "r" in seen["footer"]
    assert seen["question"] == "Total you see on PLAYER's hand (0-9)?"
    assert sent == [Input(InputKind.REVEAL, "5")]
    assert "P1 2♣" in seen["player"] and "total 5" in seen["player"]
    assert table.misdeal is None and table.revealed == 1


def test_a_total_that_is_not_one_digit_is_explained_and_esc_sends_nothing() -> None:
    sent, seen = keyed_total_run(["x", "enter", "escape"], keyed_total_table())
    assert sent == []
    assert "'x' is not a total" in seen["error"] and "0 to 9" in seen["error"]
    sent, seen = keyed_total_run(["1", "2", "enter", "escape"], keyed_total_table())
    assert sent == [] and "'12' is not a total" in seen["error"]


def test_a_keyed_total_other_than_the_shoes_shows_the_reveal_mismatch_misdeal() -> None:
    table = keyed_total_table()
    sent, seen = keyed_total_run(["3", "enter"], table)
    assert sent == [Input(InputKind.REVEAL, "3")]
    assert table.misdeal is not None and table.misdeal.kind == "reveal_mismatch"
    assert seen["halted"] == "True"
    assert seen["action"] == ("MISDEAL: The total keyed for the revealed hand is not the shoe's: a card may have been "
                              "switched.")
    assert "supervisor" in seen["misdeal"] and "press V" in seen["misdeal"]
    assert "r" not in seen["footer_after"].split()


def test_the_reveal_key_is_not_shown_when_no_card_is_face_down() -> None:
    table = keyed_total_table()
    events = [*table.start(), *table.handle(Input(InputKind.SHOE))]
    shown: list[str] = []

    async def main() -> None:
        app = DealerConsole(events=list(events), table=table.view, reveal_total=True)
        async with app.run_test(size=(120, 50)) as pilot:
            await settle(pilot)
            shown.extend(shown_keys(app).split())
            await press(pilot, "r")
            await settle(pilot)
            assert not app.screen.query("#reveal-question")

    asyncio.run(main())
    assert "r" not in shown


def test_the_plain_dealer_display_never_shows_an_unrevealed_card() -> None:
    """``croupier run --console plain`` (and ``auto`` off a terminal) shows the dealer the transcript: a card dealt
    face down is shown there as on the console, ``▒▒``, until its hand is revealed (it printed the card's code as it
    was read, so a dealer could read each squeeze, and key each total, off the screen rather than the layout)."""
    import io

    from controller.ui.transcript import Transcript

    table = face_down_table()
    hidden = Hidden()
    out = io.StringIO()
    transcript = Transcript(out)
    checked = {"while_hidden": 0}

    def step(item: Input) -> None:
        events = table.handle(item)
        before = len(out.getvalue())
        transcript(events)
        hidden.apply(events)
        words = {word for line in out.getvalue()[before:].splitlines() if "Revealed" not in line
                 for word in line.split()}
        assert not words & set(hidden.cards.values()), out.getvalue()[before:]
        checked["while_hidden"] += bool(hidden.cards)

    transcript(table.start())
    deal_forty_face_down(table, step)
    assert checked["while_hidden"] > 20
    assert "▒▒" in out.getvalue() and "Revealed PLAYER P1 P2:" in out.getvalue()

"""One truth for the table's state, in the drill (``croupier train``): the rounds it drills are the rounds the table
dealt, card for card and slot for slot, the cards and totals it shows are the table's view when it dealt them, and
it stops exactly when the table halts on a misdeal; after random scripts of cards, misdeals of every kind and their
resolutions, reveals, and a table handed over in the middle of a game (restored from a checkpoint).

The front-ends (JSON lines, the plain terminal, the console) show what the drill gives them; the console draws the
hands from the table's view the drill carries (checked here on a real screen).
"""

from __future__ import annotations

import asyncio
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.widgets import Static

from config.loader import load_config
from config.schema import Settings
from controller.core.events import CardEvent, Event
from controller.core.inputs import Input, parse_tokens
from controller.core.published import View
from controller.core.snapshot import restore, snapshot
from controller.core.table import Table
from controller.training.console import TrainingConsole
from controller.training.deal import DealtRound, TrainingDealError, dealt_rounds
from controller.training.drill import Drill
from drivers.mock import MockShoe
from tests.controller.core.test_snapshot import token_lists
from tests.controller.training.test_drill import round_cards
from tests.pilot_wait import press, settle


class Watched(Table):
    """The table core, its view kept after each input it is given (the reference the drill is checked against)."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.views: list[View] = []

    def handle(self, item: Input) -> list[Event]:
        events = super().handle(item)
        self.views.append(self.view)
        return events


def watched_from(table: Table) -> Watched:
    """A table like ``table`` restored from its snapshot (as a resume restores one from a checkpoint)."""
    copy = Watched(table.settings)
    copy.value = restore(table.settings, json.loads(json.dumps(snapshot(table)))).value
    return copy


def results_of(views: list[View], before: View) -> list[tuple[tuple[str, str], ...]]:
    """Each round the views gave a result to: its cards by slot, in deal order."""
    found: list[tuple[tuple[str, str], ...]] = []
    for earlier, view in zip([before, *views], views, strict=False):
        if view.totals.rounds > earlier.totals.rounds:
            result = view.results[-1]
            slots = {f"P{index}": card for index, card in enumerate(result.player.cards, start=1)} | {
                f"B{index}": card for index, card in enumerate(result.banker.cards, start=1)}
            found.append(tuple((slot, slots[slot]) for slot in ("P1", "B1", "P2", "B2", "P3", "B3") if slot in slots))
    return found


def drilled(table: Watched, inputs: list[Input]) -> tuple[list[DealtRound], TrainingDealError | None]:
    """The rounds the drill gets from ``table`` dealing ``inputs``, and the error that stopped it, if any."""
    rounds: list[DealtRound] = []
    try:
        for dealt in dealt_rounds(table, MockShoe("mock://", inputs=inputs)):
            rounds.append(dealt)
    except TrainingDealError as error:
        return rounds, error
    return rounds, None


def check_part(table: Watched, inputs: list[Input]) -> bool:
    """Deal ``inputs`` for the drill; check it against the table's view; whether the drill may go on."""
    before = table.view
    rounds, stopped = drilled(table, inputs)
    assert [tuple((slot, card.code) for slot, card in dealt.cards) for dealt in rounds] == results_of(
        table.views, before)
    for dealt in rounds:
        for (slot, card), view in zip(dealt.cards, dealt.views, strict=True):
            assert any(shown.slot == slot and shown.card == card.code for shown in view.cards), (slot, view.cards)
            assert view is before or view in table.views
    assert (stopped is not None) == (table.view.misdeal is not None), stopped
    return stopped is None


def check_drill(rounds: list[DealtRound]) -> None:
    """The drill shows each card with the table's view it was dealt in, and asks the calls of those cards."""
    drill = Drill(iter(rounds), len(rounds) or 1)
    events = drill.start()
    while True:
        for event in events:
            if isinstance(event, CardEvent):
                assert drill.shown is not None
                cards = {card.slot: card.card for card in drill.shown.cards}
                assert cards.get(event.slot) == event.card, (event, cards)
        if drill.due is None:
            return
        events = drill.answer(drill.due.expected.answer, 1.0)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), decks=st.sampled_from([1, 8]), dealing=st.sampled_from(["face_up", "face_down"]))
def test_the_drill_deals_what_the_table_deals(data: st.DataObject, decks: int, dealing: str) -> None:
    config = load_config(None, environ={}, overrides={"table": {"decks": decks, "dealing": dealing},
                                                      "shoe": {"burn": "none"}})
    inputs = [item for token in data.draw(token_lists(False)) for item in parse_tokens(token)]
    handed_over = data.draw(st.none() | st.integers(min_value=0, max_value=len(inputs)), label="handed over after")
    table = Watched(config)
    if handed_over is None:
        check_part(table, inputs)
    elif check_part(table, inputs[:handed_over]):
        check_part(watched_from(table), inputs[handed_over:])
    check_drill(drilled(Watched(config), inputs)[0])


ROUND_ONE = round_cards(["3S", "4C"], ["3H", "3C"])  # player 7 and banker 6 stand: player wins
ROUND_TWO = round_cards(["AS", "2H", "6D"], ["3C", "AC", "9C"])


def test_a_table_handed_over_mid_round_is_drilled_whole_and_drawn_from_its_view() -> None:
    """A table restored from a checkpoint in the middle of round 2 (its first two cards dealt before): the drill
    asks the calls of the whole round and the console draws both hands and their totals from the table's view."""
    config = load_config(None, environ={}, overrides={"shoe": {"burn": "none"}})
    first = Watched(config)
    cards = ROUND_TWO.split()
    assert check_part(first, parse_tokens(f"{ROUND_ONE} @next {cards[0]} {cards[1]}"))
    table = watched_from(first)
    drill = Drill(dealt_rounds(table, MockShoe("mock://", inputs=parse_tokens(" ".join(cards[2:])))), 1)
    app = TrainingConsole(drill)

    def text_of(widget: str) -> str:
        return str(app.query_one(widget, Static).render())

    async def scenario() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            assert drill.due is not None and drill.due.call == "player"
            assert drill.due.expected.answer == "draw", "player A 2 = 3 draws"
            assert "P1 A♠" in text_of("#player-hand") and "P2 2♥" in text_of("#player-hand")
            assert "B1 3♣" in text_of("#banker-hand") and "total 3" in text_of("#player-hand")
            assert drill.shown is not None and drill.shown.player_total == 3 and drill.shown.banker_total == 4
            await press(pilot, "d")
            assert "P3 6♦" in text_of("#player-hand") and "total 9" in text_of("#player-hand")
            await press(pilot, "q")

    asyncio.run(scenario())

"""The dealer console, headless with Textual's pilot, asserting on what it renders."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.geometry import Region
from textual.widget import Widget

from controller.core.events import decode_event
from controller.core.inputs import Input, InputKind
from controller.ui.bigtext import FONT, big_width, can_render, render_big
from controller.ui.console import DealerConsole, TableScreen
from controller.ui.tableview import TableView, ViewEvent
from tests.consoles import Shown, show_more, shown
from tests.pilot_wait import press, settle, shown_footer
from tests.tokens import NO_BURN, table_of
from tests.typed_events import untyped_event

SIZE = (120, 50)
WINNERS = {"B": "banker", "P": "player", "T": "tie"}


def rendered(app: DealerConsole, selector: str) -> str:
    """The text a widget shows on screen, line by line (padding blanks stripped)."""
    widget = app.screen.query_one(selector, Widget)
    width, height = widget.outer_size
    lines = [strip.text.strip() for strip in widget.render_lines(Region(0, 0, width, height))]
    return "\n".join(lines).strip("\n")


def result_event(round_number: int, letter: str, player: tuple[list[str], int] = (["2S", "3H"], 5),
                 banker: tuple[list[str], int] = (["4D", "3C"], 7), **flags: bool) -> ViewEvent:
    """A result as another producer may send it: without the ``shoe`` and ``say`` fields."""
    return untyped_event({"event": "result", "round": round_number, "winner": WINNERS[letter],
                          "player": {"cards": player[0], "total": player[1]},
                          "banker": {"cards": banker[0], "total": banker[1]},
                          "natural": False, "player_pair": False, "banker_pair": False, **flags})


Scenario = Callable[[DealerConsole, Any, list[Input]], Awaitable[None]]


def run(scenario: Scenario, events: Shown | list[ViewEvent] | None = None) -> list[Input]:
    """Run ``scenario`` on a console shown ``events`` (with the table's view, when a table gave them)."""
    inputs: list[Input] = []
    view = events.view if isinstance(events, Shown) else None
    listed = list(events.events if isinstance(events, Shown) else events or [])

    async def main() -> None:
        app = DealerConsole(on_input=inputs.append, events=listed, table=view)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await scenario(app, pilot, inputs)

    asyncio.run(main())
    return inputs


def test_next_action_in_large_type_and_the_layout_fills_in() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        assert "WAITING" in rendered(app, "#next-action-text").upper()
        app.apply(decode_event({"event": "prompt", "round": 1, "slot": "P1", "to": "player", "say": "Card to PLAYER"}))
        await settle(pilot)
        big = rendered(app, "#next-action")
        assert big.splitlines() == [line.strip() for line in render_big("Card to PLAYER", 2)]
        assert rendered(app, "#next-action-text") == "Card to PLAYER"
        assert "← next: P1" in rendered(app, "#player-hand")
        for slot, card, say in (("P1", "TH", "Card to BANKER"), ("B1", "9S", "Card to PLAYER"),
                                ("P2", "4D", "Card to BANKER"), ("B2", "KC", None)):
            app.apply(decode_event({"event": "card", "round": 1, "slot": slot, "card": card}))
            if say:
                app.apply(untyped_event({"event": "prompt", "round": 1, "slot": "x", "to": "y", "say": say}))
        await settle(pilot)
        player = rendered(app, "#player-hand")
        banker = rendered(app, "#banker-hand")
        assert "PLAYER   total 4" in player and "P1 10♥" in player and "P2 4♦" in player
        assert "P3 ··" in player
        assert "BANKER   total 9" in banker and "B1 9♠" in banker and "B2 K♣" in banker
        assert rendered(app, "#result") == "Round 1"

    run(scenario)


def test_result_roads_and_the_next_round() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        for number, letter in enumerate("BPPT", start=1):
            app.apply(result_event(number, letter))
        app.apply(result_event(5, "B", player=(["AS", "7H"], 8), banker=(["9C", "KD"], 9),
                               natural=True, banker_pair=True))
        await settle(pilot)
        assert rendered(app, "#result") == "Round 5: BANKER wins 9 to 8 (natural)  (banker pair)"
        assert rendered(app, "#next-action-text") == "BANKER wins 9 to 8 (natural). Press n for the next round."
        assert "PLAYER   total 8" in rendered(app, "#player-hand")
        assert "B1 9♣" in rendered(app, "#banker-hand")
        roads = [line.strip("│ ") for line in rendered(app, "#roads").splitlines()[1:]]  # in a border
        assert "Bead plate" in roads[0] and "Big road" in roads[0]
        # big road of B P P T B: B | P P(1 tie) | B — row 0 "B  P  B", row 1 "·  P1 ·".
        big_rows = [line.split("│")[1].strip() for line in roads[1:7]]
        assert big_rows[0].startswith("B  P  B")
        assert big_rows[1].startswith("·  P1 ·")
        assert "Banker 2  Player 2  Tie 1  Banker pairs 1" in rendered(app, "#roads")
        # A void removes round 5 from the roads and shows the round as void.
        app.apply(untyped_event({"event": "round_voided", "round": 5}))
        await settle(pilot)
        assert rendered(app, "#result") == "Round 5: VOID — bets returned"
        assert "Banker 1  Player 2  Tie 1" in rendered(app, "#roads")
        # The next round's prompt clears the table.
        app.apply(decode_event({"event": "prompt", "round": 6, "slot": "P1", "to": "player", "say": "Card to PLAYER"}))
        await settle(pilot)
        assert "P1 ··" in rendered(app, "#player-hand") and rendered(app, "#result") == "Round 6"

    run(scenario)


def test_misdeal_banner_in_the_dealers_words_until_resolved() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        app.apply(decode_event({"event": "card", "round": 3, "slot": "P1", "card": "5C"}))
        app.apply(untyped_event({"event": "misdeal", "round": 3, "kind": "unknown_card", "card": "ZZ",
                                 "detail": "The reader sent ZZ, which is not a card",
                                 "instruction": "Halt. enter the card by hand (@manual); ...",
                                 "resolutions": ["burn", "void", "manual"], "supervisor": ["void"]}))
        await settle(pilot)
        banner = rendered(app, "#misdeal")
        assert rendered(app, "#next-action-text") == "MISDEAL: The shoe read something that is not a card. Card: ZZ."
        assert banner.splitlines() == [
            "To put the card(s) in the discard and carry on: press B.",
            "Call the supervisor to void the round: every bet goes back; then press V.",
            "To type the card in by hand: press M.",
        ]
        assert "@" not in banner and "unknown_card" not in banner
        big = rendered(app, "#next-action")
        assert big.splitlines()[0] == render_big("B BURN  V VOID+SUP  M TYPE", 1)[0].strip()
        app.apply(untyped_event({"event": "resolved", "round": 3, "resolution": "burn"}))
        app.apply(untyped_event({"event": "instruction", "say": "Burn it and deal again"}))
        await settle(pilot)
        assert rendered(app, "#misdeal") == ""
        assert app.screen.query_one("#misdeal").display is False
        assert rendered(app, "#next-action-text") == "Burn it and deal again"

    run(scenario)


def test_reader_status_and_shoe_counters() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        app.apply({"event": "shoe", "cards_left": 416})
        app.apply(decode_event({"event": "reader", "status": "online"}))
        app.apply(decode_event({"event": "burn", "card": "7S"}))
        app.apply(decode_event({"event": "card", "round": 1, "slot": "P1", "card": "AS"}))
        await settle(pilot)
        assert rendered(app, "#reader") == "Reader: ONLINE"
        shoe = rendered(app, "#shoe")
        assert "Cards left: 414" in shoe and "Round: 1" in shoe and "Cut card: not yet" in shoe
        assert "Burned: 1" in shoe
        app.apply(decode_event({"event": "reader", "status": "offline"}))
        app.apply(untyped_event({"event": "cut_card"}))
        app.apply({"event": "shoe", "cards_left": 15})
        await settle(pilot)
        assert rendered(app, "#reader") == "Reader: OFFLINE"
        assert app.screen.query_one("#reader").has_class("offline")
        assert "Cards left: 15" in rendered(app, "#shoe") and "Cut card: OUT" in rendered(app, "#shoe")
        app.apply(untyped_event({"event": "shoe_closed", "rounds": 70}))
        await settle(pilot)
        assert "SHOE CLOSED" in rendered(app, "#shoe")
        assert rendered(app, "#next-action-text") == "Shoe closed: load a new shoe, then press s."

    run(scenario)


HALTED_ON_EXPOSED = untyped_event({"event": "misdeal", "round": 1, "kind": "exposed_card", "card": "4D",
                                   "detail": "4D dealt to B1 was exposed in error", "instruction": "",
                                   "resolutions": ["burn", "use", "void"], "supervisor": ["void"]})


def test_dealer_keys_give_inputs_only_when_they_apply() -> None:
    table = table_of(shoe=NO_BURN)

    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        await press(pilot, "n", "b", "v", "e", "u", "m", "s", "c", "a")
        await settle(pilot)
        assert inputs == [] and isinstance(app.screen, TableScreen), "no key applies before the table speaks"
        app.apply_batch(table.start(), table.view)
        show_more(app, table, "@shoe 4D")
        await settle(pilot)
        await press(pilot, "n", "b", "u", "e")
        assert [i.kind for i in inputs] == [InputKind.EXPOSED]
        show_more(app, table, "@exposed")
        await settle(pilot)
        await press(pilot, "m", "n", "e")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen), "m offers no dialog during an exposed-card halt"
        await press(pilot, "u", "b")
        assert [i.kind for i in inputs] == [InputKind.EXPOSED, InputKind.USE, InputKind.BURN]
        assert rendered(app, "#sent") == "Sent: Burn"

    run(scenario)


def test_the_footer_shows_only_the_keys_that_apply() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        await settle(pilot)
        footer = await shown_footer(pilot, app)
        assert "Burn" in footer and "Use" in footer and "Void" in footer
        assert "Manual" not in footer and "Next round" not in footer and "New shoe" not in footer

    run(scenario, shown("3S 4D @exposed"))


@pytest.mark.slow
def test_manual_entry_validates_the_card_and_reads_it_back() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        await settle(pilot)
        await press(pilot, "m")
        await settle(pilot)
        assert not isinstance(app.screen, TableScreen)
        await press(pilot, "b", "x", "enter")  # typed into the box, not the burn key
        await settle(pilot)
        assert "'bx' is not a card" in rendered(app, "#manual-error")
        assert inputs == []
        await press(pilot, "backspace", "backspace", "4", "d", "enter")
        await settle(pilot)
        assert rendered(app, "#confirm-text") == "4♦ to B1?"
        await press(pilot, "n")
        await settle(pilot)
        assert inputs == [] and isinstance(app.screen, TableScreen)
        await press(pilot, "m", "4", "d", "enter")
        await settle(pilot)
        await press(pilot, "y")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        assert inputs == [Input(InputKind.MANUAL, "4D")]
        await press(pilot, "m", "escape")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen) and len(inputs) == 1

    run(scenario, shown("3S ??"))


def test_a_hand_entered_card_is_marked() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        app.apply(decode_event({"event": "card", "round": 1, "slot": "P1", "card": "4D", "manual": True}))
        app.apply(decode_event({"event": "card", "round": 1, "slot": "B1", "card": "5S"}))
        await settle(pilot)
        assert "P1 4♦✎" in rendered(app, "#player-hand")
        assert "B1 5♠ " in rendered(app, "#banker-hand") + " "
        assert "✎ entered by hand" in rendered(app, "#shoe")

    run(scenario)


def test_new_shoe_needs_confirmation() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        await settle(pilot)
        await press(pilot, "s")
        await settle(pilot)
        assert "shuffled, cut and loaded" in rendered(app, "#confirm-text")
        await press(pilot, "b", "v")  # the dealer keys do nothing while the question is open
        await press(pilot, "n")
        await settle(pilot)
        assert inputs == [] and isinstance(app.screen, TableScreen)
        await press(pilot, "s", "y")
        await settle(pilot)
        assert inputs == [Input(InputKind.SHOE)]

    run(scenario, shown(confirm=False))


@pytest.mark.parametrize(("key", "question", "kind"), [
    ("c", "Close this shoe now? No more rounds are dealt from it.", InputKind.CLOSE),
    ("v", "Void round 1? Every bet goes back.", InputKind.VOID),
])
def test_close_and_void_ask_first(key: str, question: str, kind: InputKind) -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        await settle(pilot)
        await press(pilot, key)
        await settle(pilot)
        assert rendered(app, "#confirm-text") == question
        await press(pilot, "escape")
        await settle(pilot)
        assert inputs == []
        await press(pilot, key, "y")
        await settle(pilot)
        assert inputs == [Input(kind)]

    run(scenario, shown("3S 4D @exposed" if kind is InputKind.VOID else "3S KD 5H 9C"))


def test_quitting_mid_round_asks_first() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        app.apply(decode_event({"event": "prompt", "round": 4, "slot": "P2", "to": "player", "say": "Card to PLAYER"}))
        await settle(pilot)
        await press(pilot, "ctrl+q")
        await settle(pilot)
        assert rendered(app, "#confirm-text") == "Round 4 is being dealt. Quit the console anyway?"
        await press(pilot, "n")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, TableScreen)
        await press(pilot, "ctrl+q", "y")
        await settle(pilot)
        assert not app.is_running

    run(scenario)


def test_events_from_another_thread_and_before_the_app_runs() -> None:
    events = [result_event(1, "P"), result_event(2, "P")]

    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        assert "Player 2" in rendered(app, "#roads")
        def feed() -> None:
            for number in (3, 4, 5):
                app.apply(result_event(number, "B"))

        worker = threading.Thread(target=feed)
        worker.start()
        while worker.is_alive():
            await pilot.pause(0.05)
        worker.join()
        await settle(pilot)
        assert "Banker 3  Player 2" in rendered(app, "#roads")
        assert app.view.round == 5

    run(scenario, events)


def test_a_bad_event_is_shown_not_raised() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        app.apply(untyped_event({"event": "result", "round": 1, "winner": "dragon"}))
        await settle(pilot)
        assert "event not understood" in rendered(app, "#sent")
        app.apply(result_event(1, "B"))
        await settle(pilot)
        assert "Banker 1" in rendered(app, "#roads")

    run(scenario)


def test_responsible_gaming_line_is_shown() -> None:
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        text = rendered(app, "#responsible-gaming")
        assert "Past results do not predict the next one." in text
        assert "지난 결과는 다음 결과를 예측하지 않습니다." in text

    run(scenario)


def test_big_text_font() -> None:
    assert all(len(rows) == 5 and all(len(row) == 3 for row in rows) for rows in FONT.values())
    assert can_render("Card to PLAYER: 10!") and not can_render("閒") and not can_render("ø")
    assert can_render("¿Última?") and can_render("SALIÓ") and can_render("Año")  # Spanish accents: a mark row above
    assert render_big("I") == ["▀█▀", " █ ", "▀▀▀"]
    assert render_big("Í") == ["▄▄█", " █ ", "▄█▄"] and render_big("Í", 2)[0] == "    ██"
    assert render_big("I", 2) == ["██████", "  ██  ", "  ██  ", "  ██  ", "██████"]
    assert big_width("AB") == 7 and big_width("AB", 2) == 14 and big_width("") == 0


def test_table_view_totals_ignore_unreadable_codes() -> None:
    view = TableView()
    view.apply(decode_event({"event": "card", "round": 1, "slot": "P1", "card": "??"}))
    view.apply(decode_event({"event": "card", "round": 1, "slot": "P2", "card": "8H"}))
    assert view.total("player") == 8 and view.total("banker") is None


def test_a_whole_shoe_from_the_table_core() -> None:
    from controller.core.inputs import card_read
    from controller.core.machine import State
    from controller.core.shoe import shoe_with_cut_card
    from controller.core.table import Table

    table = Table()
    tokens = iter(shoe_with_cut_card(5, table.decks))

    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        app.apply_batch(table.start(), table.view)
        app.apply_batch(table.handle(Input(InputKind.SHOE)), table.view)
        await settle(pilot)
        assert rendered(app, "#next-action-text") == "Turn the first card for the burn"
        # Deal until the first result, pressing n through the console for the next rounds.
        while len(table.results) < 3:
            if table.state is State.ROUND_OVER:
                await press(pilot, "n")
                app.apply_batch(table.handle(inputs[-1]), table.view)
            app.apply_batch(table.handle(card_read(next(tokens))), table.view)
        await settle(pilot)
        last = table.results[-1]
        assert last["say"].lower() in rendered(app, "#result").lower()
        assert f"Round: {table.round}" in rendered(app, "#shoe")
        assert f"Cards left: {table.cards_left}" in rendered(app, "#shoe")
        assert [i.kind for i in inputs] == [InputKind.NEXT, InputKind.NEXT]
        # v does not apply between rounds; an input the table refuses is shown to the dealer.
        await press(pilot, "v")
        await settle(pilot)
        assert [i.kind for i in inputs] == [InputKind.NEXT, InputKind.NEXT]
        app.apply_batch(table.handle(Input(InputKind.VOID)), table.view)
        await settle(pilot)
        assert "@void not accepted" in rendered(app, "#sent")

    run(scenario)


def test_the_console_has_no_command_palette_and_no_footer_key_for_it() -> None:
    """Textual's command palette speaks only English ("Search for commands…"); a dealer console needs none."""
    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input]) -> None:
        footer = await shown_footer(pilot, app)
        assert "Burn" in footer and "palette" not in footer
        screens = len(app.screen_stack)
        await press(pilot, "ctrl+p")
        await settle(pilot)
        assert len(app.screen_stack) == screens and not inputs
        assert type(app.screen).__name__ != "CommandPalette"

    run(scenario, shown("3S 4D @exposed"))


def test_events_the_table_gives_after_the_console_closed_are_kept_not_raised() -> None:
    """Ctrl+C or a stop signal (SIGTERM, SIGHUP) closes the console while the runner's thread may still be handing
    it the events of a card: that raised RuntimeError in the runner's thread, which the command printed as a
    traceback after the summary (exit 1). The console's view keeps them; nothing is drawn, nothing raised."""
    from tests.consoles import console_dealt

    app = console_dealt("3S KD")

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)

    asyncio.run(main())
    raised: list[BaseException] = []

    def runner() -> None:
        try:
            app.apply_batch([decode_event({"event": "card", "round": 1, "slot": "P2", "card": "5H"})])
        except BaseException as error:  # the test reports it below
            raised.append(error)

    thread = threading.Thread(target=runner)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive() and raised == []
    assert app.view.slots["P2"] == "5H"

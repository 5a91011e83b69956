"""The console's undo key ``z`` with the real table core: shown only when the core offers an undo, read back
before it is sent, and the screen back to the slot or halt due again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest_textual_snapshot  # noqa: F401  (the snap_compare fixture)

from config.loader import load_config
from controller.core.inputs import Input, InputKind
from controller.core.table import Table
from controller.ui.console import DealerConsole, TableScreen
from controller.ui.moments import next_moment
from controller.ui.tableview import TableView
from tests.consoles import console_dealt
from tests.controller.ui.test_console import rendered
from tests.pilot_wait import press, settle, shown_footer
from tests.tokens import dealt

SIZE = (120, 48)


def new_table() -> Table:
    return Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}, "simulation": {"auto_next": False}}))


def fresh_view(tokens: str) -> TableView:
    table = new_table()
    view = TableView()
    for event in dealt(tokens, table, confirm=False):
        view.apply(event)
    view.show(table.view)
    return view


def drive(table: Table, tokens: str, scenario: Any) -> list[Input]:
    """Run the console on the table's events for ``tokens``; what the dealer sends goes to the table too."""
    inputs: list[Input] = []

    async def main() -> None:
        events = dealt(tokens, table, confirm=False)
        app = DealerConsole(on_input=inputs.append, events=events, table=table.view)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)

            async def deliver() -> None:
                app.apply_batch(table.handle(inputs[-1]), table.view)
                await settle(pilot)

            await scenario(app, pilot, inputs, deliver)

    asyncio.run(main())
    return inputs


def test_z_reads_back_the_hand_entered_card_and_the_halt_is_back() -> None:
    table = new_table()

    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input], deliver: Any) -> None:
        assert "Undo" in (await shown_footer(pilot, app))
        assert "B1 4♦✎" in rendered(app, "#banker-hand")
        await press(pilot, "z")
        await settle(pilot)
        assert rendered(app, "#confirm-text") == "Take back 4♦ from B1?"
        await press(pilot, "n")
        await settle(pilot)
        assert inputs == [] and isinstance(app.screen, TableScreen)
        await press(pilot, "z")
        await settle(pilot)
        await press(pilot, "y")
        await settle(pilot)
        assert inputs == [Input(InputKind.UNDO)]
        await deliver()
        assert "B1" in rendered(app, "#banker-hand") and "4♦" not in rendered(app, "#banker-hand")
        assert app.view.misdeal is not None and app.view.misdeal["kind"] == "unreadable_card"
        assert "Undo" not in (await shown_footer(pilot, app)) and "Manual" in (await shown_footer(pilot, app))
        assert app.next_action()[0] == next_moment(fresh_view("@shoe 5H ??")).big, "the halt's keys again"
        await press(pilot, "z")
        await settle(pilot)
        assert len(inputs) == 1, "z does nothing once nothing can be undone"

    drive(table, "@shoe 5H ?? @manual 4D", scenario)
    assert table.inventory["4D"] == 0


def test_z_takes_back_an_exposed_call_and_the_card_stays() -> None:
    table = new_table()

    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input], deliver: Any) -> None:
        assert "3♣" not in rendered(app, "#banker-hand"), "the exposed card is out while it is taken back"
        assert "Undo" in (await shown_footer(pilot, app))
        await press(pilot, "z")
        await settle(pilot)
        assert rendered(app, "#confirm-text") == "Take back the exposed call? 3♣ stays in B1."
        await press(pilot, "y")
        await settle(pilot)
        await deliver()
        assert "B1 3♣" in rendered(app, "#banker-hand")
        assert app.next_action()[0] == next_moment(fresh_view("@shoe 5H 3C")).big, "P2's prompt again"
        assert app.view.misdeal is None and app.view.prompt is not None and app.view.prompt["slot"] == "P2"
        assert "Undo" not in (await shown_footer(pilot, app))

    drive(table, "@shoe 5H 3C @exposed", scenario)


def test_no_undo_key_after_a_card_from_the_shoe() -> None:
    table = new_table()

    async def scenario(app: DealerConsole, pilot: Any, inputs: list[Input], deliver: Any) -> None:
        assert "Undo" not in (await shown_footer(pilot, app))
        await press(pilot, "z")
        await settle(pilot)
        assert inputs == [] and isinstance(app.screen, TableScreen)

    drive(table, "@shoe 5H ?? @manual 4D 2C", scenario)


def test_z_and_undo_typed_at_the_terminal_give_the_undo_input() -> None:
    from controller.ui.keyboard import HELP, parse_dealer_line

    assert parse_dealer_line("z") == Input(InputKind.UNDO)
    assert parse_dealer_line("undo") == Input(InputKind.UNDO)
    assert "z undo" in HELP


def test_the_view_follows_an_undo_exactly() -> None:
    """The view after ``@manual 4D @undo @manual 4H`` is the view after ``@manual 4H`` alone."""
    undone, straight = TableView(), TableView()
    for event in dealt("@shoe 5H ?? @manual 4D @undo @manual 4H 2C", new_table(), confirm=False):
        undone.apply(event)
    for event in dealt("@shoe 5H ?? @manual 4H 2C", new_table(), confirm=False):
        straight.apply(event)
    assert undone.slots == straight.slots and undone.manual_slots == straight.manual_slots
    assert undone.shoe.to_dict() == straight.shoe.to_dict()
    assert undone.total("banker") == straight.total("banker")


def test_undo_offered_snapshot(snap_compare: Any) -> None:
    app = console_dealt("@shoe 5H ?? @manual 4D", new_table(), confirm=False)
    assert snap_compare(app, terminal_size=SIZE)


def test_undo_read_back_snapshot(snap_compare: Any) -> None:
    app = console_dealt("@shoe 5H ?? @manual 4D", new_table(), confirm=False)
    assert snap_compare(app, press=["z"], terminal_size=SIZE)

"""The dealer console at every size: 80x24, 100x30, 120x40 and 220x60, in every moment, fits its terminal
with nothing to scroll, the moments and the footer on screen, and the large type grows on a large one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
import pytest_textual_snapshot  # noqa: F401  (the snap_compare fixture)
from textual import events
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Footer

from controller.ui.console import BigText, DealerConsole
from controller.ui.moments import next_moment, shoe_banner
from controller.ui.tableview import TableView
from tests.consoles import console_dealt
from tests.controller.ui.test_console import rendered
from tests.controller.ui.test_console_moments import PAIRS_AND_DERIVED, UNSHUFFLED
from tests.pilot_wait import settle
from tests.tokens import dealt

SIZES = [(80, 24), (100, 30), (120, 40), (220, 60)]
ROUNDS = PAIRS_AND_DERIVED
HALT_THEN_ALERT = "KS QS ?? JS TS 9S 8S 7S"
"""A misdeal (an unread card for P2), then the unshuffled-shoe alert from the cards read while halted (a critical
alert refuses cards, so the halt must come first)."""
Check = Callable[[TableView], bool]
MOMENTS: dict[str, tuple[str, Check]] = {
    "prompt": (ROUNDS + " @next AS", lambda view: view.prompt is not None and view.prompt["slot"] == "B1"),
    "third card": ("3S 9C AH 4D", lambda view: next_moment(view).big.startswith("THIRD CARD")),
    "result": (ROUNDS, lambda view: view.result is not None),
    "misdeal halt": (ROUNDS + " @next AS 6C 7S @exposed",
                     lambda view: view.misdeal is not None and view.misdeal["kind"] == "exposed_card"),
    "alert open": (UNSHUFFLED, lambda view: bool(view.alerts)),
    "alert open while halted": (HALT_THEN_ALERT, lambda view: bool(view.alerts) and view.misdeal is not None),
    "shoe closed with report": (ROUNDS + " @cut @next 9H 8C QS 2D @next 6H QH 2S 9D",
                                lambda view: view.shoe.closed and shoe_banner(view) is not None),
    "alert, cut card and halt at once": (
        HALT_THEN_ALERT + " @cut",
        lambda view: bool(view.alerts) and view.misdeal is not None and shoe_banner(view) is not None),
    "undo offered": (ROUNDS + " @next AS ?? @manual 4D", lambda view: view.undo == "@manual 4D"),
}


async def settled(pilot: Any) -> None:
    """Let the console finish its layouts (fitting takes one per level it gives up)."""
    for _ in range(8):
        await settle(pilot)


def on_screen(widget: Widget, rows: int) -> bool:
    return widget.region.height > 0 and widget.region.bottom <= rows


def check_fits(app: DealerConsole, moment: str, size: tuple[int, int]) -> None:
    """The console shows the moment within ``size`` with nothing to scroll, the fixed rows on screen."""
    columns, rows = size
    assert app.size == size, app.size
    screen = app.screen
    main_area = screen.query_one("#main", VerticalScroll)
    assert main_area.virtual_size.height <= main_area.size.height, (
        f"{moment} at {columns}x{rows}: {main_area.virtual_size.height} rows of content in "
        f"{main_area.size.height}")
    assert main_area.max_scroll_y == 0
    assert on_screen(screen.query_one(Footer), rows), "the footer is off screen"
    assert on_screen(screen.query_one("#top-bar"), rows)
    assert on_screen(screen.query_one("#next-action"), rows), "the next action is off screen"
    assert on_screen(screen.query_one("#responsible-gaming"), rows)
    for box in ("#alert-box", "#banner-box", "#misdeal"):
        widget = screen.query_one(box)
        if widget.has_class("open"):
            assert on_screen(widget, rows), f"{box} is off screen"
    for widget in screen.query("*"):
        if widget.display and widget.region.height:
            assert widget.region.bottom <= rows and widget.region.right <= columns, widget


@pytest.mark.parametrize("moment", list(MOMENTS))
def test_every_moment_fits_every_size_without_scrolling(moment: str) -> None:
    """One console per moment, started at the smallest size (the hardest start), then resized through every
    size and back to the smallest (a console that grew must give way again)."""
    tokens, check = MOMENTS[moment]

    async def main() -> None:
        app = console_dealt(tokens)
        assert check(app.view), f"the events do not give the moment {moment!r}"
        async with app.run_test(size=SIZES[0]) as pilot:
            for size in [*SIZES, SIZES[0]]:
                await pilot.resize_terminal(*size)
                await settled(pilot)
                check_fits(app, moment, size)

    asyncio.run(main())


def test_the_large_type_grows_on_a_large_terminal() -> None:
    tokens, _ = MOMENTS["prompt"]
    heights = {}

    async def main(size: tuple[int, int]) -> None:
        app = console_dealt(tokens)
        async with app.run_test(size=size) as pilot:
            await settled(pilot)
            heights[size] = app.screen.query_one("#next-action").region.height

    for size in SIZES:
        asyncio.run(main(size))
    assert heights[(220, 60)] >= 10 > heights[(100, 30)], heights
    assert heights[(80, 24)] >= 3


def test_the_roads_give_way_but_all_five_show_when_there_is_room() -> None:
    async def main() -> dict[tuple[int, int], str]:
        shown = {}
        for size in ((100, 30), (220, 60)):
            app = console_dealt(ROUNDS + " @next AS")
            async with app.run_test(size=size) as pilot:
                await settled(pilot)
                roads = app.screen.query_one("#roads")
                shown[size] = "\n".join(strip.text for strip in roads.render_lines(roads.region.reset_offset))
        return shown

    shown = asyncio.run(main())
    assert "Big road" in shown[(100, 30)] and "Big eye boy" not in shown[(100, 30)]
    assert "Big eye boy" in shown[(220, 60)] and "Cockroach pig" in shown[(220, 60)]


@pytest.mark.parametrize("size", [(100, 30), (220, 60)], ids=["100x30", "220x60"])
def test_alert_cut_card_and_halt_at_once_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    tokens, _ = MOMENTS["alert, cut card and halt at once"]
    app = console_dealt(tokens)

    async def run_before(pilot: Any) -> None:
        await settled(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


TWO_CRITICAL_ALERTS = ("5H 2C 3C 4C 6C 7C 9S 8H KD 2C 3S ?? @burn 4H 5D 6C 9D 2H @exposed @burn 3D 4D 5S 8C @double "
                       "@void AS 2S 3S 4S 5S 6S 7S")
"""The acceptance pass's script: an unshuffled shoe (A1) and a repeated sequence (A2), both critical, both open."""


class BatchOnArrival(DealerConsole):
    """A console handed the table's events the moment it pushes its screen, before the screen has composed its
    widgets: what ``croupier run`` does when the runner's thread (started before the console) delivers a batch
    while the console is still starting (``apply_batch`` from the console's own thread here, so it lands there
    every time rather than by chance)."""

    def __init__(self, batch: list[Any]) -> None:
        super().__init__()
        self.batch = batch

    def on_mount(self, event: events.Mount | None = None) -> None:
        if event is not None:
            event.prevent_default()  # Textual would call the console's own on_mount after this one: once is enough
        super().on_mount()
        self.apply_batch(self.batch)


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (150, 50)], ids=["80x24", "120x40", "150x50"])
def test_events_that_arrive_while_the_screen_composes_show_both_open_alerts(size: tuple[int, int]) -> None:
    batch = dealt(TWO_CRITICAL_ALERTS)
    app = BatchOnArrival(batch)

    async def main() -> tuple[str, str, str, bool]:
        async with app.run_test(size=size) as pilot:
            await settled(pilot)
            screen = app.screen
            check_fits(app, "two critical alerts", size)
            return (rendered(app, "#top-bar"), screen.query_one("#alert-big", BigText).text,
                    rendered(app, "#alert-text"), screen.query_one("#alert-box").has_class("open"))

    top, big, detail, open_box = asyncio.run(main())
    assert list(app.view.alerts) == ["A1", "A2"]
    assert "2 ALERTS OPEN" in top
    assert open_box and big == "ALERT A1"
    assert "(1 more open)" in detail and "press a to acknowledge it" in detail

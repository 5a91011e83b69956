"""The dealer console gives up, to fit its terminal, only the levels it needs (:mod:`controller.ui.fitting`): the
level the console settles on is the first whose layout fits, the same whether the terminal started at its size or
was resized to it, and at 80x24 the dealer's essentials stay in view in every moment.

It used to read the main area one layout late: checks queued together ran after one layout and each gave up a
level, so a console that needed one level gave up all three (the roads and the next action's large type with
them); a console resized to a size kept the level, and the large type's height, of the size before (it scrolled at
80x26 after 80x24)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.containers import VerticalScroll

from controller.ui import fitting
from controller.ui.console import DealerConsole, TableScreen
from tests.consoles import console_dealt
from tests.controller.ui.test_console import rendered
from tests.controller.ui.test_console_sizes import MOMENTS, check_fits, settled

SIZES = [(80, 24), (80, 26), (80, 28), (100, 30), (120, 40)]
IDS = [f"{columns}x{rows}" for columns, rows in SIZES]
NEEDING = ["alert open", "alert open while halted", "alert, cut card and halt at once", "misdeal halt"]
"""Moments that need levels at some of :data:`SIZES` (and one that needs none, to check it gives up none)."""
DOWN_AND_UP = [(120, 40), (80, 24), (80, 26), (80, 28), (100, 30), (80, 24), (120, 40)]

Picture = tuple[int, str, tuple[tuple[str, int, int, int, int], ...]]


def picture(app: DealerConsole) -> Picture:
    """What the console shows: its level, its top line and where each widget on screen is."""
    screen = app.screen
    regions = tuple((widget.id or type(widget).__name__, *widget.region)
                    for widget in screen.query("*") if widget.display and widget.region.height)
    return fitting.level_of(screen), rendered(app, "#top-bar"), regions


def overflows(app: DealerConsole) -> bool:
    main = app.screen.query_one("#main", VerticalScroll)
    return main.virtual_size.height > main.size.height


def needed(moment: str, size: tuple[int, int]) -> int:
    """The first level whose layout fits ``size`` in ``moment``: each level shown in turn, laid out and settled,
    the console not stepping on its own."""
    tokens, _ = MOMENTS[moment]
    fits: list[bool] = []

    async def main() -> None:
        app = console_dealt(tokens)
        async with app.run_test(size=size) as pilot:
            await settled(pilot)
            for level in range(fitting.LEVELS + 1):
                screen = app.screen
                assert isinstance(screen, TableScreen)
                app._fitting.set(screen, level)
                app._draw_top_bar()
                await settled(pilot)
                assert fitting.level_of(screen) == level
                fits.append(not overflows(app))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fitting.Fitting, "step", lambda self, screen: False)
        asyncio.run(main())
    assert True in fits, f"{moment} at {size}: no level fits ({fits})"
    return fits.index(True)


def started(moment: str, size: tuple[int, int]) -> Picture:
    """What a console started at ``size`` shows in ``moment`` once settled."""
    tokens, _ = MOMENTS[moment]

    async def main() -> Picture:
        app = console_dealt(tokens)
        async with app.run_test(size=size) as pilot:
            await settled(pilot)
            check_fits(app, moment, size)
            return picture(app)

    return asyncio.run(main())


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@pytest.mark.parametrize("moment", NEEDING)
def test_the_console_gives_up_only_the_levels_it_needs(moment: str, size: tuple[int, int]) -> None:
    level, _, _ = started(moment, size)
    assert level == needed(moment, size), f"{moment} at {size}: gave up {level} levels"


@pytest.mark.parametrize("moment", NEEDING)
def test_resized_to_a_size_the_console_shows_what_it_shows_started_there(moment: str) -> None:
    """Down to 80x24 and up again: at each size, what a console started there shows, nothing kept from the size
    before (its level, the top line's counts, the large type's size, every widget's place)."""
    tokens, _ = MOMENTS[moment]
    expected = {size: started(moment, size) for size in set(DOWN_AND_UP)}
    seen: list[tuple[tuple[int, int], Picture]] = []

    async def main() -> None:
        app = console_dealt(tokens)
        async with app.run_test(size=DOWN_AND_UP[0]) as pilot:
            await settled(pilot)
            for size in DOWN_AND_UP[1:]:
                await pilot.resize_terminal(*size)
                await settled(pilot)
                check_fits(app, moment, size)
                seen.append((size, picture(app)))

    asyncio.run(main())
    for size, shown in seen:
        assert shown == expected[size], f"{moment}: resized to {size}, it shows {shown}, started there {expected[size]}"


def on_screen_text(app: DealerConsole, selector: str, rows: int) -> str:
    widget = app.screen.query_one(selector)
    if not widget.display or widget.region.height == 0 or widget.region.bottom > rows:
        return ""
    return rendered(app, selector)


@pytest.mark.parametrize("moment", list(MOMENTS))
def test_at_80x24_the_dealers_essentials_are_in_view_in_every_moment(moment: str) -> None:
    """The next instruction (its large type and its words), an open misdeal and its keys, and the cards left on the
    top line; the burned and set-aside counts too, unless an alert needs their row (docs/scoreboard.md)."""
    tokens, _ = MOMENTS[moment]
    size = (80, 24)

    async def main() -> dict[str, Any]:
        app = console_dealt(tokens)
        async with app.run_test(size=size) as pilot:
            await settled(pilot)
            check_fits(app, moment, size)
            view = app.view
            return {"big": on_screen_text(app, "#next-action", size[1]),
                    "detail": on_screen_text(app, "#next-action-text", size[1]),
                    "misdeal": on_screen_text(app, "#misdeal", size[1]),
                    "top": " ".join(on_screen_text(app, "#top-bar", size[1]).split()),
                    "halted": view.misdeal is not None, "alerts": bool(view.alerts),
                    "left": view.shoe.cards_left, "burned": view.shoe.burned, "set_aside": view.shoe.set_aside}

    seen = asyncio.run(main())
    assert any(block in seen["big"] for block in "█▀▄"), f"{moment}: the next action's large type is off screen"
    assert seen["detail"], f"{moment}: the next instruction is off screen"
    assert f"LEFT {seen['left']}" in seen["top"], seen["top"]
    if seen["halted"]:
        assert "press" in seen["misdeal"], f"{moment}: the misdeal's keys are off screen: {seen['misdeal']!r}"
    if not seen["alerts"]:
        assert f"BURNED {seen['burned']}" in seen["top"], seen["top"]
        if seen["set_aside"]:
            assert f"SET ASIDE {seen['set_aside']}" in seen["top"], seen["top"]

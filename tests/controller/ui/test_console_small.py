"""The dealer console at 80x24: everything on screen without scrolling, between rounds and mid-round."""

from __future__ import annotations

import asyncio

import pytest
from textual.containers import VerticalScroll

from controller.ui.console import DealerConsole
from controller.ui.roads import RESPONSIBLE_GAMING_LINE, RESPONSIBLE_GAMING_LINE_KO
from tests.controller.ui.test_console import rendered
from tests.controller.ui.test_console_moments import PAIRS_AND_DERIVED, table_events

SMALL = (80, 24)


@pytest.mark.parametrize("tokens", [
    PAIRS_AND_DERIVED,                       # between rounds, with roads
    PAIRS_AND_DERIVED + " @next AS 6C",      # mid-round: P2 is due
], ids=["between-rounds", "mid-round"])
def test_at_80x24_the_responsible_gaming_lines_are_whole_and_nothing_scrolls(tokens: str) -> None:
    async def main() -> None:
        app = DealerConsole(events=table_events(tokens))
        async with app.run_test(size=SMALL) as pilot:
            await pilot.pause()
            main_area = app.screen.query_one("#main", VerticalScroll)
            assert main_area.max_scroll_y == 0, "the console scrolls at 80x24"
            gaming = app.screen.query_one("#responsible-gaming")
            assert gaming.region.bottom <= 23, f"the responsible-gaming lines end at row {gaming.region.bottom}"
            rows = rendered(app, "#responsible-gaming").splitlines()
            assert RESPONSIBLE_GAMING_LINE in rows[0] and RESPONSIBLE_GAMING_LINE_KO in rows[-1], \
                "each line whole on its row"

    asyncio.run(main())


def test_at_80x24_a_hand_is_one_row_with_the_due_slot_marked() -> None:
    async def main() -> None:
        app = DealerConsole(events=table_events(PAIRS_AND_DERIVED + " @next AS 6C"))
        async with app.run_test(size=SMALL) as pilot:
            await pilot.pause()
            player = rendered(app, "#player-hand")
            assert player == "PLAYER total 1  P1 A♠ P2 ·· P3 ··"
            widget = app.screen.query_one("#player-hand")
            assert widget.region.height == 1
            label = [span for span in app._hand("player", ("P1", "P2", "P3"), compact=True).spans
                     if "reverse" in str(span.style)]
            assert len(label) == 1, "exactly one slot is marked as due"

    asyncio.run(main())

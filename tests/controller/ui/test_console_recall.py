"""Issue 29 item 2 (R1, R2): the console's recall screen, reachable at any time, a halt included: it says RECALL,
shows the last rounds step by step (cards with their slots, third-card decisions with their rules, results, pays,
misdeals and resolutions), and Esc returns to the table exactly as it was, events that came meanwhile included."""

from __future__ import annotations

import asyncio
from typing import Any

from controller.core.events import to_builtins
from controller.core.recall import recalled_rounds
from controller.ui.console import BigText, DealerConsole, RecallScreen, TableScreen
from controller.ui.recalltext import recall_text
from tests.controller.ui.test_console import rendered
from tests.pilot_wait import press, settle, wait_until
from tests.tokens import dealt, feed, table_of

SIZE = (120, 48)
ROUNDS = "5H 2C 3C 4D @next 9S @double @void @next 8H 7C 6D 5S 9C @double"
"""Round 1 a natural, round 2 voided on two cards together, round 3 halted on two cards after the player's third."""


def test_recall_in_a_halt_says_recall_shows_the_rounds_and_esc_returns_to_the_same_table() -> None:
    table = table_of(shoe={"burn": "none"}, simulation={"auto_next": False})
    events = dealt(ROUNDS, table)
    console = DealerConsole(events=events)
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with console.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert console.view.misdeal is not None, "the table is halted"
            hand = rendered(console, "#player-hand")
            await press(pilot, "h")
            await wait_until(pilot, lambda: isinstance(console.screen, RecallScreen), "the recall screen")
            seen["title"] = console.screen.query_one("#recall-title", BigText).text
            seen["body"] = rendered(console, "#recall-body")
            for event in feed(table, "@void"):  # the table moves on while recall is shown
                console.apply(event)
            await settle(pilot)
            await press(pilot, "escape")
            await wait_until(pilot, lambda: isinstance(console.screen, TableScreen), "back to the table")
            seen["misdeal"] = console.view.misdeal
            seen["same_hand"] = hand == rendered(console, "#player-hand")

    asyncio.run(main())
    assert seen["title"] == "RECALL"
    body = str(seen["body"])
    expected = recall_text(recalled_rounds((to_builtins(event), "") for event in events))
    for line in expected:
        assert line.strip() in body, line
    assert "round 3" in body and "MISDEAL two cards together" in body and "UNFINISHED" in body and "VOID" in body
    assert seen["misdeal"] is None, "the void given while recall was shown reached the table underneath"
    assert seen["same_hand"] is False, "the table's screen followed it: round 3's hand was voided"

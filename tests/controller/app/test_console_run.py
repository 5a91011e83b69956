"""The runner beside the dealer console, wired as ``simulate --interactive`` and ``run`` wire them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from config.loader import load_config
from controller.app.builder import JournalOptions, SessionOptions, build_session
from controller.app.runner import EXIT_MID_ROUND, Runner
from controller.app.session import ConsoleRun, console_run
from controller.core.table import Table
from drivers.merged import MergedSource
from drivers.mock import MockShoe
from tests.pilot_wait import press, settle

SIZE = (120, 40)
DEADLINE = 60.0


def interactive_runner(pace: float) -> tuple[Runner, MergedSource]:
    """A seeded shoe dealt at ``pace`` seconds a card, no burn, the dealer at the console."""
    settings = load_config(environ={}, overrides={"shoe": {"burn": "none"}, "simulation": {"auto_next": False}})
    source = MergedSource(MockShoe("mock://?seed=3"), pace=pace, hold_when_idle=True)
    runner = Runner(Table(settings), source, lambda events: None, auto_next=False, auto_shoe=False,
                    rounds=20, new_shoes=True)
    return runner, source


async def wait_for(pilot: Any, condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.05)


async def ask_to_quit_in_round_1(pilot: Any, run: ConsoleRun) -> None:
    """Start the run, confirm the new shoe, and press Ctrl+Q once round 1's first card is down."""
    run.start()
    await press(pilot, "s")
    await settle(pilot)
    await press(pilot, "y")
    await wait_for(pilot, lambda: "P1" in run.console.view.slots, "the first card of round 1")
    await press(pilot, "ctrl+q")
    await settle(pilot)


@pytest.mark.slow  # a long run: 4 s of real time at a pace of 1 s a card
def test_quitting_mid_round_stops_the_table_there_and_exits_3() -> None:
    runner, source = interactive_runner(pace=1.0)  # three cards after P1 (3 s) for Ctrl+Q to land mid-round
    run = console_run(runner, source, runner.table.start())
    console = run.console

    async def main() -> None:
        async with console.run_test(size=SIZE) as pilot:
            await ask_to_quit_in_round_1(pilot, run)
            cards_left = runner.table.cards_left
            await asyncio.sleep(4.0)  # at 1 s a card the round would be over by now if the shoe dealt on
            assert runner.table.cards_left >= cards_left - 1, "cards were read while the console asked"
            await press(pilot, "y")
            await settle(pilot)

    asyncio.run(main())
    assert run.finish() == EXIT_MID_ROUND
    assert "is still due" in (runner.ending_message() or "")


def test_answering_no_lets_the_table_deal_on() -> None:
    runner, source = interactive_runner(pace=0.05)
    run = console_run(runner, source, runner.table.start())
    console = run.console

    async def main() -> None:
        async with console.run_test(size=SIZE) as pilot:
            await ask_to_quit_in_round_1(pilot, run)
            await press(pilot, "n")
            await wait_for(pilot, lambda: console.view.result is not None, "round 1's result")
            await press(pilot, "ctrl+q")  # between rounds: quits at once
            await settle(pilot)

    asyncio.run(main())
    assert run.finish() == 0


def test_a_resumed_journal_reaches_the_console_as_resumed_at_its_round(tmp_path: Path) -> None:
    """The real path: the session resumes the journal, its notice marks the console as resumed, and the console
    opens on the replayed rounds."""
    settings = load_config(environ={}, overrides={"shoe": {"burn": "none"}, "simulation": {"auto_next": False}})
    journal = JournalOptions(str(tmp_path / "table.journal"), {"command": "simulate", "driver": "mock://?seed=3"})
    first = build_session(SessionOptions(settings, MockShoe("mock://?seed=3"), rounds=3, journal=journal, seed=3))
    assert first.play() == 0

    seen: dict[str, Any] = {}

    def headless(run: ConsoleRun) -> None:
        async def main() -> None:
            async with run.console.run_test(size=SIZE) as pilot:
                await settle(pilot)
                seen["banner"] = str(run.console.screen.query_one("#banner-text", Static).render())
                seen["results"] = len(run.console.view.history.results)
                await press(pilot, "ctrl+q")
                await settle(pilot)

        asyncio.run(main())

    second = build_session(SessionOptions(settings, MockShoe("mock://?seed=3"), auto_next=False, rounds=20,
                                          journal=journal, seed=3, console=True, run_console=headless, pace=0.05))
    second.play()
    assert seen["results"] == 3
    assert "Resumed from the journal at round 3" in seen["banner"]


def test_the_console_speaks_the_tables_language() -> None:
    settings = load_config(environ={"CROUPIER_TABLE_LANGUAGE": "ko"},
                           overrides={"shoe": {"burn": "none"}, "simulation": {"auto_next": False}})
    source = MergedSource(MockShoe("mock://?seed=3"), pace=0.05, hold_when_idle=True)
    runner = Runner(Table(settings), source, lambda events: None, auto_next=False, auto_shoe=False,
                    rounds=1, new_shoes=True)
    run = console_run(runner, source, runner.table.start())
    console = run.console
    seen: dict[str, str] = {}

    async def main() -> None:
        async with console.run_test(size=SIZE) as pilot:
            run.start()
            await press(pilot, "s")
            await settle(pilot)
            seen["question"] = str(console.screen.query_one("#confirm-text", Static).render())
            await press(pilot, "y")
            await wait_for(pilot, lambda: console.view.result is not None, "round 1's result")
            await settle(pilot)
            seen["top"] = console.top_bar().plain
            await press(pilot, "ctrl+q")
            await settle(pilot)

    asyncio.run(main())
    run.finish()
    assert console.words.language == "ko"
    assert seen["question"] == "새 슈: 셔플, 컷, 장전이 끝났습니까?"
    assert seen["top"].startswith("슈 1  게임 1")

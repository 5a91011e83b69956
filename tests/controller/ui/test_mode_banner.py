"""Issue 29 item 4 (D1, D2): a console or scoreboard that is not showing live play says SIMULATION or TRAINING
in large type for its whole life; a live one shows no such banner."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from config.loader import load_config
from controller.app.builder import JournalOptions, SessionOptions, build_session
from controller.app.session import ConsoleRun
from controller.core.inputs import Input, InputKind
from controller.core.table import Table
from controller.training.console import TrainingConsole
from controller.training.deal import dealt_rounds
from controller.training.drill import Drill
from controller.ui.console import BigText, DealerConsole
from controller.ui.scoreboard import start_scoreboard
from drivers.mock import MockShoe
from tests.browser import browser

SIZE = (120, 40)


def banner_of(app: Any) -> tuple[bool, str]:
    """Whether the mode banner is shown, and its text."""
    big = app.screen.query_one("#mode-banner", BigText)
    return bool(big.display) and big.text != "", big.text


def test_a_simulated_table_console_says_simulation_all_along_even_halted() -> None:
    settings = load_config(environ={}, overrides={"shoe": {"burn": "none"}})
    table = Table(settings)
    history = table.start() + table.handle(Input(InputKind.SHOE))
    console = DealerConsole(events=history, mode="simulation")
    seen: list[tuple[bool, str]] = []

    async def main() -> None:
        async with console.run_test(size=SIZE) as pilot:
            await pilot.pause()
            seen.append(banner_of(console))
            for event in table.handle(Input(InputKind.CARD, "ZZ")):  # a misdeal halts the table
                console.apply(event)
            await pilot.pause()
            assert console.view.misdeal is not None
            seen.append(banner_of(console))

    asyncio.run(main())
    assert seen == [(True, "SIMULATION"), (True, "SIMULATION")]


def test_a_live_console_has_no_mode_banner() -> None:
    console = DealerConsole()

    async def main() -> None:
        async with console.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert banner_of(console)[0] is False

    asyncio.run(main())


def test_simulate_interactive_reaches_the_console_as_a_simulation(tmp_path: Path) -> None:
    """The real path: the session the builder makes gives the console the mode its journal states."""
    settings = load_config(environ={}, overrides={"shoe": {"burn": "none"}, "simulation": {"auto_next": False}})
    seen: dict[str, Any] = {}

    def headless(run: ConsoleRun) -> None:
        async def main() -> None:
            async with run.console.run_test(size=SIZE) as pilot:
                await pilot.pause()
                seen["banner"] = banner_of(run.console)
                await pilot.press("ctrl+q")
                await pilot.pause()

        asyncio.run(main())

    session = build_session(SessionOptions(settings, MockShoe("mock://?seed=3"), auto_next=False, rounds=1,
                                           journal=JournalOptions(str(tmp_path / "t.journal"), {"test": 1}),
                                           console=True, pace=0.05, run_console=headless))
    session.play()
    assert seen["banner"] == (True, "SIMULATION")


def test_run_on_a_mock_source_is_a_simulation_at_the_console(tmp_path: Path) -> None:
    """A live session on a source that only simulates a shoe shows SIMULATION too."""
    settings = load_config(environ={}, overrides={"shoe": {"burn": "none"}})
    seen: dict[str, Any] = {}

    def headless(run: ConsoleRun) -> None:
        async def main() -> None:
            async with run.console.run_test(size=SIZE) as pilot:
                await pilot.pause()
                seen["banner"] = banner_of(run.console)
                await pilot.press("ctrl+q")
                await pilot.pause()

        asyncio.run(main())

    session = build_session(SessionOptions(settings, MockShoe("mock://?seed=3"), mode="live", auto_next=True, rounds=1,
                                           console=True, run_console=headless))
    session.play()
    assert seen["banner"] == (True, "SIMULATION")


def test_the_training_console_says_training() -> None:
    settings = load_config(environ={})
    drill = Drill(dealt_rounds(Table(settings), MockShoe("mock://?seed=2")), 1)
    console = TrainingConsole(drill)

    async def main() -> None:
        async with console.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert banner_of(console) == (True, "TRAINING")

    asyncio.run(main())


def test_the_scoreboard_state_states_the_mode() -> None:
    board = start_scoreboard("127.0.0.1", 0, mode="simulation")
    try:
        with urllib.request.urlopen(board.url + "state.json", timeout=10) as answer:
            state = json.loads(answer.read())
    finally:
        board.close()
    assert state["mode"] == "simulation"
    live = start_scoreboard("127.0.0.1", 0)
    try:
        assert live.state()["mode"] == "live"
    finally:
        live.close()


@pytest.mark.slow
def test_chromium_shows_the_simulation_banner_and_none_for_live() -> None:
    board = start_scoreboard("127.0.0.1", 0, mode="simulation")
    try:
        with browser(board.url) as page:
            page.wait_for("Number(document.body?.dataset.seq ?? -1) >= 0")
            page.wait_for("getComputedStyle(document.getElementById('mode-banner')).display !== 'none'")
            assert page.evaluate("document.getElementById('mode-banner').textContent.trim()") == "SIMULATION"
    finally:
        board.close()
    live = start_scoreboard("127.0.0.1", 0)
    try:
        with browser(live.url) as page:
            page.wait_for("Number(document.body?.dataset.seq ?? -1) >= 0")
            assert page.evaluate("getComputedStyle(document.getElementById('mode-banner')).display") == "none"
    finally:
        live.close()


@pytest.mark.parametrize("session_mode", ["simulation", "live"])
def test_the_scoreboard_a_session_serves_on_a_mock_shoe_says_simulation(session_mode: str) -> None:
    """The real path: the builder gives the scoreboard stage the table's mode (a live session on a mock shoe is a
    simulation too)."""
    said: list[str] = []
    session = build_session(SessionOptions(load_config(environ={}), MockShoe("mock://?seed=2"),
                                           mode=session_mode,  # type: ignore[arg-type]
                                           auto_next=True, rounds=1, scoreboard="127.0.0.1:0", notice=said.append))
    try:
        found = re.search(r"http://\S+/", " ".join(said))
        assert found is not None, said
        with urllib.request.urlopen(found.group(0) + "state.json", timeout=10) as answer:
            state = json.loads(answer.read())
    finally:
        session.close()
    assert state["mode"] == "simulation"

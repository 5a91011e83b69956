"""The drill's console screen, headless with Textual's pilot: keys make the calls, pays are typed."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from textual.widgets import Static

from controller.i18n.catalogue import Catalogue
from controller.training.console import TrainingConsole
from controller.training.events import TrainingEvent
from tests.controller.training.test_drill import drill_on, round_cards
from tests.pilot_wait import press, settle


def text_of(app: TrainingConsole, widget: str) -> str:
    return str(app.query_one(widget, Static).render())


def test_keys_make_the_calls_and_the_report_is_shown() -> None:
    kept: list[tuple[Mapping[str, Any] | None, list[TrainingEvent]]] = []
    drill = drill_on(round_cards(["AS", "2H", "6D"], ["3C", "AC", "9C"]), payouts=True)
    app = TrainingConsole(drill, keep=lambda answer, events: kept.append((answer, events)))

    async def scenario() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            assert "Player card 2: 2H" in text_of(app, "#cards")
            assert "n natural, d draw, s stand" in text_of(app, "#question")
            await press(pilot, "x")                 # no word: nothing is scored
            assert drill.report.scored == []
            await press(pilot, "d")                 # player 3 draws: right
            assert "Player card 3: 6D" in text_of(app, "#cards")
            await press(pilot, "s")                 # banker 4 on a 6 draws: wrong
            assert "banker 4 draws on the player's third card 2-7" in text_of(app, "#verdict")
            await press(pilot, "p")                 # player 9 beats banker 3
            assert drill.due is not None and drill.due.call == "pay"
            for pay in ("+1", "-1", "-1", "-1", "-1"):
                await press(pilot, *pay, "enter")
            await settle(pilot)
            assert drill.due is None
            assert "Training report: 1 rounds, 8 calls, 7 right, 1 wrong" in text_of(app, "#score")
            await press(pilot, "q")

    asyncio.run(scenario())
    assert [answer["answer"]["text"] for answer, _ in kept if answer and "answer" in answer] == [
        "draw", "stand", "player", "+1", "-1", "-1", "-1", "-1"]
    assert kept[-1][1][-1]["event"] == "training_report"


def test_the_drill_has_no_command_palette() -> None:
    """Textual's palette speaks only English; Ctrl+P opens nothing and no call is made."""
    drill = drill_on(round_cards(["AS", "2H", "6D"], ["3C", "AC", "9C"]))
    app = TrainingConsole(drill)

    async def scenario() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            screens = len(app.screen_stack)
            await press(pilot, "ctrl+p")
            await settle(pilot)
            assert len(app.screen_stack) == screens
            assert type(app.screen).__name__ != "CommandPalette"
            assert drill.report.scored == []

    asyncio.run(scenario())


def test_the_console_speaks_the_language() -> None:
    """Every text of the drill's screen, its key names and the broken rule follow the catalogue; keys stay."""
    drill = drill_on(round_cards(["AS", "2H", "6D"], ["3C", "AC", "9C"]))
    app = TrainingConsole(drill, words=Catalogue("ko"))

    async def scenario() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            assert "플레이어 카드 2: 2H" in text_of(app, "#cards")
            assert text_of(app, "#question") == "플레이어의 콜: n 내추럴, d 드로우, s 스탠드"
            assert "0개 중 정답 0" in text_of(app, "#score")
            assert app._bindings.key_to_bindings["q"][0].description == "연습 끝내기"
            await press(pilot, "d")
            await press(pilot, "s")                 # banker 4 on a 6 draws: wrong
            verdict = text_of(app, "#verdict")
            assert "뱅커 4: 플레이어의 세 번째 카드 2-7에서 드로우: 세 번째 카드 6" in verdict, verdict
            assert "draws" not in verdict
            await press(pilot, "p")
            await settle(pilot)
            assert text_of(app, "#question") == "연습 끝. q: 나가기"
            await press(pilot, "q")

    asyncio.run(scenario())

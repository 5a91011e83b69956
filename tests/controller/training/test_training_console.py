"""The drill's console screen, headless with Textual's pilot: keys make the calls, pays are typed."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from controller.i18n.catalogue import Catalogue
from controller.training.console import KEY_WORDS, WORD_NAMES, TrainingConsole
from controller.training.events import TrainingEvent
from controller.ui.console import BigText
from tests.controller.training.test_drill import drill_on, round_cards
from tests.inprocess import DEADLINE, ROOT
from tests.pilot_wait import press, settle
from tests.slowrule import require_slow


def text_of(app: TrainingConsole, widget: str) -> str:
    return str(app.query_one(widget, Static).render())


def test_keys_make_the_calls_and_the_report_is_shown() -> None:
    kept: list[tuple[Mapping[str, Any] | None, list[TrainingEvent]]] = []
    drill = drill_on(round_cards(["AS", "2H", "6D"], ["3C", "AC", "9C"]), payouts=True)
    app = TrainingConsole(drill, keep=lambda answer, events: kept.append((answer, events)))

    async def scenario() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            assert "P2 2♥" in text_of(app, "#player-hand")
            assert "n natural, d draw, s stand" in text_of(app, "#question")
            await press(pilot, "x")                 # no word: nothing is scored
            assert drill.report.scored == []
            await press(pilot, "d")                 # player 3 draws: right
            assert "P3 6♦" in text_of(app, "#player-hand")
            await press(pilot, "s")                 # banker 4 on a 6 draws: wrong
            assert "banker 4 draws on the player's third card 2-7" in text_of(app, "#verdict")
            await press(pilot, "p")                 # player 9 beats banker 3
            assert drill.due is not None and drill.due.call == "pay"
            for pay in ("+1", "-1", "-1", "-1", "-1"):
                await press(pilot, *pay, "enter")
            await settle(pilot)
            assert drill.due is None
            assert "Training report: 1 round, 8 calls, 7 right, 1 wrong" in text_of(app, "#score")
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
            assert "플레이어" in text_of(app, "#player-hand") and "P2 2♥" in text_of(app, "#player-hand")
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


@pytest.mark.parametrize("key", ["q", "ctrl+q"])
def test_quitting_mid_drill_keeps_the_report_and_gives_it_back(key: str) -> None:
    """The report is journaled and given back to be printed when the trainee quits before the drill is over."""
    kept: list[tuple[Mapping[str, Any] | None, list[TrainingEvent]]] = []
    drill = drill_on(round_cards(["AS", "2H", "6D"], ["3C", "AC", "9C"]), rounds=1)
    app = TrainingConsole(drill, keep=lambda answer, events: kept.append((answer, events)))

    async def scenario() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            await press(pilot, "d")
            await press(pilot, key)

    asyncio.run(scenario())
    report = kept[-1][1][-1]
    assert report["event"] == "training_report" and report["calls"] == 1 and report["finished"] is False
    assert app.return_value is not None
    assert "Training report: 1 round, 1 call, 1 right, 0 wrong (ended early)" in app.return_value


def test_q_ends_the_drill_while_a_pay_is_being_typed_too() -> None:
    """docs/training.md: q (or Ctrl+Q) ends the drill; at a pay call the q went into the pay's field instead (and
    Enter then had 'q' refused as a pay): the drill went on."""
    drill = drill_on(round_cards(["AS", "2H", "6D"], ["3C", "AC", "9C"]), payouts=True, rounds=1)
    app = TrainingConsole(drill)

    async def scenario() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            await press(pilot, "d", "d", "p", "+")
            assert drill.due is not None and drill.due.call == "pay"
            await press(pilot, "q")
            await settle(pilot)

    asyncio.run(scenario())
    assert app.return_value is not None
    assert "Training report: 1 round, 3 calls, 3 right, 0 wrong (ended early)" in app.return_value


def test_a_finished_drill_gives_its_report_back_when_the_trainee_quits() -> None:
    drill = drill_on(round_cards(["AS", "2H", "6D"], ["3C", "AC", "9C"]), rounds=1)
    app = TrainingConsole(drill)

    async def scenario() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            await press(pilot, "d", "d", "p", "q")

    asyncio.run(scenario())
    assert app.return_value is not None
    assert "Training report: 1 round, 3 calls, 3 right, 0 wrong" in app.return_value


def test_the_drill_looks_like_the_dealer_console() -> None:
    """The dealer console's own widgets: the hands by slot with the cards as 6♦, the call in large type."""
    drill = drill_on(round_cards(["AS", "2H", "6D"], ["3C", "AC", "9C"]))
    app = TrainingConsole(drill)

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            player, banker = text_of(app, "#player-hand"), text_of(app, "#banker-hand")
            assert "P1 A♠" in player and "P2 2♥" in player and "P3 ··" in player, player
            assert "B1 3♣" in banker and "B2 A♣" in banker, banker
            big = app.query_one("#call-big", BigText)
            assert big.text == "PLAYER'S CALL"
            rows = [row for row in big.render().plain.splitlines() if row.strip()]
            assert len(rows) >= 3 and set("".join(rows)) <= set("▀▄█ "), rows
            await press(pilot, "d")
            assert "P3 6♦" in text_of(app, "#player-hand")
            assert app.query_one("#call-big", BigText).text == "BANKER'S CALL"

    asyncio.run(scenario())


def test_a_drill_stopped_by_its_cards_says_so_and_keeps_the_report() -> None:
    drill = drill_on("3S 3H 4C 3C AS 2H XX", rounds=2)
    app = TrainingConsole(drill)

    async def scenario() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            await press(pilot, "s", "s", "p")
            assert "unknown_card" in text_of(app, "#question")
            assert "(ended early)" in text_of(app, "#score")
            await press(pilot, "q")

    asyncio.run(scenario())
    assert app.return_value is not None and any("(ended early)" in line for line in app.return_value)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/setup --test installs it)")
def test_train_console_prints_the_report_when_quit_in_a_terminal(tmp_path: Path) -> None:
    """``croupier train --console`` in a real terminal: quit mid-drill, the report is printed, exit 3."""
    require_slow("tmux")
    socket, out, done = str(tmp_path / "tmux.sock"), tmp_path / "out.txt", tmp_path / "status"
    command = (f"cd {ROOT} && {sys.executable} -m controller.cli.main train --console --rounds 2 --seed 4 "
               f"> /dev/tty; echo $? > {done}; sleep 600")
    subprocess.run(["tmux", "-S", socket, "-u", "new-session", "-d", "-s", "drill", "-x", "80", "-y", "24", command],
                   check=True, timeout=60, env={**os.environ, "LANG": "C.UTF-8"})
    try:
        deadline = time.monotonic() + DEADLINE
        while "P1 " not in (screen := tmux_screen(socket)):
            assert time.monotonic() < deadline, f"the drill never showed its hands:\n{screen}"
            time.sleep(0.2)
        subprocess.run(["tmux", "-S", socket, "send-keys", "-t", "drill", "q"], check=True, timeout=60)
        while not done.exists():
            assert time.monotonic() < deadline, f"the drill did not end:\n{tmux_screen(socket)}"
            time.sleep(0.2)
        out.write_text(tmux_screen(socket))
    finally:
        subprocess.run(["tmux", "-S", socket, "kill-server"], capture_output=True, timeout=60)
    assert done.read_text().strip() == "3"
    assert "Training report: 1 round, 0 calls, 0 right, 0 wrong (ended early)" in out.read_text(), out.read_text()


def tmux_screen(socket: str) -> str:
    return subprocess.run(["tmux", "-S", socket, "capture-pane", "-p", "-t", "drill"], capture_output=True,
                          text=True, timeout=60).stdout


@pytest.mark.parametrize("language", ["en", "ko", "ja", "es", "zh_Hant", "zh_Hans"])
def test_a_key_that_is_no_answer_and_ctrl_c_are_answered_in_the_drills_language(language: str) -> None:
    """A key that is no answer to the call due is said to be none, with the keys that are, and Ctrl+C says how the
    drill ends, in the drill's language (not Textual's English notice); neither is scored."""
    words = Catalogue(language)
    drill = drill_on(round_cards(["AS", "2H", "6D"], ["3C", "AC", "9C"]))
    app = TrainingConsole(drill, words=words)

    async def scenario() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            await press(pilot, "x")
            verdict = text_of(app, "#verdict")
            assert "x" in verdict and "n " in verdict and "d " in verdict and "s " in verdict, verdict
            keys = ", ".join(f"{key} {words.text(WORD_NAMES[word])}" for key, word in KEY_WORDS["player"].items())
            assert verdict == words.say("train.console.key.unknown", "{key} is not an answer: {keys}", key="x",
                                        keys=keys), verdict
            await press(pilot, "ctrl+c")
            await settle(pilot)
            notes = "\n".join(f"{note.title} {note.message}" for note in app._notifications)
            assert "Do you want to quit" not in notes and "quit the app" not in notes, notes
            assert words.say("train.console.ctrl_c", "Ctrl+C does not end the drill: press q or Ctrl+Q.") in notes
            assert drill.report.scored == []
            await press(pilot, "d")
            assert "is not an answer" not in text_of(app, "#verdict")

    asyncio.run(scenario())

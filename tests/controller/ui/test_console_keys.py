"""Keys the dealer console does not take now: each is answered on the status line in the table's language, at every
size, and none reaches the table (a key pressed is never silently lost, and Textual's own English never shows)."""

from __future__ import annotations

import asyncio

import pytest
from textual.geometry import Region
from textual.widget import Widget

from controller.core.inputs import Input, InputKind
from controller.i18n.catalogue import Catalogue
from controller.ui.console import DealerConsole, TableScreen
from tests.consoles import shown
from tests.pilot_wait import press, settle
from tests.tokens import NO_BURN, table_of


def rendered(app: DealerConsole, selector: str) -> str:
    """The text a widget shows on screen (empty when it is not displayed or lies outside the terminal's rows)."""
    widget = app.screen.query_one(selector, Widget)
    if not widget.display or not widget.size.height:
        return ""
    geometry = app.screen.find_widget(widget)
    if not geometry.clip.intersection(geometry.region).height:
        return ""
    width, height = widget.outer_size
    return "\n".join(strip.text.strip() for strip in widget.render_lines(Region(0, 0, width, height))).strip()


def pressed(keys: tuple[str, ...], tokens: str = "3S 4D @exposed", language: str = "en",
            size: tuple[int, int] = (120, 50)) -> tuple[list[Input], str, str]:
    """The inputs sent, the status line and every notification after ``keys`` on a console shown ``tokens``."""
    inputs: list[Input] = []
    events, view = shown(tokens)
    seen: dict[str, str] = {}

    async def main() -> None:
        app = DealerConsole(on_input=inputs.append, events=events, table=view, words=Catalogue(language))
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await press(pilot, *keys)
            await settle(pilot)
            assert isinstance(app.screen, TableScreen)
            seen["sent"] = rendered(app, "#sent")
            seen["notes"] = "\n".join(f"{note.title} {note.message}" for note in app._notifications)

    asyncio.run(main())
    return inputs, seen["sent"], seen["notes"]


@pytest.mark.parametrize("size", [(120, 50), (100, 30), (80, 24)])
def test_a_key_that_does_not_apply_now_is_answered_not_dropped(size: tuple[int, int]) -> None:
    inputs, sent, _ = pressed(("n",), size=size)
    assert inputs == []
    assert "n" in sent and "Next round" in sent and "does not apply now" in sent, sent


@pytest.mark.parametrize("key", ["x", "é", "7", "ctrl+x"])
def test_a_key_the_console_does_not_have_is_answered(key: str) -> None:
    inputs, sent, _ = pressed((key,))
    assert inputs == []
    assert "is not a key of the console" in sent, sent


def test_fast_repeats_of_a_key_that_does_not_apply_send_nothing_and_keep_the_answer() -> None:
    inputs, sent, _ = pressed(("n",) * 40 + ("s",) * 40)
    assert inputs == []
    assert "does not apply now" in sent, sent


def test_the_answer_goes_once_a_key_that_applies_is_pressed() -> None:
    inputs, sent, _ = pressed(("n", "b"))
    assert [item.kind for item in inputs] == [InputKind.BURN]
    assert "does not apply" not in sent, sent


@pytest.mark.parametrize("language", ["ko", "ja", "es", "zh_Hant", "zh_Hans"])
def test_ctrl_c_is_answered_in_the_tables_language(language: str) -> None:
    """Ctrl+C does not quit (Ctrl+Q does): the console says so in its own words, not in Textual's English."""
    english = "Ctrl+C does not quit: press Ctrl+Q to quit the console."
    worded = Catalogue(language).say("console.key.ctrl_c", english)
    inputs, _, notes = pressed(("ctrl+c",), language=language)
    assert inputs == []
    assert "Do you want to quit" not in notes and "to quit the app" not in notes, notes
    assert worded != english and worded in notes, notes


def test_ctrl_c_in_english_names_ctrl_q() -> None:
    _, _, notes = pressed(("ctrl+c",))
    assert "Ctrl+Q" in notes and "Do you want to quit" not in notes, notes


def test_keys_while_a_question_is_open_do_nothing_and_say_nothing_on_the_table_screen() -> None:
    """The dealer keys work on the main screen only (docs/scoreboard.md): a question open takes y, n and Esc."""
    inputs: list[Input] = []
    events, view = shown("3S 4D @exposed")

    async def main() -> None:
        app = DealerConsole(on_input=inputs.append, events=events, table=view)
        async with app.run_test(size=(120, 50)) as pilot:
            await settle(pilot)
            await press(pilot, "v")
            assert not isinstance(app.screen, TableScreen)
            await press(pilot, "x", "b", "escape")
            await settle(pilot)
            assert isinstance(app.screen, TableScreen) and inputs == []

    asyncio.run(main())


def test_ack_is_not_offered_for_an_alert_the_console_does_not_show() -> None:
    """Without badges an ``advantage`` alert is for the supervisor and not on the dealer's console: the table still
    takes ``@ack`` for it, but ``a`` would acknowledge nothing the dealer sees, so it is not in the footer, and
    pressed it is answered like any key that does not apply (it was offered and then did nothing at all)."""
    inputs: list[Input] = []
    table = table_of(shoe=NO_BURN, bets={"alert_above": {"player": -0.5}})
    events, view = shown("9S 8H KD 2C", table)
    assert [alert.kind for alert in view.alerts] == ["advantage"] and "ack" in view.accepts
    seen: dict[str, list[str]] = {}

    async def main() -> None:
        app = DealerConsole(on_input=inputs.append, events=events, table=view)
        async with app.run_test(size=(120, 50)) as pilot:
            await settle(pilot)
            seen["footer"] = [binding.binding.key for binding in app.screen.active_bindings.values()
                              if binding.enabled and binding.binding.show]
            await press(pilot, "a")
            await settle(pilot)
            seen["sent"] = [rendered(app, "#sent")]

    asyncio.run(main())
    assert "a" not in seen["footer"] and "n" in seen["footer"], seen["footer"]
    assert inputs == []
    assert "does not apply now" in seen["sent"][0], seen["sent"]


@pytest.mark.parametrize("key", ["B", "U"])
def test_a_resolution_key_pressed_as_the_capital_the_screen_shows_is_taken(key: str) -> None:
    """The misdeal screen says "B BURN" and "press B": with Shift or Caps Lock the dealer types the capital it shows,
    which was answered "B is not a key of the console" and sent nothing."""
    inputs, sent, _ = pressed((key,))  # an exposed card: burn it (b) or use it (u)
    assert [item.kind for item in inputs] == [InputKind.BURN if key == "B" else InputKind.USE], (inputs, sent)
    assert "is not a key" not in sent and "does not apply" not in sent, sent


def test_a_capital_of_a_key_that_does_not_apply_now_is_answered_as_that_key() -> None:
    inputs, sent, _ = pressed(("N",))
    assert inputs == []
    assert "N" in sent and "Next round" in sent and "does not apply now" in sent, sent

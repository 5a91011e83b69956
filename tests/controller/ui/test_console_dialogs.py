"""The console's dialogs and its own words, headless with Textual's pilot and the real table core: a hand-entered
card read back with its slot, every dialog's whole text shown at 80x24 and 220x60 (English and Japanese), and the
keys the dealer presses named instead of script tokens."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from msgspec.structs import replace
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Label

from controller.i18n.catalogue import Catalogue
from controller.i18n.languages import LANGUAGES
from controller.ui.console import DealerConsole
from controller.ui.tableview import ViewEvent
from tests.consoles import Shown, shown
from tests.pilot_wait import press, settle
from tests.tokens import table_of
from tests.typed_events import untyped_event

SIZES = [(80, 24), (220, 60)]
Scenario = Callable[[DealerConsole, Any], Awaitable[None]]


def table_events(tokens: str, burn: str = "none", **table: str) -> Shown:
    """The core's events for ``tokens`` from a fresh table's start, its shoe confirmed (with ``burn``, ``[table]``),
    and its view after them."""
    return shown(tokens, table_of(shoe={"burn": burn}, table=table))


def run(scenario: Scenario, events: Shown | list[ViewEvent], size: tuple[int, int] = (120, 40),
        language: str = "en", reveal_total: bool = False) -> None:
    """Run ``scenario`` on a console shown ``events`` (with the table's view, when a table gave them)."""
    view = events.view if isinstance(events, Shown) else None
    listed = list(events.events if isinstance(events, Shown) else events)

    async def main() -> None:
        app = DealerConsole(events=listed, table=view, words=Catalogue(language), reveal_total=reveal_total)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await scenario(app, pilot)

    asyncio.run(main())


def label_lines(label: Label) -> list[str]:
    """The lines a label draws on screen (its region only: what is cut off is not there)."""
    width, height = label.outer_size
    return [strip.text.strip() for strip in label.render_lines(Region(0, 0, width, height))]


def flat(text: str) -> str:
    return "".join(text.split())


def check_whole(app: DealerConsole, selector: str = "Label") -> list[str]:
    """Every label of the open dialog shows its whole text within the screen; their texts."""
    texts = []
    for label in app.screen.query(selector).results(Label):
        text = str(label.render())
        if not text:
            continue
        lines = label_lines(label)
        assert flat("".join(lines)) == flat(text), f"{label.id or 'label'} is cut: {lines!r} instead of {text!r}"
        box = label.parent
        assert isinstance(box, Widget)
        assert box.content_region.contains_region(label.region), f"{text!r}: {label.region} in {box.content_region}"
        assert box.region.right <= app.size.width and box.region.bottom <= app.size.height, box.region
        texts.append(text)
    return texts


# -- 1. a hand-entered card is read back with its slot --------------------------------------------------------------
@pytest.mark.parametrize(("tokens", "slot"), [("3S ??", "B1"), ("3S ZZ", "B1"), ("3S KD ??", "P2")])
def test_a_hand_entered_card_in_a_halt_is_read_back_with_its_slot(tokens: str, slot: str) -> None:
    async def scenario(app: DealerConsole, pilot: Any) -> None:
        assert app.view.prompt is None and app.view.misdeal is not None
        for key in ("m", "9", "c", "enter"):
            await press(pilot, key)
        await settle(pilot)
        assert str(app.screen.query_one("#confirm-text", Label).render()) == f"9♣ to {slot}?"

    run(scenario, table_events(tokens))


def test_a_hand_entered_card_is_read_back_with_the_slot_after_an_undo() -> None:
    events = table_events("3S ZZ @manual 4D @undo")
    assert events.events[-1]["event"] in ("instruction", "misdeal"), events.events[-1]

    async def scenario(app: DealerConsole, pilot: Any) -> None:
        for key in ("m", "9", "c", "enter"):
            await press(pilot, key)
        await settle(pilot)
        assert str(app.screen.query_one("#confirm-text", Label).render()) == "9♣ to B1?"

    run(scenario, events)


def test_a_hand_entered_burn_card_is_read_back_as_the_burn() -> None:
    async def scenario(app: DealerConsole, pilot: Any) -> None:
        assert app.view.misdeal is not None and app.view.misdeal.get("say_id") == "misdeal.unreadable_burn"
        for key in ("m", "9", "c", "enter"):
            await press(pilot, key)
        await settle(pilot)
        assert str(app.screen.query_one("#confirm-text", Label).render()) == "9♣ to the burn?"

    run(scenario, table_events("??", burn="first_card"))


def test_only_a_truly_unknown_slot_is_the_due_slot() -> None:
    events, view = table_events("3S ??")
    assert view.misdeal is not None and view.misdeal.place == "B1"
    unknown = replace(view, misdeal=replace(view.misdeal, place=None))  # a table that cannot say where it goes

    async def scenario(app: DealerConsole, pilot: Any) -> None:
        for key in ("m", "9", "c", "enter"):
            await press(pilot, key)
        await settle(pilot)
        assert str(app.screen.query_one("#confirm-text", Label).render()) == "9♣ to the due slot?"

    run(scenario, Shown(events, unknown))


# -- 2. every dialog's whole text -----------------------------------------------------------------------------------
@pytest.mark.parametrize("language", ["en", "ja"])
@pytest.mark.parametrize("size", SIZES)
def test_the_manual_entry_dialog_and_its_refusal_are_shown_whole(size: tuple[int, int], language: str) -> None:
    async def scenario(app: DealerConsole, pilot: Any) -> None:
        await press(pilot, "m")
        await settle(pilot)
        asked = check_whole(app)
        assert any(flat(app.words.say("console.manual.ask", "")) == flat(text) for text in asked), asked
        for key in ("z", "z", "enter"):
            await press(pilot, key)
        await settle(pilot)
        refused = str(app.screen.query_one("#manual-error", Label).render())
        assert "'zz'" in refused and refused in check_whole(app)
        assert language == "en" or "is not a card" not in refused, refused  # the card's problem in the language too
        for key in ("backspace", "backspace", "9", "c", "enter"):
            await press(pilot, key)
        await settle(pilot)
        assert "9♣" in " ".join(check_whole(app))

    run(scenario, table_events("3S ??"), size, language)


@pytest.mark.parametrize("language", ["en", "ja"])
@pytest.mark.parametrize("size", SIZES)
def test_the_reveal_total_dialog_and_its_refusal_are_shown_whole(size: tuple[int, int], language: str) -> None:
    async def scenario(app: DealerConsole, pilot: Any) -> None:
        await press(pilot, "r")
        await settle(pilot)
        assert len(check_whole(app)) == 2
        for key in ("x", "enter"):
            await press(pilot, key)
        await settle(pilot)
        error = str(app.screen.query_one("#reveal-error", Label).render())
        assert "'x'" in error and error in check_whole(app)

    run(scenario, table_events("9C 8D KS KH", dealing="face_down", reveal_confirm="total"), size, language,
        reveal_total=True)


@pytest.mark.parametrize("language", ["en", "ja"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("tokens", "key"), [("3S KD 5H 9C", "c"), ("3S ??", "v"), ("3S", "ctrl+q")])
def test_each_confirmation_is_shown_whole(tokens: str, key: str, size: tuple[int, int], language: str) -> None:
    async def scenario(app: DealerConsole, pilot: Any) -> None:
        await press(pilot, key)
        await settle(pilot)
        assert app.screen.query("#confirm-text"), f"{key} asked nothing"
        assert len(check_whole(app)) == 2

    run(scenario, table_events(tokens), size, language)


# -- 3. the keys, not the script tokens -----------------------------------------------------------------------------
def names_the_key(text: str, key: str) -> bool:
    return "@" not in text and re.search(rf"(?<![A-Za-z]){key}(?![A-Za-z])", text) is not None


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("config", [{"dealing": "face_down"}, {"dealing": "face_down", "reveal_confirm": "total"}])
def test_a_reveal_is_asked_with_its_key_not_its_token(config: dict[str, str], language: str) -> None:
    async def scenario(app: DealerConsole, pilot: Any) -> None:
        detail = str(app.screen.query_one("#next-action-text").render())
        assert names_the_key(detail, "r"), detail
        if language == "en":
            assert detail.startswith("Reveal the next hand: press r"), detail
            assert ("type the total" in detail) == ("reveal_confirm" in config), detail

    run(scenario, table_events("9C 8D KS KH", **config), language=language, reveal_total="reveal_confirm" in config)


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_alert_is_acknowledged_with_its_key_not_its_token(language: str) -> None:
    alert = untyped_event({"event": "alert", "id": "A1", "kind": "unshuffled_shoe", "severity": "critical",
                           "detail": "12 of 40 steps"})

    async def scenario(app: DealerConsole, pilot: Any) -> None:
        detail = str(app.screen.query_one("#alert-text").render())
        assert names_the_key(detail, "a"), detail
        assert language != "en" or "press a to acknowledge it" in detail, detail

    run(scenario, [alert], language=language)


@pytest.mark.parametrize("tokens", ["3S ??", "3S KD 5H 9C @next 2C @exposed", "3S KD 5H 9C", "3S", ""])
def test_no_script_token_on_the_main_screen(tokens: str) -> None:
    async def scenario(app: DealerConsole, pilot: Any) -> None:
        for selector in ("#next-action-text", "#misdeal", "#alert-text", "#banner-text"):
            text = str(app.screen.query_one(selector).render())
            assert "@" not in text, f"{selector}: {text}"

    run(scenario, table_events(tokens))

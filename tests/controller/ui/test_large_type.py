"""Large type in every language the table speaks: the dealer console's next action (a result, a prompt) is drawn
in block cells at least three rows tall at 80x24 and grows with a 200x60 terminal, in Korean, Chinese and Japanese
(glyphs from an installed font) and with Spanish accents as in English; never one row of letter-spaced text."""

from __future__ import annotations

import asyncio
import functools
import io

import pytest
from textual.geometry import Region

from controller.core.events import Event, decode_event
from controller.i18n.catalogue import Catalogue
from controller.ui.bigtext import cells
from controller.ui.console import BigText
from controller.ui.dealer_display import DealerDisplay
from controller.ui.fontglyphs import font_for, large_type, wrap
from controller.ui.localise import Localiser
from tests.consoles import console_dealt
from tests.pilot_wait import settle

LANGUAGES = ("en", "es", "ja", "ko", "zh_Hans", "zh_Hant")
RESULT = "3S KD 5H 9C"  # banker wins 9 : 8
PROMPT = "3S 9C 2H 4D"  # player draws: the prompt for the third card
CUT = f"{RESULT} @cut"
BLOCKS = set("▀▄█ ")


@functools.cache
def next_action(language: str, tokens: str, size: tuple[int, int], name: str = "#next-action",
                ) -> tuple[str, tuple[str, ...]]:
    """The next action's (or another large type's) text and the rows it draws, on a console of ``size``."""
    seen: list[tuple[str, tuple[str, ...]]] = []

    async def main() -> None:
        app = console_dealt(tokens, words=Catalogue(language))
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            widget = app.screen.query_one(name, BigText)
            width, height = widget.outer_size
            rows = [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, width, height))]
            seen.append((widget.text, tuple(row for row in rows if row.strip())))

    asyncio.run(main())
    return seen[0]


def check_large(language: str, tokens: str) -> None:
    text, small = next_action(language, tokens, (80, 24))
    _, large = next_action(language, tokens, (200, 60))
    for size, rows in (("80x24", small), ("200x60", large)):
        assert len(rows) >= 3, f"{language}: {text!r} is {len(rows)} row(s) at {size}: {rows}"
        assert set("".join(rows)) <= BLOCKS, f"{language}: {text!r} is not drawn in block cells at {size}: {rows}"
    assert max(map(cells, small)) <= 80
    assert max(map(cells, large)) <= 200
    assert max(map(cells, large)) > max(map(cells, small)), (
        f"{language}: {text!r} does not use the width of 200x60: {max(map(cells, large))} columns")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_result_in_large_type_in_every_language(language: str) -> None:
    check_large(language, RESULT)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_prompt_in_large_type_in_every_language(language: str) -> None:
    check_large(language, PROMPT)


def test_spanish_accents_are_drawn_in_large_type() -> None:
    text, rows = next_action("es", CUT, (80, 24), "#banner-big")
    assert "Ó" in text, text
    assert len(rows) >= 3 and set("".join(rows)) <= BLOCKS, rows


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_plain_dealer_display_draws_a_prompt_in_large_type(language: str) -> None:
    stream = io.StringIO()
    words = Catalogue(language)
    prompt: Event = decode_event({"event": "prompt", "round": 1, "slot": "P1", "to": "player", "say": "Card to PLAYER",
                                  "say_id": "prompt.player", "say_params": {}})
    Localiser(words).wrap(DealerDisplay(stream, large=True, words=words))([prompt])
    drawn = [line for line in stream.getvalue().splitlines() if line.strip() and set(line) <= BLOCKS]
    assert len(drawn) >= 3, stream.getvalue()
    assert all(cells(line) <= 80 for line in drawn)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_plain_dealer_display_keeps_large_type_within_a_narrow_terminal(language: str) -> None:
    """On a 40-column terminal every line of the large type fits in 40 cells (it was drawn 80 wide whatever the
    terminal), and the transcript's own lines still say every action."""
    stream = io.StringIO()
    words = Catalogue(language)
    events: list[Event] = [decode_event(event) for event in (
        {"event": "prompt", "round": 1, "slot": "P1", "to": "player", "say": "Card to PLAYER",
         "say_id": "prompt.player", "say_params": {}},
        {"event": "instruction", "round": 1, "action": "natural", "say": "Natural: player 9, banker 5; no more cards",
         "say_id": "natural", "say_params": {"player": 9, "banker": 5}})]
    Localiser(words).wrap(DealerDisplay(stream, large=True, words=words, width=40))(events)
    assert all(cells(line) <= 40 for line in stream.getvalue().splitlines()), stream.getvalue()


@pytest.mark.parametrize("text", ["플레이어에게 한 장 더", "B 번  V 무효  M 수동", "プレイヤーに3枚目", "閒補牌"])
def test_large_type_too_wide_for_a_line_breaks_it_and_keeps_every_character(text: str) -> None:
    rows = large_type(text, 30, 1, None)
    assert rows is not None and len(rows) > 4 and all(cells(row) <= 30 for row in rows), rows
    lines = wrap(text, 30, lambda line: cells(line) * 4)
    assert "".join("".join(lines).split()) == "".join(text.split()), lines


def test_without_fontconfig_large_type_says_so_and_the_text_is_shown_letter_spaced(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    font_for.cache_clear()
    try:
        assert large_type("閒補牌", 80, 2, "zh_Hant") is None
        stream = io.StringIO()
        words = Catalogue("zh_Hant")
        DealerDisplay(stream, large=True, words=words).render(decode_event(
            {"event": "prompt", "round": 1, "slot": "P1", "to": "player", "say": "Card to PLAYER"}))
        assert "閒   P 1" in stream.getvalue().splitlines()
    finally:
        font_for.cache_clear()


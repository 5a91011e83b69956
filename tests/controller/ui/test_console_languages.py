"""The dealer console in each language at 80x24, headless with Textual's pilot and the real table core:
the moments, keys, dialogs, status and roads in the table's words, no English chrome, nothing cut at 80
columns, and every glyph from an installed font (no tofu)."""

from __future__ import annotations

import asyncio
import functools
import shutil
import time
import unicodedata
from typing import Any

import pytest
from textual.geometry import Region
from textual.widget import Widget

from controller.i18n.catalogue import Catalogue
from controller.i18n.languages import LANGUAGES
from controller.ui.bigtext import cells
from controller.ui.console import BigText, DealerConsole
from controller.ui.console_words import top_bar
from tests.consoles import console_dealt
from tests.controller.ui.test_cjk_text import font_covering
from tests.pilot_wait import footer_keys, press, settle

SIZE = (80, 24)
RESULT = "3S KD 5H 9C"  # player 3+5 = 8, banker 0+9 = 9: banker wins 9 : 8, two naturals
THIRD_CARD = "3S 9C 2H 4D"  # player 5 draws
CUT = f"{RESULT} @cut"
LAST = f"{CUT} @next 9S 8H KD 2C @next 9D"
CLOSED = f"{LAST} KH 9C 2H"
MISDEAL = "3S ??"

WORDS: dict[str, dict[str, str]] = {
    "en": {"player": "PLAYER", "banker": "BANKER", "third": "THIRD CARD TO PLAYER", "draws": "player draws on 5",
           "last": "LAST ROUND", "cut": "CUT CARD OUT", "closed": "SHOE CLOSED", "close?": "Close this shoe now?",
           "next": "Next round", "exposed": "Exposed", "burn": "Burn", "big road": "Big road", "left": "LEFT",
           "waiting": "WAITING"},
    "ko": {"player": "플레이어", "banker": "뱅커", "third": "플레이어에게 한 장 더", "draws": "플레이어 5에서 한 장 더",
           "last": "마지막 게임", "cut": "컷 카드 나옴", "closed": "슈 종료", "close?": "지금 이 슈를 닫을까요?",
           "next": "다음 게임", "exposed": "노출", "burn": "번", "big road": "빅로드", "left": "남은",
           "waiting": "대기 중"},
    "zh_Hant": {"player": "閒", "banker": "莊", "third": "閒補牌", "draws": "閒 5 點須補牌", "last": "最後一局",
                "cut": "切牌卡已出", "closed": "牌靴已關閉", "close?": "現在關閉此牌靴？", "next": "下一局",
                "exposed": "露牌", "burn": "燒牌", "big road": "大路", "left": "剩", "waiting": "等待中"},
    "zh_Hans": {"player": "闲", "banker": "庄", "third": "闲补牌", "draws": "闲 5 点须补牌", "last": "最后一局",
                "cut": "切牌卡已出", "closed": "牌靴已关闭", "close?": "现在关闭此牌靴？", "next": "下一局",
                "exposed": "露牌", "burn": "烧牌", "big road": "大路", "left": "剩", "waiting": "等待中"},
    "ja": {"player": "プレイヤー", "banker": "バンカー", "third": "プレイヤーに3枚目", "draws": "プレイヤー 5 で引く",
           "last": "最終ゲーム", "cut": "カットカード出現", "closed": "シュー終了",
           "close?": "このシューを今終了しますか？",
           "next": "次のゲーム", "exposed": "露出", "burn": "バーン", "big road": "ビッグロード", "left": "残り",
           "waiting": "待機中"},
    "es": {"player": "PUNTO", "banker": "BANCA", "third": "TERCERA CARTA PARA PUNTO", "draws": "el punto pide con 5",
           "last": "ÚLTIMA MANO", "cut": "SALIÓ LA CARTA DE CORTE", "closed": "SABOT CERRADO",
           "close?": "¿Cerrar este sabot ahora?", "next": "Siguiente mano", "exposed": "Expuesta", "burn": "Quemar",
           "big road": "Camino grande", "left": "QUEDAN", "waiting": "ESPERANDO"},
}
"""What the console must show in each language (the glossary's terms, docs/languages.md)."""

ENGLISH_CHROME = ("PLAYER", "BANKER", "THIRD CARD", "LAST ROUND", "CUT CARD", "SHOE CLOSED", "Close this shoe",
                  "Next round", "Big road", "Cards left", "Card to", "Round ", "READER", "WAITING", "wins",
                  "press", "Press", "Call the supervisor", "Burned")
"""English words of the console's chrome that no other language shows."""


def shown(widget: Widget) -> list[str]:
    width, height = widget.outer_size
    return [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, width, height))]


def displayed(widget: Widget) -> bool:
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))


def screen_lines(app: DealerConsole) -> list[str]:
    """Every line the current screen's widgets draw (scrolled into view or not)."""
    lines: list[str] = []
    for widget in app.screen.query(Widget):
        if not widget.children and displayed(widget) and widget.outer_size.area:
            lines += shown(widget)
    return lines


@functools.cache
def look(language: str, tokens: str, keys_pressed: tuple[str, ...] = ()) -> dict[str, Any]:
    """The console in ``language`` after the table's events for ``tokens`` (and the keys pressed): started once
    per case in a process, for the tests that read the same console (they only read what it showed)."""
    seen: dict[str, Any] = {}

    async def main() -> None:
        app = console_dealt(tokens, words=Catalogue(language))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            deadline = time.monotonic() + 30.0  # on a loaded machine the footer may be laid out a little later
            while not (keys := footer_keys(app)) or not all(key.region.width for _, key in keys):
                assert time.monotonic() < deadline, "the footer was never laid out"
                await pilot.pause(0.05)
            seen["footer"] = [(description, key.region.right, "\n".join(shown(key))) for description, key in keys]
            seen["top"] = ("\n".join(shown(app.screen.query_one("#top-bar", Widget))).strip(),
                           top_bar(app.view, app.words, counts=True).plain)  # 80x24: with the burned
            seen["bigs"] = {name: (app.screen.query_one(name, BigText).text, shown(app.screen.query_one(name, BigText)))
                            for name in ("#next-action", "#banner-big", "#alert-big")}
            await press(pilot, *keys_pressed)
            await settle(pilot)
            seen["lines"] = screen_lines(app)

    asyncio.run(main())
    return seen


def flat(lines: list[str]) -> str:
    """The lines run together without spaces (large type of wide characters is letter-spaced)."""
    return "".join("".join(lines).split())


def check_fits(seen: dict[str, Any]) -> None:
    """Nothing cut at 80 columns: the top bar whole, each footer key within the screen with its whole name,
    each large type within the width and (for wide characters) drawn in block cells at least 3 rows tall."""
    rendered, wanted = seen["top"]
    assert rendered == wanted, f"the top bar is cut: {rendered!r} instead of {wanted!r}"
    for description, right, text in seen["footer"]:
        assert right <= SIZE[0] and description in text, f"footer key {description!r} is cut: {text!r}"
    for name, (text, lines) in seen["bigs"].items():
        assert all(cells(line) <= SIZE[0] for line in lines), name
        if text and cells(text) > len(text):  # glyphs of an installed font (controller/ui/fontglyphs.py)
            drawn = [line for line in lines if line.strip()]
            assert len(drawn) >= 3 and set("".join(drawn)) <= set("▀▄█ "), f"{name}: {text!r} not large: {lines}"


def check_language(language: str, seen: dict[str, Any], *words: str) -> str:
    """``words`` (keys of :data:`WORDS`) shown in ``language``, in plain or large type; no English chrome."""
    large = [text for text, _ in seen["bigs"].values()]  # block letters do not read as text
    text = "\n".join(seen["lines"] + large)
    for key in words:
        expected = WORDS[language][key]
        assert expected in text or flat([expected]) in flat(seen["lines"]), f"{language}: {expected!r} not shown"
    if language not in ("en",):
        leaked = [word for word in ENGLISH_CHROME if word in text]
        assert not leaked, f"{language}: English chrome {leaked} on the console:\n{text}"
    check_fits(seen)
    return text


@pytest.mark.parametrize("language", LANGUAGES)
def test_third_card_with_its_rule_in_the_tables_language(language: str) -> None:
    seen = look(language, THIRD_CARD)
    check_language(language, seen, "third", "draws", "player", "banker", "left")
    assert WORDS[language]["exposed"] in [description for description, _, _ in seen["footer"]]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_score_the_cut_card_and_the_roads(language: str) -> None:
    seen = look(language, CUT)
    check_language(language, seen, "cut", "banker", "big road")
    assert seen["bigs"]["#next-action"][0] == f"{WORDS[language]['banker']} 9 : 8"
    assert WORDS[language]["next"] in [description for description, _, _ in seen["footer"]]


@pytest.mark.parametrize("language", LANGUAGES)
def test_last_round_then_shoe_closed(language: str) -> None:
    check_language(language, look(language, LAST), "last")
    check_language(language, look(language, CLOSED), "closed")


@pytest.mark.parametrize("language", LANGUAGES)
def test_closing_the_shoe_asks_in_the_tables_language(language: str) -> None:
    seen = look(language, RESULT, keys_pressed=("c",))
    check_language(language, seen, "close?")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_misdeals_keys_in_the_tables_language(language: str) -> None:
    seen = look(language, MISDEAL)
    check_language(language, seen)
    keys = seen["bigs"]["#next-action"][0]
    assert f"B {WORDS[language]['burn'].upper()}" in keys and "V " in keys and "M " in keys, keys  # the letters stay
    assert WORDS[language]["burn"] in [description for description, _, _ in seen["footer"]]


@pytest.mark.skipif(shutil.which("fc-list") is None, reason="fontconfig is not installed (.ci/setup installs it)")
@pytest.mark.parametrize("language", LANGUAGES)
def test_an_installed_font_has_every_glyph_the_console_shows(language: str) -> None:
    lines = look(language, CLOSED)["lines"] + look(language, MISDEAL)["lines"]
    words = "".join(char for char in "\n".join(lines) if unicodedata.category(char)[0] in "LNP")  # not the drawing
    assert any(ord(char) > 0x7F for char in words) or language == "en"
    assert font_covering(words), f"no installed font draws every character of the {language} console (tofu)"

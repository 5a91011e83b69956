"""The scoreboard page in the board's languages, in a real Chromium: its words come from ``/words.json`` (the
catalogues), the second language under the first, no English left in a Korean board, and the glyphs drawn
by an installed CJK font (no tofu)."""

from __future__ import annotations

import json
import shutil
import unicodedata
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from controller.core.exceptions import ScoreboardError
from controller.ui.scoreboard import Scoreboard, start_scoreboard
from controller.ui.tableview import ViewEvent
from tests.browser import DevTools, browser
from tests.controller.ui.test_cjk_text import font_covering
from tests.typed_events import untyped_event

WINNERS = {"B": "banker", "P": "player", "T": "tie"}
FOOTER_TEXT = "[...document.querySelectorAll('#responsible-gaming p')].map(p => p.lang + ' ' + p.innerText)"
BOARD_TEXT = "[...document.querySelectorAll('header, main')].map(node => node.innerText).join('\\n')"
KOREAN = ("빅로드", "비드 플레이트", "빅아이보이", "스몰로드", "콕로치피그", "최근 결과", "범례", "뱅커 페어",
          "플레이어 페어", "내추럴", "남은 카드", "컷 카드", "슈 1", "4번째 게임", "바카라", "실시간")
ENGLISH = ("Big road", "Bead plate", "Big eye boy", "Small road", "Cockroach pig", "Last results", "Legend",
           "Banker", "Player", "Tie", "Natural", "Cards left", "Cut card", "Shoe", "Game", "Rounds", "BACCARAT",
           "live", "natural", "pair")


def result(round_number: int, letter: str, **flags: bool) -> ViewEvent:
    return untyped_event({"event": "result", "round": round_number, "shoe": 1, "winner": WINNERS[letter],
                          "player": {"cards": ["2S", "3H"], "total": 5}, "banker": {"cards": ["4D", "3C"], "total": 7},
                          "natural": False, "player_pair": False, "banker_pair": False, **flags})


EVENTS = [untyped_event({"event": "shoe", "shoe": 1, "status": "new"}), result(1, "B", natural=True),
          result(2, "P", player_pair=True), result(3, "T"), result(4, "B", banker_pair=True)]


@pytest.fixture
def board(request: pytest.FixtureRequest) -> Iterator[Scoreboard]:
    scoreboard = start_scoreboard("127.0.0.1", 0, languages=request.param)
    try:
        scoreboard.publish_many(EVENTS)
        yield scoreboard
    finally:
        scoreboard.close()


def shown(page: DevTools, board: Scoreboard) -> None:
    page.call("Emulation.setDeviceMetricsOverride", width=1920, height=1080, deviceScaleFactor=1, mobile=False)
    page.wait_for("document.body && document.body.dataset.seq === '" + str(board.state()["seq"]) + "'")
    page.wait_for("document.fonts.status === 'loaded'")


def fonts_drawing(page: DevTools, selector: str) -> list[str]:
    """The font families Chromium drew the text of ``selector`` with."""
    page.call("DOM.enable")
    page.call("CSS.enable")
    root = page.call("DOM.getDocument")["root"]["nodeId"]
    node = page.call("DOM.querySelector", nodeId=root, selector=selector)["nodeId"]
    fonts: list[dict[str, Any]] = page.call("CSS.getPlatformFontsForNode", nodeId=node)["fonts"]
    return [font["familyName"] for font in fonts if font.get("glyphCount", 0) > 0]


def letters(text: str) -> str:
    return "".join(char for char in text if unicodedata.category(char)[0] in "LNP")


@pytest.mark.slow
@pytest.mark.parametrize("board", [["ko"]], indirect=True)
def test_a_korean_board_has_every_word_in_korean(board: Scoreboard) -> None:
    with urllib.request.urlopen(board.url + "words.json", timeout=30) as reply:
        words = json.loads(reply.read())
    assert words["languages"] == ["ko"] and words["words"]["big_road"] == ["빅로드"]
    with browser(board.url) as page:
        shown(page, board)
        text = page.evaluate(BOARD_TEXT)
        for word in KOREAN:
            assert word in text, f"{word!r} not on the Korean board"
        leaked = [word for word in ENGLISH if word in text]
        assert not leaked, f"English on the Korean board: {leaked}\n{text}"
        assert page.evaluate("document.documentElement.lang") == "ko"
        assert page.evaluate("document.querySelectorAll('.second').length") == 0
        assert page.evaluate("document.querySelector('#stats td.n[data-stat=cut_card]').textContent") == "아직"
        board.close()
        page.wait_for("document.body.classList.contains('offline')", timeout=30)
        banner = page.evaluate("document.getElementById('offline-banner').innerText")
        assert "컨트롤러 오프라인" in banner and "OFFLINE" not in banner
        footer = page.evaluate(FOOTER_TEXT)
        assert footer == ["ko 지난 결과는 다음 결과를 예측하지 않습니다."], footer
        assert "재연결" in page.evaluate("document.getElementById('status').textContent")


@pytest.mark.slow
@pytest.mark.parametrize("board", [["zh_Hant", "en"]], indirect=True)
def test_a_macau_board_shows_english_under_the_chinese(board: Scoreboard) -> None:
    with browser(board.url) as page:
        shown(page, board)
        for key, chinese, english in (("big_road", "大路", "Big road"), ("bead_plate", "珠盤路", "Bead plate"),
                                      ("legend", "圖例", "Legend"), ("banker", "莊", "Banker"),
                                      ("player_pair", "閒對", "Player pair")):
            node = f"document.querySelector('[data-word={key}]')"
            assert page.evaluate(f"{node}.firstChild.textContent") == chinese
            assert page.evaluate(f"{node}.querySelector('.second').textContent") == english
            assert page.evaluate(f"{node}.querySelector('.second').lang") == "en"
            below = page.evaluate(f"(() => {{ const range = document.createRange();"
                                  f" range.selectNode({node}.firstChild);"
                                  f" return {node}.querySelector('.second').getBoundingClientRect().top"
                                  " >= range.getBoundingClientRect().bottom - 1; })()")
            assert below, f"the English of {key} is not under the Chinese"
        header = page.evaluate("document.querySelector('header').innerText")
        assert "牌靴 1" in header and "Shoe 1" in header and "第 4 局" in header and "Game 4" in header
        assert "百家樂" in header
        stats = page.evaluate("document.getElementById('stats').innerText")
        assert "剩餘牌數" in stats and "Cards left" in stats
        last = page.evaluate("document.querySelector('#last-results li').innerText")
        assert last.startswith("莊") and "莊對" in last  # the newest: banker with a banker pair
        assert page.evaluate("document.querySelector('#bead-plate .bead').textContent") == "莊"
        assert page.evaluate("document.documentElement.scrollHeight <= innerHeight + 1"), "the board scrolls"
        footer = page.evaluate(FOOTER_TEXT)
        assert footer == ["zh-Hant 過去的結果不能預測下一局。", "en Past results do not predict the next one."], footer
        heading = fonts_drawing(page, "[data-word=big_road]")
        assert any("CJK" in family for family in heading), f"the Chinese heading is drawn with {heading}"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("fc-list") is None, reason="fontconfig is not installed (.ci/setup installs it)")
@pytest.mark.parametrize("board", [["ko"], ["zh_Hant", "en"], ["zh_Hans"], ["ja"], ["es"]], indirect=True)
def test_an_installed_font_has_every_glyph_of_the_board(board: Scoreboard) -> None:
    with browser(board.url) as page:
        shown(page, board)
        text = letters(page.evaluate(BOARD_TEXT) + page.evaluate("document.getElementById('offline-banner')"
                                                                 ".textContent"))
    assert font_covering(text), f"no installed font draws every character of the board (tofu): {text}"


def test_a_board_language_that_is_not_known_is_refused() -> None:
    with pytest.raises(ScoreboardError, match=r"\[scoreboard\] languages: unknown language 'kr'"):
        start_scoreboard("127.0.0.1", 0, languages=["kr"])


@pytest.mark.slow
@pytest.mark.parametrize(("board", "title"), [(["ko"], "크루피어 스코어보드"), (["zh_Hant", "en"], "Croupier 記分板"),
                                              (["es"], "Marcador de Croupier"), (["en"], "Croupier scoreboard")],
                         indirect=["board"])
def test_the_pages_title_is_in_the_boards_first_language(board: Scoreboard, title: str) -> None:
    with browser(board.url) as page:
        shown(page, board)
        page.wait_for("document.documentElement.lang === " + json.dumps(board_language(board)))
        assert page.evaluate("document.title") == title


def board_language(board: Scoreboard) -> str:
    with urllib.request.urlopen(board.url + "words.json", timeout=30) as reply:
        return str(json.loads(reply.read())["languages"][0]).replace("_", "-")

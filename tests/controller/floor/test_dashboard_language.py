"""The pit dashboard page in the floor's language (``croupier floor --lang``): its words from ``/words.json``,
drawn in a real Chromium; English unchanged. The board is fed here as the broker would (``receive``)."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator

import pytest

from controller.floor.board import FloorBoard
from controller.floor.dashboard import Dashboard, start_dashboard
from controller.i18n.catalogue import Catalogue
from tests.browser import DevTools, browser

STATE = {"site": "s", "table": "t1", "status": "halted", "shoe": 1, "round": 4,
         "misdeal": {"round": 4, "kind": "foreign_card", "detail": "d", "instruction": "i"},
         "last_card_at": "2026-01-05T20:14:03.000000Z", "head": {"seq": 9, "hash": "ab"}}
PAGE_TEXT = "document.querySelector('header').innerText + '\\n' + document.getElementById('tiles').innerText"
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


@pytest.fixture
def dashboard(request: pytest.FixtureRequest) -> Iterator[Dashboard]:
    board = FloorBoard("mqtt://127.0.0.1:1883")
    board.receive("croupier/s/t1/state", json.dumps(STATE).encode())
    board.receive("croupier/s/t1/status", b"online")
    board.receive("croupier/s/t2/status", b"offline")
    served = start_dashboard(board, "127.0.0.1", 0, words=Catalogue(request.param))
    board.changed = served.changed
    try:
        yield served
    finally:
        served.close()


def shown(page: DevTools) -> str:
    page.wait_for("document.querySelectorAll('#tiles .tile').length === 2")
    page.wait_for("document.documentElement.lang !== 'en' || document.title === 'Croupier floor'")
    text: str = page.evaluate(PAGE_TEXT)
    return text


@pytest.mark.parametrize("dashboard", ["ko"], indirect=True)
def test_the_words_of_the_dashboard_come_from_the_catalogue(dashboard: Dashboard) -> None:
    with urllib.request.urlopen(dashboard.url + "words.json", timeout=30) as reply:
        answer = json.loads(reply.read())
    assert answer["language"] == "ko"
    assert answer["words"]["shoe"] == "슈" and answer["words"]["seconds_ago"] == "{seconds}초 전"


@pytest.mark.slow
@pytest.mark.parametrize("dashboard", ["en"], indirect=True)
def test_the_english_dashboard_is_unchanged(dashboard: Dashboard) -> None:
    with browser(dashboard.url) as page:
        text = shown(page)
        assert "Croupier floor" in text and "1 halted" in text and "1 offline" in text
        assert "Halted in round 4: foreign card \u2013 d (i)" in text  # the kind in words (issue 28 item 11)
        assert "Shoe" in text and "Cards left" in text and "none signed in" in text
        assert page.evaluate("document.querySelector('.tile[data-table=t1] .status').textContent") == "halted"


@pytest.mark.slow
@pytest.mark.parametrize(("dashboard", "words"), [
    ("ko", ("Croupier 플로어", "중단됨 1", "오프라인 1", "4번째 게임에서 중단됨: 외부 카드", "슈", "남은 카드",
            "로그인한 사람 없음")),
    ("zh_Hant", ("Croupier 樓面", "暫停 1", "離線 1", "第 4 局暫停: 外來的牌", "牌靴", "剩餘牌數", "無人登入")),
], indirect=["dashboard"])
def test_the_dashboard_speaks_the_floor_language(dashboard: Dashboard, words: tuple[str, ...]) -> None:
    with browser(dashboard.url) as page:
        text = shown(page)
        for word in words:
            assert word in text, f"{word!r} not on the page:\n{text}"
        left = [word for word in LATIN_WORD.findall(text) if word not in {"Croupier", "t1", "t2", "mqtt"}]
        assert left == [], f"English left: {left}\n{text}"
        assert page.evaluate("document.querySelector('.tile[data-table=t1]').dataset.status") == "halted"

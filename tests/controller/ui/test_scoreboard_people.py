"""The scoreboard as the players and the pit read it (issue 28 item 13), in a real Chromium at 1920x1080,
1280x720 and portrait 1080x1920, with two languages: nothing clipped (legend, cut-card row), one number per
meaning (no "Rounds 74" over "Round 74"), "SHOE CLOSED" once the shoe is closed instead of "live", second-language
labels large enough to read, and the roads' oldest visible column whole, never cut in half."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.ui.scoreboard import Scoreboard, start_scoreboard
from controller.ui.tableview import ViewEvent
from tests.browser import DevTools, browser
from tests.controller.ui.test_scoreboard_layout import SHOE_TWO, SIZES, show, two_shoes
from tests.typed_events import untyped_event

SMALLEST_TEXT = 12.0
"""Pixels: the smallest text on the board, a second language's too."""

CLIPPED = """(() => {
  // every element of the side panels, drawn whole inside its panel and the screen
  const cut = [];
  for (const section of document.querySelectorAll('aside section')) {
    const frame = section.getBoundingClientRect();
    for (const node of section.querySelectorAll('li, tr, h2')) {
      if (node.hidden) continue;
      const box = node.getBoundingClientRect();
      if (box.bottom > frame.bottom + 1 || box.right > frame.right + 1 || box.bottom > innerHeight + 1)
        cut.push(node.innerText.replace(/\\s+/g, ' '));
    }
  }
  return cut;
})()"""

SMALL_TEXT = """(() => {
  const small = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const parent = walker.currentNode.parentElement;
    if (!walker.currentNode.textContent.trim() || !parent.getClientRects().length) continue;
    if (parent.closest('#offline-banner, .road, #legend .cell')) continue;
    const size = parseFloat(getComputedStyle(parent).fontSize);
    if (size < %s) small.push(walker.currentNode.textContent.trim() + ' ' + size + 'px');
  }
  return small;
})()"""

HALF_COLUMNS = """(() => {
  // the first column each scrolled road shows: its left edge where the road's frame begins, or wholly inside
  const half = [];
  for (const road of document.querySelectorAll('.road')) {
    const section = road.parentElement;
    const frame = section.getBoundingClientRect().left + section.clientLeft;
    const cell = parseFloat(getComputedStyle(road).gridAutoColumns);
    const start = road.getBoundingClientRect().left;
    if (start >= frame - 0.5) continue;  // not scrolled
    const hidden = (frame - start) % cell;  // pixels of the first column shown that are scrolled off
    const cut = Math.min(hidden, cell - hidden);  // a scroll position is a whole pixel: within one of a boundary
    if (cut > 1) half.push(road.id + ' ' + (hidden / cell).toFixed(2) + ' of a column hidden');
  }
  return half;
})()"""


@pytest.fixture(params=[["zh_Hant", "en"], ["en", "ko"]], ids=["zh_Hant+en", "en+ko"])
def board(request: pytest.FixtureRequest) -> Iterator[Scoreboard]:
    scoreboard = start_scoreboard("127.0.0.1", 0, table_name="Baccarat 3", limits="Min 100 - Max 10,000",
                                  languages=request.param)
    try:
        yield scoreboard
    finally:
        scoreboard.close()


def stat_labels(page: DevTools) -> list[str]:
    return list(page.evaluate("[...document.querySelectorAll('#stats td[data-stat]')].map(td => td.dataset.stat)"))


@pytest.mark.slow
@pytest.mark.parametrize("width, height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_two_languages_fit_whole_at_every_size(board: Scoreboard, width: int, height: int) -> None:
    board.publish_many(closed(two_shoes()))  # a closed shoe: its stats have one row more
    with browser(board.url, window=(width, height)) as page:
        show(page, board, width, height)
        assert page.evaluate(CLIPPED) == [], f"clipped at {width}x{height}"
        assert page.evaluate("document.documentElement.scrollHeight <= innerHeight + 1")
        assert page.evaluate(SMALL_TEXT % SMALLEST_TEXT) == [], f"text too small at {width}x{height}"
        assert page.evaluate(HALF_COLUMNS) == [], f"a road's oldest column cut at {width}x{height}"
        labels = stat_labels(page)
        assert "cut_card" in labels and "rounds" in labels and "round" not in labels, labels
        assert page.evaluate("document.querySelector('#stats td[data-stat=\"rounds\"]').textContent") \
            == str(SHOE_TWO)


def closed(events: list[ViewEvent]) -> list[ViewEvent]:
    return [*events, untyped_event({"event": "shoe_closed", "shoe": 2, "rounds": SHOE_TWO,
                                    "results": {"banker": 0, "player": 0, "tie": 0}, "cards_seen": 0,
                                    "cards_remaining": 0, "burned": 0, "misdeals": 0})]


@pytest.mark.slow
def test_a_closed_shoe_says_so_in_the_header(board: Scoreboard) -> None:
    board.publish_many(two_shoes())
    with browser(board.url, window=(1280, 720)) as page:
        show(page, board, 1280, 720)
        status = "document.getElementById('status')"
        assert page.evaluate(f"{status}.dataset.state") == "live"
        board.publish_many(closed([]))
        page.wait_for(f"{status}.dataset.state === 'shoe_closed'", timeout=30)
        text = page.evaluate(f"{status}.innerText")
        assert "SHOE CLOSED" in text and "live" not in text, text  # both boards speak English, first or second
        board.publish(untyped_event({"event": "shoe", "shoe": 3, "status": "new"}))
        page.wait_for(f"{status}.dataset.state === 'live'", timeout=30)

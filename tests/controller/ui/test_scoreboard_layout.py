"""The web scoreboard in a real Chromium at 1920x1080, 1280x720 and portrait 1080x1920 with 90+ results:
the newest results in view, table name, limits, shoe and game number per shoe, leading ties, the latest
result marked, a legend, the whole screen used without scrolling, and a clear offline state.

Screenshots are kept as the tests' reference in ``tests/controller/ui/screenshots`` (written when missing or
with ``TESTS_UPDATE_SCREENSHOTS=1``); each run is compared with them, allowing for font rendering.
"""

from __future__ import annotations

import io
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from config.loader import load_config
from controller.core.exceptions import ConfigError
from controller.ui.scoreboard import Scoreboard, start_scoreboard
from controller.ui.tableview import ViewEvent
from tests.browser import DevTools, browser
from tests.typed_events import untyped_event

SCREENSHOTS = Path(__file__).parent / "screenshots"
WINNERS = {"B": "banker", "P": "player", "T": "tie"}
SIZES = [(1920, 1080), (1280, 720), (1080, 1920)]
SHOE_TWO = 95


def result(round_number: int, shoe: int, letter: str, **flags: bool) -> ViewEvent:
    return untyped_event({"event": "result", "round": round_number, "shoe": shoe, "winner": WINNERS[letter],
                          "player": {"cards": ["2S", "3H"], "total": 5}, "banker": {"cards": ["4D", "3C"], "total": 7},
                          "natural": False, "player_pair": False, "banker_pair": False, **flags})


def two_shoes() -> list[ViewEvent]:
    """Shoe 1 of 6 rounds, then shoe 2 of 95 (the table's round numbers run on across shoes)."""
    chance = random.Random(7)
    events: list[ViewEvent] = [untyped_event({"event": "shoe", "shoe": 1, "status": "new"})]
    events += [result(number, 1, letter) for number, letter in enumerate("BPPBTB", start=1)]
    events.append(untyped_event({"event": "shoe", "shoe": 2, "status": "new"}))
    letters = "TT" + "".join(chance.choices("BPT", weights=(46, 45, 9), k=SHOE_TWO - 2))
    for index, letter in enumerate(letters):
        events.append(result(7 + index, 2, letter, natural=index % 3 == 0, player_pair=index % 11 == 0,
                             banker_pair=index % 13 == 0))
    return events


@pytest.fixture
def board() -> Iterator[Scoreboard]:
    scoreboard = start_scoreboard("127.0.0.1", 0, table_name="Baccarat 3", limits="Min 100 - Max 10,000")
    try:
        yield scoreboard
    finally:
        scoreboard.close()


def show(page: DevTools, board: Scoreboard, width: int, height: int) -> None:
    page.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
    page.call("Emulation.setEmulatedMedia", features=[{"name": "prefers-reduced-motion", "value": "reduce"}])
    page.wait_for("document.body && document.body.dataset.seq === '" + str(board.state()["seq"]) + "'")
    page.evaluate("window.dispatchEvent(new Event('resize'))")
    page.wait_for("document.fonts.status === 'loaded'")


IN_VIEW = """(() => {
  const node = document.querySelector(%r);
  const box = node.getBoundingClientRect(), frame = node.closest('section').getBoundingClientRect();
  return box.left >= frame.left - 1 && box.right <= frame.right + 1 && box.left >= 0
      && box.top >= frame.top - 1 && box.bottom <= frame.bottom + 1
      && box.right <= innerWidth && box.bottom <= innerHeight && box.width > 0;
})()"""


def compare_with_reference(page: DevTools, tmp_path: Path, width: int, height: int) -> None:
    from PIL import Image, ImageChops, ImageStat

    shot = page.screenshot(tmp_path / "shot.png", width, height)
    reference = SCREENSHOTS / f"scoreboard-{width}x{height}.png"
    taken = Image.open(shot).convert("RGB")
    if os.environ.get("TESTS_UPDATE_SCREENSHOTS") == "1" or not reference.exists():
        small = io.BytesIO()
        taken.quantize(colors=48).save(small, format="PNG", optimize=True)
        reference.write_bytes(small.getvalue())
    kept = Image.open(reference).convert("RGB")
    assert kept.size == taken.size == (width, height)
    scale = (width // 8, height // 8)
    difference = ImageChops.difference(kept.resize(scale), taken.resize(scale))
    mean = sum(ImageStat.Stat(difference).mean) / 3
    assert mean < 6, f"the page looks different from {reference.name} (mean difference {mean:.1f}/255)"


@pytest.mark.slow
@pytest.mark.parametrize("width, height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_board_at_casino_display_sizes(board: Scoreboard, tmp_path: Path, width: int, height: int) -> None:
    board.publish_many(two_shoes())
    with browser(board.url, window=(width, height)) as page:
        show(page, board, width, height)
        assert page.evaluate("document.querySelectorAll('#bead-plate .bead').length") == SHOE_TWO
        columns = page.evaluate("Math.max(...[...document.querySelectorAll('#big-road .ring')]"
                                ".map(n => Number(n.dataset.col))) + 1")
        visible = page.evaluate("document.getElementById('big-road').parentElement.clientWidth")
        cell = page.evaluate("parseFloat(getComputedStyle(document.getElementById('big-road')).gridAutoColumns)")
        assert columns * cell > visible, "the shoe's big road is wider than its screen: it must scroll"
        for selector in ("#big-road .latest", "#bead-plate .latest", "#big-eye-boy .derived:last-child",
                         "#small-road .derived:last-child", "#cockroach-pig .derived:last-child",
                         "#legend li:last-child", "#last-results li:last-child"):
            assert page.evaluate(IN_VIEW % selector), f"{selector} is off the screen at {width}x{height}"
        assert page.evaluate("document.querySelectorAll('.latest').length") == 2
        assert page.evaluate("document.querySelector('#bead-plate .latest') === "
                             "document.querySelector('#bead-plate').lastElementChild")
        # the whole screen is used, and nothing needs scrolling
        assert page.evaluate("document.documentElement.scrollHeight <= innerHeight + 1")
        assert page.evaluate("document.getElementById('responsible-gaming').getBoundingClientRect().bottom"
                             " <= innerHeight + 1")
        used = page.evaluate("document.querySelector('main').getBoundingClientRect().height / innerHeight")
        assert used > 0.75
        big_cell = page.evaluate("document.querySelector('#big-road .ring').getBoundingClientRect().height")
        assert big_cell >= height / 60, "the road cells are too small for a wall display"
        header = page.evaluate("document.querySelector('header').innerText")
        assert "Baccarat 3" in header and "Min 100 - Max 10,000" in header
        assert "Shoe 2" in header and f"Game {SHOE_TWO}" in header
        newest = page.evaluate("(() => { const li = document.querySelector('#last-results li');"
                               " return [li.dataset.game, li.className]; })()")
        assert newest == [str(SHOE_TWO), "latest-result"]
        legend = page.evaluate("document.getElementById('legend').innerText")
        for word in ("Banker", "Player", "Tie", "Banker pair", "Player pair", "Natural", "Latest result"):
            assert word in legend
        assert page.evaluate(IN_VIEW.replace("node.closest('section')", "node") % "#legend")
        compare_with_reference(page, tmp_path, width, height)


def test_game_numbers_start_again_with_each_shoe(board: Scoreboard) -> None:
    board.publish_many(two_shoes())
    state: dict[str, Any] = board.state()
    assert state["shoe"]["games"] == SHOE_TWO
    assert [entry["game"] for entry in state["last_results"]] == list(range(SHOE_TWO - 11, SHOE_TWO + 1))
    assert state["last_results"][-1]["round"] == 6 + SHOE_TWO  # the table's round number runs on
    assert state["table"] == {"name": "Baccarat 3", "limits": "Min 100 - Max 10,000"}


@pytest.mark.slow
def test_leading_ties_are_drawn(board: Scoreboard) -> None:
    board.publish_many([result(1, 1, "T"), result(2, 1, "T"), result(3, 1, "T")])
    with browser(board.url) as page:
        show(page, board, 1280, 720)
        assert page.evaluate("document.querySelector('#big-road .leading').dataset.leadingTies") == "3"
        assert page.evaluate("document.querySelector('#big-road .leading .tie-mark').textContent") == "3"
        board.publish(result(4, 1, "B"))
        page.wait_for("document.querySelector('#big-road .ring.B') !== null")
        assert page.evaluate("document.querySelector('#big-road .ring.B').dataset.leadingTies") == "3"
        assert page.evaluate("document.querySelectorAll('#big-road .leading').length") == 0


@pytest.mark.slow
def test_a_stopped_controller_shows_offline() -> None:
    board = start_scoreboard("127.0.0.1", 0)
    try:
        board.publish_many([result(1, 1, "B")])
        with browser(board.url) as page:
            show(page, board, 1280, 720)
            assert page.evaluate("document.body.classList.contains('offline')") is False
            assert page.evaluate("document.getElementById('offline-banner').offsetHeight") == 0
            board.close()
            page.wait_for("document.body.classList.contains('offline')", timeout=30)
            banner = page.evaluate("document.getElementById('offline-banner').innerText")
            assert "CONTROLLER OFFLINE" in banner
            assert page.evaluate("document.getElementById('offline-banner').offsetHeight") > 0
            assert "offline" in page.evaluate("document.getElementById('status').textContent")
    finally:
        board.close()


@pytest.mark.parametrize("key, value, fragment", [
    ("table_name", "x" * 41, "at most 40 characters"),
    ("limits", "y" * 81, "at most 80 characters"),
    ("table_name", "Bac\ncarat", "no control characters"),
])
def test_scoreboard_config_is_validated(tmp_path: Path, key: str, value: str, fragment: str) -> None:
    path = tmp_path / "board.toml"
    path.write_text(f'[scoreboard]\n{key} = "{value.encode("unicode_escape").decode()}"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={})
    assert fragment in str(caught.value) and key in str(caught.value) and "scoreboard" in str(caught.value)
    good = tmp_path / "good.toml"
    good.write_text('[scoreboard]\ntable_name = "Baccarat 3"\nlimits = "Min 100 - Max 10,000"\n', encoding="utf-8")
    settings = load_config(good, environ={})
    assert (settings.scoreboard.table_name, settings.scoreboard.limits) == ("Baccarat 3", "Min 100 - Max 10,000")


WHOLE_ENTRIES = """(() => {
  const frame = document.getElementById('last-results').getBoundingClientRect();
  return [...document.querySelectorAll('#last-results li')].filter(li => !li.hidden).map(li => {
    const box = li.getBoundingClientRect();
    return [li.innerText, li.scrollWidth <= li.clientWidth + 1 && box.right <= frame.right + 1
            && box.bottom <= frame.bottom + 1 && box.bottom <= innerHeight];
  });
})()"""


@pytest.mark.slow
@pytest.mark.parametrize("width, height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_last_results_are_shown_whole(board: Scoreboard, width: int, height: int) -> None:
    marked = [result(7 + SHOE_TWO + index, 2, letter, natural=True, banker_pair=True, player_pair=index != 1)
              for index, letter in enumerate("BPB")]
    board.publish_many(two_shoes() + marked)
    with browser(board.url, window=(width, height)) as page:
        show(page, board, width, height)
        entries = page.evaluate(WHOLE_ENTRIES)
        assert len(entries) >= 3, f"only {len(entries)} last results at {width}x{height}"
        cut = [text for text, whole in entries if not whole]
        assert not cut, f"cut off at {width}x{height}: {cut}"
        newest = entries[0][0]
        assert newest.startswith("Banker") and "natural" in newest and "banker pair" in newest \
            and "player pair" in newest, f"the newest entry is not whole: {newest!r}"

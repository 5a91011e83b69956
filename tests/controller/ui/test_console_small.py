"""The dealer console at 80x24: everything on screen without scrolling, between rounds and mid-round."""

from __future__ import annotations

import asyncio

import pytest
from textual.containers import VerticalScroll

from controller.ui.console import COMPACT_ROWS, DealerConsole
from controller.ui.roads import RESPONSIBLE_GAMING_LINE, RESPONSIBLE_GAMING_LINE_KO
from tests.consoles import console_dealt
from tests.controller.ui.test_console import rendered
from tests.controller.ui.test_console_moments import PAIRS_AND_DERIVED
from tests.controller.ui.test_console_sizes import settled
from tests.pilot_wait import settle
from tests.tokens import table_of

SMALL = (80, 24)


@pytest.mark.parametrize("tokens", [
    PAIRS_AND_DERIVED,                       # between rounds, with roads
    PAIRS_AND_DERIVED + " @next AS 6C",      # mid-round: P2 is due
], ids=["between-rounds", "mid-round"])
def test_at_80x24_the_responsible_gaming_lines_are_whole_and_nothing_scrolls(tokens: str) -> None:
    async def main() -> None:
        app = console_dealt(tokens)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            main_area = app.screen.query_one("#main", VerticalScroll)
            assert main_area.max_scroll_y == 0, "the console scrolls at 80x24"
            gaming = app.screen.query_one("#responsible-gaming")
            assert gaming.region.bottom <= 23, f"the responsible-gaming lines end at row {gaming.region.bottom}"
            rows = rendered(app, "#responsible-gaming").splitlines()
            assert RESPONSIBLE_GAMING_LINE in rows[0] and RESPONSIBLE_GAMING_LINE_KO in rows[-1], \
                "each line whole on its row"

    asyncio.run(main())


def test_at_80x24_a_hand_is_one_row_with_the_due_slot_marked() -> None:
    async def main() -> None:
        app = console_dealt(PAIRS_AND_DERIVED + " @next AS 6C")
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            player = rendered(app, "#player-hand")
            assert player == "PLAYER total 1  P1 A♠ P2 ·· P3 ··"
            widget = app.screen.query_one("#player-hand")
            assert widget.region.height == 1
            label = [span for span in app._hand("player", ("P1", "P2", "P3"), compact=True).spans
                     if "reverse" in str(span.style)]
            assert len(label) == 1, "exactly one slot is marked as due"

    asyncio.run(main())


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
def test_a_misdeals_keys_are_in_large_type_and_fit(size: tuple[int, int]) -> None:
    async def main() -> None:
        app = console_dealt(PAIRS_AND_DERIVED + " @next AS 6C 7S @exposed")
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            assert app.view.misdeal is not None and app.view.misdeal["kind"] == "exposed_card"
            keys = rendered(app, "#next-action")
            assert "BURN" not in keys and "USE" not in keys, f"the keys are small text: {keys!r}"
            assert keys.count("\n") >= 2 and any(block in keys for block in "█▀▄"), "drawn in block letters"
            assert app.screen.query_one("#next-action").region.bottom <= size[1] - 1, "the keys are off screen"
            if size[1] < COMPACT_ROWS:  # the roads make way while halted
                assert app.screen.query_one("#main", VerticalScroll).max_scroll_y == 0, "the misdeal screen scrolls"
            words = rendered(app, "#misdeal")
            assert "press B" in words and "press U" in words

    asyncio.run(main())


def test_long_large_type_wraps_between_key_groups() -> None:
    from controller.ui.bigtext import big_width, wrap_big

    lines = wrap_big("M TYPE+SUP  B BURN  V VOID+SUP", 76)
    assert lines == ["M TYPE+SUP  B BURN", "V VOID+SUP"]
    assert all(big_width(line) <= 76 for line in lines)
    assert wrap_big("SUPERCALIFRAGILISTIC", 20) is None


@pytest.mark.parametrize("language", ["en", "es", "ko", "ja", "zh_Hant", "zh_Hans"])
def test_at_80_columns_the_top_line_keeps_the_cards_left_the_reader_and_the_alerts_whatever_the_dealers_name(
        language: str) -> None:
    """The top line is always in view with the shoe, round, dealer, cards left, reader and open alerts: a long
    dealer's name cut the reader's status and the alert count off the end of it (in every language at 80x24)."""
    from config.loader import load_config
    from controller.core.inputs import parse_tokens
    from controller.core.table import Table
    from controller.i18n.catalogue import Catalogue
    from controller.ui.console import DealerConsole
    from controller.ui.console_words import reader_word
    from tests.controller.core.test_snapshot import DEALER, SUPERVISOR

    layers: dict[str, dict[str, object]] = {
        "shoe": {"burn": "none"}, "bets": {"alert_above": {"player": -0.5, "banker": -0.5}},
        "auth": {"enabled": True, "reader": "pcsc://?reader=Virtual PCD 00 01",
                 "badges": {DEALER: {"name": "Alexandra Montgomery-Smith", "role": "dealer"},
                            SUPERVISOR: {"name": "Sam Lee", "role": "supervisor"}}}}
    table = Table(load_config(environ={}, overrides=layers))
    events = table.start()
    for item in parse_tokens(f"@badge {DEALER} @shoe 9S 8H KD 2C @next @offline"):
        events += table.handle(item)
    view = table.view
    assert len(view.alerts) == 2 and not view.reader_online
    words = Catalogue(language)
    seen: dict[str, str] = {}

    async def main() -> None:
        app = DealerConsole(events=events, table=view, words=words)
        async with app.run_test(size=(80, 24)) as pilot:
            await settled(pilot)  # the supervisor's advantages on the status line: the fitting gives it up
            seen["top"] = rendered(app, "#top-bar")
            assert app.screen.query_one("#main", VerticalScroll).max_scroll_y == 0, "the console scrolls at 80x24"

    asyncio.run(main())
    top = " ".join(seen["top"].split())  # a line still too wide wraps onto a second row
    assert str(view.cards_left) in top and reader_word("offline", words) in top, top
    assert words.say("console.top.alerts", "{count} ALERTS OPEN", count=2) in top, top
    assert "Alexand" in top, top


SET_ASIDE = "5H 2C 3C 4C 6C 3S KD 5H @exposed @burn 6H 9C"
"""5H turned for the burn and five more burned; round 1's exposed card set aside."""
AT_80X24 = {
    "between rounds": SET_ASIDE,
    "mid-round": SET_ASIDE + " @next 4S",
    "halted on a misdeal": SET_ASIDE + " @next 4S 8D 2H @exposed",
}


def shown_at_80x24(app: DealerConsole, selector: str) -> str:
    """The text of a widget the dealer sees at 80x24 (empty when it is hidden or off screen)."""
    widget = app.screen.query_one(selector)
    if not widget.display or widget.region.height == 0 or widget.region.bottom > SMALL[1]:
        return ""
    return rendered(app, selector)


@pytest.mark.parametrize("moment", list(AT_80X24))
def test_at_80x24_the_dealer_sees_the_burned_and_set_aside_cards_and_what_to_do(moment: str) -> None:
    """Below 30 rows the status line was hidden: the burned and set-aside counts were nowhere on an 80x24 terminal,
    a standard one. They are on the top line there, always in view, beside the cards left; the next instruction,
    the misdeal and its keys too, nothing scrolls."""
    table = table_of()

    async def main() -> None:
        app = console_dealt(AT_80X24[moment], table=table)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await settle(pilot)
            assert app.screen.has_class("compact")
            top = " ".join(shown_at_80x24(app, "#top-bar").split())
            assert f"LEFT {table.cards_left}" in top, top
            assert f"BURNED {len(table.burned)}" in top and f"SET ASIDE {len(table.discarded)}" in top, top
            assert shown_at_80x24(app, "#next-action-text"), "the next instruction is off screen"
            if moment == "halted on a misdeal":
                keys = shown_at_80x24(app, "#next-action")
                assert any(block in keys for block in "█▀▄"), "the misdeal's keys in large type"
                assert "press B" in shown_at_80x24(app, "#misdeal")
            assert app.screen.query_one("#main", VerticalScroll).max_scroll_y == 0, "the console scrolls at 80x24"

    asyncio.run(main())
    assert len(table.discarded) == 1 and len(table.burned) == 6, (table.discarded, table.burned)


def test_at_80x24_an_approval_awaited_stays_on_the_status_line() -> None:
    """The status line makes way below 30 rows but for what is shown nowhere else there: the approval awaited."""
    from controller.ui.console_words import status_parts
    from controller.ui.tableview import TableView

    view = TableView()
    view.approval = "void"
    parts = status_parts(view, compact=True)
    assert parts == ["Awaiting supervisor: a void"], parts
    assert status_parts(TableView(), compact=True) == []

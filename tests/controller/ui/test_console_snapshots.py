"""Snapshot tests of the dealer console: the whole screen, rendered headless, compared with the checked-in SVG.

Update after a deliberate change of the console's look:
``python -m pytest tests/controller/ui/test_console_snapshots.py --snapshot-update`` and review the SVGs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest_textual_snapshot  # noqa: F401  (the snap_compare fixture; installed by the test extra)

from config.loader import load_config
from controller.core.events import InstructionEvent
from controller.core.table import Table
from tests.consoles import console_dealt
from tests.tokens import NO_BURN, table_of
from tests.typed_events import expect

SIZE = (120, 48)


def test_waiting_for_the_players_third_card(snap_compare: Any) -> None:
    app = console_dealt("3S 9C 2H 4D")
    assert snap_compare(app, terminal_size=SIZE)


def test_result_with_roads_after_several_rounds(snap_compare: Any) -> None:
    rounds = "3S KD 5H 9C @next 9S 8H KD 2C @next 4D 5D 4C 5C @next 7H 7D KH JD"
    app = console_dealt(rounds)
    assert snap_compare(app, terminal_size=SIZE)


def test_misdeal_banner(snap_compare: Any) -> None:
    app = console_dealt("3S ??")
    assert snap_compare(app, terminal_size=SIZE)


AUTH = """
[shoe]
burn = "none"
[auth]
enabled = true
reader = "pcsc://?reader=Virtual PCD 00 01"
[auth.badges.04A1B2C3D4E5F6]
name = "Alice Martin"
role = "dealer"
"""


def test_awaiting_a_supervisor_with_the_dealer_shown(snap_compare: Any, tmp_path: Path) -> None:
    path = tmp_path / "auth.toml"
    path.write_text(AUTH, encoding="utf-8")
    table = Table(load_config(path, environ={}))
    app = console_dealt("@badge 04A1B2C3D4E5F6 @shoe 3S @double @void", table, confirm=False)
    assert expect(table.view.next, InstructionEvent)["action"] == "approval"
    assert snap_compare(app, terminal_size=SIZE)


UNSHUFFLED = " ".join(rank + "S" for rank in "A2345")  # new-deck order: the alert comes with the fifth card
SMALL = (80, 24)
LARGE = (220, 60)
MANY_ROUNDS = " @next ".join(["3S KD 5H 9C", "9S 8H KD 2C", "4D 5D 4C 5C", "7H 7D KH JD", "4S 3H 4H 3D"] * 4)


def test_an_open_alert_in_large_type(snap_compare: Any) -> None:
    app = console_dealt(UNSHUFFLED)
    assert snap_compare(app, terminal_size=SIZE)


def test_banker_wins_in_red_with_the_score(snap_compare: Any) -> None:
    app = console_dealt("3S KD 5H 9C")
    assert snap_compare(app, terminal_size=SIZE)


def test_third_card_to_banker_with_its_rule(snap_compare: Any) -> None:
    app = console_dealt("3S 9C AH 4D 4C")
    assert snap_compare(app, terminal_size=SIZE)


def test_cut_card_out(snap_compare: Any) -> None:
    app = console_dealt("3S KD 5H 9C @cut")
    assert snap_compare(app, terminal_size=SIZE)


def test_last_round(snap_compare: Any) -> None:
    app = console_dealt("3S KD 5H 9C @cut @next 9S 8H KD 2C @next 9D")
    assert snap_compare(app, terminal_size=SIZE)


def test_shoe_closed_with_the_last_result_and_the_report(snap_compare: Any) -> None:
    app = console_dealt("3S KD 5H 9C @cut @next 9S 8H KD 2C @next 9D KH 9C 2H")
    assert snap_compare(app, terminal_size=SIZE)


def test_exposed_card_misdeal_with_the_keys(snap_compare: Any) -> None:
    app = console_dealt("3S KD 5H @exposed")
    assert snap_compare(app, terminal_size=SIZE)


def test_hand_entered_card_marked(snap_compare: Any) -> None:
    app = console_dealt("3S ?? @manual 4D")
    assert snap_compare(app, terminal_size=SIZE)


def test_resumed_from_a_journal(snap_compare: Any) -> None:
    app = console_dealt("3S KD 5H 9C @next 9S 8H KD 2C @next", resumed=True)
    assert snap_compare(app, terminal_size=SIZE)


def test_close_shoe_asks_first(snap_compare: Any) -> None:
    app = console_dealt("3S KD 5H 9C")
    assert snap_compare(app, press=["c"], terminal_size=SIZE)


def test_80x24_with_roads_and_the_footer(snap_compare: Any) -> None:
    app = console_dealt(MANY_ROUNDS)
    assert snap_compare(app, terminal_size=SMALL)


def test_220x60_big_type_grows(snap_compare: Any) -> None:
    app = console_dealt(MANY_ROUNDS)
    assert snap_compare(app, terminal_size=LARGE)


def test_reveal_total_dialog(snap_compare: Any) -> None:
    table = table_of(shoe=NO_BURN, table={"dealing": "face_down", "reveal_confirm": "total"})
    app = console_dealt("2C 4D 3S 2H", table, reveal_total=True)
    assert snap_compare(app, terminal_size=SIZE, press=["r", "x", "enter"])

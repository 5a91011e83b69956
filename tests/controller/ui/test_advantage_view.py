"""The advantage alert: on the console for the supervisor only when badges are on, never on the
scoreboard or in the dealer's transcript."""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

from controller.core.events import AlertEvent, BetEdge, DealerSignedInEvent, EdgeEvent, RoundEvent, decode_event
from controller.ui.console import DealerConsole
from controller.ui.tableview import TableView, ViewEvent
from controller.ui.transcript import Transcript
from tests.controller.ui.test_console import SIZE, rendered
from tests.pilot_wait import settle
from tests.typed_events import untyped_event

ALERT = AlertEvent(id="A1", kind="advantage", severity="warning", shoe=1, round=3, bet="dragon_7", edge="1/50",
                   threshold=0.0, detail="dragon_7 is worth +2.000% to the players")
SIGNED_IN = DealerSignedInEvent(name="Ana", uid="04A1", role="dealer")
ROUND = RoundEvent(round=3, shoe=1)


def folded(*events: ViewEvent) -> TableView:
    view = TableView()
    for event in events:
        view.apply(event)
    return view


def test_the_view_keeps_the_alert_only_when_badges_are_on() -> None:
    assert folded(ROUND, ALERT).advantage == []
    view = folded(SIGNED_IN, ROUND, ALERT)
    assert view.advantage == ["dragon_7 +2.00%"]
    assert "dragon_7" not in json.dumps(view.scoreboard_state())
    view.apply(untyped_event({"event": "round", "round": 4, "shoe": 1}))
    assert view.advantage == []


def test_the_console_shows_it_to_the_supervisor_with_badges() -> None:
    async def main() -> tuple[str, str]:
        with_badges = DealerConsole(events=[SIGNED_IN, ROUND, ALERT])
        async with with_badges.run_test(size=SIZE) as pilot:
            await settle(pilot)
            with_badges.refresh_view()
            shown = rendered(with_badges, "#shoe")
        without = DealerConsole(events=[ROUND, ALERT])
        async with without.run_test(size=SIZE) as pilot:
            await settle(pilot)
            without.refresh_view()
            hidden = rendered(without, "#shoe")
        return shown, hidden

    shown, hidden = asyncio.run(main())
    assert "player advantage: dragon_7 +2.00%" in shown.replace("\n", " ")
    assert "advantage" not in hidden


def test_the_dealers_transcript_does_not_show_it_or_the_edge() -> None:
    out = io.StringIO()
    transcript: Any = Transcript(out)
    edge = EdgeEvent(round=3, shoe=1, seen=5, bets={"tie": BetEdge(ev="-1/7")})
    transcript([ROUND, edge, ALERT])
    assert out.getvalue() == "\nRound 3\n"
    assert "dragon_7" not in out.getvalue() and "-1/7" not in out.getvalue()


def test_the_transcript_names_side_bets_in_the_pays() -> None:
    out = io.StringIO()
    Transcript(out)([decode_event({"event": "settlement", "round": 1, "variant": "ez",
                      "bets": {"banker": {"outcome": "push", "net": "0"},
                               "dragon_7": {"outcome": "win", "net": "+40"}}})])
    assert "Pays per unit: banker 0, dragon 7 +40" in out.getvalue()

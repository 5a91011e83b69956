"""The last two refusals that framed an English reason (``@reveal`` without the total, a property-check finding
that cannot be parsed) carry a ``reason_id`` and are worded in the table's language; the side bets' names in
the transcript's pays line and in ``simulate``'s odds comparison follow the language too."""

from __future__ import annotations

import io
from typing import Any

import pytest

from config.loader import load_config
from controller.core.bets.names import BET_NAMES
from controller.core.events import BetOutcome, Event, SettlementEvent
from controller.core.inputs import Input, InputKind
from controller.core.table import Table
from controller.i18n.catalogue import Catalogue
from controller.ui.localise import Localiser
from controller.ui.oddscompare import bet_label
from controller.ui.transcript import Transcript

TOTAL = '([table] reveal_confirm = "total")'


def refused(settings: dict[str, Any], *inputs: Input) -> Any:
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}, **settings}))
    table.start()
    events: list[Event] = []
    for item in inputs:
        events = table.handle(item)
    rejections = [event for event in events if event["event"] == "rejected"]
    assert len(rejections) == 1, events
    return rejections[0]


def reveal_without_total() -> Any:
    cards = [Input(InputKind.CARD, code) for code in ("2C", "4D", "3S", "2H")]
    return refused({"table": {"dealing": "face_down", "reveal_confirm": "total"}},
                   Input(InputKind.SHOE), *cards, Input(InputKind.REVEAL))


def unparsable_finding() -> Any:
    return refused({}, Input(InputKind.PROPERTY_REPEAT, '{"site": "x"}'))


CASES = {
    "reveal_total": (reveal_without_total, "rejected.reveal.total_player_hand",
                     f"key the total the PLAYER hand shows, e.g. '@reveal 7' {TOTAL}"),
    "property_unparsed": (unparsable_finding, "rejected.property.fields",
                          "not a property check finding (expected the fields site, table, shoe, start, "
                          "earlier_start, length, probability, threshold)"),
}


@pytest.mark.parametrize("case", CASES)
def test_the_english_reason_is_unchanged_and_carries_an_id(case: str) -> None:
    make, reason_id, reason = CASES[case]
    event = make()
    assert event["reason"] == reason
    assert event["say"] == f"{event['input']} not accepted: {reason}"
    assert event["reason_id"] == reason_id
    assert Localiser(Catalogue("en")).event(event) == event


@pytest.mark.parametrize("case", CASES)
def test_korean_words_the_reason(case: str) -> None:
    make, _, reason = CASES[case]
    worded: Any = Localiser(Catalogue("ko")).event(make())
    out = io.StringIO()
    Transcript(out, words=Catalogue("ko"))([worded])
    for text in (worded["say"], out.getvalue()):
        assert reason not in text and "not a property" not in text and "key the total" not in text
    assert "발견 사항이 아닙니다" in worded["say"] or "플레이어 핸드의 합계" in worded["say"]


def test_the_pays_line_and_the_odds_comparison_name_side_bets_in_korean() -> None:
    round_end = SettlementEvent(round=1, variant="commission", bets={
        "dragon_7": BetOutcome(outcome="win", net="+40"), "lucky_6": BetOutcome(outcome="lose", net="-1")})
    english, korean = io.StringIO(), io.StringIO()
    Transcript(english, words=Catalogue("en"))([round_end])
    Transcript(korean, words=Catalogue("ko"))([round_end])
    assert "dragon 7 +40" in english.getvalue() and "lucky 6 -1" in english.getvalue()
    assert "dragon 7" not in korean.getvalue() and "lucky 6" not in korean.getvalue()
    assert Catalogue("ko").text(BET_NAMES["dragon_7"]) in korean.getvalue()
    for bet, name in BET_NAMES.items():
        assert bet_label(bet) == bet.replace("_", " ")
        assert bet_label(bet, Catalogue("ko")) == Catalogue("ko").text(name) != name.english()

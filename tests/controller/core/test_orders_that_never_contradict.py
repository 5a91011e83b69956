"""Issue 28 items 1-4: the table's orders never contradict each other.

A critical alert stops the table like a misdeal until it is acknowledged; advantage alerts are for the bets the
table offers, one a bet while the advantage lasts; a squeeze game reveals the hands before a third card is called;
a table whose reader is offline waits between rounds instead of halting again.
"""

from __future__ import annotations

from typing import Any

import pytest

from config.loader import load_config
from controller.core.editions import EDITIONS
from controller.core.events import (
    AlertAcknowledgedEvent,
    AlertClearedEvent,
    AlertEvent,
    AlertUpdatedEvent,
    CardEvent,
    Event,
    MisdealEvent,
    PromptEvent,
    RejectedEvent,
    RevealedEvent,
)
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.sequence_check import factory_order
from controller.core.table import Table


def table(edition: int | None = None, **sections: dict[str, Any]) -> Table:
    overrides: dict[str, Any] = {"shoe": {"burn": "none"}, "bets": {"live_edge": False}}
    for name, values in sections.items():
        overrides[name] = {**overrides.get(name, {}), **values}
    settings = load_config(environ={}, overrides=overrides)
    made = Table(settings) if edition is None else Table(settings, EDITIONS[edition])
    made.start()
    return made


def feed(on: Table, script: str) -> list[Event]:
    events: list[Event] = []
    for item in parse_tokens(script):
        events += on.handle(item)
    return events


def of(events: list[Event], kind: type[Any]) -> list[Any]:
    return [event for event in events if isinstance(event, kind)]


# -- 1. a critical alert stops the table --------------------------------------------------------------------------
def stopped_table(edition: int | None = None) -> tuple[Table, AlertEvent, list[str]]:
    """A table that dealt a factory-order deck until the unshuffled-shoe alert; the cards it did not deal yet."""
    dealt = table(edition)
    cards = factory_order(1)
    feed(dealt, "@shoe")
    for index, code in enumerate(cards):
        if "next" in dealt.view.accepts:
            feed(dealt, "@next")
        alerts = of(dealt.handle(Input(InputKind.CARD, code)), AlertEvent)
        if alerts:
            assert alerts[0].severity == "critical"
            return dealt, alerts[0], cards[index + 1:]
    raise AssertionError("a factory-order deck raised no critical alert")


def test_no_card_is_dealt_while_a_critical_alert_is_open() -> None:
    stopped, alert, rest = stopped_table()
    left = stopped.view.cards_left
    assert "next" not in stopped.view.accepts
    for code in rest[:3]:
        events = stopped.handle(Input(InputKind.CARD, code))
        assert of(events, RejectedEvent) and not of(events, CardEvent), events
        assert alert.id in of(events, RejectedEvent)[0].say
    assert stopped.view.cards_left == left - 3, "a card refused while stopped is set aside: it left the shoe"
    assert stopped.view.status == "halted" and stopped.view.stopped_by == alert.id
    assert stopped.view.slot_due is None and stopped.expecting == "hold"
    instruction = stopped.view.next
    assert alert.id in instruction["say"] and instruction["action"] == "release_alert"
    for token in ("@next", "@exposed", "??", "@double"):
        assert of(feed(stopped, token), RejectedEvent), token
    assert set(stopped.view.accepts) <= {"ack", "cut", "close"}
    released = stopped.handle(Input(InputKind.ACK, alert.id))
    assert of(released, AlertAcknowledgedEvent)
    for other in stopped.view.alerts:  # the factory order also repeats a known order: a second critical alert
        assert stopped.view.stopped_by == other.id
        assert of(stopped.handle(Input(InputKind.CARD, rest.pop())), RejectedEvent)
        stopped.handle(Input(InputKind.ACK, other.id))
    assert stopped.view.stopped_by is None
    if "next" in stopped.view.accepts:
        feed(stopped, "@next")
    assert of(stopped.handle(Input(InputKind.CARD, rest[3])), CardEvent)


def test_a_warning_does_not_stop_the_table() -> None:
    dealt = table()
    feed(dealt, "@shoe")
    events = dealt.handle(Input(InputKind.PROPERTY_OFF, "the archive is away"))
    assert [alert.severity for alert in of(events, AlertEvent)] == ["warning"]
    assert of(dealt.handle(Input(InputKind.CARD, "5H")), CardEvent)


def test_a_journal_of_the_earlier_edition_deals_on_through_a_critical_alert() -> None:
    stopped, _, rest = stopped_table(edition=2)
    if "next" in stopped.view.accepts:
        feed(stopped, "@next")
    assert of(stopped.handle(Input(InputKind.CARD, rest[0])), CardEvent)


# -- 2. advantage alerts: offered bets, one a bet while it lasts ---------------------------------------------------
def edge_table(**bets: Any) -> Table:
    return table(bets={"live_edge": True, **bets})


def test_advantage_alerts_are_for_offered_bets_and_follow_the_edge() -> None:
    """Every bet above its threshold at once (alert_above -1): only the offered ones alert, each once; a later round
    updates the same alert; when the edge falls back (alert_above then 1 cannot be met) the alert closes itself."""
    dealt = edge_table(alert_above=-1.0, offered=["player", "banker", "tie"])
    events = feed(dealt, "@shoe")
    alerts = of(events, AlertEvent)
    assert sorted(alert.bet for alert in alerts) == ["banker", "player", "tie"]
    assert {alert.bet for alert in dealt.view.alerts} == {"banker", "player", "tie"}
    feed(dealt, "5H 2C 3D 4S")  # player 8: a natural, the round is over
    events = feed(dealt, "@next")
    assert not of(events, AlertEvent), "an advantage that lasts updates its alert instead of opening another"
    updated = of(events, AlertUpdatedEvent)
    assert sorted(event.bet for event in updated) == ["banker", "player", "tie"]
    assert len(dealt.view.alerts) == 3


def test_an_advantage_alert_closes_itself_when_the_edge_ends() -> None:
    from controller.core.editions import CURRENT
    from controller.core.state import Context

    dealt = edge_table(alert_above=-1.0, offered=["player"])
    feed(dealt, "@shoe 5H 2C 3D 4S")
    settings = load_config(environ={}, overrides={"shoe": {"burn": "none"},
                                                   "bets": {"live_edge": True, "alert_above": 1.0,
                                                            "offered": ["player"]}})
    dealt.context = Context.of(settings, CURRENT)  # the house raises its threshold: the advantage is over
    events = feed(dealt, "@next")
    cleared = of(events, AlertClearedEvent)
    assert [event.id for event in cleared] == ["A1"]
    assert dealt.view.alerts == ()


def test_an_acknowledged_advantage_is_not_raised_again_while_it_lasts() -> None:
    dealt = edge_table(alert_above=-1.0, offered=["player"])
    feed(dealt, "@shoe 5H 2C 3D 4S @ack A1")
    events = feed(dealt, "@next")
    assert not of(events, AlertEvent) and not [event for event in events if event.event == "alert_updated"]


# -- 3. a squeeze game reveals the hands before a third card -------------------------------------------------------
@pytest.mark.parametrize("reveal_confirm", ["none", "total"])
def test_face_down_the_third_card_waits_for_both_hands_revealed(reveal_confirm: str) -> None:
    dealt = table(table={"dealing": "face_down", "reveal_confirm": reveal_confirm})
    events = feed(dealt, "@shoe 2H 3C 2D 4S")  # player 4 and banker 7: the player draws
    assert not [event for event in of(events, PromptEvent) if event.slot in ("P3", "B3")]
    assert dealt.view.slot_due is None and dealt.expecting == "hold"
    early = feed(dealt, "9C")
    assert [event.kind for event in of(early, MisdealEvent)] == ["extra_card"]


@pytest.mark.parametrize("reveal_confirm", ["none", "total"])
def test_face_down_the_third_card_is_called_after_the_reveals(reveal_confirm: str) -> None:
    dealt = table(table={"dealing": "face_down", "reveal_confirm": reveal_confirm})
    feed(dealt, "@shoe 2H 3C 2D 4S")
    keyed = reveal_confirm == "total"
    first = feed(dealt, "@reveal 4" if keyed else "@reveal")
    assert of(first, RevealedEvent) and not [event for event in of(first, PromptEvent) if event.slot == "P3"]
    second = feed(dealt, "@reveal 7" if keyed else "@reveal")
    assert [event.slot for event in of(second, PromptEvent)] == ["P3"]
    third = feed(dealt, "9C")  # the player's third card 9: the banker (7) stands, once P3 is revealed
    assert not [event for event in of(third, PromptEvent) if event.slot == "B3"]
    finish = feed(dealt, "@reveal 3" if keyed else "@reveal")
    assert [event.event for event in finish if event.event == "result"] == ["result"]


def test_face_down_natural_is_settled_once_the_hands_are_revealed() -> None:
    dealt = table(table={"dealing": "face_down"})
    feed(dealt, "@shoe 4H 3C 4D 4S")  # player 8: a natural
    assert not [event for event in feed(dealt, "@reveal") if event.event == "result"]
    assert [event.event for event in feed(dealt, "@reveal") if event.event == "result"] == ["result"]


# -- 4. an offline reader: wait between rounds ---------------------------------------------------------------------
def test_a_void_while_the_reader_is_offline_waits_for_it_between_rounds() -> None:
    dealt = table()
    feed(dealt, "@shoe 5H 2C @offline")
    voided = feed(dealt, "@void")
    assert not of(voided, MisdealEvent), "one outage is one misdeal"
    assert dealt.view.misdeal is None and "next" not in dealt.view.accepts
    refused = feed(dealt, "@next")
    assert of(refused, RejectedEvent)
    assert not of(refused, MisdealEvent)
    assert dealt.view.totals.misdeal == 1
    feed(dealt, "@online")
    assert of(feed(dealt, "@next 3C"), CardEvent)

"""Issue 28's contract, through `croupier simulate --json`: a critical alert stops the table, advantage alerts are
for offered bets, and a squeeze game reveals the hands before a third card is called."""

from __future__ import annotations

import json
import os
from typing import Any

from config.loader import load_config
from controller.core.sequence_check import factory_order
from tests.inprocess import croupier_in_process

OFFERED = set(load_config(environ={}).bets.offered)


def simulate(*args: str, **env: str) -> list[dict[str, Any]]:
    done = croupier_in_process("simulate", "--json", *args, env={**os.environ, **env})
    assert done.returncode in (0, 3, 4), done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_no_card_is_dealt_after_a_critical_alert_until_it_is_acknowledged() -> None:
    cards = factory_order(8)
    script = f"@shoe {' '.join(cards[:40])} @ack A1 @ack A2 {' '.join(cards[40:60])}"
    events = simulate("--no-burn", "--cards", script, CROUPIER_PROTECTION_SEQUENCE_CHECK="true",
                      CROUPIER_BETS_LIVE_EDGE="false")
    critical = [index for index, event in enumerate(events)
                if event["event"] == "alert" and event["severity"] == "critical"]
    assert critical, "a factory-order shoe raises a critical alert"
    released = max(index for index, event in enumerate(events) if event["event"] == "alert_acknowledged")
    stopped = events[critical[0] + 1:released]
    assert not [event for event in stopped if event["event"] in ("card", "burn")]
    refused = [event["input"] for event in stopped if event["event"] == "rejected"]
    assert set(refused) & set(cards[:40]), "the cards read while stopped are refused"
    assert [event for event in events[released:] if event["event"] == "card"], "released, the table deals on"


def test_advantage_alerts_only_for_offered_bets() -> None:
    events = simulate("--seed", "2", "--rounds", "400")
    alerts = [event for event in events if event["event"] == "alert" and event["kind"] == "advantage"]
    assert {alert["bet"] for alert in alerts} <= OFFERED
    open_by_bet: dict[str, str] = {}
    for event in events:
        if event["event"] == "alert" and event["kind"] == "advantage":
            assert event["bet"] not in open_by_bet, "one alert a bet while its advantage lasts"
            open_by_bet[event["bet"]] = event["id"]
        elif event["event"] in ("alert_cleared", "alert_acknowledged"):
            open_by_bet = {bet: found for bet, found in open_by_bet.items() if found != event["id"]}


def test_face_down_no_third_card_prompt_before_both_hands_are_revealed() -> None:
    events = simulate("--seed", "5", "--rounds", "60", CROUPIER_TABLE_DEALING="face_down",
                      CROUPIER_BETS_LIVE_EDGE="false")
    revealed: dict[int, set[str]] = {}
    thirds = 0
    for event in events:
        if event["event"] == "revealed":
            revealed.setdefault(event["round"], set()).add(event["side"])
        elif event["event"] == "prompt" and event["slot"] in ("P3", "B3"):
            thirds += 1
            assert revealed.get(event["round"], set()) >= {"player", "banker"}, event
    assert thirds > 10

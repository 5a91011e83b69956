"""The retained ``state`` message says what the table's core says (issue 26): the same cards left as the core and
the console after any misdeal, with a real Mosquitto and the real command."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest

from config.loader import load_config
from controller.core.inputs import parse_tokens
from controller.core.sequence_check import factory_order
from controller.core.table import Table
from tests.controller.floor.mosquitto import read_retained
from tests.inprocess import croupier_in_process


def core_cards_left(script: str) -> int:
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}}))
    table.start()
    for item in parse_tokens(script):
        table.handle(item)
    return table.view.cards_left


@pytest.mark.parametrize(("script", "left"), [
    ("@shoe 5H 2C @double @void", 412),
    ("@shoe 5H 2C 3C @exposed @burn", 413),
    ("@shoe 5H 2C ?? @manual 3C", 413),
    ("@shoe 5H 2C @double", 412),
])
def test_the_retained_state_has_the_cards_left_the_core_has(broker: str, tmp_path: Path, script: str,
                                                            left: int) -> None:
    site, table = "casino", f"t{uuid.uuid4().hex[:8]}"
    done = croupier_in_process("simulate", "--no-burn", "--cards", script, "--journal", str(tmp_path / "t.journal"),
                               "--feed", f"mqtt://{broker}/{site}/{table}")
    assert done.returncode in (0, 3, 4), done.stderr
    state = read_retained(broker, f"croupier/{site}/{table}/state")
    assert state is not None
    assert json.loads(state)["cards_left"] == left == core_cards_left(script)


def retained_state(broker: str, tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    """The retained ``state`` a ``croupier simulate ARGS --journal --feed`` run left at the broker."""
    site, table = "casino", f"t{uuid.uuid4().hex[:8]}"
    done = croupier_in_process("simulate", *args, "--journal", str(tmp_path / f"{table}.journal"),
                               "--feed", f"mqtt://{broker}/{site}/{table}", env={**os.environ, **(env or {})})
    assert done.returncode in (0, 3, 4), done.stderr
    state = read_retained(broker, f"croupier/{site}/{table}/state")
    assert state is not None
    loaded: dict[str, object] = json.loads(state)
    return loaded


def test_the_retained_state_says_whether_a_round_is_open_and_carries_the_message_ids(
        broker: str, tmp_path: Path) -> None:
    """The pit tells a table lost mid-round from one between rounds, and words the table's texts in its own
    language: both read from the state the table published, never re-derived (issue 28 item 11)."""
    halted = retained_state(broker, tmp_path, "--no-burn", "--decks", "1", "--cards", "5H 2C 3C AS AS AS")
    assert halted["in_round"] is True
    misdeal = halted["misdeal"]
    assert isinstance(misdeal, dict) and misdeal["kind"] == "foreign_card"
    assert misdeal["detail_id"] and isinstance(misdeal["detail_params"], dict) and misdeal["resolutions"]
    last = halted["last_result"]
    assert isinstance(last, dict) and last["say_id"] and isinstance(last["say_params"], dict)
    done = retained_state(broker, tmp_path, "--seed", "3", "--rounds", "2")
    assert done["in_round"] is False and done["status"] == "offline"


def test_the_retained_state_gives_each_open_alert_its_message_and_when_it_opened(broker: str, tmp_path: Path) -> None:
    cards = factory_order(8)
    state = retained_state(broker, tmp_path, "--no-burn", "--cards", f"@shoe {' '.join(cards[:40])}",
                           env={"CROUPIER_PROTECTION_SEQUENCE_CHECK": "true", "CROUPIER_BETS_LIVE_EDGE": "false"})
    alerts = state["alerts"]
    assert isinstance(alerts, list)
    critical = [alert for alert in alerts if alert["severity"] == "critical"]
    assert critical and state["stopped_by"] == critical[0]["id"]
    for alert in alerts:
        assert alert["say_id"] and isinstance(alert["say_params"], dict)
        assert isinstance(alert["at"], str) and alert["at"].endswith("Z")


def test_the_retained_state_says_a_stub_count_is_due_and_the_cards_it_should_find(broker: str,
                                                                                  tmp_path: Path) -> None:
    """``[procedures] count_every``: the pit sees that a table waits for its stub count, and the number the dealer
    should find (the core's ``stub_count``); none once counted."""
    env = {"CROUPIER_PROCEDURES_COUNT_EVERY": "1"}
    waiting = retained_state(broker, tmp_path, "--no-burn", "--cards", "@shoe 5H 2C 3C AS", env=env)
    assert waiting["stub_count"] == waiting["cards_left"] == 412
    counted = retained_state(broker, tmp_path, "--no-burn", "--cards", "@shoe 5H 2C 3C AS @count", env=env)
    assert counted["stub_count"] is None and counted["cards_left"] == 412

"""The retained ``state`` message says what the table's core says (issue 26): the same cards left as the core and
the console after any misdeal, with a real Mosquitto and the real command."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from config.loader import load_config
from controller.core.inputs import parse_tokens
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

"""What a supervisor is asked to approve names it (issue 28 item 6): "present your badge to approve manual" said
neither the card typed in nor where it goes."""

from __future__ import annotations

from pathlib import Path

from config.loader import load_config
from controller.core.events import Event
from controller.core.inputs import parse_tokens
from controller.core.table import Table

DEALER = "04A1B2C3D4E5F6"


def table_with_badges(tmp_path: Path) -> Table:
    config = tmp_path / "auth.toml"
    config.write_text('[shoe]\nburn = "none"\n\n[auth]\nenabled = true\n'
                      'reader = "pcsc://?reader=Virtual PCD 00 01"\n\n'
                      f'[auth.badges.{DEALER}]\nname = "Alice Martin"\nrole = "dealer"\n', encoding="utf-8")
    table = Table(load_config(config, environ={}))
    table.start()
    return table


def asked(table: Table, tokens: str) -> Event:
    """The instruction the table gives after ``tokens``: the supervisor's prompt."""
    events: list[Event] = []
    for item in parse_tokens(tokens):
        events += table.handle(item)
    assert [e["event"] for e in events if e["event"] == "approval_required"], events
    return [e for e in events if e["event"] == "instruction"][-1]


def test_a_hand_entered_card_awaiting_approval_is_named_with_its_slot(tmp_path: Path) -> None:
    prompt = asked(table_with_badges(tmp_path), f"@badge {DEALER} @shoe ZZ @manual QH")
    assert prompt["action"] == "approval"
    assert "QH" in prompt["say"] and "P1" in prompt["say"], prompt["say"]
    assert "approve manual" not in prompt["say"]
    assert prompt["say_params"]["card"] == "QH" and prompt["say_params"]["slot"] == "P1"


def test_a_void_awaiting_approval_names_its_round(tmp_path: Path) -> None:
    prompt = asked(table_with_badges(tmp_path), f"@badge {DEALER} @shoe 3S @double @void")
    assert prompt["say"].endswith("approve voiding round 1"), prompt["say"]

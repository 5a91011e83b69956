"""The table's answer to a shoe that restarted (issue 10 item 5): a ``shoe_restarted`` misdeal."""

from __future__ import annotations

from config.loader import load_config
from controller.core.inputs import Input, InputKind
from controller.core.machine import State
from controller.core.table import SHOE_RESTARTED, Table


def test_a_restarted_shoe_halts_the_round_until_the_supervisor_voids_it() -> None:
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}}))
    table.start()
    table.handle(Input(InputKind.SHOE))
    table.handle(Input(InputKind.CARD, "KS"))  # P1 of round 1
    events = table.handle(Input(InputKind.OFFLINE, SHOE_RESTARTED))
    misdeal = [e for e in events if e["event"] == "misdeal"]
    assert table.state is State.HALTED
    assert misdeal and misdeal[0]["kind"] == "shoe_restarted" and misdeal[0]["resolutions"] == ["void"]
    assert "restarted" in misdeal[0]["detail"] and "void" in misdeal[0]["instruction"]
    assert table.reader_online  # the line is up: the shoe talks, it lost its place
    resumed = table.handle(Input(InputKind.VOID, approver="supervisor"))
    assert [e["event"] for e in resumed if e["event"] in ("resolved", "round_voided")] == ["resolved",
                                                                                          "round_voided"]


def test_a_gap_in_the_shoes_sequence_numbers_halts_with_its_own_kind_and_the_next_card_is_set_aside() -> None:
    """Issue 25 item 2: message 3 never arrived; the card after the gap must not fill the lost card's slot."""
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}}))
    table.start()
    table.handle(Input(InputKind.SHOE))
    table.handle(Input(InputKind.CARD, "9S"))  # P1, message 1
    table.handle(Input(InputKind.CARD, "8H"))  # B1, message 2; message 3 (P2) was lost on the line
    events = table.handle(Input(InputKind.OFFLINE, "sequence_gap 2 4"))
    misdeal = [e for e in events if e["event"] == "misdeal"]
    assert table.state is State.HALTED
    assert misdeal and misdeal[0]["kind"] == "sequence_gap" and misdeal[0]["resolutions"] == ["void"]
    assert "3" in misdeal[0]["detail"] and "never arrived" in misdeal[0]["detail"]
    assert "void" in misdeal[0]["instruction"]
    held = table.handle(Input(InputKind.CARD, "2C"))  # message 4: held, not placed in P2
    assert not [e for e in held if e["event"] == "card"]
    resolved = table.handle(Input(InputKind.VOID, approver="supervisor"))
    assert [e["event"] for e in resolved if e["event"] in ("resolved", "round_voided")] == ["resolved",
                                                                                           "round_voided"]
    assert not [e for e in resolved if e["event"] == "result"]

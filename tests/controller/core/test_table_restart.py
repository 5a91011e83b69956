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

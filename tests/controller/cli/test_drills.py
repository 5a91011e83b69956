"""A scripted mock shoe waits for the table like a seeded one does, so a trainer's misdeal drill is dealt by hand."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import IO, Any

from controller.core.inputs import Input, InputKind, parse_tokens
from drivers.merged import MergedSource
from drivers.mock import MockShoe
from tests.inprocess import CROUPIER, ROOT

DRILL = "# an unreadable card in round 1: the dealer resolves it\n9H 8D ?? 2S 3C KH 4D\n"


def read_until(stdout: IO[str], events: list[dict[str, Any]], wanted: str) -> dict[str, Any]:
    for line in stdout:
        events.append(json.loads(line))
        if events[-1]["event"] == wanted or (events[-1]["event"] == "instruction"
                                              and events[-1]["action"] == wanted):
            return events[-1]
    raise AssertionError(f"the stream ended before {wanted}: {[e['event'] for e in events]}")


def test_a_scripted_misdeal_drill_waits_for_the_dealer(tmp_path: Path) -> None:
    """The defect: every scripted card became an extra-card misdeal before the dealer confirmed the shoe."""
    script = tmp_path / "drill.txt"
    script.write_text(DRILL, encoding="utf-8")
    process = subprocess.Popen(
        [*CROUPIER, "run", "--driver", f"mock://?script={script}", "--json",
         "--no-burn"],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    events: list[dict[str, Any]] = []
    try:
        read_until(process.stdout, events, "confirm_shoe")
        process.stdin.write("shoe\n")
        process.stdin.flush()
        misdeal = read_until(process.stdout, events, "misdeal")
        assert misdeal["kind"] == "unreadable_card" and misdeal["round"] == 1
        process.stdin.write("burn\n")
        process.stdin.flush()
        read_until(process.stdout, events, "result")
        process.stdin.close()
        events += [json.loads(line) for line in process.stdout.read().splitlines()]
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    misdeals = [event for event in events if event["event"] == "misdeal"]
    assert [event["kind"] for event in misdeals] == ["unreadable_card"]
    result = next(event for event in events if event["event"] == "result")
    assert result["player"]["cards"] == ["9H", "2S", "KH"] and result["banker"]["cards"] == ["8D", "3C", "4D"]
    confirmed = events.index({"event": "shoe", "shoe": 1, "status": "ready"})
    assert all(event["event"] != "card" for event in events[:confirmed])
    assert process.returncode == 0, process.stderr.read()


def test_a_held_script_still_plays_its_own_dealer_inputs() -> None:
    """A script that confirms the shoe and resolves its misdeal itself is delivered whole, as before."""
    mock = MockShoe("mock://", inputs=parse_tokens("@shoe 9H ?? @burn 8D"))
    source = MergedSource(mock, hold_when_idle=True)
    assert source.recv(0.01) == Input(InputKind.SHOE), "the script's own dealer input, while the table waits"
    assert source.recv(0.01) is None, "a card waits until the table expects one"
    source.indicate("player")
    assert source.recv(0.01) == Input(InputKind.CARD, "9H")
    assert source.recv(0.01) == Input(InputKind.UNREADABLE)
    source.indicate("hold")  # halted on the unreadable card
    assert source.recv(0.01) == Input(InputKind.BURN)
    assert source.recv(0.01) is None
    source.indicate("banker")
    assert source.recv(0.01) == Input(InputKind.CARD, "8D")
    assert source.exhausted

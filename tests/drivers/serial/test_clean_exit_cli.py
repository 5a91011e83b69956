"""A clean exit after ``--rounds N`` answers the last card it journaled (issue 28 item 18), through the command
line: the shoe emulator on a pty, ``croupier run`` twice with journals of their own. The first run's last card
was left unanswered, the emulator sent it again, and the second run called it a card not due."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import CROUPIER, ROOT, croupier_process


def events_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def cards_out(events: list[dict[str, Any]]) -> list[str]:
    return [str(event["card"]) for event in events if event["event"] in ("burn", "card") and event.get("card")]


@pytest.mark.slow
def test_a_second_controller_gets_the_next_card_not_the_last_one_again(tmp_path: Path) -> None:
    with tempfile.TemporaryFile(mode="w+") as log:
        emulator = subprocess.Popen([*CROUPIER, "shoe-emulator", "--seed", "42", "--decks", "1", "-v"], cwd=ROOT,
                                    stdout=subprocess.PIPE, stderr=log, text=True)
        try:
            assert emulator.stdout is not None
            pty = emulator.stdout.readline().split()[1]
            runs = [croupier_process("run", "--driver", f"serial://{pty}", "--json", "--auto-next", "--no-keyboard",
                                     "--rounds", "1", "--journal", str(tmp_path / f"{name}.db"), timeout=120)
                    for name in ("first", "second")]
        finally:
            emulator.kill()
            emulator.wait(timeout=30)
        log.seek(0)
        said = log.read()
    for run in runs:
        assert run.returncode == 0, run.stderr
    first, second = (events_of(run.stdout) for run in runs)
    assert not [event for event in second if event["event"] in ("rejected", "misdeal")], second
    taken = cards_out(first)
    last = len(taken)  # the emulator numbers its messages from 1: the first run's cards are messages 1..last
    assert not re.search(rf"retransmit C,{last},", said), said  # the last card journaled was answered
    simulated = croupier_process("simulate", "--seed", "42", "--decks", "1", "--rounds", "3", "--json")
    shoe = cards_out(events_of(simulated.stdout))
    assert taken == shoe[:last] and cards_out(second)[:3] == shoe[last:last + 3]

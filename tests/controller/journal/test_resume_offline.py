"""A serial table killed while its shoe is unplugged, resumed once the shoe is back (found by the acceptance
pass acc4-chaos).

The journal holds the reader's OFFLINE, so the resumed table still believes the reader is offline; the new
controller opens the line that came back, but was never told the reader is back: it refused the simulated
dealer's next round ("the card reader is offline") and halted on the shoe's next card as an extra card, a
misdeal the uninterrupted table never had. A line that opens on resume is the reader coming back: ONLINE.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import CROUPIER, ROOT, croupier_process


def _events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def _dealt(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(event["event"], str(event["card"])) for event in events
            if event["event"] in ("card", "burn") and event.get("card")]


@pytest.mark.slow  # an emulator and two controllers over a pty, one killed
def test_a_table_killed_while_its_shoe_was_unplugged_resumes_with_the_reader_back(tmp_path: Path) -> None:
    seed = 21
    link = tmp_path / "shoe"
    shoe = subprocess.Popen(
        [sys.executable, "-m", "controller.cli.shoe_emulator", "--seed", str(seed), "--decks", "1", "--link",
         str(link), "--unplug-after", "6", "--replug-after", "3", "--ack-timeout", "0.2", "--linger", "120"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT, text=True)
    journal = tmp_path / "table.journal"
    args = ["run", "--driver", f"serial://{link}", "--json", "--auto-next", "--no-keyboard", "--decks", "1",
            "--rounds", "4", "--journal", str(journal)]
    try:
        assert shoe.stdout is not None and shoe.stdout.readline().startswith("PTY")
        first = subprocess.Popen([*CROUPIER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                                 text=True)
        assert first.stdout is not None
        offline = False
        for line in first.stdout:
            event = json.loads(line)
            if event["event"] == "reader" and event["status"] == "offline":
                offline = True  # journaled before it was printed: kill the table while the shoe is unplugged
                break
        first.send_signal(signal.SIGKILL)
        first.wait(30)
        assert offline, first.stderr.read() if first.stderr else ""
        deadline = time.monotonic() + 30
        while not os.path.lexists(link) and time.monotonic() < deadline:  # the shoe is plugged in again
            time.sleep(0.05)
        resumed = croupier_process(*args, timeout=90)
    finally:
        shoe.kill()
        shoe.wait(30)
    assert resumed.returncode == 0, resumed.stderr
    printed = _events(resumed.stdout)
    # an unplug mid-round halts the table on reader_offline, uninterrupted or not; the reader back resolves it
    assert not [event for event in printed if event["event"] == "rejected"
                or (event["event"] == "misdeal" and event["kind"] != "reader_offline")], printed
    assert {"event": "reader", "status": "online"} in [
        {key: event.get(key) for key in ("event", "status")} for event in printed]
    history = croupier_process("history", str(journal), "--json")
    simulated = croupier_process("simulate", "--seed", str(seed), "--decks", "1", "--rounds", "4", "--json")
    results = [event for event in _events(history.stdout) if event["event"] == "result"]
    for event in results:
        event.pop("at")
    assert results == [event for event in _events(simulated.stdout) if event["event"] == "result"]
    from tests.controller.journal.test_recovery import journal_events

    assert _dealt([dict(event) for event in journal_events(journal)]) == _dealt(_events(simulated.stdout))

"""`croupier simulate` with game protection: face-down dealing revealed by the simulated dealer, and the
repeated-sequence alert on a second shoe that repeats the first."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from config.loader import load_config
from controller.cli import main as cli
from controller.core.events import Event
from controller.core.exceptions import ScriptError
from controller.core.inputs import Input, InputKind, card_read
from controller.core.machine import State
from controller.core.shoe import shuffled_shoe
from controller.core.table import Table
from controller.ui import transcript as transcript_module
from controller.ui.keyboard import parse_dealer_line
from controller.ui.transcript import JsonLines
from tests.inprocess import croupier_process

croupier = functools.partial(croupier_process, timeout=300)


def lines(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


@pytest.fixture
def face_down(tmp_path: Path) -> Path:
    path = tmp_path / "face_down.toml"
    path.write_text('[table]\ndealing = "face_down"\nreveal_confirm = "total"\n', encoding="utf-8")
    return path


def test_simulated_face_down_rounds_reveal_each_hand_before_the_result(face_down: Path) -> None:
    run = croupier("simulate", "--config", str(face_down), "--seed", "5", "--rounds", "60", "--json")
    assert run.returncode == 0, run.stderr
    stream = lines(run.stdout)
    results = [e for e in stream if e["event"] == "result"]
    assert len(results) == 60
    for result in results:
        round_events = [e for e in stream if e.get("round") == result["round"]]
        at = round_events.index(result)
        revealed = [e for e in round_events[:at] if e["event"] == "revealed"]
        assert [e["side"] for e in revealed][:2] == ["player", "banker"]
        assert sorted(slot for e in revealed for slot in e["slots"]) == sorted(
            e["slot"] for e in round_events if e["event"] == "card")
        assert not [e for e in round_events[at + 1:] if e["event"] == "revealed"]
        assert round_events[at + 1]["event"] == "settlement"


def test_a_face_down_script_that_stops_before_the_reveals_ends_mid_round(face_down: Path) -> None:
    run = croupier("simulate", "--config", str(face_down), "--no-burn", "--manual-next", "--json",
                   "--cards", "9S KD TH 2C @reveal 9")
    assert run.returncode == 3, run.stderr
    stream = lines(run.stdout)
    assert [e["side"] for e in stream if e["event"] == "revealed"] == ["player"]
    assert not [e for e in stream if e["event"] == "result"]
    assert "before round 1 was revealed" in run.stderr and "Traceback" not in run.stderr
    assert "the result comes after the last reveal" in run.stderr and "Message(" not in run.stderr


def whole_rounds(cards: list[str], at_least: int) -> list[str]:
    """The first cards of ``cards`` that deal whole rounds (no burn), at least ``at_least`` of them."""
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}}))
    table.start()
    table.handle(Input(InputKind.SHOE))
    for dealt, code in enumerate(cards):
        if table.state is State.ROUND_OVER:
            if dealt >= at_least:
                return cards[:dealt]
            table.handle(Input(InputKind.NEXT))
        table.handle(card_read(code))
    raise AssertionError("not enough cards")


def test_a_second_shoe_repeating_thirty_cards_of_the_first_raises_sequence_repeat() -> None:
    first = shuffled_shoe(3, 8)
    shoe_one = " ".join(whole_rounds(first, 80))
    repeated = " ".join(first[10:40])
    run = croupier("simulate", "--no-burn", "--json", "--cards", f"{shoe_one} @close @shoe {repeated}")
    stream = lines(run.stdout)
    assert "Traceback" not in run.stderr
    second = next(i for i, e in enumerate(stream) if e["event"] == "shoe" and e["shoe"] == 2)
    assert not [e for e in stream[:second] if e["event"] == "alert"]
    alerts = [e for e in stream[second:] if e["event"] == "alert"]
    assert [(a["kind"], a["shoe"], a["earlier_shoe"], a["order"], a["start"], a["earlier_start"]) for a in alerts] \
        == [("sequence_repeat", 2, 1, "dealt", 1, 11)]


def test_a_resumed_journal_continues_between_the_reveals(tmp_path: Path, face_down: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["simulate", "--config", str(face_down), "--seed", "8", "--rounds", "6", "--json"]
    assert cli.main(argv) == 0
    reference = lines(capsys.readouterr().out)

    class Crash(Exception):
        pass

    class Dying(JsonLines):
        def __call__(self, events: list[Event]) -> None:
            super().__call__(events)
            if any(e["event"] == "revealed" and e["round"] == 3 and e["side"] == "banker" for e in events):
                raise Crash

    path = tmp_path / "j.db"
    monkeypatch.setattr(transcript_module, "JsonLines", Dying)
    with pytest.raises(Crash):
        cli.main([*argv, "--journal", str(path)])
    before = lines(capsys.readouterr().out)
    monkeypatch.setattr(transcript_module, "JsonLines", JsonLines)
    assert cli.main([*argv, "--journal", str(path)]) == 0
    resumed = lines(capsys.readouterr().out)
    assert before == reference[:len(before)]
    start = len(reference) - len(resumed)
    assert resumed == reference[start:] and start <= len(before)
    assert [e for e in before if e["event"] == "result"][-1]["round"] == 2


def test_the_dealer_types_a_reveal_with_or_without_its_total() -> None:
    assert parse_dealer_line("r") == Input(InputKind.REVEAL)
    assert parse_dealer_line("reveal 7") == Input(InputKind.REVEAL, "7")
    for bad in ("r 10", "r 7H", "r x"):
        with pytest.raises(ScriptError, match=r"expected 'r' or 'r TOTAL' with a total from 0 to 9") as raised:
            parse_dealer_line(bad)
        assert repr(bad) in str(raised.value)


def test_the_transcript_shows_each_reveal(face_down: Path) -> None:
    run = croupier("simulate", "--config", str(face_down), "--seed", "3", "--rounds", "1")
    assert run.returncode == 0, run.stderr
    revealed = [line.strip() for line in run.stdout.splitlines() if line.strip().startswith("Revealed")]
    assert revealed[:2] == ["Revealed PLAYER P1 P2: KC 2H (total 2)", "Revealed BANKER B1 B2: JS 2H (total 2)"]
    assert run.stdout.index("Revealed BANKER B3") < run.stdout.index("BANKER WINS")

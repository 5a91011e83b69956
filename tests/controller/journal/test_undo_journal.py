"""``@undo`` in the journal: a journaled game with undos replays, verifies and resumes to the same events,
with a checkpoint between an input and its undo, after a crash there and after a real kill -9."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main as cli
from controller.core.events import Event
from controller.ui import transcript as transcript_module
from controller.ui.transcript import JsonLines
from tests.controller.journal.test_journal import (
    Crash,
    journal_events,
    lines_of,
    run_cli,
)
from tests.controller.journal.test_recovery import croupier, parse, run_and_kill
from tests.tokens import feed

# an undone hand-entered card, an undone exposed call, refused undos (a card read from the shoe, a result),
# and an undone hand-entered card at B2 whose wrong value made the player draw
SCRIPT = ("3S ?? @manual 9C @undo @manual 9D 5H @exposed @undo 4D @undo  "
          "2C 3C AD ?? @manual 4S @undo @manual 6S @undo  AS @undo 2D 3H 4C 9S")


def checkpoint_every_input(tmp_path: Path) -> str:
    path = tmp_path / "every-1.toml"
    path.write_text("[journal]\ncheckpoint_every = 1\n", encoding="utf-8")
    return str(path)


def argv(config: str) -> list[str]:
    return ["simulate", "--no-burn", "--cards", SCRIPT, "--json", "--config", config]


def offers_undo(event: dict[str, Any]) -> bool:
    return "undo" in event


def test_the_script_undoes_and_refuses_as_the_rules_say(tmp_path: Path) -> None:
    _, events, _ = run_cli(*argv(checkpoint_every_input(tmp_path)))
    undone = [(event["input"], event["slot"]) for event in events if event["event"] == "undone"]
    assert undone == [("@manual 9C", "B1"), ("@exposed", "P2"), ("@manual 4S", "B2")]
    refused = [event["reason"] for event in events if event["event"] == "rejected"]
    assert refused[:2] == [f"round {n} has its result; a settled round cannot be undone: call the supervisor"
                           for n in (1, 2)]
    assert refused[2].startswith("a card read from the shoe cannot be taken back")
    assert len(refused) == 3
    results = [event for event in events if event["event"] == "result"]
    assert results[0]["banker"]["cards"][0] == "9D" and results[0]["player"]["cards"] == ["3S", "5H"]
    assert results[1]["banker"]["cards"] == ["3C", "6S"] and results[1]["player"]["cards"] == ["2C", "AD"]
    assert len(results) == 3


def test_journaled_the_game_is_the_same_and_the_replay_verifies(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    config = checkpoint_every_input(tmp_path)
    _, reference, _ = run_cli(*argv(config))
    journal = tmp_path / "j.db"
    _, journaled, _ = run_cli(*argv(config), "--journal", str(journal))
    assert journaled == reference
    assert journal_events(journal) == reference
    connection = sqlite3.connect(journal)
    try:
        kinds = [kind for (kind,) in connection.execute("SELECT kind FROM records ORDER BY seq")]
    finally:
        connection.close()
    assert kinds.count("checkpoint") > 20, "a checkpoint between every input and its undo"
    assert cli.main(["audit", "verify", str(journal), "--replay"]) == 0
    assert "same events" in capsys.readouterr().out


@pytest.mark.parametrize("nth", [1, 2, 3])
def test_a_crash_right_after_an_undoable_input_resumes_and_the_undo_still_applies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, nth: int) -> None:
    config = checkpoint_every_input(tmp_path)
    _, reference, _ = run_cli(*argv(config))
    seen = {"offers": 0}

    class Dying(JsonLines):
        def __call__(self, events: list[Event]) -> None:
            super().__call__(events)
            seen["offers"] += offers_undo(dict(events[-1]))
            if seen["offers"] == nth:
                raise Crash

    monkeypatch.setattr(transcript_module, "JsonLines", Dying)
    journal = tmp_path / "j.db"
    with pytest.raises(Crash):
        cli.main([*argv(config), "--journal", str(journal)])
    before = lines_of(capsys.readouterr().out)
    assert offers_undo(before[-1])
    monkeypatch.setattr(transcript_module, "JsonLines", JsonLines)
    _, resumed, _ = run_cli(*argv(config), "--journal", str(journal))
    # the resumed run shows again the batch the crash cut off (ending with the same undo offer), then the rest
    assert before == reference[: len(before)]
    start = len(reference) - len(resumed)
    assert resumed == reference[start:] and start <= len(before) - 1
    assert resumed[len(before) - start - 1] == before[-1]
    assert any(event["event"] == "undone" for event in resumed[len(before) - start:])
    assert journal_events(journal) == reference


def test_kill_9_after_an_undoable_input_then_resume_gives_the_same_journal(tmp_path: Path) -> None:
    config = checkpoint_every_input(tmp_path)
    _, reference, _ = run_cli(*argv(config))
    first_offer = next(index for index, event in enumerate(reference) if offers_undo(event))
    journal = tmp_path / "j.db"
    killed = run_and_kill([*argv(config), "--journal", str(journal)], lines=first_offer + 1)
    assert killed.returncode == -9, "killed in the game"
    assert killed.printed == reference[: len(killed.printed)]
    finished = croupier(*argv(config), "--journal", str(journal))
    assert finished.returncode == 0, finished.stderr.decode(errors="replace")
    printed = killed.printed + parse(finished.stdout)
    assert {event["event"] for event in printed} >= {"undone"}
    assert journal_events(journal) == reference


def test_history_shows_the_undo_lines_and_no_undone_card_in_a_result(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "j.db"
    run_cli(*argv(checkpoint_every_input(tmp_path)), "--journal", str(journal))
    assert cli.main(["history", str(journal)]) == 0
    text = capsys.readouterr().out
    assert "@undo: 9C taken back from B1: enter the card again" in text
    assert "@undo: Exposed call taken back: 5H stays in P2; play on" in text
    assert "@undo: 4S taken back from B2: enter the card again" in text
    assert "9C" not in text.replace("9C taken back", ""), "an undone card is in no result"
    assert cli.main(["history", str(journal), "--json"]) == 0
    lines = lines_of(capsys.readouterr().out)
    assert [line["input"] for line in lines if line["event"] == "undone"] == ["@manual 9C", "@exposed", "@manual 4S"]
    assert all("at" in line for line in lines)


def test_the_text_transcript_says_each_undo(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", "--no-burn", "--cards", SCRIPT]) == 0
    text = capsys.readouterr().out
    assert "  << @undo: 9C taken back from B1: enter the card again" in text
    assert "  << @undo: Exposed call taken back: 5H stays in P2; play on" in text


def test_a_shoe_script_file_with_undo_tokens_and_its_json(tmp_path: Path) -> None:
    script = tmp_path / "drill.txt"
    script.write_text("# a mistyped hand-entered card, taken back\n3S ??\n@manual 9C\n@undo\n@manual 9D\n5H 4D\n",
                      encoding="utf-8")
    status, events, err = run_cli("simulate", "--no-burn", "--script", str(script), "--json")
    assert status == 0, err
    undone = [event for event in events if event["event"] == "undone"]
    assert undone == [{"event": "undone", "input": "@manual 9C", "round": 1, "slot": "B1", "card": "9C",
                       "say": "9C taken back from B1: enter the card again", "say_id": "undone.manual",
                       "say_params": {"card": "9C", "slot": "B1"}}]
    offered = [event["undo"] for event in events if "undo" in event]
    assert offered == ["@manual 9C", "@manual 9D"]
    result = next(event for event in events if event["event"] == "result")
    assert result["banker"]["cards"] == ["9D", "4D"] and result["manual"] == ["B1"]


def test_the_cards_export_after_undos_is_the_one_without_them(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    straight = "3S ?? @manual 9D 5H 4D  2C 3C AD ?? @manual 6S  AS 2D 3H 4C 9S"
    exports = []
    for name, cards in (("undone", SCRIPT), ("straight", straight)):
        journal = tmp_path / f"{name}.db"
        run_cli("simulate", "--no-burn", "--cards", cards, "--json", "--journal", str(journal))
        assert cli.main(["history", str(journal), "--cards", "--json"]) == 0
        exports.append([{key: value for key, value in row.items() if key != "at"}
                        for row in lines_of(capsys.readouterr().out)])
    undone, reference = exports
    assert undone == reference
    assert [row["entry"] for row in undone if row["slot"] in ("B1", "B2") and row["round"] <= 2] == [
        "manual", "read", "read", "manual"]


def test_the_dealers_report_does_not_count_an_undone_exposed_call() -> None:
    from datetime import UTC, datetime

    from controller.core.table import Table
    from controller.reports.dealers import Shift, TimedEvent
    from tests.controller.core.test_undo import settings

    table = Table(settings())
    at = datetime(2026, 1, 1, tzinfo=UTC)
    shift = Shift("T1", None, None, at, at)
    started = None
    for event in feed(table, "@shoe 5H 3C @exposed @undo 2D @exposed @burn"):
        started = shift.count(TimedEvent(at, event), started)
    assert shift.misdeals["exposed_card"] == 1, "only the exposed call that was resolved"


def test_a_journal_whose_checkpoints_predate_undo_still_verifies_and_resumes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Checkpoints written before undo existed keep no ``undo`` in their state (and their game no @undo)."""
    import json

    from controller.journal.store import canonical
    from tests.controller.journal.forger import forge_record

    config = checkpoint_every_input(tmp_path)
    game = ["simulate", "--seed", "5", "--rounds", "6", "--json", "--config", config]
    _, reference, _ = run_cli(*game)
    journal = tmp_path / "old.db"

    class Dying(JsonLines):
        def __call__(self, events: list[Event]) -> None:
            super().__call__(events)
            if any(event["event"] == "result" and event["round"] == 3 for event in events):
                raise Crash

    monkeypatch.setattr(transcript_module, "JsonLines", Dying)
    with pytest.raises(Crash):
        cli.main([*game, "--journal", str(journal)])
    monkeypatch.setattr(transcript_module, "JsonLines", JsonLines)
    capsys.readouterr()
    connection = sqlite3.connect(journal)
    try:
        checkpoints = connection.execute("SELECT seq, body FROM records WHERE kind = 'checkpoint'").fetchall()
    finally:
        connection.close()
    assert len(checkpoints) > 10
    for seq, body in checkpoints:
        older = json.loads(body)
        del older["state"]["undo"]
        forge_record(journal, seq, canonical(older))
    assert cli.main(["audit", "verify", str(journal), "--replay"]) == 0, capsys.readouterr().err
    capsys.readouterr()
    status, _, err = run_cli(*game, "--journal", str(journal))
    assert status == 0, err
    assert journal_events(journal) == reference

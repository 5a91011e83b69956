"""Journal checkpoints: written at every new shoe and every ``[journal] checkpoint_every`` inputs; a resume
replays only the inputs since the last one, with the same game and the same summary; ``audit verify
--replay`` checks each of them against a replay from the start and names a forged one."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main as cli
from controller.core.events import Event
from controller.journal.store import canonical
from controller.ui import transcript as transcript_module
from controller.ui.transcript import JsonLines
from tests.controller.journal.forger import forge_record, with_listed_orders
from tests.inprocess import croupier_in_process

Events = list[dict[str, Any]]
GAME = ["simulate", "--seed", "31", "--decks", "1", "--rounds", "40"]


class Crash(Exception):
    """Stands for the controller being killed."""


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``croupier ARGV`` in this process: its status, stdout and stderr."""
    run = croupier_in_process(*argv)
    return run.returncode, run.stdout, run.stderr


def lines_of(text: str) -> Events:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def config_with(tmp_path: Path, every: int) -> Path:
    path = tmp_path / f"every-{every}.toml"
    path.write_text(f"[journal]\ncheckpoint_every = {every}\n", encoding="utf-8")
    return path


def rows(path: Path) -> list[tuple[int, str, str]]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT seq, kind, body FROM records ORDER BY seq").fetchall()
    finally:
        connection.close()


def crash_after_results(monkeypatch: pytest.MonkeyPatch, results: int) -> None:
    """simulate's output dies right after it printed result number ``results``."""
    seen = {"results": 0}

    class Dying(JsonLines):
        def __call__(self, events: list[Event]) -> None:
            super().__call__(events)
            seen["results"] += sum(1 for event in events if event["event"] == "result")
            if seen["results"] >= results:
                raise Crash

    monkeypatch.setattr(transcript_module, "JsonLines", Dying)


def crashed_mid_game(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                     config: str) -> tuple[Events, Path, Events]:
    """The game's whole output, and its journal with what it printed when killed after result 30."""
    _, reference_text, _ = run_cli(*GAME, "--json", "--config", config)
    journal = tmp_path / "j.db"
    crash_after_results(monkeypatch, 30)
    with pytest.raises(Crash):
        cli.main([*GAME, "--json", "--config", config, "--journal", str(journal)])
    before = lines_of(capsys.readouterr().out)
    monkeypatch.setattr(transcript_module, "JsonLines", JsonLines)
    return lines_of(reference_text), journal, before


def test_checkpoints_at_every_new_shoe_and_every_n_inputs(tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    status, _, _ = run_cli(*GAME, "--json", "--config", str(config_with(tmp_path, 25)),
                           "--journal", str(journal))
    assert status == 0
    records = rows(journal)
    kinds = [kind for _, kind, _ in records]
    checkpoints = [index for index, kind in enumerate(kinds) if kind == "checkpoint"]
    assert len(checkpoints) >= 6
    new_shoes = 0
    inputs_since = 0
    for index, (_, kind, body) in enumerate(records):
        if kind == "input":
            inputs_since += 1
        elif kind == "events" and any(event["event"] == "shoe" and event["status"] == "new"
                                      for event in json.loads(body)["events"]):
            new_shoes += 1
            assert kinds[index + 1] == "checkpoint"  # a new shoe is always checkpointed
        elif kind == "checkpoint":
            assert kinds[index - 1] == "events" and inputs_since <= 25
            inputs_since = 0
    assert new_shoes >= 3
    assert inputs_since < 25


def test_resume_from_a_checkpoint_replays_only_since_it_and_gives_the_same_game(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    config = str(config_with(tmp_path, 20))
    reference, journal, before = crashed_mid_game(tmp_path, capsys, monkeypatch, config)
    inputs_in_journal = sum(1 for _, kind, _ in rows(journal) if kind == "input")
    status, resumed_text, err = run_cli(*GAME, "--json", "--config", config, "--journal", str(journal))
    assert status == 0, err
    replayed = int(err.split("resumed from journal")[1].split(":")[1].split("inputs replayed")[0])
    assert replayed <= 20 < inputs_in_journal
    resumed = lines_of(resumed_text)
    start = len(reference) - len(resumed)
    assert before == reference[: len(before)] and resumed == reference[start:] and start <= len(before)
    assert cli.main(["audit", "verify", str(journal), "--replay"]) == 0
    assert "same events" in capsys.readouterr().out


def test_the_summary_after_a_resume_counts_the_whole_game(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    config = str(config_with(tmp_path, 20))
    _, reference, _ = run_cli(*GAME, "--quiet", "--config", config)
    journal = tmp_path / "j.db"
    crash_after_results(monkeypatch, 25)
    with pytest.raises(Crash):
        cli.main([*GAME, "--json", "--config", config, "--journal", str(journal)])
    capsys.readouterr()
    status, summary, _ = run_cli(*GAME, "--quiet", "--config", config, "--journal", str(journal))
    assert status == 0
    assert any(kind == "checkpoint" for _, kind, _ in rows(journal))
    assert summary == reference
    assert "Summary: 40 rounds over" in summary


@pytest.mark.parametrize("forge", [
    lambda body: body["state"]["ledger"].update(seen_total=body["state"]["ledger"]["seen_total"] + 1),
    lambda body: body["state"].update(rounds_dealt=body["state"]["rounds_dealt"] + 1),
    lambda body: body.update(totals={**body["totals"], "banker": body["totals"].get("banker", 0) + 1}),
    lambda body: body.update(position=[9, 9]),
])
def test_audit_replay_names_a_forged_checkpoint(tmp_path: Path, forge: Any) -> None:
    journal = tmp_path / "j.db"
    run_cli(*GAME, "--json", "--config", str(config_with(tmp_path, 30)), "--journal", str(journal))
    seq, _, text = [row for row in rows(journal) if row[1] == "checkpoint"][2]
    body = json.loads(text)
    forge(body)
    forge_record(journal, seq, json.dumps(body, separators=(",", ":")))
    status, out, _ = run_cli("audit", "verify", str(journal))
    assert status == 0, out  # the chain itself is whole: the forger recomputed it
    status, out, err = run_cli("audit", "verify", str(journal), "--replay")
    assert status == 1
    assert f"record {seq}: the checkpoint does not match the replay" in out
    assert "Traceback" not in err


def test_a_forged_last_checkpoint_is_not_resumed_blindly(tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    argv = [*GAME, "--json", "--config", str(config_with(tmp_path, 30)), "--journal", str(journal)]
    run_cli(*argv)
    seq = [row for row in rows(journal) if row[1] == "checkpoint"][-1][0]
    forge_record(journal, seq, '{"state":{"format":1},"inputs":1}')
    status, printed, err = run_cli(*argv)
    assert status == 2
    assert printed == ""
    assert f"record {seq} is not a valid checkpoint" in err and "Traceback" not in err


def test_an_edited_record_after_the_checkpoint_stops_the_resume(tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    argv = [*GAME, "--json", "--config", str(config_with(tmp_path, 30)), "--journal", str(journal)]
    run_cli(*argv)
    last = [seq for seq, kind, _ in rows(journal) if kind == "events"][-1]
    connection = sqlite3.connect(journal)
    connection.execute("UPDATE records SET body = replace(body, ?, ?) WHERE seq = ?", ('"round":', '"round":1', last))
    connection.commit()
    connection.close()
    status, _, err = run_cli(*argv)
    assert status == 2
    assert f"record {last}" in err


def test_an_edited_record_of_the_current_shoe_before_the_checkpoint_stops_the_resume(tmp_path: Path) -> None:
    """The events a resume reads back (from the start of the shoe) are chain-checked too."""
    journal = tmp_path / "j.db"
    argv = [*GAME, "--json", "--config", str(config_with(tmp_path, 8)), "--journal", str(journal)]
    run_cli(*argv)
    records = rows(journal)
    last = [seq for seq, kind, _ in records if kind == "checkpoint"][-1]
    shoe_from = json.loads(dict((seq, body) for seq, _, body in records)[last])["shoe_from"]
    edited = next(seq for seq, kind, _ in records if shoe_from < seq < last and kind == "events")
    connection = sqlite3.connect(journal)
    connection.execute("UPDATE records SET body = replace(body, ?, ?) WHERE seq = ?", ('"round":', '"round":1', edited))
    connection.commit()
    connection.close()
    status, _, err = run_cli(*argv)
    assert status == 2
    assert f"record {edited}" in err and "Traceback" not in err


def test_a_checkpoint_is_committed_on_its_own_after_its_events_were_shown(tmp_path: Path) -> None:
    """The card's commit holds only its input and events (one fsync before the prompt); the checkpoint
    that follows them is a transaction of its own, durable too, written once the events were shown."""
    from config.loader import load_config
    from controller.app.runner import Runner
    from controller.core.table import Table
    from controller.journal.replay import attach_journal
    from drivers.mock import MockShoe

    settings = load_config(None, environ={}, overrides={"journal": {"checkpoint_every": 7}})
    log: list[str] = []

    def shown(events: list[Event]) -> None:
        log.append("shown")

    runner = Runner(Table(settings), MockShoe("mock://?seed=5&decks=1"), shown, rounds=12, new_shoes=True)
    path = tmp_path / "j.db"
    journal = attach_journal(runner, path, argv_key="own-commit")
    journal.connection.set_trace_callback(log.append)
    runner.run()
    journal.close()
    transactions: list[list[str]] = []
    after_shown: list[bool] = []
    """Each transaction: were events shown since the transaction before it began?"""
    begun = 0
    for index, entry in enumerate(log):
        if entry.startswith("BEGIN"):
            transactions.append([])
            after_shown.append("shown" in log[begun:index])
            begun = index
        elif entry.startswith("INSERT INTO records") and transactions:
            transactions[-1].append(entry)
    shapes = [(len(inserts), shown_before) for inserts, shown_before in zip(transactions, after_shown, strict=True)
              if inserts]
    checkpoints = sum(1 for _, kind, _ in rows(path) if kind == "checkpoint")
    inputs = sum(1 for _, kind, _ in rows(path) if kind == "input")
    assert checkpoints >= 5 and inputs > 40
    assert shapes.count((1, True)) == checkpoints  # each checkpoint alone, right after its events were shown
    assert all(size == 2 for size, _ in shapes if size != 1)
    assert sum(1 for size, _ in shapes if size == 2) == inputs


def test_each_earlier_shoe_is_kept_as_one_string_and_an_older_checkpoints_lists_still_replay_and_resume(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    config = str(config_with(tmp_path, 20))
    reference, journal, _ = crashed_mid_game(tmp_path, capsys, monkeypatch, config)
    kept = [(seq, json.loads(body)) for seq, kind, body in rows(journal) if kind == "checkpoint"]
    orders = [order for _, body in kept for order in body["state"]["earlier_shoes"]]
    assert len({shoe for shoe, _ in orders}) >= 2
    assert all(isinstance(cards, str) and len(cards) % 2 == 0 and len(cards) >= 40 for _, cards in orders)

    for seq, body in kept:  # as a Croupier before this one kept them: each order a list of codes
        forge_record(journal, seq, canonical(with_listed_orders(body)))
    assert cli.main(["audit", "verify", str(journal), "--replay"]) == 0
    assert "same events" in capsys.readouterr().out
    status, resumed_text, err = run_cli(*GAME, "--json", "--config", config, "--journal", str(journal))
    assert status == 0, err
    resumed = lines_of(resumed_text)
    assert resumed == reference[len(reference) - len(resumed):]

"""A resume takes each replayed round's exact live edge from the journal instead of recomputing it (the
events record of the round's first input holds it), so it costs a few milliseconds; ``audit verify
--replay`` still recomputes every edge and names a journaled one that differs. A resume after the journal's
last commit at any point gives the uninterrupted game's events."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from config.loader import load_config
from controller.app.runner import Runner
from controller.cli import main as cli
from controller.core.alerts import AlertOpener
from controller.core.bets import exact, live
from controller.core.events import Event
from controller.core.snapshot import snapshot
from controller.core.table import Table
from controller.journal.replay import attach_journal, replay, settings_from_header
from controller.journal.store import Journal
from controller.journal.verify import verify
from drivers.mock import MockShoe
from tests.controller.journal.forger import forge_record

SEED = 77


def runner_for(rounds: int) -> Runner:
    """A runner dealing ``rounds`` rounds of seeded 2-deck shoes (a checkpoint every 40 inputs)."""
    settings = load_config(None, environ={}, overrides={"journal": {"checkpoint_every": 40}})
    shown: list[Event] = []
    return Runner(Table(settings), MockShoe(f"mock://?seed={SEED}&decks=2"), shown.extend,
                  rounds=rounds, new_shoes=True)


def count_edge_computations(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    calls = {"bet_evs": 0}
    computed = exact.bet_evs

    def counting(shoe: Any) -> dict[str, Fraction]:
        calls["bet_evs"] += 1
        return computed(shoe)

    monkeypatch.setattr(live, "bet_evs", counting)
    return calls


def kinds(path: Path) -> list[tuple[int, str, str, str]]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT seq, kind, at, body FROM records ORDER BY seq").fetchall()
    finally:
        connection.close()


def test_a_resume_takes_the_replayed_rounds_edges_from_the_journal(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "j.db"
    runner = runner_for(30)
    journal = attach_journal(runner, path, argv_key={"test": SEED})
    runner.run()
    journal.close()
    records = kinds(path)
    last_checkpoint = max(seq for seq, kind, _, _ in records if kind == "checkpoint")
    edges_after = sum(body.count('"event":"edge"') for seq, kind, _, body in records
                      if kind == "events" and seq > last_checkpoint)
    assert edges_after > 0  # rounds began after the last checkpoint: the resume replays them

    calls = count_edge_computations(monkeypatch)
    resumed = runner_for(30)
    journal = attach_journal(resumed, path, argv_key={"test": SEED})
    journal.close()
    assert calls["bet_evs"] == 0

    reference = Journal.open_existing(path)
    try:
        table = Table(settings_from_header(reference.path, verify(reference).header))
        replay(reference, table)  # from the start, every edge recomputed and compared
    finally:
        reference.close()
    assert calls["bet_evs"] >= 30
    assert snapshot(resumed.table) == snapshot(table)


def forge_first_edge_after_last_checkpoint(path: Path) -> int:
    records = kinds(path)
    last_checkpoint = max(seq for seq, kind, _, _ in records if kind == "checkpoint")
    for seq, kind, _, body in records:
        if kind == "events" and seq > last_checkpoint and '"event":"edge"' in body:
            data = json.loads(body)
            for event in data["events"]:
                if event["event"] == "edge":
                    event["bets"]["banker"]["ev"] = "-1/1000"
            forge_record(path, seq, json.dumps(data, separators=(",", ":"), ensure_ascii=False))
            return seq
    raise AssertionError("no edge after the last checkpoint")


def test_audit_replay_recomputes_every_edge_and_names_a_forged_one(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.db"
    assert cli.main(["simulate", "--seed", str(SEED), "--decks", "2", "--rounds", "30", "--json",
                     "--journal", str(path)]) == 0
    seq = forge_first_edge_after_last_checkpoint(path)
    capsys.readouterr()
    assert cli.main(["audit", "verify", str(path)]) == 0  # the careful forger kept the chain whole
    capsys.readouterr()
    assert cli.main(["audit", "verify", str(path), "--replay"]) == 1
    out = capsys.readouterr().out
    assert f"record {seq}: replaying the journal gives other events than were journaled" in out


def test_a_journaled_edge_that_does_not_name_every_bet_is_recomputed(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_config(None, environ={})
    table = Table(settings)
    table.start()
    calls = count_edge_computations(monkeypatch)
    table.known_edges[(1, 1)] = {"banker": Fraction(-1, 100)}
    events = live.edge_events(settings.bets, table.decks, 1, 1, table.ledger.shown, AlertOpener(table.alerts),
                              table.known_edges.pop((1, 1)))
    assert calls["bet_evs"] == 1
    assert events[0]["event"] == "edge" and len(events[0]["bets"]) > 1


def truncated(source: Path, target: Path, last: int) -> Path:
    """A copy of the journal as a kill -9 right after the commit that wrote record ``last`` leaves it."""
    shutil.copy(source, target)
    connection = sqlite3.connect(target)
    connection.execute("DELETE FROM records WHERE seq > ?", (last,))
    connection.execute("UPDATE delivered SET seq = min(seq, ?)", (last,))
    connection.commit()
    connection.close()
    return target


def committed_boundaries(records: list[tuple[int, str, str, str]]) -> list[int]:
    """The last record of each transaction (the records of one commit share their ``at``)."""
    return [seq for (seq, _, at, _), following in zip(records, [*records[1:], None], strict=True)
            if following is None or following[2] != at]


def game_lines(out: str) -> list[Mapping[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.mark.slow  # a long run: the game resumed from each of its 40-odd commit boundaries
def test_resume_after_a_kill_between_any_two_commits_gives_the_same_events(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "every.toml"
    config.write_text("[journal]\ncheckpoint_every = 9\n", encoding="utf-8")
    game = ["simulate", "--seed", str(SEED), "--decks", "1", "--rounds", "12", "--json", "--config", str(config)]
    full = tmp_path / "full.db"
    assert cli.main([*game, "--journal", str(full)]) == 0
    reference = game_lines(capsys.readouterr().out)
    records = kinds(full)
    boundaries = committed_boundaries(records)
    assert any(kind == "checkpoint" for _, kind, _, _ in records) and len(boundaries) > 40
    for last in boundaries[:-1]:
        cut = truncated(full, tmp_path / f"cut-{last}.db", last)
        assert cli.main([*game, "--journal", str(cut)]) == 0, last
        resumed = game_lines(capsys.readouterr().out)
        assert resumed == reference[len(reference) - len(resumed):], last
        assert reference[-1] == resumed[-1]
        assert [row[3] for row in kinds(cut) if row[1] == "events"] == \
            [row[3] for row in records if row[1] == "events"], last
        cut.unlink()

"""controller.journal.store: durable journaling, tamper evidence, exact resume, audit and history (in process)."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from controller.app.runner import Runner
from controller.cli import main as cli
from controller.core.events import Event, decode_event
from controller.core.exceptions import JournalError, JournalTamperedError
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.table import Table
from controller.journal.replay import attach_journal
from controller.journal.store import GENESIS, Journal, canonical, record_hash
from controller.journal.verify import verify
from controller.ui import transcript as transcript_module
from controller.ui.transcript import JsonLines
from drivers.mock import MockShoe
from tests.badges import auth_section
from tests.controller.journal.forger import forge_record
from tests.inprocess import croupier_in_process
from tests.typed_events import plain

Events = list[dict[str, Any]]

# A script with a burn, a misdeal (unreadable card, resolved by burning it), and a few rounds.
SCRIPT = ("5H 2C 3D 4S 6H 7C  9H 8D ?? @burn 2S 3C KH 4D  "
          "AS 2D 3H 4C  7S 6D TH 9C  QS JD 5C 8C 4H  2H AH 9S 9D")


class Crash(Exception):
    """Stands for the controller being killed."""


def lines_of(text: str) -> Events:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def run_cli(*argv: str) -> tuple[int, Events, str]:
    """``croupier ARGV`` in this process: its status, its JSON events and its stderr."""
    run = croupier_in_process(*argv)
    return run.returncode, lines_of(run.stdout), run.stderr


def crashing_output(monkeypatch: pytest.MonkeyPatch, after: int, partial: bool) -> None:
    """Make simulate's JSON output die in batch ``after`` (after half its lines when ``partial``)."""
    batches = {"count": 0}

    class Dying(JsonLines):
        def __call__(self, events: list[Event]) -> None:
            batches["count"] += 1
            if batches["count"] == after:
                if partial:
                    super().__call__(events[: len(events) // 2])
                raise Crash
            super().__call__(events)

    monkeypatch.setattr(transcript_module, "JsonLines", Dying)


def journal_events(path: Path) -> Events:
    connection = sqlite3.connect(path)
    try:
        found: Events = []
        for kind, body in connection.execute("SELECT kind, body FROM records ORDER BY seq"):
            if kind in ("start", "events"):
                found.extend(json.loads(body)["events"])
        return found
    finally:
        connection.close()


def results(events: Events) -> list[str]:
    return [json.dumps(event, sort_keys=True) for event in events if event["event"] == "result"]


# -- writing ------------------------------------------------------------------------------------


def test_journaled_run_prints_what_a_plain_run_prints(tmp_path: Path) -> None:
    plain = run_cli("simulate", "--seed", "5", "--rounds", "12", "--json")
    journaled = run_cli("simulate", "--seed", "5", "--rounds", "12", "--json",
                        "--journal", str(tmp_path / "j.db"))
    assert journaled[0] == plain[0] == 0
    assert journaled[1] == plain[1]
    assert journal_events(tmp_path / "j.db") == plain[1]


def test_wal_and_full_sync(tmp_path: Path) -> None:
    journal = Journal.create_or_open(tmp_path / "j.db")
    try:
        assert journal.connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert journal.connection.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    finally:
        journal.close()


def test_input_and_events_are_committed_before_the_sink_sees_them(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    seen: list[tuple[int, list[str]]] = []

    def sink(events: list[Event]) -> None:
        # Another connection sees only committed data.
        other = sqlite3.connect(path)
        try:
            rows = other.execute("SELECT kind, body FROM records ORDER BY seq DESC LIMIT 2").fetchall()
        finally:
            other.close()
        seen.append((len(events), [kind for kind, _ in rows]))
        last = json.loads(rows[0][1])
        assert last["events"] == events

    table = Table()
    source = MockShoe("mock://?seed=3&decks=1")
    runner = Runner(table, source, sink, rounds=3)
    journal = attach_journal(runner, path, argv_key="test")
    runner.run()
    journal.close()
    assert seen[0][1] == ["start", "header"]
    assert all(kinds == ["events", "input"] for _, kinds in seen[1:])


def test_every_input_is_journaled_with_where_it_came_from(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    inputs = [*parse_tokens("5H 2C 3D 4S 6H 7C 9H 8D ??"),
              Input(InputKind.VOID, approver="Bob Stone")]
    table = Table()
    runner = Runner(table, MockShoe("mock://", inputs=inputs), lambda events: None)
    journal = attach_journal(runner, path, argv_key="approval")
    runner.run()
    journal.close()
    connection = sqlite3.connect(path)
    bodies = [json.loads(body) for (body,) in
              connection.execute("SELECT body FROM records WHERE kind = 'input' ORDER BY seq")]
    connection.close()
    assert bodies[0] == {"input": {"kind": "shoe"}, "source": False}  # the simulated dealer
    assert bodies[1] == {"input": {"kind": "card", "card": "5H"}, "source": True, "position": [1, 1]}
    assert bodies[-1]["input"] == {"kind": "void", "approver": "Bob Stone"}
    assert [b["input"].get("card") for b in bodies if b["source"]][:9] == [
        "5H", "2C", "3D", "4S", "6H", "7C", "9H", "8D", None]


# -- resume -------------------------------------------------------------------------------------


def test_resume_after_the_end_shows_only_the_current_instruction(tmp_path: Path) -> None:
    argv = ("simulate", "--seed", "9", "--rounds", "4", "--json", "--journal", str(tmp_path / "j.db"))
    first = run_cli(*argv)
    again = run_cli(*argv)
    assert again[0] == first[0] == 0
    assert again[1] == [first[1][-1]]
    assert "resumed from journal" in again[2]
    assert len(journal_events(tmp_path / "j.db")) == len(first[1])  # nothing journaled twice


@pytest.mark.slow
@pytest.mark.parametrize("partial", [False, True])
def test_crash_in_every_batch_resumes_to_the_same_game(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        partial: bool) -> None:
    argv = ["simulate", "--cards", SCRIPT, "--json"]
    counted = {"batches": 0}

    class Counting(JsonLines):
        def __call__(self, events: list[Event]) -> None:
            counted["batches"] += 1
            super().__call__(events)

    monkeypatch.setattr(transcript_module, "JsonLines", Counting)
    status, reference, _ = run_cli(*argv)
    batches = counted["batches"] - 1  # a journaled run shows the header and start in one batch
    assert batches > 20
    for after in range(1, batches + 1):
        path = tmp_path / f"j{after}.db"
        crashing_output(monkeypatch, after, partial)
        with pytest.raises(Crash):
            cli.main([*argv, "--journal", str(path)])
        before = lines_of(capsys.readouterr().out)
        monkeypatch.setattr(transcript_module, "JsonLines", JsonLines)
        resumed_status, resumed, _ = run_cli(*argv, "--journal", str(path))
        assert resumed_status == status
        assert journal_events(path) == reference, f"crash in batch {after}"
        # The resumed run starts with the batch that may not have been shown (whole), else with
        # the instruction shown last; then it is exactly the rest of the game.
        start = len(reference) - len(resumed)
        assert resumed == reference[start:]
        if not partial:
            assert before == reference[: len(before)]
            assert start <= len(before)
            if start == len(before) - 1:
                assert resumed[0] == before[-1]
        # Union of what was printed = the uninterrupted run: nothing lost, nothing foreign.
        printed = before + resumed
        assert set(results(printed)) == set(results(reference))
        wanted = Counter(json.dumps(e) for e in reference)
        shown = Counter(json.dumps(e) for e in printed)
        assert not wanted - shown and set(shown) == set(wanted)


def _crash_when(monkeypatch: pytest.MonkeyPatch, predicate: Any) -> None:
    class Dying(JsonLines):
        def __call__(self, events: list[Event]) -> None:
            super().__call__(events)
            if predicate(events[-1]):
                raise Crash

    monkeypatch.setattr(transcript_module, "JsonLines", Dying)


@pytest.mark.parametrize("where, predicate", [
    ("mid-burn", lambda e: e.get("say") == "Burn 3 more cards"),
    ("mid-round", lambda e: e["event"] == "prompt" and e["slot"] == "B2" and e["round"] == 2),
    ("halted on a misdeal", lambda e: e.get("action") == "resolve"),
])
def test_resume_exactly_where_it_stopped(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch, where: str, predicate: Any) -> None:
    argv = ["simulate", "--cards", SCRIPT, "--json"]
    _, reference, _ = run_cli(*argv)
    path = tmp_path / "j.db"
    _crash_when(monkeypatch, predicate)
    with pytest.raises(Crash):
        cli.main([*argv, "--journal", str(path)])
    before = lines_of(capsys.readouterr().out)
    assert predicate(before[-1]), where
    monkeypatch.setattr(transcript_module, "JsonLines", JsonLines)
    _, resumed, _ = run_cli(*argv, "--journal", str(path))
    assert_resumed_exactly(before, resumed, reference)


def assert_resumed_exactly(before: Events, resumed: Events, reference: Events) -> None:
    """``resumed`` shows again the last batch ``before`` ended with (it may not have been seen:
    the controller stopped before noting it was shown), ending with the same instruction, then
    exactly the rest of ``reference``."""
    assert before == reference[: len(before)]
    start = len(reference) - len(resumed)
    assert resumed == reference[start:]
    assert start <= len(before) - 1
    again = resumed[: len(before) - start]
    assert again[-1] == before[-1]  # the dealer sees the same instruction
    assert sum(1 for e in again if e["event"] in ("instruction", "prompt")
               and e.get("action") not in ("natural", "player_stands", "banker_stands")) == 1


def test_seeded_resume_moves_the_mock_to_the_right_shoe(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["simulate", "--seed", "21", "--decks", "1", "--rounds", "20", "--json"]
    _, reference, _ = run_cli(*argv)
    assert max(e["shoe"] for e in reference if e["event"] == "shoe") >= 3
    path = tmp_path / "j.db"
    _crash_when(monkeypatch, lambda e: e.get("action") == "burn" and "Turn" in e["say"]
                and e["round"] > 0)
    with pytest.raises(Crash):
        cli.main([*argv, "--journal", str(path)])
    before = lines_of(capsys.readouterr().out)
    monkeypatch.setattr(transcript_module, "JsonLines", JsonLines)
    _, resumed, _ = run_cli(*argv, "--journal", str(path))
    assert_resumed_exactly(before, resumed, reference)


def test_resume_without_seed_uses_the_journals_seed(tmp_path: Path) -> None:
    path = str(tmp_path / "j.db")
    first = run_cli("simulate", "--seed", "77", "--rounds", "3", "--json", "--journal", path)
    again = run_cli("simulate", "--rounds", "3", "--json", "--journal", path)
    assert again[0] == 0, again[2]
    assert again[1] == [first[1][-1]]


@pytest.mark.parametrize("other", [
    ["--seed", "6"], ["--decks", "6"], ["--no-burn"], ["--rounds", "5"],
])
def test_a_journal_refuses_other_arguments(tmp_path: Path, other: list[str]) -> None:
    path = str(tmp_path / "j.db")
    base = {"--seed": "5", "--rounds": "4", "--decks": "8"}
    run_cli("simulate", *[x for kv in base.items() for x in kv], "--json", "--journal", path)
    for key, value in zip(other[::2], other[1::2], strict=False):
        base[key] = value
    flags = [x for x in other if x == "--no-burn"]
    status, printed, err = run_cli("simulate", *[x for kv in base.items() for x in kv], *flags,
                                   "--json", "--journal", path)
    assert status == 2
    assert printed == []
    assert "made with other arguments" in err and path in err
    assert "Traceback" not in err


def test_other_cards_are_other_arguments(tmp_path: Path) -> None:
    path = str(tmp_path / "j.db")
    run_cli("simulate", "--cards", "5H 2C", "--json", "--journal", path)
    status, _, err = run_cli("simulate", "--cards", "5H 2D", "--json", "--journal", path)
    assert status == 2 and "cards" in err


# -- bad journals -------------------------------------------------------------------------------


@pytest.mark.parametrize("make", ["text", "empty", "other_sqlite", "directory"])
def test_not_a_journal(tmp_path: Path, make: str) -> None:
    path = tmp_path / "thing"
    if make == "text":
        path.write_text("hello, I am not a database\n" * 50)
    elif make == "empty":
        path.write_bytes(b"")
    elif make == "other_sqlite":
        connection = sqlite3.connect(path)
        connection.execute("CREATE TABLE t (x)")
        connection.commit()
        connection.close()
    else:
        path.mkdir()
    status, _, err = run_cli("audit", "verify", str(path))
    assert status == 2
    assert str(path) in err and "Traceback" not in err
    status, _, err = run_cli("history", str(path))
    assert status == 2 and str(path) in err
    if make in ("text", "other_sqlite", "directory"):
        status, printed, err = run_cli("simulate", "--seed", "1", "--json", "--journal", str(path))
        assert status == 2 and printed == [] and str(path) in err
    if make == "other_sqlite":  # someone else's database is left as it was
        connection = sqlite3.connect(path)
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert connection.execute("SELECT name FROM sqlite_master").fetchall() == [("t",)]
        connection.close()


def test_missing_journal(tmp_path: Path) -> None:
    status, _, err = run_cli("audit", "verify", str(tmp_path / "nope.db"))
    assert status == 2 and "no such journal" in err


@pytest.mark.parametrize("where", ["parent_is_a_file", "no_such_directory"])
def test_unwritable_journal_path_halts_before_any_prompt(tmp_path: Path, where: str) -> None:
    if where == "parent_is_a_file":
        (tmp_path / "file").write_text("x")
        path = tmp_path / "file" / "j.db"
    else:
        path = tmp_path / "missing" / "j.db"
    status, printed, err = run_cli("simulate", "--seed", "1", "--json", "--journal", str(path))
    assert status == 2
    assert printed == []
    assert str(path) in err and "Traceback" not in err


def test_full_disk_halts_without_showing_anything_unjournaled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A disk that fills up (SQLite's max_page_count gives the same SQLITE_FULL)."""
    argv = ["simulate", "--seed", "4", "--rounds", "60", "--json"]
    _, reference, _ = run_cli(*argv)
    path = tmp_path / "j.db"
    opened = Journal.create_or_open

    def small(target: Any, reserve: int = 0, **options: Any) -> Journal:
        journal = opened(target, reserve, **options)
        journal.connection.execute("PRAGMA max_page_count=40")
        return journal

    monkeypatch.setattr(Journal, "create_or_open", small)
    status, printed, err = run_cli(*argv, "--journal", str(path))
    assert status == 2
    assert "disk is full" in err and str(path) in err
    journaled = journal_events(path)
    assert printed == journaled  # nothing shown that is not journaled
    assert len(printed) < len(reference)
    monkeypatch.setattr(Journal, "create_or_open", opened)
    status, resumed, err = run_cli(*argv, "--journal", str(path))
    assert status == 0, err
    assert set(results(printed + resumed)) == set(results(reference))
    assert journal_events(path) == reference


# -- tamper evidence ---------------------------------------------------------------------------------


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    path = tmp_path / "j.db"
    run_cli("simulate", "--seed", "5", "--rounds", "6", "--json", "--journal", str(path))
    return path


def _edit(path: Path, *statements: tuple[str, tuple[Any, ...]]) -> None:
    connection = sqlite3.connect(path)
    for sql, parameters in statements:
        connection.execute(sql, parameters)
    connection.commit()
    connection.close()


def _row(path: Path, seq: int) -> tuple[Any, ...]:
    connection = sqlite3.connect(path)
    row = connection.execute("SELECT seq, kind, at, body, prev, hash FROM records WHERE seq = ?",
                             (seq,)).fetchone()
    connection.close()
    assert row is not None
    return tuple(row)


def test_intact_journal_verifies(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["audit", "verify", str(journal_path), "--replay"])
    out = capsys.readouterr().out
    connection = sqlite3.connect(journal_path)
    count = connection.execute("SELECT count(*) FROM records").fetchone()[0]
    connection.close()
    assert status == 0
    assert f"OK: {count} records checked" in out


def _verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = cli.main(["audit", "verify", str(path)])
    return status, capsys.readouterr().out


def test_edited_record(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(journal_path, ("UPDATE records SET body = replace(body, ':', ': ') WHERE seq = 9", ()))
    status, out = _verify(journal_path, capsys)
    assert status == 1
    assert "record 9 was edited" in out


def test_edited_record_with_its_hash_recomputed(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seq, kind, at, body, prev, _ = _row(journal_path, 12)
    forged = body.replace('"card":"', '"card":"X')
    _edit(journal_path, ("UPDATE records SET body = ?, hash = ? WHERE seq = 12",
                         (forged, record_hash(seq, kind, at, prev, forged))))
    status, out = _verify(journal_path, capsys)
    assert status == 1
    assert "record 13 does not follow record 12" in out


def test_deleted_record(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(journal_path, ("DELETE FROM records WHERE seq = 20", ()))
    status, out = _verify(journal_path, capsys)
    assert status == 1
    assert "record 20 is missing" in out and "deleted" in out


def test_deleted_record_with_renumbering(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(journal_path, ("DELETE FROM records WHERE seq = 20", ()),
          ("UPDATE records SET seq = -seq WHERE seq > 20", ()),
          ("UPDATE records SET seq = -seq - 1 WHERE seq < 0", ()))
    status, out = _verify(journal_path, capsys)
    assert status == 1
    assert "record 20 " in out and "deleted" in out


def test_deleted_tail(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(journal_path, ("DELETE FROM records WHERE seq > 30", ()))
    status, out = _verify(journal_path, capsys)
    assert status == 1
    assert "record 31 is missing" in out


def test_inserted_record(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, kind, at, body, _, _ = _row(journal_path, 9)  # an input
    *_, digest = _row(journal_path, 10)  # its events
    _edit(journal_path, ("UPDATE records SET seq = -seq WHERE seq > 10", ()),
          ("UPDATE records SET seq = -seq + 1 WHERE seq < 0", ()))
    forged = body.replace('"source":', '"forged":true,"source":')
    _edit(journal_path, ("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?)",
                         (11, kind, at, forged, digest, record_hash(11, kind, at, digest, forged))))
    status, out = _verify(journal_path, capsys)
    assert status == 1
    assert "record 11 was inserted" in out


def test_swapped_records(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(journal_path, ("UPDATE records SET seq = -1 WHERE seq = 15", ()),
          ("UPDATE records SET seq = 15 WHERE seq = 16", ()),
          ("UPDATE records SET seq = 16 WHERE seq = -1", ()))
    status, out = _verify(journal_path, capsys)
    assert status == 1
    assert "records 15 and 16 were swapped" in out


@pytest.fixture(scope="module")
def thirty_rounds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("thirty") / "j.db"
    assert croupier_in_process("simulate", "--seed", "1", "--rounds", "30", "--quiet",
                               "--journal", str(path)).returncode == 0
    return path


def _swap(path: Path, first: int, second: int) -> None:
    _edit(path, ("UPDATE records SET seq = -1 WHERE seq = ?", (first,)),
          ("UPDATE records SET seq = ? WHERE seq = ?", (first, second)),
          ("UPDATE records SET seq = ? WHERE seq = -1", (second,)))


@pytest.mark.parametrize("first, second", [(150, 160), (101, 103), (5, 7), (2, 300)])
def test_records_swapped_far_apart_are_named_as_swapped(thirty_rounds: Path, tmp_path: Path, first: int,
                                                        second: int, capsys: pytest.CaptureFixture[str]) -> None:
    """Each of the two holds the other's entry: reordered, not a deletion (docs/journal.md)."""
    path = tmp_path / "j.db"
    path.write_bytes(thirty_rounds.read_bytes())
    _swap(path, first, second)
    status, out = _verify(path, capsys)
    assert status == 1
    assert out.startswith(f"TAMPERED: {path}: record {first} was reordered: records {first} and {second} were "
                          "swapped\n"), out
    assert "deleted" not in out


def test_records_deleted_and_the_later_ones_renumbered_are_still_named_as_deleted(
        thirty_rounds: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Records 150-154 deleted and the later ones renumbered: record 150 holds the entry written as 155, but
    record 155 does not hold 150's: a deletion, not a swap."""
    path = tmp_path / "j.db"
    path.write_bytes(thirty_rounds.read_bytes())
    _edit(path, ("DELETE FROM records WHERE seq BETWEEN 150 AND 154", ()),
          ("UPDATE records SET seq = -seq WHERE seq > 154", ()),
          ("UPDATE records SET seq = -seq - 5 WHERE seq < 0", ()))
    status, out = _verify(path, capsys)
    assert status == 1
    assert out.startswith(f"TAMPERED: {path}: record 150 is missing: it was deleted and the records after it "
                          "renumbered (record 150 holds the entry written as record 155)\n"), out


def test_tampered_journal_is_not_resumed(journal_path: Path) -> None:
    _edit(journal_path, ("UPDATE records SET body = replace(body, ':', ': ') WHERE seq = 9", ()))
    status, printed, err = run_cli("simulate", "--seed", "5", "--rounds", "6", "--json",
                                   "--journal", str(journal_path))
    assert status == 2 and printed == []
    assert "record 9 was edited" in err


def test_verify_api(journal_path: Path) -> None:
    journal = Journal.open_existing(journal_path)
    try:
        verified = verify(journal)
        assert verified.header["format"] == "croupier-journal"
        assert verified.inputs == verified.events
        first = next(journal.records())
        assert first.prev == GENESIS and first.kind == "header"
    finally:
        journal.close()
    _edit(journal_path, ("UPDATE records SET at = 'x' WHERE seq = 3", ()))
    journal = Journal.open_existing(journal_path)
    try:
        with pytest.raises(JournalTamperedError) as caught:
            verify(journal)
        assert caught.value.seq == 3
    finally:
        journal.close()


def test_journal_error_is_a_croupier_error() -> None:
    with pytest.raises(JournalError):
        Journal.open_existing("/nonexistent/journal.db")


# -- history -------------------------------------------------------------------------------------


def test_history_json_is_each_result_once_as_emitted(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["simulate", "--seed", "8", "--rounds", "15", "--json"]
    _, reference, _ = run_cli(*argv)
    path = tmp_path / "j.db"
    crashing_output(monkeypatch, 40, partial=True)
    with pytest.raises(Crash):
        cli.main([*argv, "--journal", str(path)])
    capsys.readouterr()
    monkeypatch.setattr(transcript_module, "JsonLines", JsonLines)
    run_cli(*argv, "--journal", str(path))
    status = cli.main(["history", str(path), "--json"])
    out = capsys.readouterr().out
    assert status == 0
    stream_lines = io.StringIO()
    JsonLines(stream_lines)([decode_event(event) for event in reference])
    reference_results = [line for line in stream_lines.getvalue().splitlines() if '"event": "result"' in line]
    history_results = [line for line in out.splitlines() if json.loads(line)["event"] == "result"]
    times = [json.loads(line)["at"] for line in history_results]
    # the same text, once each, in order; each line ends with the time its record was written
    assert history_results == [f'{line[:-1]}, "at": "{at}"}}' for line, at in zip(reference_results, times,
                                                                                   strict=True)]
    kinds = {json.loads(line)["event"] for line in out.splitlines()}
    assert kinds <= {"shoe", "result", "settlement", "misdeal", "resolved", "round_voided", "shoe_closed",
                     "approval", "approval_refused", "dealer_signed_in", "dealer_signed_out", "alert",
                     "alert_acknowledged"}


def test_history_csv_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.db"
    inputs = [*parse_tokens(SCRIPT), *parse_tokens("3S 4D ??"), Input(InputKind.VOID, approver="Bob Stone")]
    table = Table()
    runner = Runner(table, MockShoe("mock://", inputs=inputs), lambda events: None)
    journal = attach_journal(runner, path, argv_key="history")
    runner.run()
    journal.close()
    assert cli.main(["history", str(path), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [row["outcome"] for row in rows][-1] == "void"
    assert len(rows) == len(table.results) + 1
    assert rows[0]["player_cards"] == "9H 2S KH"
    assert rows[0]["misdeals"] == "unreadable_card" and rows[0]["resolutions"] == "unreadable_card:burn[??]"
    assert "approved by Bob Stone" in rows[-1]["resolutions"]
    assert cli.main(["history", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Round   1" in text and "VOID" in text and "approved by Bob Stone" in text
    assert "misdeal unreadable_card" in text


def test_history_of_a_tampered_journal_warns(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(journal_path, ("UPDATE records SET at = 'y' WHERE seq = 5", ()))
    status = cli.main(["history", str(journal_path), "--json"])
    captured = capsys.readouterr()
    assert status == 1
    assert "failed verification" in captured.err
    assert captured.out


def test_one_controller_per_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.db"
    holder = Journal.create_or_open(path)
    try:
        status, printed, err = run_cli("simulate", "--seed", "1", "--json", "--journal", str(path))
        assert status == 2 and printed == []
        assert "in use by another running croupier" in err
        assert cli.main(["audit", "verify", str(path)]) == 2  # no records yet, but readable
    finally:
        holder.close()
    capsys.readouterr()
    status, printed, _ = run_cli("simulate", "--seed", "1", "--rounds", "2", "--json",
                                 "--journal", str(path))
    assert status == 0 and printed


DEALER = "04A1B2C3D4E5F6"
SUPERVISOR = "04DEADBEEF0001"
AUTH_CONFIG = auth_section(DEALER, SUPERVISOR)


def test_badges_and_approvals_are_journaled_replayed_and_in_the_history(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "auth.toml"
    config.write_text(AUTH_CONFIG, encoding="utf-8")
    cards = (f"@badge {DEALER} 5H 2C 3D 4S 6H 7C 9H 8D 2S 3C KH 4D AS 2D @double @void "
             f"@badge {SUPERVISOR} 7S 6D TH 9C QS")
    argv = ["simulate", "--config", str(config), "--cards", cards, "--json"]
    _, reference, _ = run_cli(*argv)
    assert any(e["event"] == "approval" for e in reference)
    path = tmp_path / "j.db"
    _crash_when(monkeypatch, lambda e: e.get("action") == "approval")
    with pytest.raises(Crash):
        cli.main([*argv, "--journal", str(path)])
    before = lines_of(capsys.readouterr().out)
    monkeypatch.setattr(transcript_module, "JsonLines", JsonLines)
    _, resumed, _ = run_cli(*argv, "--journal", str(path))
    assert_resumed_exactly(before, resumed, reference)
    # An independent replay (settings from the journal's header, [auth] included) agrees.
    assert cli.main(["audit", "verify", str(path), "--replay"]) == 0
    assert "same events" in capsys.readouterr().out
    assert cli.main(["history", str(path), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    voided = [row for row in rows if row["outcome"] == "void"]
    assert voided and "void approved by Bob Stone" in voided[0]["approvals"]
    assert "approved by Bob Stone" in voided[0]["resolutions"]
    assert voided[0]["dealer"] == "Alice Martin"
    assert cli.main(["history", str(path), "--json"]) == 0
    kinds = [json.loads(line)["event"] for line in capsys.readouterr().out.splitlines()]
    assert "approval" in kinds and "dealer_signed_in" in kinds


@pytest.mark.parametrize("seq, body", [
    (3, '{"input":"x","source":false}'),
    (3, '{"input":{"kind":"bogus"},"source":false}'),
    (5, '{"input":{"kind":"card","card":5},"source":true,"position":[1,1]}'),
    (5, '{"input":{"kind":"card","card":"5H"},"source":true,"position":["a",1]}'),
    (5, '[1,2]'),
    (5, '{"input":{"kind":"card","card":"KS"},"source":true,"position":[1,1]}'),
    (4, '{"events":"x"}'),
    (4, '{"events":[]}'),
    (2, '{"events":5}'),
    (1, '{"format":"croupier-journal","version":1}'),
])
def test_forged_chains_give_clear_messages(journal_path: Path, capsys: pytest.CaptureFixture[str],
                                           seq: int, body: str) -> None:
    forge_record(journal_path, seq, body)
    status, printed, err = run_cli("simulate", "--seed", "5", "--rounds", "6", "--json",
                                   "--journal", str(journal_path))
    assert status == 2, err
    assert printed == [] and str(journal_path) in err and "Traceback" not in err
    for argv in (["audit", "verify", str(journal_path), "--replay"], ["history", str(journal_path)],
                 ["history", str(journal_path), "--csv"], ["history", str(journal_path), "--json"]):
        status = cli.main(argv)
        captured = capsys.readouterr()
        assert status in (0, 1, 2)
        assert "Traceback" not in captured.err
    assert cli.main(["audit", "verify", str(journal_path), "--replay"]) != 0
    capsys.readouterr()


def test_damaged_field(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(journal_path, ("UPDATE records SET hash = X'0102' WHERE seq = 5", ()))
    status, out = _verify(journal_path, capsys)
    assert status == 1
    assert "record 5 is damaged or was edited" in out


def test_a_journal_from_before_two_person_replays_as_it_was_dealt(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Journals written before ``[auth] two_person`` existed let the dealer approve their own void;
    an independent replay of one must follow those rules, not today's default."""
    config = tmp_path / "auth.toml"
    config.write_text(AUTH_CONFIG + "\n", encoding="utf-8")
    text = config.read_text(encoding="utf-8").replace("enabled = true", "enabled = true\ntwo_person = false")
    config.write_text(text, encoding="utf-8")
    path = tmp_path / "old.db"
    cards = f"@badge {SUPERVISOR} 5H 2C 3D 4S 6H 7C 9H 8D 2S 3C KH 4D AS 2D ?? @void @badge {SUPERVISOR} 7S 6D TH 9C QS"
    status, events, _ = run_cli("simulate", "--config", str(config), "--cards", cards, "--json",
                                "--journal", str(path))
    assert status == 0
    assert any(e["event"] == "approval" for e in events), "the self-approval was refused"
    connection = sqlite3.connect(path)
    body = connection.execute("SELECT body FROM records WHERE kind = 'header'").fetchone()[0]
    connection.close()
    header = json.loads(body)
    assert header["extra"]["auth"]["two_person"] is False
    del header["extra"]["auth"]["two_person"]
    forge_record(path, 1, canonical(header))
    assert cli.main(["audit", "verify", str(path), "--replay"]) == 0
    assert "same events" in capsys.readouterr().out


def test_an_input_and_its_events_are_committed_in_one_transaction(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    table = Table()
    runner = Runner(table, MockShoe("mock://?seed=5&decks=1"), lambda events: None, rounds=3)
    journal = attach_journal(runner, path, argv_key="one-commit")
    statements: list[str] = []
    journal.connection.set_trace_callback(statements.append)
    runner.run()
    journal.close()
    transactions: list[list[str]] = []
    for statement in statements:
        if statement.startswith("BEGIN"):
            transactions.append([])
        elif statement.startswith("INSERT INTO records") and transactions:
            transactions[-1].append(statement)
    written = [len(inserts) for inserts in transactions if inserts]
    inputs = sum(1 for kind, in sqlite3.connect(path).execute("SELECT kind FROM records") if kind == "input")
    assert inputs > 20
    assert written == [2] * inputs  # one transaction per input: its input record and its events record


class _OldWriterStops(Exception):
    """The old writer stops between an input's commit and its events' commit."""


def _journal_the_old_way(path: Path, stop_after: int) -> None:
    """Write ``path`` as Croupier did before one commit per input: the input committed on its own,
    then its events; stop (as a kill would) after input ``stop_after`` is committed, before its events."""
    from controller.journal.replay import identity_of, replay_extra

    table = Table()
    source = MockShoe("mock://?seed=5&decks=1")
    runner = Runner(table, source, lambda events: None, rounds=6)
    journal = Journal.create_or_open(path)
    journal.begin(identity_of(table, "old"), table.start(), replay_extra(table))
    written = {"inputs": 0}

    def record(item: Input) -> None:
        from_source = item is runner.received
        journal.append_input(item, from_source, source.position if from_source else None)
        written["inputs"] += 1
        if written["inputs"] == stop_after:
            raise _OldWriterStops

    def sink(events: list[Event]) -> None:
        journal.append_events(events)

    runner.record = record
    runner.sink = sink
    with pytest.raises(_OldWriterStops):
        runner.run()
    journal.close()


@pytest.mark.parametrize("stop_after", [1, 9, 30])
def test_a_journal_written_with_two_commits_per_input_still_resumes_and_verifies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], stop_after: int) -> None:
    reference: list[Event] = []
    table = Table()
    reference.extend(table.start())
    Runner(table, MockShoe("mock://?seed=5&decks=1"), reference.extend, rounds=6).run()
    path = tmp_path / "old.db"
    _journal_the_old_way(path, stop_after)
    old = Journal.open_existing(path)
    assert [record.kind for record in old.records()][-1] == "input"  # the old writer's gap
    old.close()
    runner = Runner(Table(), MockShoe("mock://?seed=5&decks=1"), lambda events: None, rounds=6)
    journal = attach_journal(runner, path, argv_key="old")
    runner.run()
    journal.close()
    assert plain(journal_events(path)) == reference
    assert cli.main(["audit", "verify", str(path), "--replay"]) == 0
    assert "same events" in capsys.readouterr().out

"""`croupier report dealers` on journals built with a known timeline: the numbers per dealer and per
shift, JSON, CSV, the pace picture, and clear errors for bad paths and options."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from controller.journal.store import Journal
from controller.journal.verify import verify
from tests.controller.reports.journalkit import BADGED_TIMELINE, T0, UNBADGED_TIMELINE, write_journal
from tests.inprocess import CROUPIER, ROOT, croupier_in_process, croupier_process

croupier = croupier_process


@pytest.fixture
def journals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    return (write_journal(tmp_path / "table1.journal", BADGED_TIMELINE, monkeypatch),
            write_journal(tmp_path / "table2.journal", UNBADGED_TIMELINE, monkeypatch))


def test_numbers_per_dealer_and_per_shift(journals: tuple[Path, Path]) -> None:
    run = croupier("report", "dealers", *map(str, journals), "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    shifts = report["shifts"]
    assert [(s["dealer"], s["table"], s["start"], s["end"]) for s in shifts] == [
        ("A1", str(journals[0]), "2026-01-05T20:00:00+00:00", "2026-01-05T20:30:00+00:00"),
        ("B2", str(journals[0]), "2026-01-05T20:30:00+00:00", "2026-01-05T21:00:00+00:00"),
        ("A1", str(journals[0]), "2026-01-05T21:00:00+00:00", "2026-01-05T21:00:55+00:00"),
        (None, str(journals[1]), "2026-01-05T20:00:10+00:00", "2026-01-05T20:01:30+00:00"),
    ]
    alice_first = shifts[0]
    assert {k: alice_first[k] for k in ("hours", "rounds", "rounds_per_hour", "voids", "approvals",
                                        "mean_seconds_per_round", "p90_seconds_per_round")} == {
        "hours": 0.5, "rounds": 3, "rounds_per_hour": 6.0, "voids": 1, "approvals": 1,
        "mean_seconds_per_round": 46.67, "p90_seconds_per_round": 60.0}
    assert alice_first["misdeals"] == {"exposed_card": 1, "unreadable_card": 1}
    assert alice_first["misdeals_per_100_rounds"] == {"exposed_card": 33.33, "unreadable_card": 33.33}
    bob = shifts[1]
    assert (bob["rounds"], bob["rounds_per_hour"], bob["mean_seconds_per_round"], bob["p90_seconds_per_round"],
            bob["misdeals"], bob["voids"], bob["approvals"]) == (2, 4.0, 30.0, 40.0, {}, 0, 0)
    unbadged = shifts[3]
    assert (unbadged["rounds"], unbadged["hours"], unbadged["rounds_per_hour"],
            unbadged["mean_seconds_per_round"], unbadged["p90_seconds_per_round"]) == (2, 0.0222, 90.0, 37.5, 60.0)
    dealers = {row["dealer"]: row for row in report["dealers"]}
    alice = dealers["A1"]
    assert (alice["name"], alice["shifts"], alice["rounds"], alice["hours"]) == ("Alice", 2, 4, 0.5153)
    assert alice["rounds_per_hour"] == round(4 / (0.5 + 55 / 3600), 2)
    assert (alice["mean_seconds_per_round"], alice["p90_seconds_per_round"]) == (46.25, 60.0)
    assert alice["misdeals_per_100_rounds"] == {"exposed_card": 25.0, "unreadable_card": 25.0}
    assert list(dealers) == ["A1", "B2", None]


def test_csv_has_a_row_per_dealer_then_per_shift(journals: tuple[Path, Path]) -> None:
    run = croupier("report", "dealers", str(journals[0]), "--csv")
    assert run.returncode == 0, run.stderr
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    assert [(row["scope"], row["dealer"]) for row in rows] == [
        ("dealer", "A1"), ("dealer", "B2"), ("shift", "A1"), ("shift", "B2"), ("shift", "A1")]
    first_shift = rows[2]
    assert (first_shift["rounds"], first_shift["rounds_per_hour"], first_shift["voids"],
            first_shift["approvals"]) == ("3", "6.0", "1", "1")
    assert first_shift["misdeals_per_100_rounds_exposed_card"] == "33.33"
    assert first_shift["misdeals_per_100_rounds_foreign_card"] == "0"
    assert first_shift["start"] == T0.isoformat()


def test_the_text_report_names_dealers_and_shifts(journals: tuple[Path, Path]) -> None:
    run = croupier("report", "dealers", *map(str, journals))
    assert run.returncode == 0, run.stderr
    assert "Alice (A1): 2 shift(s), 4 rounds" in run.stdout
    assert "Bob (B2): 1 shift(s), 2 rounds in 0.50 h (4.0/h), 30.0 s a round (p90 40.0)" in run.stdout
    assert "(no badge): 1 shift(s), 2 rounds" in run.stdout


def test_plot_draws_a_png(journals: tuple[Path, Path], tmp_path: Path) -> None:
    picture = tmp_path / "pace.png"
    run = croupier("report", "dealers", *map(str, journals), "--plot", str(picture), "--json")
    assert run.returncode == 0, run.stderr
    import matplotlib.image

    image = matplotlib.image.imread(str(picture))
    assert image.shape[0] > 300 and image.shape[1] > 300
    assert image.std() > 0.01, "the picture is not blank"


def test_bad_paths_and_options_are_one_clear_line(journals: tuple[Path, Path], tmp_path: Path) -> None:
    not_a_journal = tmp_path / "notes.txt"
    not_a_journal.write_text("hello\n", encoding="utf-8")
    training = tmp_path / "drill.journal"
    drill = subprocess.run([*CROUPIER, "train", "--seed", "1", "--rounds", "1",
                            "--json", "--journal", str(training)], input="", capture_output=True, text=True,
                           cwd=ROOT, timeout=120)
    assert drill.returncode == 3, drill.stderr
    journal = str(journals[0])
    picture_folder = tmp_path / "folder.png"
    picture_folder.mkdir()
    cases: list[tuple[list[str], str]] = [
        ([str(tmp_path / "missing.journal")], "no such journal"),
        ([str(tmp_path)], "is a directory"),
        ([str(not_a_journal)], str(not_a_journal)),
        ([str(training)], "is a training journal"),
        ([journal, "--plot", str(tmp_path / "pace.jpg")], "expected a file name ending in .png"),
        ([journal, "--plot", str(tmp_path / "no" / "pace.png")], "does not exist"),
        ([journal, "--plot", str(picture_folder)], f"--plot {picture_folder}: cannot write the picture (Is a "
                                                   "directory); give a file name in a directory you may write to"),
        ([journal, "--json", "--csv"], "not allowed with argument"),
        (["postgresql://nobody@127.0.0.1:1/none"], "cannot connect to the database"),
    ]
    for index, (args, message) in enumerate(cases):  # the first through a real process, the rest in this one
        run = croupier("report", "dealers", *args) if index == 0 else croupier_in_process("report", "dealers", *args)
        assert run.returncode == 2, (args, run.stdout, run.stderr)
        assert message in run.stderr, (args, run.stderr)
        assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) <= 3, run.stderr


def test_no_paths_is_a_usage_error() -> None:
    run = croupier("report", "dealers")
    assert run.returncode == 2 and "the following arguments are required: PATH" in run.stderr



@pytest.mark.parametrize("body", ['{"events":[{"event":"result","round":5,',
                                  '{"events":[{"event":"result","round":5}]}'],
                         ids=["not JSON", "an event of no known shape"])
def test_a_record_that_cannot_be_read_is_left_out_and_named(journals: tuple[Path, Path], body: str) -> None:
    """Bob's result of round 5 cannot be read: the report of everything else is given, the record named, exit 1."""
    badged = journals[0]
    connection = sqlite3.connect(badged)
    seq = next(seq for seq, text in connection.execute("SELECT seq, body FROM records WHERE kind = 'events'")
               if '"event":"result","round":5' in text)
    connection.execute("UPDATE records SET body = ? WHERE seq = ?", (body, seq))
    connection.commit()
    connection.close()
    run = croupier_in_process("report", "dealers", *map(str, journals), "--json")
    assert run.returncode == 1, run
    verification, unreadable = run.stderr.splitlines()  # the record edited also fails verification, checked first
    assert f"{badged}: record {seq} is not a valid events record" in unreadable, run.stderr
    assert f"{badged}: record {seq}" in verification and "failed verification" in verification, run.stderr
    shifts = json.loads(run.stdout)["shifts"]
    assert [(shift["dealer"], shift["rounds"]) for shift in shifts] == [("A1", 3), ("B2", 1), ("A1", 1), (None, 2)]


def edit_a_result(path: Path, round_number: int) -> int:
    """Round ``round_number``'s result edited in the journal as one would with sqlite3 (the player won it): still an
    events record the report reads, but not the one the table wrote. The record's number."""
    connection = sqlite3.connect(path)
    rows = connection.execute("SELECT seq, body FROM records WHERE kind = 'events'")
    seq, body = next((seq, text) for seq, text in rows if f'"event":"result","round":{round_number},' in text)
    edited = body.replace('"winner":"banker"', '"winner":"player"')
    assert edited != body
    connection.execute("UPDATE records SET body = ? WHERE seq = ?", (edited, seq))
    connection.commit()
    connection.close()
    return int(seq)


def test_the_kit_writes_journals_that_verify_as_the_table_s_do(journals: tuple[Path, Path]) -> None:
    """The kit's journals hold their records' times in the journal's own form, so that their hash chain verifies
    as a table's journal does: an untouched one reports without a warning."""
    for path in journals:
        journal = Journal.open_existing(str(path))
        try:
            assert verify(journal).records > 1
        finally:
            journal.close()
    run = croupier_in_process("report", "dealers", *map(str, journals))
    assert (run.returncode, run.stderr) == (0, "")


@pytest.mark.parametrize("output", [[], ["--json"], ["--csv"]])
def test_a_journal_that_fails_verification_is_said_and_exits_1(journals: tuple[Path, Path],
                                                               output: list[str]) -> None:
    """An edited record is what croupier audit verify calls TAMPERED: the report says that journal fails
    verification, at which record, that its figures cannot be trusted and what to run; exit 1."""
    badged = journals[0]
    seq = edit_a_result(badged, 5)
    run = croupier_in_process("report", "dealers", *map(str, journals), *output)
    assert run.returncode == 1, run
    lines = run.stderr.splitlines()
    assert len(lines) == 1, lines
    assert f"{badged}: record {seq} was edited" in lines[0], lines
    assert "failed verification" in lines[0] and "cannot be trusted" in lines[0], lines
    assert f"croupier audit verify {badged}" in lines[0], lines
    assert str(journals[1]) not in lines[0]
    assert "Bob" in run.stdout or "B2" in run.stdout, "the report is still printed"


def test_the_first_check_that_fails_is_the_one_audit_verify_names(journals: tuple[Path, Path]) -> None:
    """Two edited records: the report names the first, as croupier audit verify does."""
    first, later = edit_a_result(journals[0], 1), edit_a_result(journals[0], 7)
    assert first < later
    audit = croupier_in_process("audit", "verify", str(journals[0]))
    assert audit.returncode == 1 and f"record {first} " in audit.stdout, audit
    run = croupier_in_process("report", "dealers", str(journals[0]), "--json")
    assert run.returncode == 1 and f"record {first} was edited" in run.stderr, run


BADGES = """[auth]
enabled = true
reader = "pcsc://?reader=Virtual PCD 00 01"
[auth.badges.AAAA01]
name = "Alice Martin"
role = "dealer"
"""


def test_a_misdeal_in_a_stretch_without_rounds_is_not_hidden(tmp_path: Path) -> None:
    """A card out with no dealer signed in is a no_dealer misdeal in a stretch of no badge and no round: its rate per
    100 rounds has no value, but the text must not say that stretch had no misdeal."""
    config = tmp_path / "badges.toml"
    config.write_text(BADGES)
    path = tmp_path / "table.journal"
    run = croupier("simulate", "--no-burn", "--quiet", "--config", str(config), "--journal", str(path), "--cards",
                   "@badge AAAA01 9S 8H KD 2C @sign_out 5C @badge AAAA01 @burn 3S 4H 5D 6C")
    assert run.returncode == 0, run.stderr
    run = croupier("report", "dealers", str(path), "--json")
    assert run.returncode == 0, run.stderr
    no_badge = next(row for row in json.loads(run.stdout)["shifts"] if row["dealer"] is None)
    assert no_badge["rounds"] == 0 and no_badge["misdeals"] == {"no_dealer": 1}
    run = croupier("report", "dealers", str(path))
    assert run.returncode == 0, run.stderr
    line = next(line for line in run.stdout.splitlines() if line.startswith("  (no badge)"))
    assert "misdeals per 100 rounds: none" not in line and "no_dealer" in line, line

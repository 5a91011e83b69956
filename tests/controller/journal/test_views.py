"""controller.journal.views: the table along a journal, as its core gives it after each journaled input."""

from __future__ import annotations

from pathlib import Path

from controller.core.exceptions import JournalError
from controller.journal.replay import replay, table_from_header
from controller.journal.store import Journal, Record
from controller.journal.verify import verify
from controller.journal.views import along, moments
from tests.controller.journal.forger import forge_record
from tests.inprocess import croupier_in_process


def simulated(tmp_path: Path, *options: str) -> Path:
    path = tmp_path / "table.journal"
    run = croupier_in_process("simulate", "--seed", "5", "--rounds", "6", "--quiet", "--journal", str(path), *options)
    assert run.returncode == 0, run.stderr
    return path


def kinds(path: Path) -> dict[int, str]:
    journal = Journal.open_existing(path)
    try:
        return {record.seq: record.kind for record in journal.records()}
    finally:
        journal.close()


def test_the_view_after_each_input_is_the_tables_by_the_record_of_its_events(tmp_path: Path) -> None:
    path = simulated(tmp_path, "--decks", "1")
    journal = Journal.open_existing(path)
    try:
        found = along(journal)
        reference = table_from_header(journal.path, verify(journal).header)
        replay(journal, reference)
        assert [moment.seq for moment in moments(journal)] == found.seqs
    finally:
        journal.close()
    assert found.seqs == [seq for seq, kind in kinds(path).items() if kind in ("start", "events")]
    assert found.last == reference.view
    assert found.place(found.seqs[-1]) == (reference.view.shoe, reference.view.round)
    assert found.place(0) == (1, 0)


def test_an_input_the_table_cannot_take_is_named_and_passed_over(tmp_path: Path) -> None:
    path = simulated(tmp_path)
    records = kinds(path)
    damaged = next(seq for seq, kind in records.items() if kind == "input" and seq > 4)
    forge_record(path, damaged, '{"input":{"kind":"card","card":5},"source":true,"position":[1,1]}')
    told: list[tuple[int, str]] = []

    def unreadable(record: Record, error: JournalError) -> None:
        told.append((record.seq, str(error)))

    journal = Journal.open_existing(path)
    try:
        found = along(journal, unreadable)
    finally:
        journal.close()
    assert [seq for seq, _ in told] == [damaged] and "not a valid input" in told[0][1]
    # the table lost that input: what it would say after it is no view of the table's (every later card would go to
    # another slot), and no checkpoint follows to take it up again from
    assert not any(kind == "checkpoint" for seq, kind in records.items() if seq > damaged)
    assert found.seqs and max(found.seqs) < damaged and found.last is None
    shown = croupier_in_process("history", str(path))
    assert shown.returncode == 1 and f"record {damaged} is not a valid input" in shown.stderr
    assert "Traceback" not in shown.stderr and "Round   6" in shown.stdout
    assert "6 rounds with a result, 0 voided" in shown.stdout  # the rounds the journal holds, as its events say


def test_a_drill_has_no_table_to_replay(tmp_path: Path) -> None:
    path = tmp_path / "drill.journal"
    run = croupier_in_process("train", "--seed", "1", "--rounds", "1", "--json", "--journal", str(path),
                              stdin="natural\nplayer\nstand\nbanker\n")
    assert run.returncode in (0, 3), run.stderr
    journal = Journal.open_existing(path)
    try:
        found = along(journal)
    finally:
        journal.close()
    assert found.seqs == [] and found.last is None

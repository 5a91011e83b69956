"""``croupier simulate`` fed a shoe that floods a halted table: each input read while halted costs the same
work at N and at 10 N inputs held, in the transcript, the JSON lines and the journal (no quadratic path).
Work is counted (bytecode instructions, bytes journaled), never timed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.core.table import Table
from controller.journal.timeline import cards_out
from tests.inprocess import croupier_in_process
from tests.work import Work, work_after

CODES = [rank + suit for rank in "A23456789TJQK" for suit in "SHDC"]
FLOOD = [*CODES, "??", "@double", "ZZ"]
"""One cycle of a stuck or noisy reader: every card code (foreign ones once every copy is out), an unread card,
two cards at once, a code that is no card."""
HALT = "9S 8H KD 2C 3S"
"""A natural, then a card before the next round was started: the table halts on an extra card."""
INPUTS_BEFORE_FLOOD = 6
"""The table's inputs before the flood: the shoe confirmed, then the five cards of :data:`HALT`."""


def script(tmp_path: Path, cycles: int) -> Path:
    path = tmp_path / f"flood-{cycles}.txt"
    path.write_text(HALT + "\n" + "\n".join(" ".join(FLOOD) for _ in range(cycles)) + "\n", encoding="utf-8")
    return path


def simulate(tmp_path: Path, cycles: int, *options: str) -> list[str]:
    """The command on the flood: from a script file, or given whole with ``--cards`` among ``options``."""
    if "--cards" in options:
        cards = script(tmp_path, cycles).read_text(encoding="utf-8").split()
        return ["simulate", "--no-burn", "--manual-next", *options, " ".join(cards)]
    return ["simulate", "--no-burn", "--manual-next", "--script", str(script(tmp_path, cycles)), *options]


def last_cycle(tmp_path: Path, cycles: int, *options: str) -> Work:
    """The work of the flood's last cycle (and of the end of the run), per input."""
    argv = simulate(tmp_path, cycles, *options)
    before_last = INPUTS_BEFORE_FLOOD + (cycles - 1) * len(FLOOD)
    completed: list[int] = []
    work = work_after(Table.handle, before_last,
                      lambda: completed.append(croupier_in_process(*argv).returncode))
    assert completed == [4], "the run ends halted on the extra card"
    return work.per(len(FLOOD))


@pytest.mark.parametrize("output", [[], ["--json"], ["--json", "--cards"]],
                         ids=["transcript", "json", "json, the flood given with --cards"])
def test_an_input_read_while_halted_costs_the_same_at_n_and_ten_n(tmp_path: Path, output: list[str]) -> None:
    at_n = last_cycle(tmp_path, 10, *output)
    at_ten_n = last_cycle(tmp_path, 100, *output)
    assert at_ten_n.instructions <= at_n.instructions * 1.1, (at_n, at_ten_n)


def journaled_per_input(tmp_path: Path, cycles: int) -> tuple[float, float]:
    """Bytes journaled per input of the flood: in all records, and in the checkpoints alone."""
    journal = tmp_path / f"flood-{cycles}.journal"
    completed = croupier_in_process(*simulate(tmp_path, cycles, "--json", "--journal", str(journal)))
    assert completed.returncode == 4, completed.stderr
    connection = sqlite3.connect(journal)
    try:
        (everything, checkpoints), = connection.execute(
            "SELECT sum(length(body)), sum(length(body)) FILTER (WHERE kind = 'checkpoint') FROM records").fetchall()
    finally:
        connection.close()
    inputs = cycles * len(FLOOD)
    return everything / inputs, checkpoints / inputs


def test_the_journal_of_a_flooded_halted_table_grows_by_the_same_bytes_per_input(tmp_path: Path) -> None:
    """A checkpoint holds every card the halt holds: taken every 250 inputs while the table holds thousands,
    the journal would grow with the square of the flood."""
    everything_at_n, checkpoints_at_n = journaled_per_input(tmp_path, 5)
    everything_at_ten_n, checkpoints_at_ten_n = journaled_per_input(tmp_path, 50)
    assert checkpoints_at_ten_n <= checkpoints_at_n * 1.5, (checkpoints_at_n, checkpoints_at_ten_n)
    assert everything_at_ten_n <= everything_at_n * 1.2, (everything_at_n, everything_at_ten_n)


def history_of_cards(tmp_path: Path, cycles: int) -> tuple[Work, list[str]]:
    """The work of ``croupier history J --cards --csv`` on the journal of the flood burned at the end, from the
    walk over the journal's cards (:func:`~controller.journal.timeline.cards_out`) on, per input; and its rows'
    slots."""
    journal = tmp_path / f"burned-{cycles}.journal"
    flooded = script(tmp_path, cycles)
    flooded.write_text(flooded.read_text(encoding="utf-8") + "@burn\n", encoding="utf-8")
    argv = ["simulate", "--no-burn", "--manual-next", "--script", str(flooded), "--json", "--journal", str(journal)]
    assert croupier_in_process(*argv).returncode == 0
    printed: list[str] = []
    work = work_after(cards_out, 0, lambda: printed.append(
        croupier_in_process("history", str(journal), "--cards", "--csv").stdout))
    slots = [row.split(",")[3] for row in printed[0].splitlines()[1:]]
    return work.per(cycles * len(FLOOD)), slots


def test_the_history_of_a_flooded_journal_costs_the_same_per_card_at_n_and_ten_n(tmp_path: Path) -> None:
    at_n, _ = history_of_cards(tmp_path, 2)
    at_ten_n, slots = history_of_cards(tmp_path, 20)
    assert slots[:4] == ["P1", "B1", "P2", "B2"] and set(slots[4:]) == {"discard"}, "the flood is burned whole"
    assert at_ten_n.instructions <= at_n.instructions * 1.5, (at_n, at_ten_n)

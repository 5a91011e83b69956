"""A live table's journal has its WAL written up front, so a card's commit overwrites blocks instead of growing
the file; the zeros past the WAL's frames are never read as records, by a resume after a crash or by the audit."""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from controller.app.runner import Runner
from controller.core.events import Event
from controller.core.table import Table
from controller.journal.files import WAL_RESERVE, WAL_RESERVE_SPARE
from controller.journal.replay import attach_journal
from controller.journal.store import WAL_CHECKPOINT_EVERY, Journal
from controller.journal.verify import verify
from drivers.mock import MockShoe

SHOE = "mock://?seed=8&decks=8"


def wal_of(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def test_no_commit_of_a_live_journal_grows_its_wal_and_a_copy_taken_mid_run_resumes(tmp_path: Path) -> None:
    path = tmp_path / "live.journal"
    sizes: list[int] = []

    def sink(events: list[Event]) -> None:
        sizes.append(os.path.getsize(wal_of(path)))

    runner = Runner(Table(), MockShoe(SHOE), sink, rounds=110, new_shoes=True)
    journal = attach_journal(runner, path, argv_key="reserve", reserve=WAL_RESERVE)
    assert os.path.getsize(wal_of(path)) == WAL_RESERVE
    runner.run()
    assert journal.last_seq > 2 * 2 * WAL_CHECKPOINT_EVERY  # two records a commit: the WAL started again twice
    assert set(sizes) == {WAL_RESERVE}  # every commit landed in blocks written up front

    crashed = tmp_path / "crashed"
    crashed.mkdir()
    copy = crashed / path.name
    shutil.copyfile(path, copy)
    shutil.copyfile(wal_of(path), wal_of(copy))  # the files as a power cut leaves them: no -shm, WAL not checkpointed
    last_seq, last_hash = journal.last_seq, journal.last_hash
    _, frames, _ = journal.connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    assert frames < last_seq // 2  # fewer frames than commits: the WAL began again from its first block
    journal.close()

    rows = sqlite3.connect(copy).execute("SELECT count(*), max(seq) FROM records").fetchone()
    assert rows == (last_seq, last_seq)
    resumed = Journal.create_or_open(copy, WAL_RESERVE)
    try:
        assert (resumed.last_seq, resumed.last_hash) == (last_seq, last_hash)
        assert verify(resumed).records == last_seq
    finally:
        resumed.close()


def test_a_resumed_live_journal_deals_on_from_where_it_was(tmp_path: Path) -> None:
    path = tmp_path / "resume.journal"
    first = Runner(Table(), MockShoe(SHOE), lambda events: None, rounds=30)
    journal = attach_journal(first, path, argv_key="reserve", reserve=WAL_RESERVE)
    first.run()
    journal.close()

    whole: list[Event] = []
    again = Runner(Table(), MockShoe(SHOE), whole.extend, rounds=60)
    journal = attach_journal(again, path, argv_key="reserve", reserve=WAL_RESERVE)
    assert os.path.getsize(wal_of(path)) == WAL_RESERVE
    again.run()
    journal.close()
    rounds = [event["round"] for event in whole if event["event"] == "result"]
    assert rounds == list(range(31, 61))


def test_a_journal_opened_without_a_reserve_writes_none(tmp_path: Path) -> None:
    path = tmp_path / "sim.journal"
    runner = Runner(Table(), MockShoe(SHOE), lambda events: None, rounds=2)
    journal = attach_journal(runner, path, argv_key="plain")
    runner.run()
    assert os.path.getsize(wal_of(path)) < WAL_RESERVE // 8
    journal.close()


def test_a_reserve_that_fails_midway_is_cut_off_and_the_journal_deals_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "full.journal"
    real_pwrite = os.pwrite
    written: list[int] = []

    def disk_fills(fd: int, data: bytes, offset: int) -> int:
        if written:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(real_pwrite(fd, data, offset))
        return written[-1]

    monkeypatch.setattr(os, "pwrite", disk_fills)
    runner = Runner(Table(), MockShoe(SHOE), lambda events: None, rounds=5)
    journal = attach_journal(runner, path, argv_key="full", reserve=WAL_RESERVE)
    assert written and os.path.getsize(wal_of(path)) < WAL_RESERVE // 8  # the zeros written were cut off again
    monkeypatch.undo()
    runner.run()
    assert verify(journal).records == journal.last_seq > 10
    journal.close()


def test_a_nearly_full_disk_gets_no_reserve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tight.journal"
    real = os.fstatvfs

    def tight(fd: int) -> Any:
        found = real(fd)
        return SimpleNamespace(f_bavail=(WAL_RESERVE + WAL_RESERVE_SPARE) // found.f_frsize - 1,
                               f_frsize=found.f_frsize)

    monkeypatch.setattr(os, "fstatvfs", tight)
    runner = Runner(Table(), MockShoe(SHOE), lambda events: None, rounds=2)
    journal = attach_journal(runner, path, argv_key="tight", reserve=WAL_RESERVE)
    assert os.path.getsize(wal_of(path)) < WAL_RESERVE // 8
    runner.run()
    journal.close()


def test_a_journal_opened_through_a_symlink_reserves_the_wal_sqlite_uses(tmp_path: Path) -> None:
    real = tmp_path / "disk" / "table.journal"
    real.parent.mkdir()
    first = Runner(Table(), MockShoe(SHOE), lambda events: None, rounds=2)
    attach_journal(first, real, argv_key="linked").close()
    link = tmp_path / "table.journal"
    link.symlink_to(real)
    again = Runner(Table(), MockShoe(SHOE), lambda events: None, rounds=4)
    journal = attach_journal(again, link, argv_key="linked", reserve=WAL_RESERVE)
    assert os.path.getsize(wal_of(real)) == WAL_RESERVE
    again.run()
    journal.close()

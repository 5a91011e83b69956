"""``croupier archive --timing PATH`` and ``--writers N`` against a real Mosquitto and a real PostgreSQL.

The timing log is the archive's own account of where a record waits (receipt, batch taken, decoded,
read, judged, written, committed, acknowledged); off by default. ``--writers`` spreads the tables
over several database connections; every record is still stored once, in order per table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.floor.archive_timing import STAGES, read_batches, stage_waits
from tests.controller.floor.floorkit import (
    Archive,
    archived,
    croupier,
    journal_records,
    make_journal,
    publish,
    wait_for,
)


@pytest.mark.slow
@pytest.mark.parametrize("writers", ["1", "3"])
def test_the_timing_log_has_every_stage_of_every_batch_in_order(
        tmp_path: Path, broker: str, database: str, site: str, writers: str) -> None:
    journals = {table: journal_records(make_journal(tmp_path / f"{table}.journal", seed=seed, rounds=15))
                for table, seed in (("t1", 3), ("t2", 4), ("t3", 5), ("t4", 6))}
    log = tmp_path / "timing.jsonl"
    archive = Archive(broker, database, "--timing", str(log), "--writers", writers)
    try:
        for table, records in journals.items():
            publish(broker, site, table, records)
        wait_for(lambda: all(len(archived(database, site, table)) == len(records)
                             for table, records in journals.items()), "every table archived")
    finally:
        status, _, stderr = archive.stop()
    assert status == 0, stderr
    for table, records in journals.items():
        assert archived(database, site, table) == records
    batches = read_batches(log)
    assert sum(batch["size"] for batch in batches) == sum(len(records) for records in journals.values())
    for batch in batches:
        times = [batch[stage] for stage in STAGES]
        assert times == sorted(times), batch
        assert all(received <= batch["taken"] for received in batch["received"]), batch
        assert len(batch["received"]) == batch["size"]
    waits = stage_waits(batches)
    assert len(waits["received to committed"]) == len(waits["committed"]) == sum(len(r) for r in journals.values())
    assert min(waits["received to committed"]) > 0


def test_an_unwritable_timing_log_exits_2_with_one_clear_line(tmp_path: Path, broker: str, database: str) -> None:
    result = croupier("archive", "--broker", f"mqtt://{broker}", "--db", database,
                      "--timing", str(tmp_path / "missing" / "timing.jsonl"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--timing" in lines[0] and "cannot write there" in lines[0], result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("value", ["0", "17", "two"])
def test_writers_out_of_range_is_refused_naming_the_option(broker: str, database: str, value: str) -> None:
    result = croupier("archive", "--broker", f"mqtt://{broker}", "--db", database, "--writers", value)
    assert result.returncode == 2
    assert "--writers" in result.stderr and "Traceback" not in result.stderr

"""How the floor benchmark starts its tables: their specs, the ramp, the workers' warm-up barrier, the ramp's row."""

from __future__ import annotations

import argparse
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

import pytest

from benchmarks.floor import Floor, Plan, Scenario, parse_args, start_delay, wait_ready
from benchmarks.floor_measure import Audit
from benchmarks.floor_report import Outcome, _ramp_split
from benchmarks.floor_tables import table_spec
from controller.floor.localservers import Mosquitto, Postgres, ServerUnavailable


def test_a_table_spec_has_a_name_a_seed_and_an_optional_delay() -> None:
    assert table_spec("t001:1") == ("t001", 1, 0.0)
    assert table_spec("t003:3@0.05") == ("t003", 3, 0.05)
    for wrong in ("t001", "t001:x", ":1", "t001:1@-1", "t001:1@nan", "t001:1@inf", "t001:1@soon"):
        with pytest.raises(argparse.ArgumentTypeError, match="expected TABLE:SEED or TABLE:SEED@DELAY"):
            table_spec(wrong)


@pytest.mark.parametrize("option", ["--ramp", "--pace"])
@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_a_ramp_or_pace_that_is_not_a_finite_number_of_seconds_is_refused(
        option: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        parse_args([option, value])
    assert exited.value.code == 2
    assert "--pace and --ramp finite and 0 or more" in capsys.readouterr().err


def floor_of(tables: int, ramp: float, directory: Path) -> Floor:
    """A floor that is never started (no server: these tests start no table)."""
    plan = Plan(rounds=1, pace=0.0, workers=0, directory=directory, postgres=cast(Postgres, None), ramp=ramp)
    return Floor(Scenario("floor", tables), plan, Mosquitto(directory / "broker"), "", directory)


def test_the_tables_start_one_after_another_over_the_ramp(tmp_path: Path) -> None:
    floor = floor_of(200, 5.0, tmp_path)
    delays = [start_delay(floor, name) for name in floor.names()]
    assert delays[0] == 0.0
    assert delays == sorted(delays)
    assert delays[-1] == pytest.approx(5.0 * 199 / 200)
    assert [start_delay(floor_of(200, 0.0, tmp_path), name) for name in floor.names()] == [0.0] * 200


def test_a_worker_that_ends_before_warming_up_is_named_with_its_last_words(tmp_path: Path) -> None:
    floor = floor_of(3, 0.0, tmp_path)
    with floor.log("worker-0").open("wb") as log:
        floor.workers.append(subprocess.Popen([sys.executable, "-c", "import sys; sys.exit('no broker here')"],
                                              stderr=log))
    floor.workers[0].wait(timeout=60)
    with pytest.raises(ServerUnavailable, match=r"table worker 0 exited with status 1 before its tables started: "
                                                r"no broker here"):
        wait_ready(floor, [tmp_path / "worker-0.ready"])


def test_the_warm_up_ends_when_every_worker_is_ready(tmp_path: Path) -> None:
    floor = floor_of(3, 0.0, tmp_path)
    ready = tmp_path / "worker-0.ready"
    floor.workers.append(subprocess.Popen([sys.executable, "-c", f"open({str(ready)!r}, 'w'); input()"],
                                          stdin=subprocess.PIPE))
    try:
        wait_ready(floor, [ready])
        assert floor.workers[0].poll() is None, "the worker waits for its go"
    finally:
        assert floor.workers[0].stdin is not None
        floor.workers[0].stdin.close()
        floor.workers[0].wait(timeout=60)


def test_the_ramp_row_splits_the_records_journaled_while_the_tables_started(tmp_path: Path) -> None:
    start = datetime(2026, 12, 1, tzinfo=UTC).timestamp()
    audit = Audit(latencies_ms=[10.0, 500.0, 20.0, 30.0], latency_at=[start, start + 1, start + 6, start + 9])
    outcome = Outcome("floor", 200, False, 10, False, audit, 0, 0, 0.0, 0.0, "", [], [], 0.0, 0.0, {}, 0.32, 20,
                      {}, 0.0, {}, ramp=5.0, workers=16)
    assert _ramp_split(outcome) == "500.0 ms / 30.0 ms"
    outcome.ramp = 0.0
    assert _ramp_split(outcome) == "- (no ramp)"

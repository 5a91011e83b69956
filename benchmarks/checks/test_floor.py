"""The floor benchmark's smoke run (``python -m benchmarks.floor --quick``): no record lost or duplicated.

No timed assertion: the figures are the benchmark's business (docs/performance.md). The run starts its
own Mosquitto and PostgreSQL; without them it exits 2 and the test skips (fails under CI).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.controller.floor.services import unavailable

ROOT = Path(__file__).resolve().parents[2]
AUDIT_ROW = re.compile(r"^\| records lost / duplicated / rejected / left pending \|(.*)\|$", re.M)
COUNT_ROW = re.compile(r"^\| journal records / archived rows \|(.*)\|$", re.M)


def quick_run(*args: str) -> str:
    """The report of ``python -m benchmarks.floor --quick ARGS``; skips when a server is missing."""
    run = subprocess.run([sys.executable, "-m", "benchmarks.floor", "--quick", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=500)
    if run.returncode == 2:
        unavailable(run.stderr.strip())
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def cells(pattern: re.Pattern[str], report: str) -> list[str]:
    found = pattern.search(report)
    assert found, report
    return [cell.strip() for cell in found.group(1).split("|")]


def assert_every_record_archived_once(report: str) -> None:
    assert cells(AUDIT_ROW, report) == ["0 / 0 / 0 / 0"], report
    for cell in cells(COUNT_ROW, report):
        journaled, archived = (int(part) for part in cell.split(" / "))
        assert journaled > 100 and archived == journaled, report


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_floor_archives_every_record_of_every_table_once() -> None:
    report = quick_run("--only", "floor")
    assert_every_record_archived_once(report)
    split = re.search(r"^\| of which that receipt → archive commit \(the archive\), p50 / p99 \| ([\d.]+ m?s) / "
                      r"([\d.]+ m?s) \|$", report, re.M)
    assert split, "the latency is split at the benchmark's own subscriber\n" + report
    cpu = re.search(r"^\| CPU seconds .*\| (.*) \|$", report, re.M)
    assert cpu and all(f"{part} " in cpu.group(1) for part in ("tables", "broker", "archive", "PostgreSQL")), report


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_tables_killed_with_kill_9_and_restarted_lose_nothing() -> None:
    report = quick_run("--only", "faults", "--faults", "tables")
    assert "killed with SIGKILL after" in report, report
    assert_every_record_archived_once(report)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_every_fault_of_the_record_of_truth_loses_and_duplicates_nothing() -> None:
    """Issue 27: archived rows deleted, a table and the archive killed with kill -9, the broker stopped, the broker
    killed with kill -9 while the archive was away (the archive started late), PostgreSQL stopped, bad messages."""
    report = quick_run("--only", "faults")
    for said in ("archived rows of", "killed with SIGKILL after", "archive killed with SIGKILL mid-run",
                 "broker stopped (SIGTERM)", "broker killed with SIGKILL while the archive was away",
                 "PostgreSQL stopped for", "7 bad messages published, 7 refused by the archive"):
        assert said in report, (said, report)
    assert_every_record_archived_once(report)

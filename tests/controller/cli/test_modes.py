"""Issue 29 item 4: every journal states its mode (live, simulation, training) in its first records, a run on a
mock or scripted source is a simulation, and history, report and audit name the mode (D1, D2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.inprocess import croupier_in_process
from tests.journals import live_journal, record_bodies

ROOT = Path(__file__).resolve().parents[3]
DEADLINE = 120


def croupier(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=DEADLINE)




def mode_of(path: Path) -> tuple[str, str]:
    """The mode the header (record 1) and the start record state."""
    (header_kind, header), (start_kind, start) = record_bodies(path)[:2]
    assert (header_kind, start_kind) == ("header", "start")
    return header["mode"], start["mode"]


def test_simulate_writes_simulation_in_the_first_records(tmp_path: Path) -> None:
    path = tmp_path / "sim.journal"
    done = croupier_in_process("simulate", "--seed", "3", "--rounds", "2", "--quiet", "--journal", str(path))
    assert done.returncode == 0, done.stderr
    assert mode_of(path) == ("simulation", "simulation")
    table = record_bodies(path)[1][1]["events"][0]
    assert table["event"] == "table" and table["mode"] == "simulation"


def test_run_on_a_mock_shoe_is_a_simulation(tmp_path: Path) -> None:
    path = tmp_path / "run.journal"
    done = croupier("run", "--driver", "mock://?seed=5", "--auto-next", "--rounds", "1", "--json", "--no-keyboard",
                    "--journal", str(path))
    assert done.returncode == 0, done.stderr
    assert mode_of(path) == ("simulation", "simulation")
    first = json.loads(done.stdout.splitlines()[0])
    assert first["event"] == "table" and first["mode"] == "simulation"


def test_run_on_a_scripted_shoe_is_a_simulation(tmp_path: Path) -> None:
    script = tmp_path / "shoe.txt"
    script.write_text("@shoe 3S KD 5H 9C\n", encoding="utf-8")
    path = tmp_path / "scripted.journal"
    done = croupier("run", "--driver", f"mock://?script={script}", "--no-burn", "--json", "--journal", str(path))
    assert done.returncode == 0, done.stderr
    assert mode_of(path) == ("simulation", "simulation")


def test_run_on_a_serial_reader_is_live(tmp_path: Path) -> None:
    path = tmp_path / "live.journal"
    done = live_journal(path)
    assert done.returncode == 0, done.stderr
    assert mode_of(path) == ("live", "live")


def test_train_writes_training(tmp_path: Path) -> None:
    path = tmp_path / "drill.journal"
    croupier("train", "--seed", "2", "--rounds", "1", "--json", "--journal", str(path), stdin="")
    assert mode_of(path) == ("training", "training")


def test_history_audit_and_report_name_the_mode(tmp_path: Path) -> None:
    path = tmp_path / "sim.journal"
    done = croupier_in_process("simulate", "--seed", "3", "--rounds", "2", "--quiet", "--journal", str(path))
    assert done.returncode == 0, done.stderr
    history = croupier_in_process("history", str(path))
    assert history.returncode == 0, history.stderr
    assert history.stdout.splitlines()[-1] == "Mode: SIMULATION"
    audit = croupier_in_process("audit", "verify", str(path))
    assert audit.returncode == 0, audit.stdout
    assert audit.stderr.splitlines() == ["croupier audit verify: mode: SIMULATION"]
    report = croupier_in_process("report", "dealers", str(path))
    assert report.returncode == 0, report.stderr
    assert f"{path}: SIMULATION" in report.stdout
    as_json = json.loads(croupier_in_process("report", "dealers", str(path), "--json").stdout)
    assert as_json["journals"] == [{"path": str(path), "mode": "simulation"}]


def test_a_journal_written_before_modes_names_the_mode_its_table_event_gives() -> None:
    old = ROOT / "tests" / "controller" / "journal" / "fixtures"
    journals = sorted(old.glob("format1-*.db"))
    assert journals, "the format-1 fixtures"
    for path in journals:
        history = croupier_in_process("history", str(path))
        assert history.stdout.splitlines()[-1] == "Mode: SIMULATION", history.stdout[-200:]

"""Every events record of a journal says which table raised its events and each event's stable code (L1: the
device's id and a unique event code with every significant event); the replay checks both."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from controller.core.codes import code_of
from controller.core.events import decode_event
from tests.controller.journal.forger import forge_record
from tests.inprocess import croupier_in_process


def bodies(path: Path) -> list[tuple[int, str, dict[str, Any]]]:
    connection = sqlite3.connect(path)
    try:
        return [(seq, kind, json.loads(body)) for seq, kind, body in
                connection.execute("SELECT seq, kind, body FROM records ORDER BY seq")]
    finally:
        connection.close()


def test_every_events_record_carries_the_tables_id_and_its_events_codes(tmp_path: Path) -> None:
    journal = tmp_path / "t.db"
    run = croupier_in_process("simulate", "--seed", "4", "--rounds", "6", "--json", "--journal", str(journal),
                              CROUPIER_TABLE_ID="casino-1/bac-07")
    assert run.returncode == 0, run.stderr
    records = bodies(journal)
    assert records[0][2]["device"] == "casino-1/bac-07"
    with_events = [body for _, kind, body in records if kind in ("start", "events")]
    assert len(with_events) > 20
    for body in with_events:
        events = body["events"]
        assert body["device"] == "casino-1/bac-07"
        assert body["codes"] == [code_of(decode_event(event)) for event in events]


def test_a_code_changed_by_a_careful_forger_is_refused_by_the_replay(tmp_path: Path) -> None:
    journal = tmp_path / "t.db"
    assert croupier_in_process("simulate", "--seed", "4", "--rounds", "3", "--journal", str(journal)).returncode == 0
    seq, _, body = next(record for record in bodies(journal)
                        if record[1] == "events" and 203 in record[2]["codes"])
    body["codes"] = [209 if code == 203 else code for code in body["codes"]]  # a card dealt, told as an input refused
    forge_record(journal, seq, json.dumps(body, separators=(",", ":"), ensure_ascii=False))
    audit = croupier_in_process("audit", "verify", "--replay", str(journal))
    assert audit.returncode == 1, audit.stdout + audit.stderr
    assert f"record {seq}: its device or event codes are not those of its events" in audit.stdout + audit.stderr


def test_without_an_id_the_record_names_the_host(tmp_path: Path) -> None:
    import socket

    journal = tmp_path / "t.db"
    assert croupier_in_process("simulate", "--seed", "4", "--rounds", "1", "--journal", str(journal)).returncode == 0
    assert bodies(journal)[0][2]["device"] == socket.gethostname()


def test_a_bad_table_id_is_a_clear_error(tmp_path: Path) -> None:
    run = croupier_in_process("simulate", "--rounds", "1", CROUPIER_TABLE_ID="bac 07!")
    assert run.returncode == 2
    assert "table" in run.stderr and "id" in run.stderr and "bac 07!" in run.stderr and "Traceback" not in run.stderr


def test_a_halt_from_before_a_restart_says_it_is_still_there(tmp_path: Path) -> None:
    """E3: an error that was showing when the controller stopped comes back after the restart, and says so."""
    journal = tmp_path / "t.db"
    script = tmp_path / "halt.txt"
    script.write_text("@shoe AS 2S 3S KD 5H ZZ\n", encoding="utf-8")
    first = croupier_in_process("simulate", "--script", str(script), "--journal", str(journal))
    assert "unknown_card" in first.stdout + first.stderr
    again = croupier_in_process("simulate", "--script", str(script), "--journal", str(journal))
    still = "still halted on the unknown_card misdeal from before the restart (resolve it: @manual @burn @void)"
    assert still in again.stderr, again.stderr

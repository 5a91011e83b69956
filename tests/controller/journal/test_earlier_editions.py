"""Journals written under earlier rules stay verifiable: an upgrade must not make yesterday's journal fail its audit.

The journals of ``tests/fixtures/journals/events2`` were written by an earlier Croupier (its README says which and
how). Replayed, each must give exactly the events it journaled: the table replays a journal under the rules of the
event format its header names.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.controller.journal.forger import forge_record
from tests.inprocess import croupier_in_process

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "journals" / "events2"


def unpacked(name: str, where: Path) -> Path:
    path = where / name.removesuffix(".gz")
    with gzip.open(FIXTURES / name, "rb") as packed, path.open("wb") as plain:
        shutil.copyfileobj(packed, plain)
    return path


@pytest.mark.parametrize("name", sorted(path.name for path in FIXTURES.glob("*.journal.gz")))
def test_a_journal_of_the_earlier_rules_replays_as_it_was_dealt(name: str, tmp_path: Path) -> None:
    journal = unpacked(name, tmp_path)
    verified = croupier_in_process("audit", "verify", "--replay", str(journal))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith("OK: "), verified.stdout
    shown = croupier_in_process("history", str(journal))
    assert shown.returncode == 0, shown.stderr


def forged(path: Path, change: Callable[[dict[str, Any]], bool]) -> int:
    """The first events record that ``change`` changes, written back with the chain kept whole; its seq."""
    connection = sqlite3.connect(path)
    records = connection.execute("SELECT seq, kind, body FROM records ORDER BY seq").fetchall()
    connection.close()
    for seq, kind, body in records:
        if kind != "events":
            continue
        data = json.loads(body)
        if any(change(event) for event in data["events"]):
            forge_record(path, seq, json.dumps(data, separators=(",", ":"), ensure_ascii=False))
            return int(seq)
    raise AssertionError("no event to change")


def reword(event: dict[str, Any]) -> bool:
    if event["event"] == "instruction" and event.get("say_id") == "misdeal.halt":
        event["say"] = "Halt. " + event["say"].partition(": ")[2]  # the earlier English of the same message
        return True
    return False


def reslot(event: dict[str, Any]) -> bool:
    if event["event"] == "card" and event["slot"] == "B1":
        event["slot"] = "B2"
        return True
    return False


@pytest.mark.parametrize("change, replays", [(reword, True), (reslot, False)], ids=["reworded", "reslotted"])
def test_a_reworded_message_replays_and_a_changed_fact_does_not(tmp_path: Path, change: Callable[[dict[str, Any]],
                                                                bool], replays: bool) -> None:
    path = tmp_path / "j.db"
    assert croupier_in_process("simulate", "--no-burn", "--cards", "3S ?? @void 9S 5S KD 3C",
                               "--journal", str(path), "--quiet").returncode == 0
    audited_after_forging(path, change, replays)


def audited_after_forging(path: Path, change: Callable[[dict[str, Any]], bool], replays: bool) -> None:
    """Forge the journal at ``path`` with ``change`` (its chain kept whole); its audit, plain and with
    ``--replay``, passes when the forged record ``replays`` and names it otherwise."""
    seq = forged(path, change)
    for options in ((), ("--replay",)):  # the chain is whole; with no checkpoint yet both replay from the start
        replayed = croupier_in_process("audit", "verify", *options, str(path))
        if replays:
            assert replayed.returncode == 0, replayed.stdout
        else:
            assert replayed.returncode == 1, replayed.stdout
            assert f"record {seq}: replaying the journal gives other events than were journaled" in replayed.stdout


EARLIER_REASON = "no card to take back (an English no longer written)"


def reword_reason(event: dict[str, Any]) -> bool:
    """A refusal journaled in the earlier English of its reason: its ``reason``, its ``say`` and the ``reason`` of
    its ``say_params`` are that English; its ``reason_id`` and ``reason_params`` are the same."""
    if event["event"] == "rejected" and event.get("reason_id") == "rejected.exposed.none":
        event["reason"] = event["say_params"]["reason"] = EARLIER_REASON
        event["say"] = f"{event['input']} not accepted: {EARLIER_REASON}"
        return True
    return False


def another_reason(event: dict[str, Any]) -> bool:
    if event["event"] == "rejected" and event.get("reason_id") == "rejected.exposed.none":
        event["reason_id"] = "rejected.undo.nothing"
        return True
    return False


@pytest.mark.parametrize("change, replays", [(reword_reason, True), (another_reason, False)],
                         ids=["reworded", "another reason"])
def test_a_refusal_whose_reason_was_reworded_replays_and_another_reason_does_not(
        tmp_path: Path, change: Callable[[dict[str, Any]], bool], replays: bool) -> None:
    """Rewording a refusal's reason changed the ``say_params`` of every journal that held it: their audit said the
    replay gave other events."""
    path = tmp_path / "j.db"
    assert croupier_in_process("simulate", "--no-burn", "--cards", "@exposed 9S 5S KD 3C", "--journal", str(path),
                               "--quiet").returncode == 0
    audited_after_forging(path, change, replays)


BEFORE_STUB_COUNT = FIXTURES.parent / "before_stub_count"


def test_a_journal_written_before_the_stub_count_resumes_and_verifies(tmp_path: Path) -> None:
    """Its identity has no ``[procedures] count_every``: a table without the stub count (0, the default) is the one
    it was dealt at, so the same command resumes it instead of refusing other settings."""
    journal = tmp_path / "default.journal"
    with gzip.open(BEFORE_STUB_COUNT / "default.journal.gz", "rb") as packed, journal.open("wb") as plain:
        shutil.copyfileobj(packed, plain)
    resumed = croupier_in_process("simulate", "--seed", "1", "--rounds", "12", "--journal", str(journal), "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    verified = croupier_in_process("audit", "verify", "--replay", str(journal))
    assert verified.returncode == 0 and verified.stdout.startswith("OK: "), verified.stdout + verified.stderr
    assert croupier_in_process("history", str(journal)).returncode == 0
    counted = croupier_in_process("simulate", "--seed", "1", "--rounds", "12", "--journal", str(journal), "--quiet",
                                  CROUPIER_PROCEDURES_COUNT_EVERY="5")
    assert counted.returncode == 2
    assert "settings.procedures.count_every: journal has null, now 5" in counted.stderr


EVENTS3 = FIXTURES.parent / "events3"


@pytest.mark.parametrize("name", ["offered_twice.journal.gz", "lockout.journal.gz"])
def test_a_journal_of_event_format_3_still_verifies(name: str, tmp_path: Path) -> None:
    """Journals written before a locked badge reader stopped asking for a badge, and before a bet offered twice was
    refused: ``audit verify`` called both TAMPERED (exit 1), though nothing in them was edited."""
    journal = tmp_path / name.removesuffix(".gz")
    with gzip.open(EVENTS3 / name, "rb") as packed, journal.open("wb") as plain:
        shutil.copyfileobj(packed, plain)
    verified = croupier_in_process("audit", "verify", "--replay", str(journal))
    assert verified.returncode == 0 and verified.stdout.startswith("OK: "), verified.stdout + verified.stderr
    assert croupier_in_process("history", str(journal)).returncode == 0

"""A resume trusts nothing ``croupier audit verify`` would reject: ``run`` and ``simulate`` refuse (exit 2, one
line naming the record and what to do, the file and its ``-wal``/``-shm`` byte for byte as they were) a
journal whose earlier shoe was edited, whose records were deleted, inserted or reordered, whose file is
damaged, or whose last checkpoint was forged with the hash chain recomputed after it; and ``audit verify``
checks the last checkpoint against a replay of its shoe by default."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.journal.store import record_hash
from tests.controller.journal.forger import forge_record, forge_time
from tests.inprocess import Completed, croupier_in_process

GAME = ["simulate", "--seed", "31", "--decks", "1", "--rounds", "40", "--quiet"]
"""Six one-deck shoes, a checkpoint every 30 inputs: the last checkpoint is within the sixth shoe."""
LIVE = ["run", "--driver", "mock://?seed=31&decks=1", "--decks", "1", "--auto-next", "--rounds", "40", "--quiet",
        "--no-keyboard"]
"""The same one-deck shoes dealt by ``run`` into a one-deck table."""
SIDE_FILES = ("", "-wal", "-shm")

Row = tuple[int, str, str, str, str, str]


@pytest.fixture(scope="module")
def dealt(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The finished journals of ``GAME`` (simulate) and ``LIVE`` (run), and their config."""
    directory = tmp_path_factory.mktemp("dealt")
    config = directory / "every-30.toml"
    config.write_text("[journal]\ncheckpoint_every = 30\n", encoding="utf-8")
    made = {"config": config}
    for name, argv in (("simulate", GAME), ("run", LIVE)):
        path = directory / f"{name}.db"
        done = croupier_in_process(*argv, "--config", str(config), "--journal", str(path))
        assert done.returncode == 0, done
        assert croupier_in_process("audit", "verify", str(path)).returncode == 0
        made[name] = path
    return made


def copy_of(dealt: dict[str, Path], tmp_path: Path, command: str = "simulate") -> Path:
    path = tmp_path / "j.db"
    shutil.copyfile(dealt[command], path)
    return path


def rows_of(path: Path) -> list[Row]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT seq, kind, at, body, prev, hash FROM records ORDER BY seq").fetchall()
    finally:
        connection.close()


def execute(path: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    connection = sqlite3.connect(path)
    for statement, parameters in statements:
        connection.execute(statement, parameters)
    connection.commit()
    connection.close()


def fingerprint(path: Path) -> dict[str, str | None]:
    """The SHA-256 of the journal file and of its -wal and -shm (None: absent), and the directory's entries."""
    found: dict[str, str | None] = {
        suffix: hashlib.sha256(Path(f"{path}{suffix}").read_bytes()).hexdigest()
        if os.path.lexists(f"{path}{suffix}") else None for suffix in SIDE_FILES}
    found["directory"] = " ".join(sorted(os.listdir(path.parent)))
    return found


def resume(path: Path, config: Path, command: str = "simulate") -> Completed:
    return croupier_in_process(*(GAME if command == "simulate" else LIVE), "--config", str(config),
                               "--journal", str(path))


def assert_refused(path: Path, config: Path, named: str, command: str = "simulate") -> None:
    """Resuming ``path`` exits 2 with one line that names ``named`` and says what to do; nothing changed."""
    before = fingerprint(path)
    done = resume(path, config, command)
    assert done.returncode == 2, done
    assert done.stdout == "", done
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert named in lines[0], lines[0]
    assert "keep it for the audit" in lines[0], lines[0]
    assert fingerprint(path) == before


def audited(path: Path, *options: str) -> Completed:
    return croupier_in_process("audit", "verify", str(path), *options)


# -- the tampering ----------------------------------------------------------------------------------------


def first_of(rows: list[Row], kind: str, after: int = 20) -> int:
    """The first record of ``kind`` after record ``after`` (the first shoe)."""
    return next(seq for seq, found, *_ in rows if found == kind and seq > after)


def last_checkpoint(rows: list[Row]) -> Row:
    return [row for row in rows if row[1] == "checkpoint"][-1]


def shoe_start_of(rows: list[Row], checkpoint: Row) -> int:
    return int(json.loads(checkpoint[3])["shoe_from"])


def edit_earlier_events(path: Path) -> str:
    seq = first_of(rows_of(path), "events")
    execute(path, ("UPDATE records SET body = replace(body, '\"round\":', '\"round\": ') WHERE seq = ?", (seq,)))
    return f"record {seq} was edited"


def edit_earlier_input_and_its_hash(path: Path) -> str:
    rows = rows_of(path)
    seq, kind, at, body, prev, _ = rows[first_of(rows, "input") - 1]
    forged = body.replace('"card":"', '"card":"X', 1)
    execute(path, ("UPDATE records SET body = ?, hash = ? WHERE seq = ?",
                   (forged, record_hash(seq, kind, at, prev, forged), seq)))
    return f"record {seq + 1} does not follow record {seq}"


def edit_earlier_time(path: Path) -> str:
    seq = first_of(rows_of(path), "input", after=40)
    execute(path, ("UPDATE records SET at = ? WHERE seq = ?", ("2020-01-01T00:00:00.000000Z", seq)))
    return f"record {seq} was edited"


def forge_time_into_no_time(at: str) -> Callable[[Path], str]:
    """Give a record of the last shoe a time that is no UTC time in the journal's form, the chain recomputed after
    it (``croupier report dealers`` cannot read such a record, and tells to check the journal with the audit)."""

    def forge(path: Path) -> str:
        rows = rows_of(path)
        seq = next(row[0] for row in reversed(rows) if row[1] == "events" and '"event":"result"' in row[3])
        forge_time(path, seq, at)
        return f"record {seq} was edited: a field has the wrong form"

    return forge


def edit_header(path: Path) -> str:
    execute(path, ("UPDATE records SET body = replace(body, '\"decks\":1', '\"decks\":8') WHERE seq = 1", ()))
    return "record 1 was edited"


def edit_earlier_checkpoint(path: Path) -> str:
    seq = first_of(rows_of(path), "checkpoint")
    execute(path, ("UPDATE records SET body = replace(body, '\"rounds\":', '\"rounds\":1') WHERE seq = ?", (seq,)))
    return f"record {seq} was edited"


def delete_earlier(path: Path) -> str:
    seq = first_of(rows_of(path), "events")
    execute(path, ("DELETE FROM records WHERE seq = ?", (seq,)))
    return f"record {seq} is missing"


def delete_earlier_and_renumber(path: Path) -> str:
    seq = first_of(rows_of(path), "events")
    execute(path, ("DELETE FROM records WHERE seq = ?", (seq,)),
            ("UPDATE records SET seq = -seq WHERE seq > ?", (seq,)),
            ("UPDATE records SET seq = -seq - 1 WHERE seq < 0", ()))
    return f"record {seq} is missing"


def insert_earlier(path: Path) -> str:
    rows = rows_of(path)
    seq = first_of(rows, "input")
    _, kind, at, body, _, _ = rows[seq - 1]
    digest = rows[seq][5]  # its events record's hash
    execute(path, ("UPDATE records SET seq = -seq WHERE seq > ?", (seq + 1,)),
            ("UPDATE records SET seq = -seq + 1 WHERE seq < 0", ()))
    forged = body.replace('"source":', '"forged":true,"source":')
    execute(path, ("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?)",
                   (seq + 2, kind, at, forged, digest, record_hash(seq + 2, kind, at, digest, forged))))
    return f"record {seq + 2} was inserted"


def swap_earlier(path: Path) -> str:
    seq = first_of(rows_of(path), "input")
    execute(path, ("UPDATE records SET seq = -1 WHERE seq = ?", (seq,)),
            ("UPDATE records SET seq = ? WHERE seq = ?", (seq, seq + 1)),
            ("UPDATE records SET seq = ? WHERE seq = -1", (seq + 1,)))
    return f"records {seq} and {seq + 1} were swapped"


def swap_earlier_far_apart(path: Path) -> str:
    seq = first_of(rows_of(path), "input")
    execute(path, ("UPDATE records SET seq = -1 WHERE seq = ?", (seq,)),
            ("UPDATE records SET seq = ? WHERE seq = ?", (seq, seq + 11)),
            ("UPDATE records SET seq = ? WHERE seq = -1", (seq + 11,)))
    return f"records {seq} and {seq + 11} were swapped"


def forge_last_checkpoint(change: Callable[[dict[str, object]], None]) -> Callable[[Path], str]:
    """Edit the last checkpoint's body with ``change`` and recompute the hash chain after it."""

    def forge(path: Path) -> str:
        seq, _, _, body, _, _ = last_checkpoint(rows_of(path))
        forged = json.loads(body)
        change(forged)
        forge_record(path, seq, json.dumps(forged, separators=(",", ":")))
        return f"record {seq}: the checkpoint does not match the replay"

    return forge


def _dealt_card_taken_out_of_the_inventory(body: dict[str, object]) -> None:
    ledger = body["state"]["ledger"]  # type: ignore[index]
    card = next(iter(ledger["inventory"]))
    del ledger["inventory"][card]  # the card may be dealt a second time: no foreign-card misdeal
    ledger["seen_total"] -= 1


def _one_more_banker_win(body: dict[str, object]) -> None:
    totals = body["totals"]
    assert isinstance(totals, dict)
    totals["banker"] += 1


def _another_position(body: dict[str, object]) -> None:
    body["position"] = [6, 3]


def forge_result_in_the_last_shoe(path: Path) -> str:
    """A result of the current shoe before the last checkpoint (read back by a resume, not replayed), its
    winner changed and the chain recomputed after it."""
    rows = rows_of(path)
    checkpoint = last_checkpoint(rows)
    seq, _, _, body, _, _ = next(row for row in rows if shoe_start_of(rows, checkpoint) < row[0] < checkpoint[0]
                                 and '"event":"result"' in row[3])
    forged = body.replace('"winner":"player"', '"winner":"tie"').replace('"winner":"banker"', '"winner":"tie"')
    assert forged != body
    forge_record(path, seq, forged)
    return f"record {seq}: replaying the journal gives other events"


def forge_last_position(move: Callable[[list[int], list[int]], list[int]]) -> Callable[[Path], str]:
    """Move the card source's position of the last input dealt after the last checkpoint (where a resume seeks the
    seeded shoe to) with ``move`` (given it and the one before it), and recompute the hash chain after it: the
    replay still matches (the card is in the input), but a resume would deal from another place of the shoe."""

    def forge(path: Path) -> str:
        rows = rows_of(path)
        checkpoints = [row[0] for row in rows if row[1] == "checkpoint"]
        sourced = [(row[0], json.loads(row[3])) for row in rows if row[1] == "input" and '"source":true' in row[3]]
        (seq, body), (_, before) = sourced[-1], sourced[-2]
        assert seq > max(checkpoints, default=0)
        body["position"] = move(body["position"], before["position"])
        forge_record(path, seq, json.dumps(body, separators=(",", ":")))
        return f"record {seq} was edited: "

    return forge


def plant_trigger(statement: str) -> Callable[[Path], str]:
    """Add a trigger to the journal's schema: no record changes, but what the resumed table writes would not stay
    (or would be changed) as it was committed and shown."""

    def plant(path: Path) -> str:
        execute(path, (statement, ()))
        return "the journal's schema was changed (trigger forged"

    return plant


def delete_the_shown_tail(path: Path) -> str:
    last = rows_of(path)[-1][0]
    execute(path, ("DELETE FROM records WHERE seq > ?", (last - 6,)))
    return f"record {last - 5} is missing"


TAMPERING: dict[str, Callable[[Path], str]] = {
    "an earlier shoe's events edited": edit_earlier_events,
    "an earlier shoe's input edited, its own hash recomputed": edit_earlier_input_and_its_hash,
    "an earlier record's time edited": edit_earlier_time,
    "the header edited": edit_header,
    "an earlier checkpoint edited": edit_earlier_checkpoint,
    "an earlier record deleted": delete_earlier,
    "an earlier record deleted, the later ones renumbered": delete_earlier_and_renumber,
    "a record inserted in an earlier shoe": insert_earlier,
    "two records of an earlier shoe swapped": swap_earlier,
    "two records of an earlier shoe swapped, ten records between them": swap_earlier_far_apart,
    "the last checkpoint's inventory forged, the chain recomputed": forge_last_checkpoint(
        _dealt_card_taken_out_of_the_inventory),
    "the last checkpoint's totals forged, the chain recomputed": forge_last_checkpoint(_one_more_banker_win),
    "the last checkpoint's position forged, the chain recomputed": forge_last_checkpoint(_another_position),
    "a result of the current shoe forged, the chain recomputed": forge_result_in_the_last_shoe,
    "the last input's position moved on in its shoe, the chain recomputed": forge_last_position(
        lambda position, _: [position[0], position[1] + 5]),
    "the last input's position moved back to the one before, the chain recomputed": forge_last_position(
        lambda _, before: before),
    "the last input's position moved to the next shoe's first card, the chain recomputed": forge_last_position(
        lambda position, _: [position[0] + 1, 1]),
    "a trigger planted that deletes each record written": plant_trigger(
        "CREATE TRIGGER forged AFTER INSERT ON records BEGIN DELETE FROM records WHERE seq = new.seq; END"),
    "a trigger planted that turns each result into a tie": plant_trigger(
        "CREATE TRIGGER forged AFTER INSERT ON records BEGIN UPDATE records SET body = replace(body, "
        "'\"winner\":\"banker\"', '\"winner\":\"tie\"') WHERE seq = new.seq; END"),
    "records shown then deleted from the end": delete_the_shown_tail,
    "a record's time made no time, the chain recomputed": forge_time_into_no_time("not a time"),
    "a record's time made empty, the chain recomputed": forge_time_into_no_time(""),
    "a record's time made a day that is none, the chain recomputed": forge_time_into_no_time(
        "2026-13-45T10:00:00.000000Z"),
    "a record's time made local, the chain recomputed": forge_time_into_no_time("2026-12-01T10:00:00.000000+02:00"),
}


@pytest.mark.parametrize("tamper", TAMPERING.values(), ids=TAMPERING.keys())
def test_simulate_refuses_what_the_audit_rejects_and_leaves_the_file_as_it_was(
        dealt: dict[str, Path], tmp_path: Path, tamper: Callable[[Path], str]) -> None:
    path = copy_of(dealt, tmp_path)
    named = tamper(path)
    checked = audited(path)
    assert checked.returncode == 1, checked
    assert named in checked.stdout, checked.stdout
    assert_refused(path, dealt["config"], named)


@pytest.mark.parametrize("tamper", [edit_earlier_events, delete_earlier,
                                    forge_last_checkpoint(_dealt_card_taken_out_of_the_inventory)])
def test_run_refuses_what_the_audit_rejects_and_leaves_the_file_as_it_was(
        dealt: dict[str, Path], tmp_path: Path, tamper: Callable[[Path], str]) -> None:
    """``run`` writes its WAL up front on opening a journal: a refused one must not get that either."""
    path = copy_of(dealt, tmp_path, "run")
    named = tamper(path)
    assert audited(path).returncode == 1
    assert_refused(path, dealt["config"], named, "run")


def test_a_refused_journal_left_with_its_wal_by_a_killed_controller_keeps_its_wal(
        dealt: dict[str, Path], tmp_path: Path) -> None:
    """The edit is in the -wal, which a process that died without closing the journal left behind: the
    refusal leaves the file and its -wal as they were (the -wal is not checkpointed into the file)."""
    path = copy_of(dealt, tmp_path)
    seq = first_of(rows_of(path), "events")
    edit = ("import os, sqlite3, sys; connection = sqlite3.connect(sys.argv[1]); "
            "connection.execute('PRAGMA wal_autocheckpoint=0'); "
            "connection.execute('UPDATE records SET body = replace(body, ?, ?) WHERE seq = ?', "
            "('\"round\":', '\"round\": ', int(sys.argv[2]))); connection.commit(); os._exit(0)")
    subprocess.run([sys.executable, "-c", edit, str(path), str(seq)], check=True)
    assert Path(f"{path}-wal").stat().st_size > 0
    checked = audited(path)
    assert checked.returncode == 1 and f"record {seq} was edited" in checked.stdout, checked
    before = fingerprint(path)
    done = resume(path, dealt["config"])
    assert done.returncode == 2 and f"record {seq} was edited" in done.stderr, done
    after = fingerprint(path)
    assert (after[""], after["-wal"]) == (before[""], before["-wal"])


# -- a forged last checkpoint ------------------------------------------------------------------------------


def test_audit_verify_checks_the_last_checkpoint_against_a_replay_of_its_shoe_by_default(
        dealt: dict[str, Path], tmp_path: Path) -> None:
    path = copy_of(dealt, tmp_path)
    checkpoint = last_checkpoint(rows_of(path))
    intact = audited(path)
    assert intact.returncode == 0, intact
    assert f"the last checkpoint (record {checkpoint[0]}) matches a replay of its shoe" in intact.stdout
    named = forge_last_checkpoint(_dealt_card_taken_out_of_the_inventory)(path)
    forged = audited(path)
    assert forged.returncode == 1
    assert forged.stdout.startswith("TAMPERED: ") and named in forged.stdout, forged.stdout
    assert "differs in state" in forged.stdout


def test_the_replay_of_the_shoe_starts_before_the_shoe_whatever_the_checkpoint_says(
        dealt: dict[str, Path], tmp_path: Path) -> None:
    """A forger who also moves the checkpoint's ``shoe_from`` next to it does not shorten the replay: where its
    shoe began is read from the journaled events."""
    path = copy_of(dealt, tmp_path)
    seq = last_checkpoint(rows_of(path))[0]

    def shorter_shoe(body: dict[str, object]) -> None:
        _dealt_card_taken_out_of_the_inventory(body)
        body["shoe_from"] = seq - 1

    named = forge_last_checkpoint(shorter_shoe)(path)
    assert audited(path).returncode == 1
    assert_refused(path, dealt["config"], named)


# -- a journal without a checkpoint yet ---------------------------------------------------------------------

ONE_SHOE = ["simulate", "--seed", "8", "--rounds", "20", "--quiet"]
"""One shoe of 20 rounds: fewer inputs than ``checkpoint_every`` (250 by default), so no checkpoint yet."""


@pytest.fixture(scope="module")
def one_shoe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("one-shoe") / "j.db"
    done = croupier_in_process(*ONE_SHOE, "--journal", str(path))
    assert done.returncode == 0, done
    assert not [row for row in rows_of(path) if row[1] == "checkpoint"]
    return path


def forge_a_result(path: Path, which: int) -> str:
    """Result ``which`` (0 the first, -1 the last) its winner changed, and the chain recomputed after it."""
    seq, _, _, body, _, _ = [row for row in rows_of(path) if '"event":"result"' in row[3]][which]
    forged = re.sub(r'"winner":"(player|banker|tie)"', lambda found: '"winner":"banker"'
                    if found.group(1) != "banker" else '"winner":"player"', body, count=1)
    assert forged != body
    forge_record(path, seq, forged)
    return f"record {seq}: replaying the journal gives other events"


@pytest.mark.parametrize("which", [0, -1], ids=["the first result", "the last result"])
def test_a_result_forged_before_the_first_checkpoint_is_named_by_the_audit_as_by_the_resume(
        one_shoe: Path, tmp_path: Path, which: int) -> None:
    """Without a checkpoint the resume replays the journal from its start and compares every event: the audit
    (without --replay) checks the same, so a forged result is named by both, not passed by the audit."""
    path = tmp_path / "j.db"
    shutil.copyfile(one_shoe, path)
    assert audited(path).returncode == 0
    named = forge_a_result(path, which)
    checked = audited(path)
    assert checked.returncode == 1, checked
    assert checked.stdout.startswith("TAMPERED: ") and named in checked.stdout, checked.stdout
    before = fingerprint(path)
    done = croupier_in_process(*ONE_SHOE, "--journal", str(path))
    assert done.returncode == 2 and done.stdout == "", done
    line, = done.stderr.splitlines()
    assert named in line and "keep it for the audit" in line, line
    assert fingerprint(path) == before


# -- damaged files -------------------------------------------------------------------------------------------


def page_size(path: Path) -> int:
    return int.from_bytes(path.read_bytes()[16:18], "big")


def test_a_damaged_file_is_refused_and_left_as_it_was(dealt: dict[str, Path], tmp_path: Path) -> None:
    """The page that holds a record of the first shoe overwritten: the audit reports the file damaged (exit 2),
    and so does the resume, naming the last record it could read, instead of appending to the file."""
    path = copy_of(dealt, tmp_path)
    *_, digest = rows_of(path)[29]
    data = path.read_bytes()
    size = page_size(path)
    page = data.index(digest.encode()) // size
    with path.open("r+b") as file:
        file.seek(page * size)
        file.write(b"\x5a" * size)
    checked = audited(path)
    assert checked.returncode == 2 and "the journal file is damaged after record" in checked.stderr, checked
    assert_refused(path, dealt["config"], "the journal file is damaged after record")


FLIPPED_FILES = 25


def test_byte_flipped_files_the_audit_rejects_are_never_resumed(dealt: dict[str, Path], tmp_path: Path) -> None:
    """One byte flipped at a random place of the file, 25 times: every file the audit rejects is refused,
    untouched, naming the record (a byte that makes a text column invalid UTF-8 too: that record fails its
    hash check)."""
    original = dealt["simulate"].read_bytes()
    chooser = random.Random(25)
    rejected = 0
    for attempt in range(FLIPPED_FILES):
        path = tmp_path / f"flipped-{attempt}.db"
        data = bytearray(original)
        where = chooser.randrange(100, len(data))
        data[where] ^= 0xFF
        path.write_bytes(bytes(data))
        if audited(path).returncode == 0:
            continue
        rejected += 1
        before = fingerprint(path)
        done = resume(path, dealt["config"])
        assert done.returncode == 2, (where, done)
        line, = done.stderr.splitlines()
        assert "Traceback" not in line and re.search(r"record \d+", line), (where, line)
        assert "keep it for the audit" in line, (where, line)
        assert fingerprint(path) == before, where
    assert rejected >= FLIPPED_FILES // 2  # most flips land in a record or in the file's structure


@pytest.mark.parametrize("stale", [b"", b"\x00" * 32768], ids=["empty -shm", "zeroed -shm"])
@pytest.mark.parametrize("command", ["simulate", "audit", "history"])
def test_a_truncated_journal_with_a_stale_shm_is_refused_with_its_directory_as_it_was(
        tmp_path: Path, command: str, stale: bytes) -> None:
    """A ``-shm`` left without its ``-wal`` (a copy, a killed controller's leftovers) indexes no WAL: the refusal
    of the truncated journal beside it read it through SQLite's WAL files, which created an empty ``-wal`` and
    rewrote the ``-shm``."""
    path = tmp_path / "J"
    assert croupier_in_process("simulate", "--rounds", "5", "--quiet", "--journal", str(path)).returncode == 0
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size - 3000)
    Path(f"{path}-shm").write_bytes(stale)
    before = fingerprint(path)
    argv = {"simulate": ["simulate", "--journal", str(path)], "audit": ["audit", "verify", str(path)],
            "history": ["history", str(path)]}[command]
    done = croupier_in_process(*argv)
    assert done.returncode in ((2,) if command == "simulate" else (1, 2)), done
    assert str(path) in done.stdout + done.stderr and "Traceback" not in done.stderr, done
    assert fingerprint(path) == before


def test_a_truncated_journal_whose_last_row_is_no_record_is_named_as_the_audit_names_it(tmp_path: Path) -> None:
    """Truncated, the file's damaged page read as a row numbered 0 after record 87: the resume said 'the journal has
    no records: it was emptied', while the audit found 87 intact records and named record 88 damaged."""
    path = tmp_path / "J"
    made = croupier_in_process("simulate", "--seed", "5", "--rounds", "5", "--quiet", "--journal", str(path))
    assert made.returncode == 0, made
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size - 3000)
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        intact = connection.execute("SELECT count(*) FROM records WHERE seq > 0").fetchone()[0]
    finally:
        connection.close()
    assert intact > 0
    audit = audited(path)
    assert audit.returncode == 1, audit
    named = re.search(r"record \d+ is damaged or was edited", audit.stdout)
    assert named, audit.stdout
    before = fingerprint(path)
    done = croupier_in_process("simulate", "--journal", str(path))
    assert done.returncode == 2, done
    assert "has no records" not in done.stderr and named.group(0) in done.stderr, done.stderr
    assert "keep it for the audit" in done.stderr
    assert fingerprint(path) == before


def test_a_card_moved_in_a_cards_journal_is_named_and_not_resumed(tmp_path: Path) -> None:
    """``--cards`` deals the same inputs at the same places every time, as a seeded shoe does: the last card's place
    moved on with the chain recomputed is named by the audit and the journal is not resumed (the mock would skip
    cards)."""
    from controller.core.shoe import shoe_with_cut_card

    cards = " ".join(shoe_with_cut_card(31, 1)[:45])
    argv = ["simulate", "--decks", "1", "--cards", cards, "--quiet"]
    path = tmp_path / "cards.db"
    assert croupier_in_process(*argv, "--journal", str(path)).returncode in (0, 3)
    assert audited(path).returncode == 0
    named = forge_last_position(lambda position, _: [position[0], position[1] + 2])(path)
    checked = audited(path)
    assert checked.returncode == 1, checked
    assert named in checked.stdout, checked.stdout
    before = fingerprint(path)
    done = croupier_in_process(*argv, "--journal", str(path))
    assert done.returncode == 2 and named in done.stderr and "keep it for the audit" in done.stderr, done
    assert fingerprint(path) == before


@pytest.mark.parametrize("setting", ['[bets]\noffered = ["player", "banker", "tie"]\n',
                                     "[bets]\nlive_edge = false\n", "[protection]\nsequence_check = false\n"])
def test_a_resume_with_other_replayed_settings_is_refused(dealt: dict[str, Path], tmp_path: Path,
                                                         setting: str) -> None:
    """``audit verify --replay`` replays a journal with the ``[bets]`` and ``[protection]`` its header keeps: a resume
    under others would deal on with other events (other settlements, edges, alerts), and the audit would then
    reject the honest journal as tampered. So it is refused, naming the setting, as other arguments are."""
    path = copy_of(dealt, tmp_path)
    execute(path, ("DELETE FROM records WHERE seq > 10", ()), ("UPDATE delivered SET seq = min(seq, 10)", ()))
    assert audited(path).returncode == 0
    config = tmp_path / "other.toml"
    config.write_text(dealt["config"].read_text(encoding="utf-8") + setting, encoding="utf-8")
    before = fingerprint(path)
    done = croupier_in_process(*GAME, "--config", str(config), "--journal", str(path))
    assert done.returncode == 2, done
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "other arguments" in lines[0], done.stderr
    assert setting.split("\n")[1].split(" =")[0] in lines[0], lines[0]
    assert fingerprint(path) == before
    assert audited(path, "--replay").returncode == 0

"""Fault tests: kill -9 the controller at hundreds of points, tear the journal's tail, fill the disk.

The contract under test: ``croupier simulate --seed N --rounds R --journal PATH --json`` can be
killed at any moment and run again with the same arguments; it then continues, and the union of
the result events it printed across runs equals one uninterrupted run's. The journal itself must
end up holding exactly the uninterrupted run's events: no card lost or doubled.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.inprocess import CROUPIER, ROOT, croupier_process_bytes
from tests.typed_events import plain

KILLS_WANTED = 200

if TYPE_CHECKING:
    from controller.core.events import Event

Events = list[dict[str, Any]]


def parse(data: bytes) -> Events:
    """Complete JSON lines only: a line cut short by the kill was never printed."""
    lines = data.split(b"\n")[:-1]
    return [json.loads(line) for line in lines if line.strip()]


croupier = croupier_process_bytes


@dataclass
class Killed:
    returncode: int
    printed: Events
    stderr: str


def run_and_kill(args: list[str], lines: int | None = None, seconds: float | None = None) -> Killed:
    """Run croupier; SIGKILL it after it printed ``lines`` lines, or after ``seconds``."""
    process = subprocess.Popen([*CROUPIER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert process.stdout is not None and process.stderr is not None
    head = b""
    if lines is not None:
        for _ in range(lines):
            line = process.stdout.readline()
            if not line:
                break
            head += line
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGKILL)
    elif seconds is not None:
        try:
            process.wait(seconds)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
    rest = process.stdout.read()  # what it printed before it died is still in the pipe
    stderr = process.stderr.read().decode(errors="replace")
    process.wait(30)
    return Killed(process.returncode, parse(head + rest), stderr)


def run_and_kill_after_start(args: list[str], delay: float) -> Killed:
    """Run croupier; SIGKILL it ``delay`` seconds after its first line (start-up and replay done).

    Timed from the first line rather than from the launch, a kill lands in the game however long
    a loaded machine takes to start Python, so every killed run still moves the game on.
    """
    process = subprocess.Popen([*CROUPIER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert process.stdout is not None and process.stderr is not None
    ready, _, _ = select.select([process.stdout], [], [], 120)
    head = process.stdout.readline() if ready else b""
    try:
        process.wait(delay)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGKILL)
    rest = process.stdout.read()
    stderr = process.stderr.read().decode(errors="replace")
    process.wait(30)
    return Killed(process.returncode, parse(head + rest), stderr)


def kill_at_a_random_moment(args: list[str], rng: random.Random, scale: float) -> Killed:
    """Mostly in the game (timed from the first line), sometimes in start-up or replay (timed from launch)."""
    if rng.random() < 0.25:
        return run_and_kill(args, seconds=rng.uniform(0.05, 0.4) * scale)
    return run_and_kill_after_start(args, rng.uniform(0.0, 0.3) * scale)


def dealt_count(events: Events) -> int:
    return sum(1 for event in events if event["event"] in ("card", "burn", "result"))


def result_lines(events: Events) -> list[str]:
    return [json.dumps(event, sort_keys=True) for event in events if event["event"] == "result"]


def journal_events(path: Path) -> list[Event]:
    """Every event the journal holds, in order (read through the history API, read-only)."""
    from controller.journal.replay import journaled_events
    from controller.journal.store import Journal

    journal = Journal.open_existing(path)
    try:
        return [event for _, events in journaled_events(journal) for event in events]
    finally:
        journal.close()


def remove_journal(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            Path(f"{path}{suffix}").unlink()


@dataclass
class Outcome:
    kills: int = 0
    printed: Events = field(default_factory=list)
    runs: int = 0


def kill_until_done(args: list[str], journal: Path, rng: random.Random, *, max_lines: int = 40,
                    by_time: bool = False, tear: bool = False, limit: int = 400) -> Outcome:
    """Run ``args --journal journal`` again and again, killing it, until one run ends by itself."""
    outcome = Outcome()
    scale = 1.0
    for _ in range(limit):
        if by_time:
            run = kill_at_a_random_moment([*args, "--journal", str(journal)], rng, scale)
            # a run killed before it dealt anything gives the next one longer (a loaded machine)
            scale = 1.0 if dealt_count(run.printed) else min(scale * 2, 64.0)
        else:
            run = run_and_kill([*args, "--journal", str(journal)], lines=rng.randint(1, max_lines))
        outcome.runs += 1
        outcome.printed += run.printed
        if run.returncode != -signal.SIGKILL:
            assert run.returncode == 0, run.stderr
            assert "Traceback" not in run.stderr
            return outcome
        outcome.kills += 1
        if tear:
            tear_tail(journal, rng)
    raise AssertionError(f"no run finished in {limit} attempts")


def tear_tail(journal: Path, rng: random.Random) -> None:
    """A torn write: cut a few bytes, up to a few frames, off the end of the WAL."""
    wal = Path(f"{journal}-wal")
    if wal.exists() and wal.stat().st_size > 32 + 4096:
        size = wal.stat().st_size
        with wal.open("r+b") as handle:
            handle.truncate(size - rng.randint(1, min(3 * 4120, size - 32)))


def check(args: list[str], journal: Path, outcome: Outcome) -> None:
    """The killed-and-resumed game is the uninterrupted game."""
    reference = parse(croupier(*args).stdout)
    reference_results = result_lines(reference)
    assert reference_results and len(set(reference_results)) == len(reference_results)
    # The contract: the union of printed results is the uninterrupted run's.
    assert set(result_lines(outcome.printed)) == set(reference_results)
    # The journal holds exactly the uninterrupted run: every card once, in order.
    assert plain(journal_events(journal)) == reference
    # History gives each round's result once, exactly as emitted.
    history = croupier("history", str(journal), "--json")
    assert history.returncode == 0, history.stderr
    shown = [line for line in history.stdout.decode().splitlines() if '"event": "result"' in line]
    times = [json.loads(line)["at"] for line in shown]
    assert all(at.endswith("Z") and "T" in at for at in times)  # each line ends with its record's UTC time
    assert shown == [json.dumps(event, separators=(", ", ": "))[:-1] + f', "at": "{at}"}}'
                     for event, at in zip((e for e in reference if e["event"] == "result"), times, strict=False)]
    assert len(shown) == len([e for e in reference if e["event"] == "result"])
    audit = croupier("audit", "verify", str(journal), "--replay")
    assert audit.returncode == 0, audit.stdout + audit.stderr


SCENARIOS = [
    # (seed, decks, rounds, kill by) -- whole shoes, shoe changes, burns of every new shoe.
    (11, 8, 85, "lines"),    # one 8-deck shoe to the cut card and into the next
    (12, 1, 40, "lines"),    # 1-deck shoes: a shoe change every few rounds
    (13, 2, 45, "time"),     # random moments, including start-up and replay
]


@pytest.mark.slow
@pytest.mark.timeout(1800)  # some 400 runs of the command: 4 minutes on a loaded 2-core machine sharing its cores
def test_kill9_at_200_points_and_restart(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    kills = 0
    round_trip = 0
    while kills < KILLS_WANTED:
        seed, decks, rounds, how = SCENARIOS[round_trip % len(SCENARIOS)]
        seed += 100 * (round_trip // len(SCENARIOS))
        round_trip += 1
        args = ["simulate", "--seed", str(seed), "--decks", str(decks), "--rounds", str(rounds), "--json"]
        journal = tmp_path / f"kill-{seed}.db"
        outcome = kill_until_done(args, journal, rng, max_lines=45 if decks == 8 else 25,
                                  by_time=how == "time")
        check(args, journal, outcome)
        kills += outcome.kills
        assert round_trip < 20
    assert kills >= KILLS_WANTED
    print(f"{kills} kills over {round_trip} games")


@pytest.mark.slow
def test_torn_wal_tail_after_kills(tmp_path: Path) -> None:
    rng = random.Random(7)
    args = ["simulate", "--seed", "14", "--decks", "2", "--rounds", "30", "--json"]
    journal = tmp_path / "torn.db"
    outcome = kill_until_done(args, journal, rng, max_lines=60, tear=True)
    assert outcome.kills >= 5
    check(args, journal, outcome)


def test_torn_database_file_is_a_clear_error(tmp_path: Path) -> None:
    args = ["simulate", "--seed", "15", "--rounds", "20", "--json"]
    journal = tmp_path / "torn.db"
    first = croupier(*args, "--journal", str(journal))
    assert first.returncode == 0
    assert not Path(f"{journal}-wal").exists()  # a clean exit checkpoints into the database file
    size = journal.stat().st_size
    with journal.open("r+b") as handle:
        handle.truncate(size - 1000)
    again = croupier(*args, "--journal", str(journal))
    stderr = again.stderr.decode()
    assert again.returncode == 2
    assert str(journal) in stderr and "Traceback" not in stderr
    assert b'"event": "prompt"' not in again.stdout
    audit = croupier("audit", "verify", str(journal))
    assert audit.returncode in (1, 2)
    assert str(journal).encode() in audit.stdout + audit.stderr and b"Traceback" not in audit.stderr


@contextlib.contextmanager
def tmpfs(where: Path, size: str, read_only: bool = False) -> Iterator[Path]:
    where.mkdir()
    options = f"size={size}" + (",ro" if read_only else "")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                             capture_output=True, timeout=30)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.decode().strip() or 'not root'}); "
                    "tests/controller/journal/test_journal.py covers a full disk with max_page_count")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=30)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mount") is None or os.geteuid() != 0, reason="needs root to mount a tmpfs")
def test_full_disk_halts_and_resumes(tmp_path: Path) -> None:
    args = ["simulate", "--seed", "16", "--rounds", "150", "--json"]
    with tmpfs(tmp_path / "small", "160k") as disk:
        journal = disk / "j.db"
        full = croupier(*args, "--journal", str(journal))
        stderr = full.stderr.decode()
        assert full.returncode == 2, stderr
        assert "disk is full" in stderr and str(journal) in stderr and "Traceback" not in stderr
        printed = parse(full.stdout)
        assert printed == plain(journal_events(journal))  # nothing was shown that is not journaled
        subprocess.run(["mount", "-o", "remount,size=16m", str(disk)], check=True, timeout=30)
        resumed = croupier(*args, "--journal", str(journal))
        assert resumed.returncode == 0, resumed.stderr
        outcome = Outcome(printed=printed + parse(resumed.stdout))
        check(args, journal, outcome)


@pytest.mark.skipif(shutil.which("mount") is None or os.geteuid() != 0, reason="needs root to mount a tmpfs")
def test_read_only_journal_path(tmp_path: Path) -> None:
    args = ["simulate", "--seed", "17", "--rounds", "5", "--json"]
    with tmpfs(tmp_path / "ro", "1m", read_only=True) as disk:
        journal = disk / "j.db"
        run = croupier(*args, "--journal", str(journal))
        stderr = run.stderr.decode()
        assert run.returncode == 2
        assert str(journal) in stderr and "Traceback" not in stderr
        assert run.stdout == b""


# -- through the serial shoe emulator on a pty ---------------------------------------------------------


def _emulator(seed: int, decks: int, interval: float) -> tuple[subprocess.Popen[bytes], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "controller.cli.shoe_emulator", "--seed", str(seed), "--decks", str(decks),
         "--linger", "120", "--ack-timeout", "0.2", "--interval", str(interval)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT)
    assert process.stdout is not None
    line = process.stdout.readline().decode().split()
    assert line and line[0] == "PTY", line
    return process, line[1]


@pytest.mark.slow
@pytest.mark.parametrize("how", ["lines", "time"])
def test_kill9_through_the_serial_emulator(tmp_path: Path, how: str) -> None:
    """kill -9 ``croupier run`` reading a seeded shoe from the emulator over a pty; restart it.

    Within one shoe (the emulator's shoe changes are its own protocol), the cards the journal
    holds are the shoe's cards in order: none lost, none doubled, whatever the kill point. This
    relies on the serial driver acknowledging a card only once it is journaled (at the next ``recv()``)
    and dropping the retransmission of the last journaled message after a restart (``seek``).
    """
    seed, decks, rounds = 18, 8, 60
    # Killed by time, the shoe deals a card every 10 ms so that the kills land all along the game.
    emulator, pty = _emulator(seed, decks, 0.0 if how == "lines" else 0.01)
    try:
        journal = tmp_path / "serial.db"
        args = ["run", "--driver", f"serial://{pty}?framing=line&indicator=1", "--auto-next", "--json",
                "--no-keyboard", "--decks", str(decks), "--rounds", str(rounds)]
        rng = random.Random(5)
        printed: Events = []
        kills = 0
        scale = 1.0
        finished = False
        for _ in range(400):
            if how == "lines":
                run = run_and_kill([*args, "--journal", str(journal)], lines=rng.randint(3, 40))
            else:
                run = kill_at_a_random_moment([*args, "--journal", str(journal)], rng, scale)
                scale = 1.0 if dealt_count(run.printed) else min(scale * 2, 64.0)
            printed += run.printed
            if run.returncode != -signal.SIGKILL:
                assert run.returncode == 0, run.stderr
                finished = True
                break
            kills += 1
        assert finished, f"the game did not finish in {kills} killed runs"
        assert kills >= 10
        print(f"serial emulator ({how}): {kills} kills")
    finally:
        emulator.send_signal(signal.SIGTERM)
        try:
            emulator.wait(10)
        except subprocess.TimeoutExpired:
            emulator.kill()
    reference = parse(croupier("simulate", "--seed", str(seed), "--decks", str(decks), "--rounds", str(rounds),
                               "--json").stdout)
    dealt = [(e["event"], e.get("card")) for e in journal_events(journal) if e["event"] in ("card", "burn")]
    assert dealt == [(e["event"], e.get("card")) for e in reference if e["event"] in ("card", "burn")]
    assert set(result_lines(printed)) == set(result_lines(reference))


def record_kinds(journal: Path) -> list[str]:
    """The kinds of the journal's records, in order, as a restart would find them."""
    import sqlite3

    connection = sqlite3.connect(journal)
    try:
        return [kind for (kind,) in connection.execute("SELECT kind FROM records ORDER BY seq")]
    finally:
        connection.close()


@pytest.mark.slow  # kill -9 of a real process, up to 12 times
def test_kill9_never_leaves_an_input_without_its_events(tmp_path: Path) -> None:
    """An input and its events are one commit: whenever the controller dies, the journal ends with
    an events record (or the start, or the checkpoint that follows an events record in a commit of its own),
    perhaps followed by the notes a resume writes before its first input (killed between the resume and
    that input), and every input is followed by its events."""
    rng = random.Random(20261201)
    args = ["simulate", "--seed", "16", "--decks", "2", "--rounds", "400", "--json"]
    journal = tmp_path / "one-commit.db"
    kills = 0
    for _ in range(12):
        run = run_and_kill_after_start([*args, "--journal", str(journal)], rng.uniform(0.02, 0.4))
        if run.returncode != -signal.SIGKILL:
            break
        kills += 1
        kinds = record_kinds(journal)
        committed = [kind for kind in kinds if kind != "note"]
        assert committed[-1] in ("events", "start", "checkpoint"), (
            f"kill {kills}: the journal ends with {committed[-1]!r} (records {kinds[-4:]})")
        if committed[-1] == "checkpoint":
            assert committed[-2] == "events", f"kill {kills}: a checkpoint follows {committed[-2]!r}"
        inputs = [index for index, kind in enumerate(kinds) if kind == "input"]
        assert all(kinds[index + 1] == "events" for index in inputs), f"kill {kills}: {kinds}"
    assert kills >= 8


class _EmulatorLog:
    """A shoe emulator run with ``-v`` whose stderr lines are collected as they come, in a thread."""

    def __init__(self, *args: str) -> None:
        import threading

        self.process = subprocess.Popen(
            [sys.executable, "-m", "controller.cli.shoe_emulator", "-v", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, text=True)
        assert self.process.stdout is not None and self.process.stderr is not None
        first = self.process.stdout.readline().split()
        assert first and first[0] == "PTY", first
        self.path = first[1]
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, args=(self.process.stderr,), daemon=True)
        self._reader.start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()

    def wait_for(self, text: str, count: int = 1, timeout: float = 60) -> None:
        with self._changed:
            found = self._changed.wait_for(lambda: sum(text in line for line in self.lines) >= count, timeout)
        assert found, f"the emulator never logged {text!r} {count} time(s): {self.lines[-20:]}"

    def count(self, text: str) -> int:
        with self._changed:
            return sum(text in line for line in self.lines)

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(10)


def _cards_by_shoe(events: list[Event]) -> dict[int, list[str]]:
    """The cards each shoe dealt (round and burn cards), from an event stream."""
    by_shoe: dict[int, list[str]] = {}
    shoe = 1
    for event in events:
        if event["event"] in ("shoe", "round"):
            shoe = event["shoe"]
        elif event["event"] in ("card", "burn") and (card := event["card"]):
            by_shoe.setdefault(shoe, []).append(card)
    return by_shoe


@pytest.mark.slow  # an emulator and two controllers over a pty, one killed
@pytest.mark.parametrize("framing", ["line", "stx"])
def test_a_serial_table_killed_after_shoe_closed_deals_the_shoes_next_shoe_as_shoe_2(
        tmp_path: Path, framing: str) -> None:
    """Issue 25 item 3: killed with kill -9 once the shoe has closed (and the shoe was told new_shoe), the
    resumed table must not tell the shoe new_shoe again: the shoe would skip a whole shoe."""
    from controller.core.shoe import shoe_with_cut_card

    seed = 32
    shoe = _EmulatorLog("--seed", str(seed), "--decks", "1", "--framing", framing, "--linger", "120")
    journal = tmp_path / "table.journal"
    args = ["run", "--driver", f"serial://{shoe.path}?framing={framing}", "--json", "--auto-next", "--no-keyboard",
            "--no-burn", "--decks", "1", "--rounds", "12", "--journal", str(journal)]
    try:
        process = subprocess.Popen([*CROUPIER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
        assert process.stdout is not None
        closed = False
        for line in process.stdout:
            if json.loads(line)["event"] == "shoe_closed":
                closed = True
                shoe.wait_for("indicator: new_shoe")  # the shoe has the news: now kill the table
                break
        process.send_signal(signal.SIGKILL)
        process.wait(30)
        assert closed, process.stderr.read() if process.stderr else ""
        resumed = croupier(*args)
        assert resumed.returncode == 0, resumed.stderr.decode()
        new_shoes_started = shoe.count("new shoe ")
    finally:
        shoe.stop()
    dealt = _cards_by_shoe(journal_events(journal))
    assert len(dealt) >= 2
    for number, cards in dealt.items():
        own = [token for token in shoe_with_cut_card(seed, 1, number - 1) if token != "@cut"]
        assert cards == own[:len(cards)], f"table shoe {number} dealt cards that are not the shoe's shoe {number}"
    assert new_shoes_started == len(dealt) - 1 or new_shoes_started == len(dealt), shoe.lines
    assert not [e for e in journal_events(journal) if e["event"] == "misdeal"]

"""SIGTERM and SIGHUP, as a supervisor or a service manager stops a table (``systemctl stop``, ``kill``, a terminal
hung up), stop ``croupier run`` and ``croupier simulate`` as Ctrl+C does: the journal closed where the table was,
a message naming the signal, exit 128 + the signal's number (Ctrl+C's is 130). They killed the table outright
(exit 143/129, no word, no clean close). The journal verifies and a run with the same arguments resumes it."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import select
import signal
import sqlite3
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import CROUPIER, ROOT, croupier_process, environment, start_croupier

DEADLINE = 120.0
"""Seconds to wait for what a command prints or for its end (generous: a loaded machine is slow, never wrong)."""


def dealt_until(process: subprocess.Popen[str], rounds: int) -> list[dict[str, Any]]:
    """Read the JSON events of ``process`` until round ``rounds`` has its result (the command keeps dealing)."""
    assert process.stdout is not None
    events: list[dict[str, Any]] = []
    while True:
        line = process.stdout.readline()
        assert line, f"the command ended before round {rounds}: {events[-3:]}"
        event = json.loads(line)
        events.append(event)
        if event["event"] == "result" and event["round"] >= rounds:
            return events


def results(events: list[dict[str, Any]]) -> list[int]:
    return [event["round"] for event in events if event["event"] == "result"]


COMMANDS = {
    "simulate": ["simulate", "--seed", "7", "--rounds", "60", "--json"],
    "run": ["run", "--driver", "mock://?seed=7", "--auto-next", "--rounds", "60", "--json", "--no-keyboard"],
}


@contextlib.contextmanager
def reaped(process: subprocess.Popen[str]) -> Iterator[subprocess.Popen[str]]:
    """``process``, killed at the end of the block if it still runs (a test that failed halfway leaves nothing)."""
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=DEADLINE)


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_signal_stops_the_table_as_ctrl_c_does_and_the_journal_resumes(command: str, name: str,
                                                                        tmp_path: Path) -> None:
    number = signal.Signals[name]
    journal = str(tmp_path / "table.journal")
    argv = [*COMMANDS[command], "--journal", journal]
    pace = ["--pace", "0.05"] if command == "simulate" else []  # run's mock deals a card every 0.5 s by itself
    with reaped(start_croupier(*argv, *pace)) as process:
        before = dealt_until(process, 2)
        process.send_signal(number)
        out, err = process.communicate(timeout=DEADLINE)
    assert process.returncode == 128 + number, (process.returncode, err)
    assert "Traceback" not in err, err
    assert err.splitlines()[-1] == f"croupier {command}: stopped by {name}", err
    before += [json.loads(line) for line in out.splitlines() if line.strip()]
    assert results(before) and max(results(before)) < 60, "stopped before its rounds were played"

    audit = croupier_process("audit", "verify", journal)
    assert audit.returncode == 0, audit.stdout + audit.stderr

    again = croupier_process(*argv, timeout=DEADLINE * 2)
    assert again.returncode == 0, again.stderr
    assert f"resumed from journal {journal}" in again.stderr, again.stderr
    after = [json.loads(line) for line in again.stdout.splitlines() if line.strip()]
    # It goes on where it stopped: the last batch shown may be shown again (docs/journal.md, "Restarts"), no round
    # is dealt twice and none is missing.
    assert results(after) and min(results(after)) >= max(results(before)), (results(before), results(after))
    assert sorted(set(results(before)) | set(results(after))) == list(range(1, 61)), (results(before), results(after))
    assert croupier_process("audit", "verify", journal).returncode == 0


class Terminal:
    """``croupier ARGV`` on a pseudo-terminal of 80x24 (its standard input, output and error), what it draws read
    as it comes."""

    def __init__(self, *argv: str) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.process = subprocess.Popen([*CROUPIER, *argv], stdin=slave, stdout=slave, stderr=slave, cwd=ROOT,
                                        env=environment(TERM="xterm-256color"), start_new_session=True)
        os.close(slave)
        self.shown = b""

    def read(self, until: float) -> bool:
        """Take what it drew within ``until`` (a monotonic time); False when nothing came (or it ended)."""
        ready, _, _ = select.select([self.master], [], [], max(0.0, until - time.monotonic()))
        if not ready:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:  # the terminal's other end closed: the command ended
            return False
        self.shown += data
        return bool(data)

    def wait_for(self, text: str) -> None:
        deadline = time.monotonic() + DEADLINE
        while text.encode() not in self.shown:
            assert time.monotonic() < deadline, f"{text!r} not shown within {DEADLINE} s: {self.shown[-2000:]!r}"
            self.read(deadline)

    def ended(self) -> int:
        """Its exit status, reading what it draws until it ends."""
        deadline = time.monotonic() + DEADLINE
        while self.process.poll() is None:
            assert time.monotonic() < deadline, f"still running after {DEADLINE} s: {self.shown[-2000:]!r}"
            if not self.read(min(deadline, time.monotonic() + 0.5)):
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=0.5)
        while self.read(time.monotonic() + 0.2):
            pass
        return self.process.returncode

    def stopped_once_shown(self, text: str, number: int) -> tuple[int, str]:
        """Its exit status and all it drew, sent the signal ``number`` once it has drawn ``text``; closed after."""
        try:
            self.wait_for(text)
            self.process.send_signal(number)
            status = self.ended()
        finally:
            self.close()
        return status, self.shown.decode(errors="replace")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=DEADLINE)
        os.close(self.master)


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_signal_closes_the_dealer_console_as_ctrl_c_does(name: str, tmp_path: Path) -> None:
    """At the console too: it closes, the terminal is given back, the table stops and the summary is printed, the
    signal is named; the journal verifies."""
    number = signal.Signals[name]
    journal = str(tmp_path / "table.journal")
    terminal = Terminal("simulate", "--interactive", "--seed", "3", "--journal", journal)
    try:
        terminal.wait_for("LEFT 4")  # the console is up: the top line with the cards left
        terminal.process.send_signal(number)
        status = terminal.ended()
    finally:
        terminal.close()
    shown = terminal.shown.decode(errors="replace")
    assert status == 128 + number, (status, shown[-2000:])
    assert f"croupier simulate: stopped by {name}" in shown and "Traceback" not in shown, shown[-2000:]
    assert "Summary:" in shown, shown[-2000:]
    audit = croupier_process("audit", "verify", journal)
    assert audit.returncode == 0, audit.stdout + audit.stderr


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                # the command name, in parentheses, may hold spaces: the fields after its last ')' are plain
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    found.append(int(entry.name))
    return found


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_stop_of_the_process_group_ends_simulate_workers_without_a_traceback(name: str) -> None:
    """``simulate --workers`` deals its shoes in worker processes, and a service manager's stop (``systemctl
    stop``: every process of the unit) or Ctrl+C (the terminal's process group) signals each of them: each worker
    took the stop for its own, printed a traceback ('Process ForkProcess-2: Traceback ... SignalStop: 15') and
    left the pool it shared broken, so that the command sometimes never ended. The workers leave the stop to the
    command, which ends as the signal says, once (a few tries: a worker is dealing or waiting for its next shoes)."""
    number = signal.Signals[name]
    for _ in range(3):
        process = subprocess.Popen([*CROUPIER, "simulate", "--seed", "1", "--rounds", "10000000", "--workers", "4",
                                    "--quiet"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, cwd=ROOT, env=environment(),
                                   start_new_session=True)
        try:
            deadline = time.monotonic() + DEADLINE
            while len(children(process.pid)) < 4:  # the pool's workers are dealing
                assert process.poll() is None and time.monotonic() < deadline, process.communicate()
                time.sleep(0.05)
            os.killpg(process.pid, number)
            _, err = process.communicate(timeout=DEADLINE / 2)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=DEADLINE)
        assert "Traceback" not in err, err
        said = "interrupted" if number == signal.SIGINT else f"stopped by {name}"
        assert process.returncode == 128 + number and err.splitlines() == [f"croupier simulate: {said}"], (
            process.returncode, err)


def test_a_stop_signal_is_named_when_the_console_it_cancelled_ends_with_an_interrupt_of_its_own() -> None:
    """At the console a stop signal goes to asyncio's Ctrl+C handler, which cancels the console; cancelled while it
    starts, the console's asyncio runner raises a KeyboardInterrupt of its own, and the command said 'interrupted'
    and exited 130 (a SIGTERM during the console's start), not 'stopped by SIGTERM' and 143."""
    from controller.cli.stopping import SignalStop, stopped_by_signals

    cancelled: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: cancelled.append(number))  # as asyncio's does
    try:
        with pytest.raises(KeyboardInterrupt) as stop, stopped_by_signals():  # not SignalStop: a plain one fails
            signal.raise_signal(signal.SIGTERM)
            assert cancelled == [signal.SIGINT]
            raise KeyboardInterrupt  # asyncio.Runner.run: its main task was cancelled by its SIGINT handler
    finally:
        signal.signal(signal.SIGINT, previous)
    assert isinstance(stop.value, SignalStop), repr(stop.value)
    assert stop.value.number == signal.SIGTERM and stop.value.status == 143


def test_ctrl_c_without_a_stop_signal_stays_an_interrupt() -> None:
    from controller.cli.stopping import SignalStop, stopped_by_signals

    with pytest.raises(KeyboardInterrupt) as interrupt, stopped_by_signals():
        raise KeyboardInterrupt
    assert not isinstance(interrupt.value, SignalStop)


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
def test_a_signal_while_the_dealer_console_starts_closes_it_without_a_traceback(name: str, tmp_path: Path) -> None:
    """A stop as the console takes the terminal (a unit stopped while its table starts): asyncio's Ctrl+C handler
    cancelled the console's start while its widgets were still being mounted, the table's screen drew on widgets
    that were not there, and Textual printed a traceback ('NoMatches: No nodes match '#alert-big'') before the
    command's last line."""
    number = signal.Signals[name]
    journal = str(tmp_path / "table.journal")
    terminal = Terminal("simulate", "--interactive", "--seed", "3", "--journal", journal)
    # the console takes the terminal's alternate screen: it is starting
    status, shown = terminal.stopped_once_shown("\x1b[?1049h", number)
    said = "interrupted" if number == signal.SIGINT else f"stopped by {name}"
    assert "Traceback" not in shown and "NoMatches" not in shown, shown[-3000:]
    assert status == 128 + number and f"croupier simulate: {said}" in shown, (status, shown[-2000:])
    audit = croupier_process("audit", "verify", journal)
    assert audit.returncode == 0, audit.stdout + audit.stderr


SECOND_SIGNAL = """
import signal
from controller.cli.stopping import SignalStop, stopped_by_signals
try:
    with stopped_by_signals(until_exit=True):
        signal.raise_signal(signal.SIGTERM)
except SignalStop as stop:
    print("stopped by", stop.name, flush=True)
signal.raise_signal(signal.SIGTERM)  # a second one, after the stop and before the exit
print("exits as stopped", flush=True)
"""


def test_a_second_signal_after_the_stop_is_ignored_until_the_process_exits() -> None:
    """The stop's handlers were put back as the table stopped, so a second SIGTERM between the stop and the exit
    (a service manager that repeats it) killed the process (-15) instead of its saying the stop and exiting 143."""
    ended = subprocess.run([sys.executable, "-c", SECOND_SIGNAL], cwd=ROOT, capture_output=True, text=True,
                           timeout=120)
    assert (ended.returncode, ended.stdout) == (0, "stopped by SIGTERM\nexits as stopped\n"), ended.stderr


SPIED = """
import sys
import controller.cli.stopping as stopping
from controller.cli.main import main

real = stopping.stopped_by_signals
stopping.stopped_by_signals = lambda until_exit=False: (print("until_exit", until_exit), real(until_exit))[1]
ARGS = ["simulate", "--seed", "1", "--rounds", "1", "--quiet"]
main(ARGS)
sys.argv = ["croupier", *ARGS]
main()
"""


def test_only_the_croupier_process_keeps_ignoring_a_second_signal() -> None:
    """``main(argv)`` called in a program of its own (the tests' in-process runs) gets its handlers back after a stop;
    the ``croupier`` command itself (``main()``, its arguments from the command line) ends after it."""
    ended = subprocess.run([sys.executable, "-c", SPIED], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert [line for line in ended.stdout.splitlines() if line.startswith("until_exit")] == \
        ["until_exit False", "until_exit True"], ended.stderr


def test_the_stop_handlers_are_put_back_after_a_stop_when_the_process_goes_on() -> None:
    from controller.cli.stopping import SignalStop, stopped_by_signals

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SignalStop), stopped_by_signals():
        signal.raise_signal(signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is before


def shoes_shown(shown: bytes) -> int:
    """The shoes done by the last progress bar ``croupier study`` drew (``[###...] 75/1000000 shoes``), 0 before."""
    done = [int(number) for number in re.findall(rb"\] (\d+)/\d+ shoes", shown)]
    return done[-1] if done else 0


STUDY = ["study", "--shoes", "1000000", "--seed", "1", "--bets", "dragon_7", "--json"]


@pytest.mark.parametrize(("name", "workers"), [("SIGTERM", "2"), ("SIGHUP", "2"), ("SIGINT", "2"), ("SIGTERM", "1")])
def test_a_stop_of_the_process_group_ends_the_study_with_the_report_of_the_shoes_dealt(name: str,
                                                                                        workers: str) -> None:
    """``croupier study`` stops on SIGTERM and SIGHUP as on Ctrl+C: it reports the shoes dealt so far (the same
    figures as a study of only those shoes), says which signal stopped it and exits 128 + its number. SIGTERM and
    SIGHUP killed it outright with no word; a stop signalled to the process group (Ctrl+C at a terminal, ``systemctl
    stop``) reached each worker too, which raised it, and the command waited for every shoe still queued: it never
    ended. Its progress bar (standard error on a terminal) says when shoes are done."""
    number = signal.Signals[name]
    master, slave = os.openpty()
    process = subprocess.Popen([*CROUPIER, *STUDY, "--workers", workers], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=slave, text=True, cwd=ROOT, env=environment(),
                               start_new_session=True)
    os.close(slave)
    shown = b""
    try:
        deadline = time.monotonic() + DEADLINE
        while shoes_shown(shown) == 0:  # the first shoes are tallied
            assert process.poll() is None and time.monotonic() < deadline, (process.poll(), shown[-500:])
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                shown += os.read(master, 65536)
        workers_seen = children(process.pid)
        os.killpg(process.pid, number)
        out, _ = process.communicate(timeout=DEADLINE)
        while True:  # what it said after the stop (the pty keeps it until read)
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                break
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            shown += data
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=DEADLINE)
        os.close(master)
    err = shown.decode(errors="replace").replace("\r\n", "\n")
    said = "interrupted" if number == signal.SIGINT else f"stopped by {name}"
    assert "Traceback" not in err, err[-3000:]
    assert process.returncode == 128 + number, (process.returncode, err[-2000:])
    assert err.strip().splitlines()[-1] == f"croupier study: {said}", err[-2000:]
    report = json.loads(out)
    assert report["finished"] is False and 0 < report["shoes"] < 1000000, {key: report[key] for key in ("shoes",)}
    same = croupier_process(*STUDY[:2], str(report["shoes"]), *STUDY[3:], "--workers", "1")
    assert same.returncode == 0, same.stderr
    assert report["shoes_asked"] == 1000000
    assert {**report, "finished": True, "shoes_asked": report["shoes"]} == json.loads(same.stdout), (
        "the shoes reported are the first ones dealt")
    deadline = time.monotonic() + DEADLINE
    while any(Path(f"/proc/{pid}").exists() for pid in workers_seen):  # orphans are reaped by init at once
        assert time.monotonic() < deadline, f"workers left running: {workers_seen}"
        time.sleep(0.1)


def question_asked(process: subprocess.Popen[str], count: int) -> str:
    """Read ``croupier train``'s plain terminal until it has asked ``count`` questions (each ends with '?')."""
    assert process.stdout is not None
    shown = ""
    while shown.count("?") < count:
        character = process.stdout.read(1)
        assert character, f"the drill ended before its question: {shown}"
        shown += character
    return shown


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_signal_ends_the_drill_as_ctrl_c_does_with_its_report_given_and_kept(name: str, tmp_path: Path) -> None:
    """``croupier train`` stopped by SIGTERM or SIGHUP was killed outright: no report, nothing journaled after the
    last answer. It ends the drill as Ctrl+C does (the report, ended early, shown and journaled), names the signal
    and exits 128 + its number."""
    number = signal.Signals[name]
    journal = tmp_path / "drill.journal"
    with reaped(start_croupier("train", "--seed", "3", "--rounds", "5", "--journal", str(journal),
                               stdin=True)) as process:
        assert process.stdin is not None
        question_asked(process, 1)
        process.stdin.write("draw\n")
        process.stdin.flush()
        question_asked(process, 1)  # the verdict, then the next call asked
        process.send_signal(number)
        out, err = process.communicate(timeout=DEADLINE)
    assert process.returncode == 128 + number, err
    assert "Training report: 1 round, 1 call," in out and "(ended early)" in out, (out, err)
    assert err.strip().splitlines()[-1] == f"croupier train: stopped by {name}" and "Traceback" not in err, err
    bodies = [json.loads(body) for (body,) in sqlite3.connect(journal).execute(
        "SELECT body FROM records WHERE kind = 'events' ORDER BY seq")]
    assert bodies[-1]["events"][-1]["event"] == "training_report" and bodies[-1]["events"][-1]["finished"] is False
    assert croupier_process("audit", "verify", str(journal)).returncode == 0


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_closes_the_drills_console_with_its_report_printed_and_kept(name: str, tmp_path: Path) -> None:
    """``croupier train --console`` stopped by a signal lost its report: the console closed and nothing was
    printed or journaled after the last answer. The report is printed once the screen is gone and journaled, as
    when the drill is quit, then the signal is named (exit 128 + its number)."""
    number = signal.Signals[name]
    journal = tmp_path / "drill.journal"
    terminal = Terminal("train", "--console", "--seed", "4", "--rounds", "3", "--journal", str(journal))
    status, shown = terminal.stopped_once_shown("P1 ", number)  # the hands are shown: the first call is due
    said = "interrupted" if number == signal.SIGINT else f"stopped by {name}"
    assert status == 128 + number, (status, shown[-2000:])
    assert "Traceback" not in shown and f"croupier train: {said}" in shown, shown[-2000:]
    assert "Training report: 1 round, 0 calls, 0 right, 0 wrong (ended early)" in shown, shown[-2000:]
    assert shown.index("Training report") < shown.index(f"croupier train: {said}")
    bodies = [json.loads(body) for (body,) in sqlite3.connect(journal).execute(
        "SELECT body FROM records WHERE kind = 'events' ORDER BY seq")]
    assert bodies[-1]["events"][-1]["event"] == "training_report" and bodies[-1]["events"][-1]["finished"] is False

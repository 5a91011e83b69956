"""``croupier run --console plain`` with a dealer typing at a terminal asks y before what cannot be undone, as the
Textual console does (issue 28 item 6): a void and an early close sent on Enter alone were one slip away."""

from __future__ import annotations

import fcntl
import json
import os
import select
import struct
import subprocess
import sys
import termios
import time
import tty
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
DEADLINE = 60.0


class TypedRun:
    """``croupier run ARGS --json --console plain`` whose standard input is a terminal (a pty) the test types at."""

    def __init__(self, *args: str) -> None:
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "controller.cli.main", "run", *args, "--json", "--console", "plain"],
            cwd=ROOT, stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        os.close(slave)
        self.events: list[dict[str, Any]] = []
        self.said: list[str] = []
        self._partial = {"out": b"", "err": b""}

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def _take(self, name: str, data: bytes) -> None:
        lines = (self._partial[name] + data).split(b"\n")
        self._partial[name] = lines.pop()
        for line in lines:
            if not line.strip():
                continue
            if name == "out":
                self.events.append(json.loads(line))
            else:
                self.said.append(line.decode())

    def _read(self, until: float) -> bool:
        """Take what the command wrote within ``until`` (a monotonic time); False when nothing came."""
        assert self.process.stdout is not None and self.process.stderr is not None
        streams = {self.process.stdout.fileno(): "out", self.process.stderr.fileno(): "err"}
        ready, _, _ = select.select(list(streams), [], [], max(0.0, until - time.monotonic()))
        for fd in ready:
            self._take(streams[fd], os.read(fd, 65536))
        return bool(ready)

    def wait_for_event(self, name: str, **fields: Any) -> dict[str, Any]:
        deadline = time.monotonic() + DEADLINE
        seen = 0
        while True:
            for event in self.events[seen:]:
                if event["event"] == name and all(event.get(key) == value for key, value in fields.items()):
                    return event
            seen = len(self.events)
            assert time.monotonic() < deadline, f"no {name} {fields} within {DEADLINE} s: {self.events} {self.said}"
            self._read(deadline)

    def wait_for_words(self, text: str) -> str:
        deadline = time.monotonic() + DEADLINE
        while True:
            for line in self.said:
                if text in line:
                    return line
            assert time.monotonic() < deadline, f"{text!r} not said within {DEADLINE} s: {self.said}"
            self._read(deadline)

    def settle(self, seconds: float = 1.0) -> None:
        """Take what comes within ``seconds`` (nothing more is awaited)."""
        until = time.monotonic() + seconds
        while time.monotonic() < until and self._read(until):
            pass

    def close(self) -> int:
        os.close(self.master)  # the terminal hangs up: no more dealer input
        out, err = self.process.communicate(timeout=DEADLINE)
        self._take("out", out + b"\n")
        self._take("err", err + b"\n")
        return self.process.returncode


@pytest.fixture
def typed(tmp_path: Path) -> Iterator[Any]:
    runs: list[TypedRun] = []

    def start(cards: str) -> TypedRun:
        script = tmp_path / "shoe.txt"
        script.write_text(cards + "\n", encoding="utf-8")
        run = TypedRun("--driver", f"mock://?script={script}", "--no-burn")
        runs.append(run)
        return run

    yield start
    for run in runs:
        if run.process.poll() is None:
            run.process.kill()
            run.process.wait(timeout=DEADLINE)


def start_round(run: TypedRun) -> None:
    run.wait_for_event("instruction", action="confirm_shoe")
    run.type("s")
    run.wait_for_words("New shoe: is it shuffled, cut and loaded?")
    run.type("y")
    run.wait_for_event("round", round=1)  # a new shoe's first round starts by itself (no burn)


def test_a_void_typed_at_the_terminal_is_sent_only_once_the_dealer_answers_y(typed: Any) -> None:
    run: TypedRun = typed("5H ZZ")
    start_round(run)
    run.wait_for_event("misdeal", kind="unknown_card")
    run.type("v")
    question = run.wait_for_words("Void")
    assert "bet" in question and "y" in question, question
    run.settle()
    assert not [e for e in run.events if e["event"] in ("resolved", "round_voided")], "v alone voided the round"
    run.type("n")
    run.wait_for_words("Not sent")
    run.settle()
    assert not [e for e in run.events if e["event"] in ("resolved", "round_voided")], "n voided the round"
    run.type("v")
    run.type("y")
    run.wait_for_event("round_voided")
    run.close()
    assert [e["resolution"] for e in run.events if e["event"] == "resolved"] == ["void"]
    assert not [e for e in run.events if e["event"] == "rejected"], run.events


def test_an_early_close_typed_at_the_terminal_asks_first(typed: Any) -> None:
    run: TypedRun = typed("5H 2C 3C 4C 6C 7C")
    start_round(run)
    run.wait_for_event("result")
    run.wait_for_event("instruction", action="next_round")
    run.type("c")
    run.wait_for_words("Close this shoe now?")
    run.settle()
    assert not [e for e in run.events if e["event"] in ("shoe_closing", "shoe_closed")], "c alone closed the shoe"
    run.type("y")
    run.wait_for_event("shoe_closed")
    run.close()


def test_typed_lines_from_a_pipe_are_taken_as_they_come() -> None:
    """A script feeding the keyboard (no terminal) is not asked anything: its lines are its answers."""
    from tests.controller.cli.test_run import croupier

    done = croupier("run", "--driver", "mock://?seed=3", "--json", "--console", "plain", "--rounds", "1",
                    stdin="s\nn\n")
    assert done.returncode == 0, done.stderr
    assert "?" not in done.stderr, done.stderr


def test_a_malformed_card_typed_by_hand_is_refused_before_the_dealer_is_asked(typed: Any) -> None:
    """``m XYZ`` at the terminal: checked first, as the console's dialog does; nothing asked, nothing sent."""
    run: TypedRun = typed("9H 8D ?? 2S 3C KH 4D")
    start_round(run)
    run.wait_for_event("misdeal", kind="unreadable_card")
    run.type("m XYZ")
    refusal = run.wait_for_words("is not a card")
    assert "'XYZ'" in refusal and "type it again" in refusal, refusal
    run.settle()
    assert not [line for line in run.said if "by hand?" in line], run.said
    assert not [e for e in run.events if e["event"] == "rejected"], run.events
    run.type("y")  # no question is open: y is just an unknown command, never a confirmation of XYZ
    run.wait_for_words("is not a dealer command")
    run.type("m 2S")
    run.wait_for_words("Enter 2S by hand?")
    run.close()
    assert not [e for e in run.events if e["event"] == "rejected"], run.events


def said_block(shown: str, first: str) -> list[str]:
    """The line of ``shown`` that begins with ``first`` and the lines that continue it (indented further)."""
    lines = shown.replace("\r", "").split("\n")
    start = next(at for at, line in enumerate(lines) if line.startswith(first))
    block = [lines[start]]
    for line in lines[start + 1:]:
        if not line.startswith("    ") or not line.strip():
            break
        block.append(line)
    return block


def test_refusals_and_questions_wrap_between_words_at_the_terminals_width() -> None:
    """At a 40-column terminal a refusal ('... is not a dealer command: expected n next, ...') and a question
    ('Void this round? ... Type y and Enter ...') were written as one long line, which the terminal broke in the
    middle of words: they wrap between words within its width, as the transcript's lines do."""
    from controller.core.exceptions import CroupierError
    from controller.i18n.catalogue import ENGLISH
    from controller.ui.bigtext import cells
    from controller.ui.keyboard import worded_parser

    with pytest.raises(CroupierError) as refused:
        worded_parser(ENGLISH)("foo bar baz")
    refusal = f"croupier run: {refused.value}"
    question = "Void this round? Every bet goes back. Type y and Enter to void it; anything else sends nothing."
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))
    process = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--driver", "mock://?seed=7",
                                "--console", "plain"], cwd=ROOT, stdin=slave, stdout=slave, stderr=slave,
                               env={name: value for name, value in os.environ.items() if name != "COLUMNS"},
                               start_new_session=True)
    os.close(slave)
    shown = b""

    def wait_for(text: str) -> None:
        nonlocal shown
        deadline = time.monotonic() + DEADLINE
        while text.encode() not in shown.replace(b"\r", b""):
            assert process.poll() is None and time.monotonic() < deadline, shown[-2000:]
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                shown += os.read(master, 65536)

    try:
        wait_for("confirm when ready")
        os.write(master, b"foo bar baz\r")
        wait_for("with the number)\n")  # the refusal's whole line: a key typed sooner is echoed into it
        os.write(master, b"v\r")
        wait_for("sends nothing.")
    finally:
        process.kill()
        process.wait(timeout=DEADLINE)
        os.close(master)
    text = shown.decode(errors="replace")
    for first, whole in ((refusal.split(":")[0] + ": 'foo", refusal), ("Void this round?", question)):
        block = said_block(text, first)
        assert all(cells(line) <= 40 for line in block), block
        assert " ".join(line.strip() for line in block) == whole, block

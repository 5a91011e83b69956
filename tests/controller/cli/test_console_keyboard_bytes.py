"""A keyboard that sends a byte that is not UTF-8 (a terminal set to Latin-1, a keyboard-wedge scanner or badge
reader, a key held with a dead compose key) took the dealer console down: Textual's input thread could not decode it,
the console closed mid-shoe with a traceback over the terminal, and the table stopped (exit 3). The console reads such
a byte as a key it does not know and goes on taking the dealer's keys."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tests.controller.cli.test_stop_signals import Terminal
from tests.inprocess import croupier_process


def test_a_byte_that_is_not_utf8_on_the_keyboard_leaves_the_dealer_console_running(tmp_path: Path) -> None:
    journal = str(tmp_path / "table.journal")
    terminal = Terminal("simulate", "--interactive", "--seed", "3", "--journal", journal)
    try:
        terminal.wait_for("LEFT 4")  # the console is up: the top line with the cards left
        os.write(terminal.master, b"\xff\xfe")
        os.write(terminal.master, b"s")  # the dealer's next key is still taken: the new shoe is asked about
        terminal.wait_for("New shoe: is it shuffled, cut and loaded?")
        terminal.process.send_signal(signal.SIGTERM)
        status = terminal.ended()
    finally:
        terminal.close()
    shown = terminal.shown.decode(errors="replace")
    assert "Traceback" not in shown and "UnicodeDecodeError" not in shown, shown[-3000:]
    assert status == 143 and "croupier simulate: stopped by SIGTERM" in shown, (status, shown[-2000:])
    audit = croupier_process("audit", "verify", journal)
    assert audit.returncode == 0, audit.stdout + audit.stderr


def test_a_byte_that_is_not_utf8_on_the_keyboard_leaves_the_training_console_running() -> None:
    terminal = Terminal("train", "--console", "--rounds", "2", "--seed", "1")
    try:
        terminal.wait_for("end the drill")  # the console is up: its footer
        os.write(terminal.master, b"\xff\xfe")
        os.write(terminal.master, b"q")  # the trainee's next key is still taken: the drill ends with its report
        status = terminal.ended()
    finally:
        terminal.close()
    shown = terminal.shown.decode(errors="replace")
    assert "Traceback" not in shown and "UnicodeDecodeError" not in shown, shown[-3000:]
    assert "Training report: 1 round, 0 calls" in shown and status == 3, (status, shown[-2000:])

"""The transcript a person reads (issue 28 item 14): badge, approval and alert events as sentences, never a
Python struct; no machine word (a misdeal's or an alert's kind, a resolution, "??") in any language; and on a
terminal, lines that do not fit its width wrap between words."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from controller.ui.bigtext import cells
from tests.inprocess import CROUPIER, ROOT, croupier_in_process

AUTH = """[shoe]
burn = "none"

[protection]
sequence_check = true

[auth]
enabled = true
reader = "pcsc://?reader=Virtual PCD 00 01"

[auth.badges.04A1B2C3D4E5F6]
name = "Alice Martin"
role = "dealer"

[auth.badges.05B2C3D4E5F6A7]
name = "Sam Pit"
role = "supervisor"
"""
DEALER, SUPERVISOR = "04A1B2C3D4E5F6", "05B2C3D4E5F6A7"
SCRIPT = (f"@badge {DEALER} @shoe 3S 4H 5D 6C  @double @void @badge {SUPERVISOR}  9H ?? @manual 8D "
          f"@badge {SUPERVISOR} 2C 3C 4C  @badge 99 5C  @close @badge {SUPERVISOR}")
"""A signed-in dealer's shoe: a round, two cards together (voided with a supervisor's approval), an unread card
entered by hand, an unknown badge, and an early close a supervisor approves."""
MACHINE_WORDS = re.compile(r"Event\(|\{'|two_cards|unreadable_card|unshuffled_shoe|sequence_repeat|"
                           r"\(critical\)|\(warning\)|CRITICAL |\[\?\? |\?\?\]|: (manual|void|burn)( \[|$)|"
                           r"close_shoe|dealer_signed", re.MULTILINE)


def transcript(tmp_path: Path, lang: str, script: str = SCRIPT) -> str:
    config = tmp_path / "auth.toml"
    config.write_text(AUTH, encoding="utf-8")
    done = croupier_in_process("simulate", "--config", str(config), "--cards", script, "--lang", lang)
    assert done.returncode in (0, 3), done.stderr
    return done.stdout


@pytest.mark.parametrize("lang", ["en", "es", "ja", "ko", "zh_Hans", "zh_Hant"])
def test_badges_approvals_and_misdeals_are_sentences_in_every_language(tmp_path: Path, lang: str) -> None:
    text = transcript(tmp_path, lang)
    assert not MACHINE_WORDS.search(text), MACHINE_WORDS.search(text)
    assert "Alice Martin" in text and "Sam Pit" in text
    if lang == "en":
        assert "Alice Martin signed in as dealer" in text
        assert "Sam Pit (supervisor) approved: void the round" in text
        assert "Resolved two cards together: void the round, bets returned [unread card, unread card]" in text
        assert "Badge refused: unknown badge" in text and "The shoe closes early (approved by Sam Pit)" in text


def test_an_alert_says_its_kind_and_severity_in_words(tmp_path: Path) -> None:
    factory = " ".join(f"{rank}{suit}" for suit in "SHDC" for rank in "A23456789TJQK")
    text = transcript(tmp_path, "en", f"@badge {DEALER} @shoe {factory}")
    assert not MACHINE_WORDS.search(text), MACHINE_WORDS.search(text)
    assert re.search(r"!! ALERT A\d+, critical: (unshuffled shoe|repeated sequence)", text), text
    spanish = transcript(tmp_path, "es", f"@badge {DEALER} @shoe {factory}")
    assert not MACHINE_WORDS.search(spanish) and "crítica" in spanish, spanish


def on_a_terminal(tmp_path: Path, columns: int) -> str:
    """``croupier simulate`` of :data:`SCRIPT` with its output on a terminal ``columns`` wide."""
    config = tmp_path / "auth.toml"
    config.write_text(AUTH, encoding="utf-8")
    leader, follower = os.openpty()
    process = subprocess.Popen([*CROUPIER, "simulate", "--config", str(config), "--cards", SCRIPT], cwd=ROOT,
                               stdin=subprocess.DEVNULL, stdout=follower, stderr=subprocess.PIPE,
                               env={**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1"})
    os.close(follower)
    chunks = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=120) in (0, 3)
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


@pytest.mark.slow
def test_on_a_terminal_long_lines_wrap_between_words(tmp_path: Path) -> None:
    text = on_a_terminal(tmp_path, 80)
    lines = text.splitlines()
    assert max(cells(line) for line in lines) <= 80, text
    piped = transcript(tmp_path, "en")
    long_ones = [line for line in piped.splitlines() if cells(line) > 80]
    assert long_ones  # what wraps on the terminal
    words_seen = text.split()
    for line in long_ones:
        assert " ".join(line.split()) in " ".join(words_seen)  # every word whole, in order

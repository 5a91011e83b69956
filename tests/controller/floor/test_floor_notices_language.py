"""The floor's running notices in the command's language (``--lang``): the dashboard board's ignored messages,
the archive's ``archiving ...`` and ``REJECTED`` lines and its database failure, the feed's notices; English
unchanged."""

from __future__ import annotations

import queue
import re
import threading
import time
import uuid
from pathlib import Path

import psycopg
import pytest

from controller.floor.archive_store import database_failure
from controller.floor.board import FloorBoard
from controller.i18n.catalogue import ENGLISH, Catalogue
from tests.controller.floor.floorkit import publish
from tests.controller.floor.services import Mosquitto
from tests.inprocess import croupier_process, start_croupier

LATIN_WORD = re.compile(r"[A-Za-z_]{2,}")
DEADLINE = 60.0


def board_lines(words: Catalogue) -> list[str]:
    said: list[str] = []
    board = FloorBoard("127.0.0.1:1883", report=said.append, words=words)
    board.receive("croupier/s1/t1/other", b"{}")
    board.receive("elsewhere", b"{}")
    return said


def test_the_board_speaks_english_by_default_word_for_word() -> None:
    assert board_lines(ENGLISH) == [
        "floor: ignored a message on 'croupier/s1/t1/other': not croupier/SITE/TABLE/state or /status",
        "floor: ignored a message on 'elsewhere': not croupier/SITE/TABLE/state or /status"]


@pytest.mark.parametrize("lang", ["ko", "ja", "zh_Hant"])
def test_the_board_speaks_the_language(lang: str) -> None:
    allowed = {"floor", "croupier", "s1", "t1", "other", "elsewhere", "SITE", "TABLE", "state", "status"}
    for line in board_lines(Catalogue(lang)):
        assert [word for word in LATIN_WORD.findall(line) if word not in allowed] == [], line


@pytest.mark.parametrize("lang", ["ko", "es"])
def test_a_database_failure_is_worded(lang: str) -> None:
    error = database_failure(psycopg.OperationalError("server closed the connection unexpectedly"))
    assert str(error) == ("the archive database failed (server closed the connection unexpectedly); what was not "
                          "committed is not acknowledged, so the broker sends it again on the next start")
    assert error.message is not None
    worded = Catalogue(lang).text(error.message)
    assert "server closed the connection unexpectedly" in worded
    assert "committed" not in worded and "broker sends" not in worded


def archive_lines(broker: str, database: str, site: str, lang: str) -> list[str]:
    """The first two lines of ``croupier archive --lang LANG``: its start and the rejection of a non-JSON message."""
    process = start_croupier("archive", "--broker", f"mqtt://{broker}", "--db", database, "--client-id",
                             f"test-archive-{uuid.uuid4().hex[:8]}", "--group", "", "--lang", lang)
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    try:
        found = [lines.get(timeout=DEADLINE)]
        publish(broker, site, "t1", [], raw=[b"not json"])
        deadline = time.monotonic() + DEADLINE
        while len(found) < 2 and time.monotonic() < deadline:
            try:
                found.append(lines.get(timeout=0.5))
            except queue.Empty:
                continue
        return found
    finally:
        process.terminate()
        process.communicate(timeout=DEADLINE)


@pytest.mark.slow
def test_the_archive_speaks_the_command_language(broker: str, database: str, site: str) -> None:
    english = archive_lines(broker, database, site, "en")
    assert english[0] == f"archiving croupier/+/+/journal from mqtt://{broker}"
    assert english[1] == f"REJECTED {site}/t1: the message is not JSON"
    korean = archive_lines(broker, database, site, "ko")
    assert korean[0] == f"mqtt://{broker}에서 croupier/+/+/journal 보관 중"
    assert korean[1].startswith(f"거부됨 {site}/t1: ")


def feed_notices(tmp_path: Path, lang: str) -> list[str]:
    """The feed's lines of ``simulate --feed --lang LANG`` whose broker is away (nothing listens on its port)."""
    away = Mosquitto(tmp_path / f"mosquitto-{lang}")  # never started
    run = croupier_process("simulate", "--seed", "17", "--rounds", "3", "--quiet", "--journal",
                           str(tmp_path / f"{lang}.journal"), "--feed", f"mqtt://{away.address}/s1/t1", "--lang", lang,
                           timeout=240, without="CROUPIER_", CROUPIER_FEED_DRAIN_TIMEOUT="0.5")
    assert run.returncode == 0, run.stderr
    return [line.split("feed: ", 1)[1] for line in run.stderr.splitlines() if "feed: " in line]


def test_the_feed_speaks_the_command_language(tmp_path: Path) -> None:
    english = feed_notices(tmp_path, "en")
    assert any(line.endswith(": cannot connect; the table deals on and the journal keeps every record until the "
                             "broker takes it") for line in english), english
    assert any(line.endswith("before the drain timeout; the journal keeps them and they go out on the next start")
               for line in english), english
    for lang in ("ko", "ja"):
        worded = feed_notices(tmp_path, lang)
        assert len(worded) == len(english)
        for line in worded:
            assert LATIN_WORD.findall(re.sub(r"mqtt://[^ :]+:\d+", "", line)) == [], line

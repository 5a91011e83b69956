"""A settings value's problem (``[table] decks: expected ...``) in the CLI's language: the English text word for
word, and ``ko``/``ja`` with no English left but the key, the value and the type."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from tests.inprocess import croupier_in_process

LATIN_WORD = re.compile(r"[A-Za-z_]{2,}")


croupier = functools.partial(croupier_in_process, without="CROUPIER_")
"""``croupier ARGS`` in this process, with no CROUPIER_ variable but the test's own."""


def problem(tmp_path: Path, toml: str, lang: str | None) -> str:
    config = tmp_path / "bad.toml"
    config.write_text(toml, encoding="utf-8")
    run = croupier("simulate", "--config", str(config), "--rounds", "1", *(["--lang", lang] if lang else []))
    assert run.returncode == 2, run.stderr
    line = run.stderr.strip().splitlines()[-1]
    prefix = f"croupier simulate: {config}: "
    assert line.startswith(prefix), line
    return line[len(prefix):]


CASES = [
    ("[table]\ndecks = 9\n", "[table] decks: expected a whole number from 1 to 8, got 9", {"table", "decks"}),
    ('[table]\ndecks = "x"\n', "[table] decks: expected a whole number from 1 to 8, got 'x' (str)",
     {"table", "decks", "str"}),
    ('[table]\nvariant = "vegas"\n', '[table] variant: expected one of "commission", "no_commission", "ez", '
     "got 'vegas'", {"table", "variant", "commission", "no_commission", "ez", "vegas"}),
    ("[table]\ncolour = 1\n", "[table] colour: unknown key; expected one of decks, variant, dealing, "
     "reveal_confirm, language, messages_dir",
     {"table", "colour", "decks", "variant", "dealing", "reveal_confirm", "language", "messages_dir"}),
    ("[bets]\nlive_edge = 3\n", "[bets] live_edge: expected true or false, got 3 (int)",
     {"bets", "live_edge", "true", "false", "int"}),
    ("[bets]\npays = {tie = {win = 8.1234567}}\n", '[bets] pays.tie.win: expected a number of units won above 0, e.g. '
     '40, 0.95 or "0.54", with at most six decimal places, got 8.1234567', {"bets", "pays", "tie", "win"}),
    ('[auth]\nenabled = true\nreader = "pcsc://?reader=X"\n[auth.badges.04A1B2C3D4E5F6]\nname = "Al"\nrole = "boss"\n',
     "auth.badges.04A1B2C3D4E5F6.role: expected \"dealer\" or \"supervisor\", got 'boss'",
     {"auth", "badges", "A1B2C3D4E5F6", "role", "dealer", "supervisor", "boss"}),
    ('[scoreboard]\naddress = "nope"\n', "[scoreboard] address: expected HOST:PORT, e.g. 127.0.0.1:8080, got 'nope'",
     {"scoreboard", "address", "HOST", "PORT", "nope"}),
    ('[scoreboard]\naddress = "h:99999"\n', "[scoreboard] address: the port must be a number 0-65535, got 'h:99999'",
     {"scoreboard", "address"}),
    ('[auth]\nselect_apdu = "zz"\n', "auth.select_apdu: expected an APDU in hex, e.g. \"00A4040008F043524F55504945\", "
     "got 'zz' ('zz' is not hex)", {"auth", "select_apdu", "APDU", "A4040008F043524F55504945", "zz"}),
    ('[auth]\nread_apdu = "00CA"\n', "auth.read_apdu: expected an APDU in hex, e.g. \"00CA010000\", got '00CA' "
     "('00CA' is 2 bytes; an APDU has at least 4 (CLA INS P1 P2))",
     {"auth", "read_apdu", "APDU", "CA010000", "CA", "CLA", "INS", "P1", "P2"}),
]


@pytest.mark.parametrize(("toml", "english", "allowed"), CASES)
def test_english_is_unchanged(tmp_path: Path, toml: str, english: str, allowed: set[str]) -> None:
    assert problem(tmp_path, toml, None) == english
    assert problem(tmp_path, toml, "en") == english


@pytest.mark.parametrize("lang", ["ko", "ja", "es"])
@pytest.mark.parametrize(("toml", "english", "allowed"), CASES)
def test_the_problem_is_in_the_language(tmp_path: Path, toml: str, english: str, allowed: set[str],
                                        lang: str) -> None:
    worded = problem(tmp_path, toml, lang)
    assert worded != english
    if lang != "es":
        assert [word for word in LATIN_WORD.findall(worded) if word not in allowed] == [], worded
    else:
        assert "expected" not in worded and "unknown key" not in worded and "is not hex" not in worded, worded

"""The table's language as a user chooses it: --lang, [table] language, CROUPIER_TABLE_LANGUAGE, a house's .po."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from config.schema import Settings
from controller.core.events import Event
from controller.core.table import Table
from controller.i18n.catalogue import Catalogue
from controller.i18n.languages import LANGUAGES
from controller.ui.localise import Localiser
from tests.inprocess import croupier_in_process
from tests.tokens import dealt

HUMAN_FIELDS = {"say", "detail", "instruction"}


croupier = functools.partial(croupier_in_process, without="CROUPIER_")
"""``croupier ARGS`` in this process (what it prints is the test; tests/controller/cli spawn it), with no CROUPIER_
variable but the test's own."""


def stream(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def test_contract_korean_transcript_names_the_sides_player_and_banker() -> None:
    run = croupier("simulate", "--seed", "42", "--rounds", "5", "--lang", "ko")
    assert run.returncode == 0, run.stderr
    assert "플레이어" in run.stdout and "뱅커" in run.stdout
    assert "Card to PLAYER" not in run.stdout and "Card to BANKER" not in run.stdout
    assert "Round 1" not in run.stdout and "1번째 게임" in run.stdout


@pytest.mark.parametrize(("language", "banker", "player"), [("zh_Hant", "莊", "閒"), ("zh_Hans", "庄", "闲")])
def test_contract_chinese_transcripts_use_their_own_characters(language: str, banker: str, player: str) -> None:
    run = croupier("simulate", "--seed", "42", "--rounds", "5", "--lang", language)
    assert run.returncode == 0, run.stderr
    assert banker in run.stdout and player in run.stdout
    other = {"莊": "庄", "閒": "闲", "庄": "莊", "闲": "閒"}
    assert other[banker] not in run.stdout and other[player] not in run.stdout
    assert "Card to" not in run.stdout


@pytest.mark.parametrize("language", LANGUAGES)
def test_contract_json_prompts_keep_slot_and_to_in_english_and_carry_say_id(language: str) -> None:
    run = croupier("simulate", "--seed", "42", "--rounds", "5", "--lang", language, "--json")
    assert run.returncode == 0, run.stderr
    english = stream(croupier("simulate", "--seed", "42", "--rounds", "5", "--json").stdout)
    events = stream(run.stdout)
    prompts = [event for event in events if event["event"] == "prompt"]
    assert prompts
    for prompt in prompts:
        assert prompt["slot"] in ("P1", "B1", "P2", "B2", "P3", "B3")
        assert prompt["to"] in ("player", "banker")
        assert prompt["say_id"] == f"prompt.{prompt['to']}"
    assert len(events) == len(english)
    for worded, source in zip(events, english, strict=True):
        machine = {key for key in source if key not in HUMAN_FIELDS}
        assert {key: worded[key] for key in machine} == {key: source[key] for key in machine}
    if language != "en":
        assert {p["say"] for p in prompts}.isdisjoint({"Card to PLAYER", "Card to BANKER"})


def test_the_environment_and_the_config_file_choose_the_language(tmp_path: Path) -> None:
    run = croupier("simulate", "--seed", "42", "--rounds", "1", CROUPIER_TABLE_LANGUAGE="ja")
    assert run.returncode == 0, run.stderr
    assert "プレイヤーへカード" in run.stdout
    config = tmp_path / "table.toml"
    config.write_text('[table]\nlanguage = "es"\n', encoding="utf-8")
    run = croupier("simulate", "--seed", "42", "--rounds", "1", "--config", str(config))
    assert "Carta a PUNTO" in run.stdout, run.stderr
    run = croupier("simulate", "--seed", "42", "--rounds", "1", "--config", str(config), "--lang", "ko")
    assert "플레이어 카드" in run.stdout, run.stderr


def test_an_unknown_language_is_one_line_naming_the_key_and_the_choices(tmp_path: Path) -> None:
    run = croupier("simulate", "--rounds", "1", CROUPIER_TABLE_LANGUAGE="kr")
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        "croupier simulate: environment: [table] language: expected one of en, ko, zh_Hant, zh_Hans, ja, es, "
        "got 'kr'"] or "CROUPIER_TABLE_LANGUAGE" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    run = croupier("simulate", "--rounds", "1", "--lang", "kr")
    assert run.returncode == 2 and "--lang" in run.stderr and "'kr'" in run.stderr and "Traceback" not in run.stderr


def test_scoreboard_languages_are_checked_against_the_catalogues(tmp_path: Path) -> None:
    config = tmp_path / "board.toml"
    config.write_text('[scoreboard]\nlanguages = ["zh_Hant", "en"]\n', encoding="utf-8")
    run = croupier("simulate", "--seed", "1", "--rounds", "1", "--quiet", "--config", str(config))
    assert run.returncode == 0, run.stderr
    config.write_text('[scoreboard]\nlanguages = ["zh_Hant", "xx"]\n', encoding="utf-8")
    run = croupier("simulate", "--seed", "1", "--rounds", "1", "--quiet", "--config", str(config))
    assert run.returncode == 2
    assert "[scoreboard] languages[1]" in run.stderr and "'xx'" in run.stderr and "Traceback" not in run.stderr


HOUSE_PO = '''msgid ""
msgstr ""
"Content-Type: text/plain; charset=utf-8\\n"

msgctxt "prompt.player"
msgid "Card to PLAYER"
msgstr "{text}"
'''


def test_a_house_po_file_overrides_a_message(tmp_path: Path) -> None:
    (tmp_path / "ko.po").write_text(HOUSE_PO.replace("{text}", "플레이어에게 한 장"), encoding="utf-8")
    config = tmp_path / "house.toml"
    config.write_text(f'[table]\nlanguage = "ko"\nmessages_dir = "{tmp_path}"\n', encoding="utf-8")
    run = croupier("simulate", "--seed", "42", "--rounds", "1", "--config", str(config))
    assert run.returncode == 0, run.stderr
    assert "플레이어에게 한 장" in run.stdout
    assert "뱅커 카드" in run.stdout  # what the house does not override stays the shipped text


def test_a_house_po_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Babel read a BOM as an 'Unknown or misformatted keyword on 0' and the command stopped."""
    (tmp_path / "ko.po").write_bytes(b"\xef\xbb\xbf" + HOUSE_PO.replace("{text}", "한 장").encode("utf-8"))
    run = croupier("simulate", "--seed", "42", "--rounds", "1", "--lang", "ko",
                   CROUPIER_TABLE_MESSAGES_DIR=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert "한 장" in run.stdout


def test_a_house_translation_with_a_foreign_placeholder_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "ko.po").write_text(HOUSE_PO.replace("{text}", "{side} 카드"), encoding="utf-8")
    run = croupier("simulate", "--seed", "42", "--rounds", "1", "--lang", "ko",
                   CROUPIER_TABLE_MESSAGES_DIR=str(tmp_path))
    assert run.returncode == 2
    (line,) = run.stderr.strip().splitlines()
    assert str(tmp_path / "ko.po") in line and "'prompt.player'" in line and "{side}" in line
    run = croupier("simulate", "--rounds", "1", CROUPIER_TABLE_MESSAGES_DIR=str(tmp_path / "none"))
    assert run.returncode == 2 and "messages_dir" in run.stderr and "Traceback" not in run.stderr


HOUSE_RESULTS_PO = '''msgid ""
msgstr ""
"Content-Type: text/plain; charset=utf-8\\n"

msgctxt "result.banker"
msgid "Banker wins {high} to {low}"
msgstr "{text}"

msgctxt "result.player"
msgid "Player wins {high} to {low}"
msgstr "{text}"
'''


@pytest.mark.parametrize("written", ["{} {low}", "{high {low}", "{high} } {low}", "{high!r} {low}",
                                     "{high:>99999999999} {low}", "{high:d} {low}", "{high!s:x} {low}"])
def test_a_house_translation_with_a_malformed_placeholder_is_refused_in_one_line(tmp_path: Path, written: str) -> None:
    """A placeholder not written as the English text writes it, ``{name}`` (an empty or unclosed one, a lone brace,
    a conversion or a format spec), failed only when the message was shown, mid-play, with a traceback: it is
    refused at the start, naming the file and the message."""
    (tmp_path / "ko.po").write_text(HOUSE_RESULTS_PO.replace("{text}", written), encoding="utf-8")
    run = croupier("simulate", "--seed", "42", "--rounds", "3", "--lang", "ko",
                   CROUPIER_TABLE_MESSAGES_DIR=str(tmp_path))
    assert run.returncode == 2, run.stdout[-300:]
    assert "Traceback" not in run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert str(tmp_path / "ko.po") in line and "'result.banker'" in line


def test_a_house_translation_that_moves_its_placeholders_is_taken(tmp_path: Path) -> None:
    (tmp_path / "ko.po").write_text(HOUSE_RESULTS_PO.replace("{text}", "{low} < {high} {{ok}}"),
                                    encoding="utf-8")
    run = croupier("simulate", "--seed", "1", "--rounds", "2", "--lang", "ko", "--json",
                   CROUPIER_TABLE_MESSAGES_DIR=str(tmp_path))
    assert run.returncode == 0, run.stderr
    said = [event["say"] for event in stream(run.stdout) if event["event"] == "result"]
    assert said == ["3 < 7 {ok}", "3 < 7 {ok}"]


@pytest.mark.parametrize("kind", ["directory", "dangling link", "link loop"])
def test_a_house_po_path_that_is_no_file_is_refused_not_skipped(tmp_path: Path, kind: str) -> None:
    """A ko.po that is a directory or a link to nothing was skipped without a word: the shipped words were shown."""
    po = tmp_path / "ko.po"
    if kind == "directory":
        po.mkdir()
    elif kind == "dangling link":
        po.symlink_to(tmp_path / "elsewhere.po")
    else:
        po.symlink_to(tmp_path / "other.po")
        (tmp_path / "other.po").symlink_to(po)
    run = croupier("simulate", "--seed", "1", "--rounds", "1", "--lang", "ko",
                   CROUPIER_TABLE_MESSAGES_DIR=str(tmp_path))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert str(po) in line


TOKENS = ("@shoe 5H 2C 3C 4C 6C 7C  9S 8H KD 2C @next  4C 3D 2H 5S 7H  @next 6C TD @exposed @burn 9D 2D 8S 7C @next "
          "XX @burn ?? @burn 3S QD 4H 5D @next @next 2S")
"""A burn, a natural, a third card, an exposed card, an unknown code, an unreadable card and an extra card."""


def table_events() -> list[Event]:
    return dealt(TOKENS, Table(Settings()), confirm=False)


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != "en"])
def test_every_event_text_is_worded_and_its_machine_fields_kept(language: str) -> None:
    events = table_events()
    worded = [Localiser(Catalogue(language)).event(event) for event in events]
    said = [event for event in events if "say_id" in event]
    assert {event["event"] for event in said} >= {"prompt", "instruction", "result", "misdeal"}
    for source, target in zip(events, worded, strict=True):
        assert {k: v for k, v in source.items() if k not in HUMAN_FIELDS} == \
            {k: v for k, v in target.items() if k not in HUMAN_FIELDS}
        for field in HUMAN_FIELDS & set(source.keys()):
            if "say_id" in source and source.get("say_id") != "misdeal.unknown_card":
                assert target[field] != source[field], (field, source)


def test_a_malformed_placeholder_in_a_message_that_takes_none_says_so(tmp_path: Path) -> None:
    (tmp_path / "ko.po").write_text(HOUSE_PO.replace("{text}", "카드 {"), encoding="utf-8")
    run = croupier("simulate", "--seed", "42", "--rounds", "1", "--lang", "ko",
                   CROUPIER_TABLE_MESSAGES_DIR=str(tmp_path))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert "'prompt.player'" in line and "'{'" in line and Catalogue("ko").say(
        "catalogue.no_placeholders", "it takes no placeholders") in line, line

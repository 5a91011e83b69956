"""The CLI's one-line errors in the chosen language: ``--lang``, else ``CROUPIER_TABLE_LANGUAGE``, else the
config's ``[table] language``, else English; the English text and every exit status unchanged."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from tests.inprocess import Completed, croupier_in_process

LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


croupier = functools.partial(croupier_in_process, without="CROUPIER_TABLE_")
"""``croupier ARGS`` in this process with the test's variables, and no inherited table language."""


def english_words(line: str, allowed: set[str]) -> list[str]:
    """Latin-script words of ``line`` other than ``allowed`` (options, paths, codes): English left behind."""
    return [word for word in LATIN_WORD.findall(line) if word not in allowed]


def error_line(run: Completed) -> str:
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 or lines[-1].startswith("croupier "), run.stderr
    return lines[-1]


def test_an_error_is_in_english_by_default_word_for_word(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    run = croupier("simulate", "--config", str(missing), "--rounds", "1")
    assert run.returncode == 2
    assert run.stderr == f"croupier simulate: {missing}: no such config file; give the path of a TOML file\n"


@pytest.mark.parametrize(("language", "expected"), [
    ("ko", "설정 파일이 없습니다; TOML 파일 경로를 주세요"),
    ("ja", "設定ファイルがありません。TOML ファイルのパスを指定してください"),
])
def test_lang_words_the_error(tmp_path: Path, language: str, expected: str) -> None:
    missing = tmp_path / "missing.toml"
    run = croupier("simulate", "--config", str(missing), "--rounds", "1", "--lang", language)
    assert run.returncode == 2
    assert run.stderr == f"croupier simulate: {missing}: {expected}\n"
    words = set(LATIN_WORD.findall(str(missing)))
    assert english_words(error_line(run), {"croupier", "simulate", "TOML", *words}) == []


def test_the_environment_language_words_the_error() -> None:
    english = croupier("odds", "--decks", "2", "--seen", "AS AS AS")
    spanish = croupier("odds", "--decks", "2", "--seen", "AS AS AS", CROUPIER_TABLE_LANGUAGE="es")
    assert english.returncode == spanish.returncode == 2
    assert english.stderr == ("croupier odds: --seen: 3 copies of AS, but a shoe of 2 decks holds 2; check the cards "
                              "or give --decks\n")
    assert spanish.stderr == ("croupier odds: --seen: 3 copias de AS, pero un sabot de 2 barajas tiene 2; revise las "
                              "cartas o indique --decks\n")


def test_the_config_language_words_the_error_and_the_environment_and_lang_win(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nlanguage = "zh_Hant"\n', encoding="utf-8")
    both = ("simulate", "--config", str(config), "--cards", "5H", "--script", str(tmp_path / "shoe.txt"))
    from_file = croupier(*both)
    assert from_file.returncode == 2
    assert from_file.stderr == "croupier simulate: 請給 --cards 或 --script，不要兩者都給\n"
    assert croupier(*both, CROUPIER_TABLE_LANGUAGE="zh_Hans").stderr == \
        "croupier simulate: 请给 --cards 或 --script，不要两者都给\n"
    assert croupier(*both, "--lang", "en", CROUPIER_TABLE_LANGUAGE="ko").stderr == \
        "croupier simulate: give --cards or --script, not both\n"


def test_argparse_keeps_its_frame_in_english_and_the_value_error_is_worded() -> None:
    english = croupier("simulate", "--rounds", "x")
    japanese = croupier("simulate", "--rounds", "x", "--lang", "ja")
    assert english.returncode == japanese.returncode == 2
    assert error_line(english) == "croupier simulate: error: argument --rounds: expected a whole number (0 or more), " \
                                  "got 'x'"
    assert error_line(japanese) == "croupier simulate: error: argument --rounds: 整数 (0 以上) が必要ですが、'x' です"
    korean = croupier("simulate", "--decks", "9", CROUPIER_TABLE_LANGUAGE="ko")
    assert error_line(korean) == "croupier simulate: error: argument --decks: 필요한 값: 1-8, 받은 값: 9"


def test_an_error_about_the_language_itself_stays_english() -> None:
    run = croupier("simulate", "--rounds", "1", CROUPIER_TABLE_LANGUAGE="kr")
    assert run.returncode == 2
    assert run.stderr == ("croupier simulate: environment: [table] language: expected one of en, ko, zh_Hant, "
                          "zh_Hans, ja, es, got 'kr'\n")


def test_a_config_that_cannot_be_read_leaves_the_language_the_environment_gives(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    run = croupier("simulate", "--config", str(missing), CROUPIER_TABLE_LANGUAGE="es")
    assert run.returncode == 2
    assert run.stderr == (f"croupier simulate: {missing}: no existe el archivo de configuración; indique la ruta de "
                          "un archivo TOML\n")


def test_driver_url_errors_are_worded() -> None:
    english = croupier("run", "--driver", "nosuch://x", "--auto-next")
    chinese = croupier("run", "--driver", "nosuch://x", "--auto-next", "--lang", "zh_Hans")
    assert english.returncode == chinese.returncode == 2
    assert english.stderr.startswith("croupier run: 'nosuch://x': unknown driver scheme 'nosuch'; expected one of mock://")
    assert chinese.stderr.startswith("croupier run: 'nosuch://x'：未知的驱动程序协议 'nosuch'；应为以下之一：mock://")
    line = error_line(chinese)
    assert english_words(line, {"croupier", "run", "nosuch", "mock", "serial", "socket", "loop", "pcsc"}) == []


@pytest.mark.parametrize(("args", "english", "korean"), [
    (("roads", "--results", "BXP"), "results position 2 is 'X': expected B (banker), P (player) or T (tie)",
     "결과 2번째 글자가 'X'입니다: B(뱅커), P(플레이어) 또는 T(타이)여야 합니다"),
    (("simulate", "--rounds", "1", "--plot", "out.jpg"),
     "--plot out.jpg: expected a file name ending .png, .svg, .pdf, got .jpg",
     "--plot out.jpg: 파일 이름이 .png, .svg, .pdf 중 하나로 끝나야 하는데 .jpg입니다"),
])
def test_each_command_words_its_own_errors(args: tuple[str, ...], english: str, korean: str) -> None:
    in_english, in_korean = croupier(*args), croupier(*args, "--lang", "ko")
    assert in_english.returncode == in_korean.returncode == 2
    assert in_english.stderr == f"croupier {args[0]}: {english}\n"
    assert in_korean.stderr == f"croupier {args[0]}: {korean}\n"
    assert english_words(in_korean.stderr, {"croupier", args[0], "results", "plot", "out", "jpg", "png", "svg",
                                            "pdf"}) == []


def test_a_serial_port_that_cannot_be_opened_is_worded(tmp_path: Path) -> None:
    device = tmp_path / "ttyNONE"
    english = croupier("run", "--driver", f"serial://{device}", "--auto-next")
    spanish = croupier("run", "--driver", f"serial://{device}", "--auto-next", CROUPIER_TABLE_LANGUAGE="es")
    assert english.returncode == spanish.returncode == 2
    assert english.stderr.startswith(f"croupier run: serial://{device}: cannot open {device} (")
    assert english.stderr.endswith("); check the cable, the device path and its permissions, and that no other "
                                   "program holds the port\n")
    assert spanish.stderr.startswith(f"croupier run: serial://{device}: no se puede abrir {device} (")
    assert spanish.stderr.endswith("); revise el cable, la ruta del dispositivo y sus permisos, y que ningún otro "
                                   "programa ocupe el puerto\n")


@pytest.mark.parametrize(("args", "english", "japanese"), [
    (("floor",), "--broker is missing: the dashboard needs the floor's broker, e.g. --broker mqtt://127.0.0.1:1883",
     "--broker がありません: ダッシュボードにはフロアのブローカーが必要です。例: --broker mqtt://127.0.0.1:1883"),
    (("audit", "verify", "table.journal", "--site", "macau"),
     "--site and --table name a table in the archive together; give both or neither",
     "--site と --table は組でアーカイブのテーブルを指します。両方指定するか両方省いてください"),
    (("train", "--cards", "5H", "--script", "shoe.txt"), "give --cards or --script, not both",
     "--cards か --script のどちらか一方を指定してください"),
])
def test_commands_without_lang_word_their_errors_from_the_environment(args: tuple[str, ...], english: str,
                                                                      japanese: str) -> None:
    in_english, in_japanese = croupier(*args), croupier(*args, CROUPIER_TABLE_LANGUAGE="ja")
    assert in_english.returncode == in_japanese.returncode == 2
    command = args[0]
    assert in_english.stderr == f"croupier {command}: {english}\n"
    assert in_japanese.stderr == f"croupier {command}: {japanese}\n"


def test_the_workers_refusal_words_its_reason_too() -> None:
    english = croupier("simulate", "--rounds", "5", "--workers", "2")
    korean = croupier("simulate", "--rounds", "5", "--workers", "2", "--lang", "ko")
    assert english.returncode == korean.returncode == 2
    assert english.stderr == ("croupier simulate: --workers 2 deals shoes in parallel only for summary-only runs, and "
                              "the transcript (no --quiet) needs every event; drop --workers or the transcript (no "
                              "--quiet)\n")
    assert english_words(korean.stderr, {"croupier", "simulate", "workers", "quiet"}) == []
    assert "트랜스크립트 (--quiet 없음)" in korean.stderr


def test_a_card_code_problem_from_the_core_is_worded_inside_the_command_error() -> None:
    english = croupier("odds", "--seen", "ZZ")
    japanese = croupier("odds", "--seen", "ZZ", "--lang", "ja")
    assert english.returncode == japanese.returncode == 2
    assert english.stderr == ("croupier odds: --seen: 'ZZ' is not a card: expected a rank (A 2-9 T/10 J Q K) followed "
                              "by a suit (S H D C), e.g. AS, 10H, kd; give the cards gone from the shoe, e.g. "
                              "\"AS 10H KD\"\n")
    assert english_words(japanese.stderr, {"croupier", "odds", "seen", "ZZ", "AS", "KD", "kd"}) == []

"""Lines an acceptance tester found in English: the endings of exit 3 and 4, the scoreboard's notice and address
error, ``history``'s verification warning, ``train``'s rejection and report, a house ``.po`` file's errors (and
its unknown message ids, refused). English stays byte for byte; the other languages are worded."""

from __future__ import annotations

import functools
import json
import sqlite3
from pathlib import Path

import pytest

from tests.inprocess import Completed, croupier_in_process

HOUSE_HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'


croupier = functools.partial(croupier_in_process, without="CROUPIER_TABLE_")
"""``croupier ARGS`` in this process with the test's variables, and no inherited table language."""


def last_line(run: Completed) -> str:
    return run.stderr.strip().splitlines()[-1]


HALT_EN = ("croupier simulate: the events ended with the table halted on unknown card (unknown_card) in round 1: "
           "Halt: enter the card by hand (@manual); or burn the card(s) and continue (@burn)")


def test_the_halted_ending_is_english_word_for_word_and_worded_in_korean_and_spanish() -> None:
    english = croupier("simulate", "--cards", "ZZ 5H")
    assert english.returncode == 4
    assert last_line(english) == HALT_EN
    korean = croupier("simulate", "--lang", "ko", "--cards", "ZZ 5H")
    assert korean.returncode == 4
    assert last_line(korean) == ("croupier simulate: 게임 1에서 테이블이 알 수 없는 카드 (unknown_card)(으)로 "
                                 "멈춘 채 이벤트가 끝났습니다: 중지: 카드를 직접 입력 (@manual); "
                                 "또는 카드를 번하고 계속 (@burn)")
    spanish = last_line(croupier("simulate", "--lang", "es", "--cards", "ZZ 5H"))
    assert spanish.startswith("croupier simulate: los eventos terminaron con la mesa detenida por carta desconocida "
                              "(unknown_card)")
    assert "Halt" not in spanish and "enter the card" not in spanish


def test_the_mid_round_ending_is_english_word_for_word_and_worded_in_spanish_and_korean() -> None:
    english = croupier("simulate", "--no-burn", "--cards", "5H 2C 3C")
    assert english.returncode == 3
    assert last_line(english) == "croupier simulate: the events ended in the middle of round 1: B2 is still due"
    spanish = croupier("simulate", "--lang", "es", "--no-burn", "--cards", "5H 2C 3C")
    assert spanish.returncode == 3
    assert last_line(spanish) == "croupier simulate: los eventos terminaron en mitad de la mano 1: falta aún B2"
    assert last_line(croupier("simulate", "--lang", "ko", "--no-burn", "--cards", "5H 2C 3C")) == (
        "croupier simulate: 게임 1 도중에 이벤트가 끝났습니다: B2이(가) 아직 남아 있습니다")


@pytest.mark.parametrize(("language", "notice"), [("en", "scoreboard at http://"), ("ja", "スコアボード: http://"),
                                                  ("ko", "스코어보드: http://")])
def test_the_scoreboard_notice_is_worded(language: str, notice: str) -> None:
    run = croupier("simulate", "--lang", language, "--scoreboard", "127.0.0.1:0", "--seed", "1", "--rounds", "1",
                   "--quiet")
    assert run.returncode == 0, run.stderr
    lines = [line for line in run.stderr.splitlines() if "http://" in line]
    assert len(lines) == 1 and lines[0].startswith(f"croupier simulate: {notice}127.0.0.1:"), run.stderr


def test_a_bad_scoreboard_address_is_refused_in_the_language() -> None:
    english = croupier("simulate", "--scoreboard", "nope", "--rounds", "1")
    assert english.returncode == 2
    assert english.stderr == ("croupier simulate: scoreboard address 'nope': expected HOST:PORT, "
                              "e.g. 127.0.0.1:8080\n")
    japanese = croupier("simulate", "--lang", "ja", "--scoreboard", "nope", "--rounds", "1")
    assert japanese.returncode == 2
    assert japanese.stderr == ("croupier simulate: スコアボードのアドレス 'nope': HOST:PORT の形式が必要です。"
                               "例: 127.0.0.1:8080\n")
    port = croupier("simulate", "--lang", "ko", "--scoreboard", "127.0.0.1:99999", "--rounds", "1")
    assert port.stderr == "croupier simulate: 스코어보드 주소 '127.0.0.1:99999': 포트는 0-65535의 숫자여야 합니다\n"


@pytest.fixture(scope="module")
def tampered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tampered") / "table.journal"
    run = croupier("simulate", "--seed", "5", "--rounds", "3", "--quiet", "--journal", str(path))
    assert run.returncode == 0, run.stderr
    connection = sqlite3.connect(path)
    seq, body = next((seq, body) for seq, body in connection.execute(
        "SELECT seq, body FROM records WHERE kind = 'events' ORDER BY seq")
        if any(event["event"] == "result" for event in json.loads(body)["events"]))
    forged = json.loads(body)
    for event in forged["events"]:
        if event["event"] == "result":
            event["winner"] = "player" if event["winner"] != "player" else "banker"
    connection.execute("UPDATE records SET body = ? WHERE seq = ?", (json.dumps(forged), seq))
    connection.commit()
    connection.close()
    return path


def test_the_verification_warning_is_english_word_for_word_and_worded_in_korean(tampered: Path) -> None:
    english = croupier("history", str(tampered))
    assert english.returncode == 1
    warning = english.stderr.splitlines()[0]
    assert warning.startswith("croupier history: WARNING: the journal failed verification: ")
    assert warning.endswith("; showing it anyway")
    korean = croupier("history", str(tampered), "--lang", "ko")
    assert korean.returncode == 1
    worded = korean.stderr.splitlines()[0]
    assert worded.startswith("croupier history: 경고: 저널 검증에 실패했습니다: ")
    assert worded.endswith("; 그래도 보여 줍니다") and "WARNING" not in worded and "showing" not in worded
    chinese = croupier("history", str(tampered), "--lang", "zh_Hant").stderr.splitlines()[0]
    assert chinese.startswith("croupier history: 警告：日誌驗證失敗：") and chinese.endswith("；仍然顯示")


def test_train_in_english_keeps_its_rejection_and_report_word_for_word() -> None:
    run = croupier("train", "--seed", "1", "--rounds", "2", stdin="foo\nstand\nbanker\n")
    assert "  'foo' is not a player call: expected one of natural, draw, stand; call again" in run.stdout
    assert "\n  player     1 call     0 right     1 wrong\n" in run.stdout
    assert "\n    player: player 3 (1 of 1 wrong)" in run.stdout


def test_train_in_korean_words_the_rejection_and_the_reports_rows() -> None:
    run = croupier("train", "--seed", "1", "--rounds", "2", "--lang", "ko", stdin="foo\nstand\nbanker\n")
    assert ("'foo'은(는) 플레이어 콜이 아닙니다: natural, draw, stand 중 하나여야 합니다; 다시 콜하세요"
            in run.stdout)
    assert "'banker'은(는) 뱅커 콜이 아닙니다" in run.stdout
    assert "\n    플레이어: 플레이어 3 (" in run.stdout
    assert "call again" not in run.stdout and "is not a" not in run.stdout
    spanish = croupier("train", "--seed", "1", "--rounds", "2", "--lang", "es", stdin="foo\nstand\n")
    assert "'foo' no es una decisión de punto: se esperaba una de natural, draw, stand; decida otra vez" in (
        spanish.stdout)


def test_a_banker_cell_is_worded_from_its_english_form() -> None:
    from controller.i18n.catalogue import Catalogue
    from controller.training.calls import cell_message

    worded = cell_message("banker 0 / third card 7")
    assert worded is not None and worded.english() == "banker 0 / third card 7"
    assert Catalogue("ko").text(worded) == "뱅커 0 / 세 번째 카드 7"
    assert Catalogue("zh_Hans").text(worded) == "庄 0 / 第三张牌 7"
    assert cell_message("no such cell here") is None


def house(tmp_path: Path, entry: str) -> Path:
    directory = tmp_path / "house"
    directory.mkdir(exist_ok=True)
    (directory / "ko.po").write_text(HOUSE_HEADER + entry, encoding="utf-8")
    (directory / "es.po").write_text(HOUSE_HEADER + entry, encoding="utf-8")
    return directory


def test_a_house_placeholder_error_is_worded(tmp_path: Path) -> None:
    directory = house(tmp_path, 'msgctxt "prompt.player"\nmsgid "Card to PLAYER"\nmsgstr "{side}에게"\n')
    english = croupier("simulate", "--rounds", "1", CROUPIER_TABLE_MESSAGES_DIR=str(directory),
                       CROUPIER_TABLE_LANGUAGE="es")
    assert english.returncode == 2
    assert english.stderr == (f"croupier simulate: {directory / 'es.po'}: el mensaje 'prompt.player' usa {{side}}, "
                              "que su texto en inglés 'Card to PLAYER' no tiene; no admite marcadores\n")
    korean = croupier("simulate", "--lang", "ko", "--rounds", "1", CROUPIER_TABLE_MESSAGES_DIR=str(directory))
    assert korean.returncode == 2
    assert korean.stderr == (f"croupier simulate: {directory / 'ko.po'}: 메시지 'prompt.player'이(가) {{side}}을(를) "
                             "쓰지만, 영어 원문 'Card to PLAYER'에는 없습니다; 자리표시자를 받지 않습니다\n")


def test_the_english_house_errors_are_unchanged(tmp_path: Path) -> None:
    directory = tmp_path / "house"
    directory.mkdir()
    (directory / "en.po").write_text(HOUSE_HEADER + 'msgctxt "prompt.player"\nmsgid "Card to PLAYER"\n'
                                     'msgstr "{side}"\n', encoding="utf-8")
    run = croupier("simulate", "--rounds", "1", CROUPIER_TABLE_MESSAGES_DIR=str(directory))
    assert run.stderr == (f"croupier simulate: {directory / 'en.po'}: message 'prompt.player' uses {{side}}, which "
                          "its English text 'Card to PLAYER' does not have; it takes no placeholders\n")
    missing = tmp_path / "nowhere"
    run = croupier("simulate", "--rounds", "1", CROUPIER_TABLE_MESSAGES_DIR=str(missing))
    assert run.returncode == 2
    assert run.stderr == (f"croupier simulate: environment: [table] messages_dir '{missing}' is not a directory; "
                          "give a directory of <language>.po files (en, ko, zh_Hant, zh_Hans, ja, es)\n")


def test_an_unreadable_house_file_and_a_missing_directory_are_worded(tmp_path: Path) -> None:
    directory = house(tmp_path, "garbage line\n")
    run = croupier("simulate", "--lang", "ko", "--rounds", "1", CROUPIER_TABLE_MESSAGES_DIR=str(directory))
    assert run.returncode == 2
    assert run.stderr.startswith(f"croupier simulate: 메시지 카탈로그 {directory / 'ko.po'}을(를) 읽을 수 없습니다: ")
    assert run.stderr.endswith("; .po 파일을 고치세요 (msgfmt --check FILE이 위치를 알려 줍니다)\n")
    missing = tmp_path / "nowhere"
    run = croupier("simulate", "--lang", "ja", "--rounds", "1", CROUPIER_TABLE_MESSAGES_DIR=str(missing))
    assert run.returncode == 2
    assert run.stderr == (f"croupier simulate: environment: [table] messages_dir '{missing}' "
                          "はディレクトリではありません; <言語>.po ファイルのディレクトリを指定してください "
                          "(en, ko, zh_Hant, zh_Hans, ja, es)\n")


@pytest.mark.parametrize("layer", ["file", "environment"])
def test_a_messages_dir_that_is_no_directory_is_named_with_its_layer(tmp_path: Path, layer: str) -> None:
    """Every other config error names where the value was given (the file, environment, command line); the
    messages_dir one did not, so a dealer could not tell the config file's from a CROUPIER_ variable's."""
    missing = tmp_path / "nowhere"
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nmessages_dir = "{tmp_path / "elsewhere"}"\n', encoding="utf-8")
    if layer == "file":
        missing = tmp_path / "elsewhere"
    for command in (("simulate", "--rounds", "1"), ("history", str(tmp_path / "no.journal"))):
        run = croupier(*command, "--config", str(config), CROUPIER_TABLE_MESSAGES_DIR=str(missing)) \
            if layer == "environment" else croupier(*command, "--config", str(config))
        assert run.returncode == 2, run
        source = str(config) if layer == "file" else "environment"
        assert run.stderr == (f"croupier {command[0]}: {source}: [table] messages_dir '{missing}' is not a directory; "
                              "give a directory of <language>.po files (en, ko, zh_Hant, zh_Hans, ja, es)\n")


def test_a_house_entry_with_an_unknown_id_is_refused_not_ignored(tmp_path: Path) -> None:
    directory = house(tmp_path, 'msgctxt "prompt.plaayer"\nmsgid "Card to PLAYER"\nmsgstr "x"\n')
    korean = croupier("simulate", "--lang", "ko", "--rounds", "1", CROUPIER_TABLE_MESSAGES_DIR=str(directory))
    assert korean.returncode == 2
    assert korean.stderr == (f"croupier simulate: {directory / 'ko.po'}: 'prompt.plaayer'은(는) 메시지 id가 "
                             "아닙니다; controller/i18n/croupier.pot의 id(say_id)를 쓰세요\n")
    (directory / "en.po").write_text(HOUSE_HEADER + 'msgctxt "prompt.plaayer"\nmsgid "Card to PLAYER"\n'
                                     'msgstr "x"\n', encoding="utf-8")
    english = croupier("simulate", "--rounds", "1", CROUPIER_TABLE_MESSAGES_DIR=str(directory))
    assert english.returncode == 2
    assert english.stderr == (f"croupier simulate: {directory / 'en.po'}: 'prompt.plaayer' is not a message id; "
                              "use an id of controller/i18n/croupier.pot (a say_id)\n")


def test_a_house_entry_without_msgctxt_is_refused_not_ignored(tmp_path: Path) -> None:
    directory = house(tmp_path, 'msgid "Card to PLAYER"\nmsgstr "x"\n')
    run = croupier("simulate", "--lang", "es", "--rounds", "1", CROUPIER_TABLE_MESSAGES_DIR=str(directory))
    assert run.returncode == 2
    assert run.stderr == (f"croupier simulate: {directory / 'es.po'}: la entrada 'Card to PLAYER' no tiene msgctxt; "
                          "dele el id del mensaje (los id están en controller/i18n/croupier.pot)\n")

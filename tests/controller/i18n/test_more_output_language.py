"""What ``audit`` prints and the errors raised below the command line (the journal's, the floor's URL checks,
the terminal's dealer-command refusals), the scoreboard's languages, the responsible-gaming line and the
variant's name: in the chosen language, with no English left; English unchanged."""

from __future__ import annotations

import functools
import json
import re
import sqlite3
import urllib.request
from pathlib import Path

import pytest

from config.loader import load_config
from controller.app.builder import SessionOptions, build_session
from controller.app.stages import board_languages
from controller.core.exceptions import JournalTamperedError, ScriptError
from controller.i18n.catalogue import Catalogue
from controller.i18n.message import message
from controller.journal.verify import HASH
from controller.ui.console import responsible_gaming_text
from controller.ui.keyboard import HELP, worded_parser
from controller.ui.roads import RESPONSIBLE_GAMING_LINE, RESPONSIBLE_GAMING_LINE_KO
from controller.ui.scoreboard_words import words_message
from drivers.mock import MockShoe
from tests.inprocess import ROOT, croupier_in_process, croupier_process

LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
HEX = re.compile(r"\b[0-9a-f]{64}\b")


croupier = functools.partial(croupier_in_process, without="CROUPIER_")
"""``croupier ARGS`` in this process, with no CROUPIER_ variable but the test's own."""


def english_words(text: str, allowed: set[str]) -> list[str]:
    """Latin-script words of ``text`` other than ``allowed`` (paths, options, codes): English left behind."""
    return [word for word in LATIN_WORD.findall(HEX.sub("", text)) if word not in allowed]


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("audit") / "table.journal"
    made = croupier("simulate", "--seed", "3", "--rounds", "3", "--quiet", "--journal", str(path))
    assert made.returncode == 0, made.stderr
    return path


@pytest.fixture(scope="module")
def tampered(journal: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("tampered") / "table.journal"
    copy.write_bytes(journal.read_bytes())
    with sqlite3.connect(copy) as connection:
        connection.execute("UPDATE records SET body = '{}' WHERE seq = 3")
    return copy


def path_words(*paths: Path) -> set[str]:
    return {word for path in paths for word in LATIN_WORD.findall(str(path))}


def test_audit_in_english_is_unchanged(journal: Path, tampered: Path) -> None:
    intact = croupier("audit", "verify", str(journal), "--replay")
    assert intact.returncode == 0
    first, head = intact.stdout.splitlines()
    assert re.fullmatch(r"OK: \d+ records checked \(\d+ inputs, \d+ event records\); replayed \d+ inputs into a "
                        r"fresh table: same events", first), first
    assert re.fullmatch(r"head: record \d+ sha256 [0-9a-f]{64}", head), head
    broken = croupier("audit", "verify", str(tampered))
    assert broken.returncode == 1
    assert broken.stdout.splitlines() == [f"TAMPERED: {tampered}: record 3 was edited: its contents do not match "
                                          "its hash", "2 record(s) before it are intact."]
    missing = croupier("audit", "verify", str(journal) + ".nope")
    assert missing.returncode == 2
    assert missing.stderr == (f"croupier audit verify: {journal}.nope: no such journal file; give the path of a "
                              "Croupier journal\n")


@pytest.mark.parametrize(("language", "ok", "tampered_word"), [
    ("ko", "정상", "변조됨"), ("ja", "正常", "改ざん"), ("zh_Hans", "完好", "遭篡改"), ("es", "CORRECTO", "ALTERADO")])
def test_audit_speaks_the_language(journal: Path, tampered: Path, language: str, ok: str, tampered_word: str) -> None:
    allowed = path_words(journal, tampered) | {"sha", "nope", "Croupier"}
    intact = croupier("audit", "verify", str(journal), "--replay", "--lang", language)
    assert intact.returncode == 0 and intact.stdout.startswith(ok), intact.stdout
    broken = croupier("audit", "verify", str(tampered), "--lang", language)
    assert broken.returncode == 1 and broken.stdout.startswith(tampered_word), broken.stdout
    missing = croupier("audit", "verify", str(journal) + ".nope", "--lang", language)
    assert missing.returncode == 2
    text = intact.stdout + broken.stdout + missing.stderr.removeprefix("croupier audit verify: ")
    if language == "es":
        assert "el registro 3 fue editado" in broken.stdout and "no existe ese archivo de diario" in missing.stderr
    else:
        assert english_words(text, allowed) == [], text


def test_the_environment_language_words_audit(tampered: Path) -> None:
    broken = croupier("audit", "verify", str(tampered), CROUPIER_TABLE_LANGUAGE="ko")
    assert broken.stdout.splitlines() == [f"변조됨: {tampered}: 기록 3이(가) 편집되었습니다: "
                                          "내용이 해시와 맞지 않습니다", "그 앞의 기록 2개는 온전합니다."]


def test_a_worded_reason_inside_an_error_follows_the_language() -> None:
    error = JournalTamperedError.at("t.journal", 4, HASH)
    assert str(error) == "t.journal: record 4 was edited: its contents do not match its hash"
    assert error.problem == "was edited: its contents do not match its hash"
    assert error.message is not None
    assert Catalogue("ja").text(error.message) == "t.journal: 記録 4 は編集されました: 内容がハッシュと一致しません"
    framed = message("test.frame", "because {why}", why=message("prompt.player", "Card to PLAYER"))
    assert framed.params == {} and framed.english() == "because Card to PLAYER"


@pytest.mark.parametrize("line", ["xyz", "m", "a", "r 12"])
def test_dealer_command_refusals_keep_their_english(line: str) -> None:
    parse = worded_parser(Catalogue("en"))
    with pytest.raises(ScriptError) as refused:
        parse(line)
    if line == "xyz":
        assert str(refused.value) == f"'xyz' is not a dealer command: expected {HELP}"
    assert str(refused.value).startswith(repr(line))


@pytest.mark.parametrize("language", ["ko", "zh_Hant", "es"])
@pytest.mark.parametrize("line", ["xyz", "m", "a", "r 12"])
def test_dealer_command_refusals_are_worded(language: str, line: str) -> None:
    with pytest.raises(ScriptError) as refused:
        worded_parser(Catalogue(language))(line)
    english = worded_parser(Catalogue("en"))
    with pytest.raises(ScriptError) as in_english:
        english(line)
    text = str(refused.value)
    assert text.startswith(repr(line)) and text != str(in_english.value)
    if language != "es":
        assert english_words(text.removeprefix(repr(line)), {"ID", "XX", "TOTAL"}) == [], text


def test_a_dealer_command_typed_at_the_terminal_is_refused_in_the_table_language(tmp_path: Path) -> None:
    script = tmp_path / "shoe.txt"
    script.write_text("@shoe 3S KD 5H 9C\n", encoding="utf-8")
    run = croupier_process("run", "--driver", f"mock://?script={script}", "--json", "--no-burn", "--lang", "ko",
                           stdin="xyz\n", without="CROUPIER_")
    assert run.returncode == 0, run.stderr
    assert "croupier run: 'xyz'은(는) 딜러 명령이 아닙니다" in run.stderr
    assert "is not a dealer command" not in run.stderr


def test_floor_url_errors_in_english_are_unchanged() -> None:
    feed = croupier("simulate", "--rounds", "1", "--feed", "bogus://x")
    assert feed.stderr == ("croupier simulate: --feed 'bogus://x': scheme 'bogus://' is not mqtt:// or mqtts://; "
                           "expected mqtt://[USER:PASSWORD@]HOST:PORT/SITE/TABLE (or mqtts:// for TLS)\n")
    database = croupier("audit", "verify", "x.journal", "--archive", "mysql://h/db")
    assert database.stderr == ("croupier audit: --archive 'mysql://h/db': unknown scheme mysql://; expected "
                               "postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE\n")


@pytest.mark.parametrize(("language", "feed", "database"), [
    ("ko", "스킴 'bogus://'은(는) mqtt:// 또는 mqtts://가 아닙니다", "알 수 없는 스킴 mysql://"),
    ("ja", "スキーム 'bogus://' は mqtt:// でも mqtts:// でもありません", "不明なスキーム mysql://"),
    ("es", "el esquema 'bogus://' no es mqtt:// ni mqtts://", "esquema desconocido mysql://"),
])
def test_floor_url_errors_are_worded(language: str, feed: str, database: str) -> None:
    allowed = {"mqtt", "mqtts", "bogus", "USER", "PASSWORD", "HOST", "PORT", "SITE", "TABLE", "TLS", "feed",
               "archive", "mysql", "db", "postgresql", "DATABASE"}
    given = croupier("simulate", "--rounds", "1", "--feed", "bogus://x", "--lang", language)
    archived = croupier("audit", "verify", "x.journal", "--archive", "mysql://h/db", "--lang", language)
    assert given.returncode == archived.returncode == 2
    assert feed in given.stderr and database in archived.stderr
    for run in (given, archived):
        text = run.stderr.split(": ", 1)[1]
        if language != "es":
            assert english_words(text, allowed) == [], text
        assert "expected" not in text


def test_the_scoreboard_speaks_the_table_language_unless_its_languages_are_set(tmp_path: Path) -> None:
    assert board_languages(load_config(environ={})) == ["en"]
    assert board_languages(load_config(environ={"CROUPIER_TABLE_LANGUAGE": "ko"})) == ["ko"]
    assert board_languages(load_config(environ={}, overrides={"table": {"language": "ja"}})) == ["ja"]
    english = tmp_path / "english.toml"
    english.write_text('[table]\nlanguage = "ko"\n[scoreboard]\nlanguages = ["en"]\n', encoding="utf-8")
    assert board_languages(load_config(english, environ={})) == ["en"]
    two = tmp_path / "two.toml"
    two.write_text('[table]\nlanguage = "ko"\n[scoreboard]\nlanguages = ["zh_Hant", "en"]\n', encoding="utf-8")
    assert board_languages(load_config(two, environ={})) == ["zh_Hant", "en"]
    unset = tmp_path / "unset.toml"
    unset.write_text('[table]\nlanguage = "es"\n[scoreboard]\ntable_name = "Mesa 3"\n', encoding="utf-8")
    assert board_languages(load_config(unset, environ={})) == ["es"]


def words_of(settings_text: str, tmp_path: Path) -> dict[str, object]:
    config = tmp_path / "table.toml"
    config.write_text(settings_text, encoding="utf-8")
    notices: list[str] = []
    session = build_session(SessionOptions(load_config(config, environ={}), MockShoe("mock://"),
                                           scoreboard="127.0.0.1:0", notice=notices.append))
    try:
        url = notices[0].split()[-1]  # the notice is in the table's language; its URL ends it
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(url + "words.json", timeout=30) as reply:
            answer: dict[str, object] = json.loads(reply.read())
        return answer
    finally:
        session.close()


def test_the_table_language_and_its_house_words_reach_the_scoreboard(tmp_path: Path) -> None:
    house = tmp_path / "house"
    house.mkdir()
    (house / "ko.po").write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'
                                 'msgctxt "scoreboard.big_road"\nmsgid "Big road"\nmsgstr "우리 빅로드"\n',
                                 encoding="utf-8")
    answer = words_of(f'[table]\nlanguage = "ko"\nmessages_dir = "{house}"\n', tmp_path)
    assert answer["languages"] == ["ko"]
    words = answer["words"]
    assert isinstance(words, dict)
    assert words["big_road"] == ["우리 빅로드"] and words["bead_plate"] == ["비드 플레이트"]
    assert answer["responsible_gaming"] == [{"lang": "ko", "text": RESPONSIBLE_GAMING_LINE_KO}]
    english = words_of("[table]\n", tmp_path)
    assert english["languages"] == ["en"]
    assert english["responsible_gaming"] == [{"lang": "en", "text": RESPONSIBLE_GAMING_LINE},
                                             {"lang": "ko", "text": RESPONSIBLE_GAMING_LINE_KO}]


def test_the_responsible_gaming_line_follows_the_language() -> None:
    assert responsible_gaming_text(200) == f"{RESPONSIBLE_GAMING_LINE}  ·  {RESPONSIBLE_GAMING_LINE_KO}"
    assert responsible_gaming_text(40) == f"{RESPONSIBLE_GAMING_LINE}\n{RESPONSIBLE_GAMING_LINE_KO}"
    assert responsible_gaming_text(200, Catalogue("ko")) == RESPONSIBLE_GAMING_LINE_KO
    assert responsible_gaming_text(200, Catalogue("ja")) == "過去の結果は次の結果を予測しません。"
    board = words_message([Catalogue("zh_Hant"), Catalogue("en")])
    assert board["responsible_gaming"] == [{"lang": "zh_Hant", "text": "過去的結果不能預測下一局。"},
                                           {"lang": "en", "text": RESPONSIBLE_GAMING_LINE}]
    assert croupier("roads", "--results", "BPBT").stdout.splitlines()[-1] == (
        f"{RESPONSIBLE_GAMING_LINE} / {RESPONSIBLE_GAMING_LINE_KO}")
    assert croupier("roads", "--results", "BPBT", "--lang", "ko").stdout.splitlines()[-1] == RESPONSIBLE_GAMING_LINE_KO
    assert croupier("roads", "--results", "BPBT", "--lang", "es").stdout.splitlines()[-1] == (
        "Los resultados pasados no predicen el siguiente.")


def test_the_variant_is_named_in_the_language() -> None:
    def header(*args: str, variant: str = "commission") -> str:
        run = croupier("simulate", "--seed", "42", "--rounds", "1", *args, CROUPIER_TABLE_VARIANT=variant)
        assert run.returncode == 0, run.stderr
        return run.stdout.splitlines()[0]

    assert header() == "Croupier simulated table: 8 decks, commission variant, driver mock://?seed=42&decks=8&cut=16"
    assert "no_commission variant" in header(variant="no_commission")
    assert "커미션 방식" in header("--lang", "ko")
    assert "免佣" in header("--lang", "zh_Hant", variant="no_commission")
    assert croupier("odds", "--variant", "no_commission").stdout.splitlines()[0] == (
        "Exact odds, 8 deck(s), no commission variant")
    assert "variante sin comisión" in croupier("odds", "--variant", "no_commission", "--lang", "es").stdout
    assert "コミッション" in croupier("odds", "--lang", "ja").stdout.splitlines()[0]


def test_diagram_and_floor_acl_keep_their_english_and_speak_the_language(tmp_path: Path) -> None:
    docs = ROOT / "docs"
    assert croupier("diagram", "--check").stdout == f"croupier diagram: {docs} is up to date\n"
    assert croupier("diagram", "--check", "--lang", "ko").stdout == f"croupier diagram: {docs}은(는) 최신입니다\n"
    assert croupier("diagram", "--check", "--lang", "es").stdout == f"croupier diagram: {docs} está al día\n"
    english = croupier("floor", "acl", "--out", str(tmp_path / "en"), "--table", "s1/t1")
    assert english.returncode == 0, english.stderr
    assert english.stdout.splitlines()[0].startswith("wrote 3 accounts (1 tables): ")
    assert english.stdout.splitlines()[1].startswith(f"Mosquitto: include_dir {tmp_path / 'en'} (or copy ")
    worded = {"ja": "アカウント 3 件 (テーブル 1 台) を書きました", "zh_Hant": "已寫入 3 個帳號 (1 張牌桌)"}
    for language, wrote in worded.items():
        out = tmp_path / language
        run = croupier("floor", "acl", "--out", str(out), "--table", "s1/t1", "--lang", language)
        assert run.returncode == 0 and run.stdout.startswith(wrote), run.stdout
        allowed = path_words(out) | {"passwd", "acl", "mosquitto", "floor", "conf", "credentials", "Mosquitto",
                                     "include", "dir",
                                         # Mosquitto's own keywords, quoted as they must be typed
                                         "listener", "use", "username", "as", "clientid", "true", "ID"}
        assert english_words(run.stdout, allowed) == [], run.stdout


def test_badge_lines_speak_the_language() -> None:
    from controller.cli.badges import event_line
    from controller.core.auth import settings_from_dict
    from drivers.pcsc.badges import BadgeEvent

    settings = settings_from_dict({"badges": {"04A1B2C3": {"name": "Kim", "role": "supervisor"}}})
    unknown = BadgeEvent("presented", "ACS ACR122U", "0499")
    offline = BadgeEvent("offline", "ACS ACR122U", None, "pcscd stopped")
    assert event_line(unknown, settings)[8:] == "  presented  0499  unknown badge: enrol it as [auth.badges.0499]"
    assert event_line(BadgeEvent("removed", "r", "04A1B2C3"), settings)[8:] == "  removed    04A1B2C3  Kim (supervisor)"
    assert event_line(offline, settings)[8:] == "  reader offline: pcscd stopped; waiting for it to come back"
    korean = Catalogue("ko")
    assert event_line(unknown, settings, korean)[8:] == "  제시됨  0499  모르는 배지: [auth.badges.0499]로 등록하세요"
    assert event_line(offline, settings, korean)[8:] == "  리더 오프라인: pcscd stopped; 다시 연결되기를 기다립니다"
    spanish = event_line(BadgeEvent("online", "ACS ACR122U"), settings, Catalogue("es"))
    assert spanish[8:] == "  el lector 'ACS ACR122U' vuelve a estar conectado"


def test_the_shoe_emulator_words_a_port_it_cannot_serve_on() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        english = croupier("shoe-emulator", "--seed", "1", "--tcp", f"127.0.0.1:{port}")
        korean = croupier("shoe-emulator", "--seed", "1", "--tcp", f"127.0.0.1:{port}", CROUPIER_TABLE_LANGUAGE="ko")
    assert english.returncode == korean.returncode == 2
    assert english.stderr.startswith(f"croupier shoe-emulator: cannot serve on TCP 127.0.0.1:{port}: ")
    assert korean.stderr.startswith(f"croupier shoe-emulator: TCP 127.0.0.1:{port}에서 서비스할 수 없습니다: ")


TRAIN = ("train", "--cards", "4S 3H 6D 2C 5H 9S", "--rounds", "1")
ANSWERS = "stand\ndraw\nbanker\n"


def test_train_in_english_is_unchanged() -> None:
    run = croupier_in_process(*TRAIN, stdin=ANSWERS)
    lines = run.stdout.splitlines()
    assert lines[:2] == ["Round 1", "  Player card 1: 4S"]
    assert lines[5].startswith("Player's call (natural/draw/stand)?   WRONG (") and lines[5].endswith(
        "s): draw, not stand: player 0 draws (the player draws on 0-5)")
    assert "Training report: 1 round, 3 calls, 1 right, 2 wrong" in lines
    assert "  player     1 call     0 right     1 wrong" in lines


@pytest.mark.parametrize(("language", "words"), [
    ("ko", ("1번째 게임", "플레이어 카드 1: 4S", "플레이어의 콜 (natural/draw/stand)?", "훈련 보고: 1게임, 콜 3개")),
    ("ja", ("ゲーム 1", "バンカーのカード 2: 2C", "勝者 (player/banker/tie)？", "訓練レポート: 1 ゲーム")),
])
def test_train_speaks_the_language(language: str, words: tuple[str, ...]) -> None:
    run = croupier_in_process(*TRAIN, "--lang", language, stdin=ANSWERS)
    assert run.returncode == 0, run.stderr
    for word in words:
        assert word in run.stdout, run.stdout
    rules = {"player", "banker", "draws", "the", "on", "against", "wins", "natural", "draw", "stand", "tie",
             "winner", "p90"}
    assert english_words(run.stdout, rules) == [], run.stdout


def test_a_resume_refusal_is_worded(journal: Path) -> None:
    english = croupier("simulate", "--seed", "4", "--rounds", "3", "--quiet", "--journal", str(journal))
    assert english.returncode == 2
    assert english.stderr.startswith(f"croupier simulate: {journal}: this journal was made with other arguments (")
    assert english.stderr.endswith("); run again with the same arguments to resume it, or give a new --journal path\n")
    korean = croupier("simulate", "--seed", "4", "--rounds", "3", "--quiet", "--journal", str(journal), "--lang", "ko")
    assert korean.returncode == 2
    assert f"{journal}: 이 저널은 다른 인수로 만들어졌습니다 (" in korean.stderr
    assert korean.stderr.endswith("이어서 하려면 같은 인수로 다시 실행하거나, 새 --journal 경로를 주세요\n")


def test_the_archive_comparison_lines_are_worded() -> None:
    pytest.importorskip("psycopg")
    from controller.floor.archive_check import compare_records
    from controller.journal.store import GENESIS, Record, record_hash

    records: list[Record] = []
    for seq in (1, 2, 3):  # a genuine chain: the archive's own rows must hold
        prev = records[-1].hash if records else GENESIS
        records.append(Record(seq, "input", "2026-01-05T20:14:03Z", "{}", prev,
                              record_hash(seq, "input", "2026-01-05T20:14:03Z", prev, "{}")))
    matches = compare_records(records, records[:2], "casino/t1")
    english = [line.english() for line in matches.lines]
    assert english == ["matches the archive of table casino/t1: records 1-2 are the same",
                       "records 3-3 are not archived yet"]
    korean = [Catalogue("ko").text(line) for line in matches.lines]
    assert korean == ["테이블 casino/t1의 보관본과 일치합니다: 기록 1-2이(가) 같습니다",
                      "기록 3-3은(는) 아직 보관되지 않았습니다"]
    edited = compare_records([records[0], records[1]._replace(body='{"x": 1}')], records[:2], "casino/t1")
    assert not edited.matches
    assert Catalogue("es").text(edited.lines[0]) == (
        "el registro 2 difiere de la copia archivada de la mesa casino/t1 (body): el diario local fue editado o "
        "reescrito desde el registro 2")

"""``croupier history --lang``: the text in the language, its amounts in the locale; --json and --csv unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.i18n.numbers import format_count, format_net
from tests.inprocess import croupier_in_process, croupier_process

croupier = croupier_in_process
"""``croupier ARGS`` in this process; the test of an unknown language in the environment spawns a real one."""


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("history") / "table.journal")
    run = croupier("simulate", "--seed", "42", "--rounds", "12", "--quiet", "--journal", path)
    assert run.returncode == 0, run.stderr
    return path


def test_amounts_follow_the_locale() -> None:
    assert format_net("+0.95", "en") == "+0.95"
    assert format_net("+0.95", "es") == "+0,95"
    assert format_net("-1", "ko") == "-1"
    assert format_net("0", "ja") == "0"
    assert format_count(12345, "es") == "12.345" and format_count(12345, "en") == "12,345"


def test_history_in_spanish_uses_the_decimal_comma_and_the_house_terms(journal: str) -> None:
    english = croupier("history", journal)
    spanish = croupier("history", journal, "--lang", "es")
    assert spanish.returncode == english.returncode == 0, spanish.stderr
    assert "+0.95" in english.stdout and "banker +0.95" in english.stdout
    assert "+0,95" in spanish.stdout and "+0.95" not in spanish.stdout
    assert "banca +0,95" in spanish.stdout and "Sabot 1" in spanish.stdout
    assert "Round" not in spanish.stdout and "pays per unit" not in spanish.stdout


@pytest.mark.parametrize(("language", "word"),
                         [("ko", "뱅커"), ("zh_Hant", "莊"), ("zh_Hans", "庄"), ("ja", "バンカー")])
def test_history_text_in_each_language(journal: str, language: str, word: str) -> None:
    run = croupier("history", journal, "--lang", language)
    assert run.returncode == 0, run.stderr
    assert word in run.stdout and "Round" not in run.stdout and "banker" not in run.stdout


def test_json_and_csv_do_not_change_with_the_language(journal: str) -> None:
    for form in ("--json", "--csv"):
        assert croupier("history", journal, form, "--lang", "es").stdout == croupier("history", journal, form).stdout


def test_history_takes_the_language_of_the_config_and_the_environment(journal: str, tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nlanguage = "zh_Hant"\n', encoding="utf-8")
    from_file = croupier("history", journal, "--config", str(config))
    assert from_file.returncode == 0, from_file.stderr
    assert "莊" in from_file.stdout and "Round" not in from_file.stdout
    from_env = croupier("history", journal, CROUPIER_TABLE_LANGUAGE="ja")
    assert from_env.returncode == 0, from_env.stderr
    assert "バンカー" in from_env.stdout and "Round" not in from_env.stdout
    overridden = croupier("history", journal, "--lang", "en", CROUPIER_TABLE_LANGUAGE="ja")
    assert overridden.stdout == croupier("history", journal).stdout


def test_history_refuses_an_unknown_language_in_one_line(journal: str) -> None:
    run = croupier("history", journal, "--lang", "kr")
    assert run.returncode == 2 and not run.stdout
    assert "--lang" in run.stderr and "'kr'" in run.stderr and "Traceback" not in run.stderr
    environ_run = croupier_process("history", journal, CROUPIER_TABLE_LANGUAGE="kr")
    assert environ_run.returncode == 2 and not environ_run.stdout
    assert environ_run.stderr.startswith("croupier history: ") and "'kr'" in environ_run.stderr
    assert len(environ_run.stderr.strip().splitlines()) == 1

"""The translations' quality rules: one term per road and side, columns lined up by terminal cells, locale
numbers where people read them, and wording that does not depend on a value's last sound or on plural hacks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.i18n.catalogue import po_source_texts, po_translations
from controller.i18n.languages import LANGUAGES
from controller.ui.bigtext import cells
from tests.inprocess import croupier_in_process

ROOT = Path(__file__).resolve().parents[3]
GLOSSARY_TERMS = ("banker", "player", "tie", "bead plate", "big road", "big eye boy", "small road", "cockroach pig")
"""The glossary rows every message of ``NAMING_SCOPES`` that names them must word identically."""
NAMING_SCOPES = ("roads.", "scoreboard.", "console.")
TRANSLATED = [language for language in LANGUAGES if language != "en"]


def glossary() -> dict[str, dict[str, str]]:
    """docs/languages.md's glossary: English term -> language -> term (the first form of a cell)."""
    text = (ROOT / "docs" / "languages.md").read_text(encoding="utf-8").split("## Glossary", 1)[1]
    rows = [line for line in text.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    table: dict[str, dict[str, str]] = {}
    for row in rows[2:]:
        fields = [cell.strip() for cell in row.strip("|").split("|")]
        table[fields[0]] = {language: re.sub(r"\s*\(.*\)$", "", field)
                            for language, field in zip(header[1:], fields[1:], strict=True)}
    return table


def names_term(english: str, term: str) -> bool:
    """True when an English text names ``term`` as a word (``big-road`` names ``big road``), not as a
    placeholder (``{banker}``) or a quoted machine word (``'banker'``)."""
    english = re.sub(r"\{\w+\}|'\w+'|player advantage", "", english)  # the advantage is the gamblers', no side's
    pattern = r"(?<![\w-])" + r"[ -]".join(re.escape(word) for word in term.split()) + r"(?![\w])"
    return re.search(pattern, english, re.IGNORECASE) is not None


def test_the_glossary_lists_the_roads_in_every_language() -> None:
    table = glossary()
    for term in GLOSSARY_TERMS:
        assert term in table, term
        assert set(table[term]) == set(TRANSLATED), term


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_glossary_term_is_worded_identically_wherever_a_road_or_side_is_named(language: str) -> None:
    table, english, translated = glossary(), po_source_texts(), po_translations(language)
    wrong = []
    for term in GLOSSARY_TERMS:
        house = table[term][language]
        for msg_id, source in english.items():
            if msg_id.startswith(NAMING_SCOPES) and names_term(source, term) \
                    and house.lower() not in translated[msg_id].lower():
                wrong.append(f"{msg_id}: {translated[msg_id]!r} lacks {house!r} ({term})")
    assert not wrong, "\n".join(wrong)


def slot_columns(text: str) -> set[int]:
    """The cell at which each card line's slot (``P1``, ``B3``) starts."""
    found = set()
    for line in text.splitlines():
        match = re.search(r" ([PB][1-3])  (\.\.\.|[0-9TJQKA]{1,2}[♠♥♦♣SHDC])", line)
        if match:
            found.add(cells(line[:match.start(1)]))
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_transcripts_slot_column_lines_up_by_cells(language: str) -> None:
    run = croupier_in_process("simulate", "--seed", "42", "--rounds", "3", "--lang", language)
    assert run.returncode == 0, run.stderr
    columns = slot_columns(run.stdout)
    assert len(columns) == 1, (columns, run.stdout)
    for line in run.stdout.splitlines():
        match = re.search(r"\S( +)[PB][1-3]  ", line)
        if match:
            assert len(match.group(1)) >= 2, line


def test_the_transcript_stays_as_it_was_in_english() -> None:
    run = croupier_in_process("simulate", "--seed", "42", "--rounds", "1")
    assert "  Card to PLAYER   P1  " in run.stdout and "  Card to BANKER   B1  " in run.stdout


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("quality") / "table.journal")
    run = croupier_in_process("simulate", "--seed", "42", "--rounds", "12", "--quiet", "--journal", path)
    assert run.returncode == 0, run.stderr
    return path


@pytest.mark.parametrize("language", ["ko", "ja", "es", "zh_Hant"])
def test_historys_winner_column_lines_up_by_cells(journal: str, language: str) -> None:
    run = croupier_in_process("history", journal, "--lang", language)
    assert run.returncode == 0, run.stderr
    result_lines = [line for line in run.stdout.splitlines() if " = " in line and re.search(r"\d\d:\d\d:\d\d", line)]
    assert len(result_lines) >= 10
    starts = {cells(line[:re.search(r"\d\d:\d\d:\d\d  \S+ +", line).end()]) for line in result_lines}  # type: ignore[union-attr]
    assert len(starts) == 1, "\n".join(result_lines)


def test_spanish_pays_use_the_decimal_comma_english_is_unchanged() -> None:
    spanish = croupier_in_process("simulate", "--seed", "42", "--rounds", "12", "--lang", "es").stdout
    english = croupier_in_process("simulate", "--seed", "42", "--rounds", "12").stdout
    assert "+0,95" in spanish and "+0.95" not in spanish
    assert "banker +0.95" in english
    odds_es = croupier_in_process("odds", "--lang", "es").stdout
    odds_en = croupier_in_process("odds").stdout
    assert "(paga 0,95)" in odds_es and "0.95)" not in odds_es
    assert "(pays 0.95)" in odds_en


def test_json_keeps_the_machine_numbers_in_spanish() -> None:
    spanish = croupier_in_process("simulate", "--seed", "42", "--rounds", "12", "--json", "--lang", "es").stdout
    assert '"net": "+0.95"' in spanish


PARTICLE_AFTER_VALUE = re.compile(r"\}(가|이|를|을|는|은|와|과|로|으로)(?=[ ,.;]|$)")


def test_korean_option_errors_use_no_particle_that_depends_on_the_value() -> None:
    korean = po_translations("ko")
    wrong = {msg_id: text for msg_id, text in korean.items()
             if msg_id.startswith("argument.") and PARTICLE_AFTER_VALUE.search(text)}
    assert not wrong


def test_korean_option_error_reads_well_for_a_range() -> None:
    run = croupier_in_process("simulate", "--decks", "0", "--lang", "ko")
    assert run.returncode == 2
    assert "1-8가" not in run.stderr and "이상가" not in run.stderr


@pytest.mark.parametrize(("language", "joined"), [("ja", "。"), ("zh_Hant", "。"), ("zh_Hans", "。"), ("ko", ". "),
                                                  ("es", ". "), ("en", ". ")])
def test_the_console_joins_result_and_next_step_with_the_languages_punctuation(language: str, joined: str) -> None:
    from controller.i18n.catalogue import Catalogue
    from controller.ui.moments import result_then

    words = Catalogue(language)
    assert result_then("A", "B", words) == f"A{joined}B"


def test_spanish_has_no_plural_hacks_after_a_count() -> None:
    spanish = po_translations("es")
    hack = re.compile(r"\{\w+\} (\w+\(s\)|\w+\(\w+\)s?\b)|\{(right|wrong)\} (in)?correctas")
    wrong = {msg_id: text for msg_id, text in spanish.items() if hack.search(text)}
    assert not wrong


def test_historys_advantage_alert_uses_the_locales_decimal_sign_and_leaves_the_event_alone() -> None:
    from fractions import Fraction

    from controller.cli.history_text import alert_detail
    from controller.core.bets.live import advantage_alert
    from controller.i18n.catalogue import Catalogue
    from controller.ui.localise import Localiser

    alert = advantage_alert("dragon_7", Fraction(1683, 100000), 0.01, 1, 30, "A1")
    assert "+1,683%" in alert_detail(alert, Localiser(Catalogue("es")))
    assert "+1.683%" in alert_detail(alert, Localiser(Catalogue("en")))
    assert alert["say_params"]["percent"] == "+1.683" and "+1.683%" in alert["detail"]


@pytest.mark.parametrize("language", ["zh_Hant", "zh_Hans"])
def test_chinese_says_stand_as_the_glossary_does(language: str) -> None:
    """The glossary's 不補牌/不补牌 wherever a message says a hand stands (or stood), never another word (停牌)."""
    house = glossary()["stands"][language]
    english, translated = po_source_texts(), po_translations(language)
    wrong = [f"{msg_id}: {translated[msg_id]!r}" for msg_id, source in english.items()
             if re.search(r"\bst(?:and|ands|ood)\b", re.sub(r"\{\w+\}", "", source), re.IGNORECASE)
             and house not in translated[msg_id]]
    assert not wrong, f"lack {house!r}:\n" + "\n".join(wrong)
    assert not [msg_id for msg_id, text in translated.items() if "停牌" in text]

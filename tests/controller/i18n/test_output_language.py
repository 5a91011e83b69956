"""What ``simulate`` (summary, odds comparison, ``--plot``), ``odds``, ``roads`` and ``report dealers`` print, in
the chosen language with the locale's decimal sign; English unchanged (the summary line is a contract)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.i18n.numbers import format_fixed
from tests.inprocess import Completed, croupier_in_process, croupier_process, environment

LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
SUMMARY_LINE = re.compile(r"^  banker \d+ \(\d+\.\d\d%\)   player \d+ \(\d+\.\d\d%\)   tie \d+ \(\d+\.\d\d%\)$")
ODDS_WORDS = {"croupier", "odds", "decks", "variant", "commission"}
"""The comparison's header names the command it compares with, as typed."""


def croupier(*args: str, **variables: str) -> Completed:
    """``croupier ARGS`` in this process (no inherited table language), which must succeed."""
    run = croupier_in_process(*args, env=environment(None, "CROUPIER_TABLE_", **variables))
    assert run.returncode == 0, run.stderr
    return run


def english_words(lines: list[str], allowed: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    return [word for line in lines for word in LATIN_WORD.findall(line) if word not in allowed]


def from_summary(output: str, first: str) -> list[str]:
    lines = output.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith(first))
    return lines[start:]


def test_fixed_numbers_keep_python_rounding_and_take_the_locale_decimal_sign() -> None:
    assert format_fixed(45.859745, 4, "en") == f"{45.859745:.4f}" == "45.8597"
    assert format_fixed(45.859745, 4, "es") == "45,8597"
    assert format_fixed(-0.0738, 4, "ko", signed=True) == "-0.0738"
    assert format_fixed(1.64, 2, "es", signed=True) == "+1,64"


@pytest.mark.parametrize("rounds", ["400", "12"])
def test_the_english_summary_and_comparison_are_unchanged(rounds: str) -> None:
    lines = from_summary(croupier("simulate", "--seed", "5", "--rounds", rounds, "--quiet").stdout, "Summary:")
    assert re.match(rf"^Summary: {rounds} rounds over \d+ shoe\(s\)$", lines[0]), lines[0]
    assert SUMMARY_LINE.match(lines[1]), lines[1]
    assert lines[4].startswith(f"Compared with croupier odds --decks 8 --variant commission (exact), over {rounds} ")
    assert lines[5] == "                 observed     exact  difference      z"
    assert re.match(r"^  banker wins   +\d+\.\d\d% +\d+\.\d{4}% +[+-]\d+\.\d\dpt +[+-]\d+\.\d\d$", lines[6]), lines[6]
    assert lines[12] == "  net per unit   observed  expected  difference"


@pytest.mark.parametrize(("language", "first", "words"), [
    ("ko", "요약:", ("뱅커", "플레이어", "타이", "내추럴", "페어", "관측")),
    ("ja", "集計", ("バンカー", "プレイヤー", "タイ", "ナチュラル", "ペア", "観測")),
    ("zh_Hans", "总结", ("庄", "闲", "和", "例牌", "对", "观测")),
])
@pytest.mark.parametrize("rounds", ["400", "12"])
def test_the_summary_and_comparison_are_translated(language: str, first: str, words: tuple[str, ...],
                                                    rounds: str) -> None:
    """400 rounds take the fast path, 12 the full controller; both word the same lines."""
    lines = from_summary(croupier("simulate", "--seed", "5", "--rounds", rounds, "--quiet", "--lang", language)
                         .stdout, first)
    assert len(lines) == 19
    assert english_words(lines, ODDS_WORDS) == []
    text = "\n".join(lines)
    assert all(word in text for word in words), text


def test_the_spanish_comparison_uses_the_decimal_comma_and_the_house_terms() -> None:
    lines = from_summary(croupier("simulate", "--seed", "5", "--rounds", "400", "--quiet", "--lang", "es").stdout,
                         "Resumen")
    text = "\n".join(lines)
    assert "45,8597%" in text and "45.8597" not in text
    assert "gana la banca" in text and "pareja de punto" in text and "neto por unidad" in text
    for english in ("banker", "player", "observed", "expected", "difference", "rounds", "every", "wins"):
        assert english not in text, english


def test_the_comparison_columns_stay_aligned_in_korean() -> None:
    from controller.ui.bigtext import cells

    lines = from_summary(croupier("simulate", "--seed", "5", "--rounds", "400", "--quiet", "--lang", "ko").stdout,
                         "요약:")
    table = lines[5:17]
    assert len({cells(line) for line in table[:7]}) == 1, table  # header and six frequencies: the same width
    assert len({cells(line) for line in table[7:]}) == 1, table  # header and five bets


def test_odds_text_in_english_is_unchanged_and_translated_in_korean_and_spanish() -> None:
    english = croupier("odds", "--decks", "1").stdout.splitlines()
    assert english[0] == "Exact odds, 1 deck(s), commission variant"
    assert english[1].startswith("  banker wins                    45.9624%   ")
    assert english[9] == "House edge"
    korean = croupier("odds", "--decks", "1", "--lang", "ko").stdout.splitlines()
    assert korean[0] == "정확한 확률, 1덱, 커미션 방식"
    assert korean[1].startswith("  뱅커 승") and korean[1].endswith("45.9624%   10526926/22903335")
    assert english_words(korean[:15], set()) == []
    spanish = croupier("odds", "--decks", "1", "--seen", "AS", CROUPIER_TABLE_LANGUAGE="es").stdout.splitlines()
    assert spanish[0] == "Probabilidades exactas, barajas: 1, quedan 51 cartas, variante comisión"
    assert "Ventaja de la casa" in spanish and "," in spanish[1] and "." not in spanish[1].split("%")[0]


def test_roads_legend_translated_and_the_cells_keep_their_letters() -> None:
    english = croupier("roads", "--results", "BPPTBBP").stdout
    japanese = croupier("roads", "--results", "BPPTBBP", "--lang", "ja").stdout
    assert english.startswith("Rounds 7: banker 3, player 3, tie 1;")
    assert "Bead plate (B banker, P player, T tie; marks: p player pair, b banker pair, n natural):" in english
    lines = japanese.splitlines()
    assert lines[0] == "7 ゲーム: バンカー 3、プレイヤー 3、タイ 1。バンカーペア 0、プレイヤーペア 0、ナチュラル 0"
    assert english_words(lines[:-1]) == []  # the last line is the responsible-gaming notice, English and Korean
    def grid(text: str) -> list[str]:
        return [line for line in text.splitlines() if line and set(line) <= set("BPTRbpn·0123456789 ")]

    assert grid(english) == grid(japanese) and len(grid(english)) >= 12
    korean = croupier("roads", "--results", "BPPTBBP", "--lang", "ko").stdout.splitlines()
    assert korean[2].startswith("비드 플레이트 (B 뱅커, P 플레이어, T 타이;")


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("report") / "table.journal")
    croupier("simulate", "--seed", "42", "--rounds", "6", "--quiet", "--journal", path)
    return path


def test_report_dealers_text_in_the_language(journal: str) -> None:
    english = croupier("report", "dealers", journal).stdout.splitlines()
    assert english[0] == "Dealers:" and english[1].startswith("  (no badge): 1 shift(s), 6 rounds in ")
    korean = croupier("report", "dealers", journal, "--lang", "ko").stdout.splitlines()
    assert korean[0] == "딜러:" and korean[1].startswith("  (배지 없음): 교대 1회, ")
    assert korean[2] == "교대:"
    paths = set(LATIN_WORD.findall(journal))
    assert english_words([line.replace(journal, "") for line in korean], paths) == []
    chinese = croupier("report", "dealers", journal, "--lang", "zh_Hant").stdout.splitlines()
    assert chinese[0] == "荷官：" and "局" in chinese[1]


def test_the_plot_labels_are_drawn_in_a_cjk_font(tmp_path: Path) -> None:
    """matplotlib warns of each glyph its font lacks; a Japanese plot must raise none (no tofu boxes)."""
    pytest.importorskip("matplotlib")
    picture = tmp_path / "odds.png"
    run = croupier_process("simulate", "--seed", "1", "--rounds", "300", "--quiet", "--plot", str(picture), "--lang",
                           "ja", python=["-W", "always"], timeout=300)
    assert run.returncode == 0, run.stderr
    assert picture.stat().st_size > 10_000
    assert "missing from font" not in run.stderr, run.stderr

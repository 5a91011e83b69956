"""The drawing rules (controller.core.rules) against every cell of the seeds' tables.

Each seed table is a transcription in ``tests/fixtures/seeds/`` and is read here
by a small loader that understands the seed's own notation; every cell is its
own test id. The expected values come from the seed text only, never from
controller.core.rules.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _pytest.mark import ParameterSet  # the type pytest.param returns

from controller.core import rules
from controller.core.rules import BANKER_TABLEAU, banker_draws, is_natural, player_draws

SEEDS = Path(__file__).resolve().parents[2] / "fixtures" / "seeds"
ALL_VALUES = range(10)


def _data_lines(name: str) -> list[str]:
    """The fixture's lines without the comment header and blank lines."""
    text = (SEEDS / name).read_text(encoding="utf-8")
    return [line.rstrip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def _sections(name: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current = None
    for line in _data_lines(name):
        match = re.fullmatch(r"\[(\w+)\]", line)
        if match:
            current = sections.setdefault(match.group(1), [])
        else:
            assert current is not None, f"{name}: line outside a section: {line!r}"
            current.append(line)
    return sections


def _digits(text: str) -> set[int]:
    return {int(d) for d in re.findall(r"\d", text)}


# --------------------------------------------------------------------------- seed 000
def load_seed000() -> dict[tuple[int, int], tuple[str, str, str]]:
    """``{(player_total, banker_total): (player_action, banker_action, rule_text)}``.

    The page's table has 102 rows for 100 (player, banker) pairs: it repeats the
    "banker 5 | stand" row for player 9 and for player 8. The repeats are kept in
    the fixture; here a repeated pair must say exactly the same thing as its first
    occurrence and is then dropped.
    """
    rows = [line for line in _data_lines("seed000_third_card_table.txt") if re.match(r"\| \d \|", line)]
    assert len(rows) == 102, "the fixture should hold the page's 102 rows"
    table: dict[tuple[int, int], tuple[str, str, str]] = {}
    repeats = []
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        player, player_action, banker, banker_action, rule_text = cells
        key = (int(player), int(banker))
        value = (player_action, banker_action, rule_text)
        if key in table:
            assert table[key] == value, f"seed 000 repeats {key} with a different content"
            repeats.append(key)
            continue
        table[key] = value
    assert sorted(repeats) == [(8, 5), (9, 5)], "the known typo: banker 5 repeated for player 9 and 8"
    assert set(table) == {(p, b) for p in ALL_VALUES for b in ALL_VALUES}
    return table


def seed000_rule(text: str) -> set[int]:
    """The player third-card values on which the banker draws, from an "&" row's text.

    "플레이어 3번째 카드 6, 7 이면 받는다." = draws on 6, 7;
    "플레이어 3번째 카드 1, 2, 3, 8, 9, 0 이면 받지 않는다." = draws on all but those.
    """
    match = re.fullmatch(r"플레이어 3번째 카드 ([\d, ]+) 이면 (받는다|받지 않는다)\.", text)
    assert match, f"unexpected rule text {text!r}"
    listed = _digits(match.group(1))
    return listed if match.group(2) == "받는다" else set(ALL_VALUES) - listed


SEED000 = load_seed000()


def _seed000_cells() -> list[ParameterSet]:
    return [pytest.param(p, b, *SEED000[p, b], id=f"p{p}-b{b}") for p, b in sorted(SEED000)]


def _seed000_banker_cells() -> list[ParameterSet]:
    """One test per (player, banker[, player's third card]) cell of the banker column."""
    cells = []
    for (p, b), (player_action, banker_action, text) in sorted(SEED000.items()):
        if player_action == "third card":
            for value in ALL_VALUES:
                cells.append(pytest.param(p, b, banker_action, text, value, id=f"p{p}-b{b}-third{value}"))
        else:
            cells.append(pytest.param(p, b, banker_action, text, None, id=f"p{p}-b{b}-stood"))
    return cells


@pytest.mark.parametrize(("player", "banker", "player_action", "banker_action", "text"), _seed000_cells())
def test_seed000_player_action(player: int, banker: int, player_action: str, banker_action: str,
                               text: str) -> None:
    assert player_action in ("stand", "third card")
    assert player_draws(player, banker) is (player_action == "third card")


@pytest.mark.parametrize(("player", "banker", "player_action", "banker_action", "text"), _seed000_cells())
def test_seed000_natural_rows_stand_on_both_sides(player: int, banker: int, player_action: str,
                                                  banker_action: str, text: str) -> None:
    natural = player in (8, 9) or banker in (8, 9)
    assert (is_natural(player) or is_natural(banker)) is natural
    if natural:
        assert (player_action, banker_action) == ("stand", "stand")
        assert not player_draws(player, banker)


@pytest.mark.parametrize(("player", "banker", "banker_action", "text", "third"), _seed000_banker_cells())
def test_seed000_banker_action(player: int, banker: int, banker_action: str, text: str,
                               third: int | None) -> None:
    if player in (8, 9) or banker in (8, 9):
        # a natural: the round is over after four cards; the tableau is not consulted
        assert banker_action == "stand"
        assert is_natural(player) or is_natural(banker)
        return
    if banker_action == "&":
        expected = third in seed000_rule(text)
    else:
        assert banker_action in ("stand", "third card") and text == ""
        expected = banker_action == "third card"
    assert banker_draws(banker, third) is expected


def test_seed000_and_rows_only_where_the_banker_depends_on_the_card() -> None:
    amp = {(p, b) for (p, b), (_, action, _) in SEED000.items() if action == "&"}
    assert amp == {(p, b) for p in range(6) for b in (3, 4, 5, 6)}


# --------------------------------------------------------------------------- seed 001
def load_seed001() -> tuple[dict[int, str], dict[int, str], dict[tuple[int, int], str]]:
    """(player rule, banker rule when the player stood, banker grid) of seed 001."""
    sections = _sections("seed001_rules.txt")

    def totals_rule(lines: list[str]) -> dict[int, str]:
        assert len(lines) == 3
        rule = {}
        for line in lines:
            match = re.fullmatch(r"([\d, ]+?) (\S+)", line)
            assert match, line
            for total in _digits(match.group(1)):
                rule[total] = match.group(2)
        assert set(rule) == set(ALL_VALUES)
        return rule

    header, *rows = sections["banker_grid"]
    columns = [int(c) for c in header.split()]
    assert columns == list(ALL_VALUES)
    assert len(rows) == 8
    grid = {}
    for row in rows:
        total, *marks = row.split()
        assert len(marks) == 10 and set(marks) <= {"S", "D"}, row
        for column, mark in zip(columns, marks, strict=True):
            grid[int(total), column] = mark
    assert {b for b, _ in grid} == set(range(8))
    return totals_rule(sections["player"]), totals_rule(sections["banker_player_stood"]), grid


SEED001_PLAYER, SEED001_STOOD, SEED001_GRID = load_seed001()


@pytest.mark.parametrize(("player", "action"), sorted(SEED001_PLAYER.items()), ids=lambda v: str(v))
def test_seed001_player_rule(player: int, action: str) -> None:
    # 드로우(카드뽑기) = draw; 스탠드 = stand; 스탠드(내츄럴) = stand, a natural
    draws = action.startswith("드로우")
    for banker in range(8):  # no banker natural
        assert player_draws(player, banker) is draws
    assert is_natural(player) is (action == "스탠드(내츄럴)")


@pytest.mark.parametrize(("banker", "action"), sorted(SEED001_STOOD.items()), ids=lambda v: str(v))
def test_seed001_banker_when_player_stood(banker: int, action: str) -> None:
    if action == "스탠드(내츄럴)":
        assert is_natural(banker)
        return
    assert not is_natural(banker)
    assert banker_draws(banker, None) is action.startswith("드로우")


@pytest.mark.parametrize(("banker", "third", "mark"),
                         [pytest.param(b, v, m, id=f"b{b}-third{v}") for (b, v), m in sorted(SEED001_GRID.items())])
def test_seed001_banker_grid(banker: int, third: int, mark: str) -> None:
    assert banker_draws(banker, third) is (mark == "D")


# --------------------------------------------------------------------------- seed 002
def load_seed002() -> dict[tuple[int, str | int], str]:
    """``{(banker_total, column): "받"|"멈"}``; column is "stood" (the 멈춤 column) or 0-9."""
    lines = _sections("seed002_banker_grid.txt")["banker_grid"]
    header, *rows = lines
    assert header == "뱅커 합멈춤0123456789"
    assert len(rows) == 8
    grid: dict[tuple[int, str | int], str] = {}
    for row in rows:
        match = re.fullmatch(r"(\d) ([받멈]) ([받멈]{10})", row)
        assert match, row
        total = int(match.group(1))
        grid[total, "stood"] = match.group(2)
        for value, mark in enumerate(match.group(3)):
            grid[total, value] = mark
    assert {b for b, _ in grid} == set(range(8))
    return grid


SEED002_GRID = load_seed002()


@pytest.mark.parametrize(("banker", "column", "mark"),
                         [pytest.param(b, c, m, id=f"b{b}-{'stood' if c == 'stood' else f'third{c}'}")
                          for (b, c), m in SEED002_GRID.items()])
def test_seed002_banker_grid(banker: int, column: str | int, mark: str) -> None:
    third = None if column == "stood" else column
    assert third is None or isinstance(third, int), column
    assert banker_draws(banker, third) is (mark == "받")


def test_seed002_player_rule() -> None:
    rows = _sections("seed002_banker_grid.txt")["player"]
    assert rows == ["0 ~ 5한 장 더 받음", "6 · 7멈춤", "8 · 9내추럴 — 양쪽 모두 멈춤"]
    for player in range(6):
        assert all(player_draws(player, banker) for banker in range(8))
    for player in (6, 7):
        assert not any(player_draws(player, banker) for banker in range(10))
    for total in (8, 9):  # 양쪽 모두 멈춤: neither side draws
        assert is_natural(total)
        assert not any(player_draws(total, other) or player_draws(other, total) for other in range(10))


# --------------------------------------------------------------------------- seed 003
def seed003_condition(text: str) -> set[int]:
    """The player third-card values on which the banker draws, from seed 003's words."""
    if text == "받지 않음":
        return set()
    if text.endswith("무관하게 받음"):
        return set(ALL_VALUES)
    match = re.fullmatch(r"플레이어의 추가 카드 값이 (\d)이 아닐 때", text)
    if match:
        return set(ALL_VALUES) - {int(match.group(1))}
    match = re.fullmatch(r"플레이어의 추가 카드 값이 (\d)~(\d)일 때", text)
    if match:
        return set(range(int(match.group(1)), int(match.group(2)) + 1))
    match = re.fullmatch(r"플레이어의 추가 카드 값이 (\d) 또는 (\d)일 때", text)
    if match:
        return {int(match.group(1)), int(match.group(2))}
    raise AssertionError(f"seed 003 condition not understood: {text!r}")


def load_seed003() -> dict[int, set[int]]:
    lines = _sections("seed003_banker_conditions.txt")["banker_conditions"]
    rows = [line for line in lines[2:]]  # after the header and the |---| line
    assert len(rows) == 6
    table: dict[int, set[int]] = {}
    for row in rows:
        totals, condition = (cell.strip() for cell in row.strip("|").split("|"))
        match = re.fullmatch(r"(\d)(?:~(\d))?", totals)
        assert match, totals
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        for total in range(low, high + 1):
            table[total] = seed003_condition(condition)
    assert set(table) == set(range(8))
    return table


SEED003 = load_seed003()


@pytest.mark.parametrize(("banker", "third"),
                         [pytest.param(b, v, id=f"b{b}-third{v}") for b in range(8) for v in ALL_VALUES])
def test_seed003_banker_condition(banker: int, third: int) -> None:
    assert banker_draws(banker, third) is (third in SEED003[banker])


def test_seed003_player_and_banker_when_player_stood() -> None:
    lines = _sections("seed003_banker_conditions.txt")["player_and_banker_stood"]
    assert lines[2:] == [
        "| 플레이어 | 0~5 | 한 장 추가 |",
        "| 플레이어 | 6~7 | 추가 없음 |",
        "| 뱅커: 플레이어가 추가하지 않은 경우 | 0~5 / 6~7 | 0~5는 추가, 6~7은 추가 없음 |",
    ]
    for total in range(6):
        assert player_draws(total, 0) and banker_draws(total, None)
    for total in (6, 7):
        assert not player_draws(total, 0) and not banker_draws(total, None)


def test_seed003_banker_reads_the_card_not_the_new_total() -> None:
    # "플레이어가 세 장을 합쳐 몇 점이 됐는지가 아니라, 마지막에 받은 카드 한 장의 값을 봅니다":
    # banker 6, player 6+8 = 4 draws a 7 (new total 1). The card 7 -> draw; the total 1 -> stand.
    assert banker_draws(6, 7) is True
    assert banker_draws(6, 1) is False


# --------------------------------------------------------------------------- seed 004
def load_seed004() -> dict[int, tuple[set[int], set[int]]]:
    """``{banker_total: (values that end the round, values on which the banker draws)}``.

    The page prints the banker 6/5/4/3 conditions twice, and the second copy has
    lost its first heading ("..., 뱅커 6일 때,"): its first two list lines have no
    heading of their own. Here the blocks are split at the closing sentence, a
    headless pair of lines takes the total of the first heading of the first
    block, the second block must equal the first, and only the first is used.
    """
    blocks: list[list[tuple[int | None, str]]] = [[]]
    total: int | None = None
    for line in _data_lines("seed004_draw_game.txt"):
        heading = re.fullmatch(r"카드 두 장의 합이 플레이어 5이하, 뱅커 (\d)일 때,", line)
        if heading:
            total = int(heading.group(1))
        elif line.startswith("이때 "):
            blocks.append([])
            total = None
        else:
            blocks[-1].append((total, line))
    assert blocks[-1] == []
    parsed = []
    for block in blocks[:-1]:
        table: dict[int, tuple[set[int], set[int]]] = {}
        first_total = None
        for index in range(0, len(block), 2):
            (total_a, ends), (total_b, draws) = block[index], block[index + 1]
            assert total_a == total_b
            key = total_a if total_a is not None else 6  # the repeat's lost "뱅커 6" heading
            first_total = first_total if first_total is not None else key
            end_match = re.fullmatch(r"- 플레이어 3rd 카드가 ([\d,]+) 이면 게임이 종료되며", ends)
            draw_match = re.fullmatch(
                r"- 플레이어 3rd 카드가 ([\d,]+) 이면, 뱅커에 3rd 카드가 추가된 후에 종료 됩니다\.", draws)
            assert end_match and draw_match, (ends, draws)
            table[key] = (_digits(end_match.group(1)), _digits(draw_match.group(1)))
        assert first_total == 6
        parsed.append(table)
    assert len(parsed) == 2 and parsed[0] == parsed[1], "the repeated block must say the same"
    assert set(parsed[0]) == {3, 4, 5, 6}
    return parsed[0]


SEED004 = load_seed004()


@pytest.mark.parametrize(("banker", "third"),
                         [pytest.param(b, v, id=f"b{b}-third{v}") for b in (3, 4, 5, 6) for v in ALL_VALUES])
def test_seed004_draw_game(banker: int, third: int) -> None:
    ends, draws = SEED004[banker]
    assert ends | draws == set(ALL_VALUES) and not ends & draws
    assert banker_draws(banker, third) is (third in draws)


# --------------------------------------------------------------------------- the tableau's shape
def test_tableau_has_banker_totals_0_to_7() -> None:
    assert sorted(BANKER_TABLEAU) == [0, 1, 2, 3, 4, 5, 6, 7]


@pytest.mark.parametrize("banker", range(8))
def test_tableau_columns_are_stood_then_0_to_9(banker: int) -> None:
    assert list(BANKER_TABLEAU[banker]) == [rules.PLAYER_STOOD, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert all(isinstance(mark, bool) for mark in BANKER_TABLEAU[banker].values())


def test_tableau_stood_column_is_the_draw_when_player_stood() -> None:
    assert rules.PLAYER_STOOD == "stood"
    assert [BANKER_TABLEAU[b]["stood"] for b in range(8)] == [True] * 6 + [False] * 2


@pytest.mark.parametrize("total", ALL_VALUES)
def test_is_natural(total: int) -> None:
    # seed 001: "처음과 두번째에 주어지는 카드가 8 또는 9일때, 이는 내츄럴"
    assert is_natural(total) is (total in (8, 9))


def test_seeds_agree_with_each_other() -> None:
    """The four transcriptions give the same banker rule (a check of the transcriptions)."""
    for banker in range(8):
        for value in ALL_VALUES:
            from_001 = SEED001_GRID[banker, value] == "D"
            from_002 = SEED002_GRID[banker, value] == "받"
            from_003 = value in SEED003[banker]
            assert from_001 == from_002 == from_003, (banker, value)
            if banker in SEED004:
                assert (value in SEED004[banker][1]) == from_001, (banker, value)
            for player in range(6):
                _, action, text = SEED000[player, banker]
                from_000 = (value in seed000_rule(text)) if action == "&" else action == "third card"
                assert from_000 == from_001, (player, banker, value)
        assert (SEED002_GRID[banker, "stood"] == "받") == (SEED001_STOOD[banker] != "스탠드")

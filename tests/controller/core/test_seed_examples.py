"""Every worked example of seeds 000, 002, 003 and 004, dealt through the real Table.

Each example is a transcription in ``tests/fixtures/seeds/``. A scenario confirms
the shoe (``--no-burn`` settings: no burn cards) and feeds the cards through
``parse_tokens`` one input at a time, then checks what the dealer is told: the
prompts (slots in order), the card slots, the stand/natural instructions, the
number of cards and the result. The expectations are written by hand from the
seed's text; nothing is computed with controller.core.rules.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from _pytest.mark import ParameterSet  # the type pytest.param returns

from config.loader import load_config
from controller.core.events import (
    CardEvent,
    Event,
    InstructionEvent,
    PromptEvent,
    ResultEvent,
    SettlementEvent,
    decode_event,
)
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.machine import State
from controller.core.table import Table
from tests.typed_events import Picked, every

SEEDS = Path(__file__).resolve().parents[2] / "fixtures" / "seeds"

NO_BURN = {"shoe": {"burn": "none"}}
SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def load_examples(name: str) -> list[dict[str, Any]]:
    data = json.loads((SEEDS / name).read_text(encoding="utf-8"))
    examples: list[dict[str, Any]] = data["examples"]
    assert len(examples) == data["count"]
    return examples


SEED000 = {e["id"]: e for e in load_examples("seed000_examples.json")}
SEED002 = {e["id"]: e for e in load_examples("seed002_examples.json")}
SEED003 = {e["id"]: e for e in load_examples("seed003_examples.json")}


@dataclass
class Run:
    """A scenario's table and the events of each ``handle()`` call."""

    table: Table
    calls: list[list[Event]]

    @property
    def events(self) -> list[Event]:
        return [event for call in self.calls for event in call]

    def of(self, kind: type[Picked]) -> list[Picked]:
        return every(self.events, kind)

    @property
    def prompts(self) -> list[str]:
        return [event["slot"] for event in self.of(PromptEvent)]

    @property
    def card_slots(self) -> list[tuple[str, str]]:
        return [(event["slot"], event["card"]) for event in self.of(CardEvent)]

    @property
    def instructions(self) -> list[tuple[str, str]]:
        return [(event["action"], event["say"]) for event in self.of(InstructionEvent)]

    @property
    def result(self) -> ResultEvent:
        (result,) = self.of(ResultEvent)
        return result


def play(tokens: str, **table: Any) -> Run:
    overrides: dict[str, dict[str, Any]] = {**NO_BURN, "table": table}
    t = Table(load_config(environ={}, overrides=overrides))
    t.start()
    calls = [t.handle(Input(InputKind.SHOE))]
    for item in parse_tokens(tokens):
        calls.append(t.handle(item))
    run = Run(t, calls)
    check_flow(run)
    return run


def check_flow(run: Run) -> None:
    """Every call ends with what the dealer must do next; each card goes where it was prompted."""
    due = None
    for call in run.calls:
        for event in call:
            assert event["event"] not in ("misdeal", "rejected"), event
            if event["event"] == "card":
                assert event["slot"] == due, (event, due)
        assert call[-1]["event"] in ("prompt", "instruction"), call
        due = call[-1]["slot"] if call[-1]["event"] == "prompt" else None


def deal_order(player: list[str], banker: list[str]) -> list[str]:
    """Cards in the order they leave the shoe: P1 B1 P2 B2, then P3, then B3."""
    return [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]


def with_suits(ranks: list[str]) -> list[str]:
    """Give page ranks (no suits) suits chosen for the test: S H D C by deal position.

    A rank written with a suit symbol (the calculator: "2♠") keeps its suit.
    """
    codes = []
    for index, rank in enumerate(ranks):
        if rank[-1] in SUIT_SYMBOLS:
            codes.append(rank[:-1] + SUIT_SYMBOLS[rank[-1]])
        else:
            codes.append(rank + "SHDC"[index % 4])
    return codes


def normal(code: str) -> str:
    """The printed form of a test card code: "10C" is printed "TC"."""
    return ("T" + code[2:] if code.startswith("10") else code).upper()


def slots_for(player: list[str], banker: list[str]) -> list[str]:
    return ["P1", "B1", "P2", "B2"] + ["P3"] * (len(player) == 3) + ["B3"] * (len(banker) == 3)


NEXT_ROUND = ("next_round", "Round 1 is over; start the next round")


# --------------------------------------------------------------------------- seed 000
# Seed 000 gives totals only; the fixture's "cards" were chosen for the test:
#   P 2S QH (2) / B 6D KC (6), P3 6H -> 8, B3 3S -> 9        banker 9 to 8
#   P AS 2H (3) / B 5D TC (5), P3 AH -> 4, banker stands       banker 5 to 4
#   P AS 2H (3) / B 5D TC (5), P3 4C -> 7, B3 QS (0) -> 5      player 7 to 5
SEED000_EXPECTED = {
    "000-p2-b6-third6": [NEXT_ROUND],
    "000-p3-b5-third1": [("banker_stands", "Banker stands on 5"), NEXT_ROUND],
    "000-p3-b5-third4": [NEXT_ROUND],
}

VALUES = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0, **{str(n): n for n in range(2, 10)}}


def _value(code: str) -> int:
    return VALUES[normal(code)[0]]


@pytest.mark.parametrize("example_id", sorted(SEED000))
def test_seed000_example(example_id: str) -> None:
    example = SEED000[example_id]
    player, banker = example["cards"]["player"], example["cards"]["banker"]
    # the chosen cards give the page's totals
    assert sum(_value(c) for c in player[:2]) % 10 == example["player_two_card_total"]
    assert sum(_value(c) for c in banker[:2]) % 10 == example["banker_two_card_total"]
    assert _value(player[2]) == example["player_third_value"]
    assert (len(banker) == 3) is example["banker_draws"]

    run = play(" ".join(deal_order(player, banker)))

    slots = slots_for(player, banker)
    assert run.prompts == slots
    assert run.card_slots == list(zip(slots, deal_order(player, banker), strict=True))
    assert run.instructions == SEED000_EXPECTED[example_id]
    assert len(run.of(CardEvent)) == len(player) + len(banker)
    result = run.result
    assert result["winner"] == example["winner"]
    assert result["player"] == {"cards": player, "total": example["player_total"]}
    assert result["banker"] == {"cards": banker, "total": example["banker_total"]}
    assert result["natural"] is False


# --------------------------------------------------------------------------- seed 002
SEED002_EXPECTED: dict[str, list[tuple[str, str]]] = {
    # 둘 다 내추럴 — 양쪽 모두 카드를 더 받지 않고 바로 비교
    "002-both-natural": [("natural", "Natural: player 8, banker 9; no more cards"), NEXT_ROUND],
    # 플레이어 6점 → 멈춰요; 뱅커 5점, 한 장 더
    "002-player-6-stands-banker-5-draws": [("player_stands", "Player stands on 6"), NEXT_ROUND],
    # 뱅커 3점, 플레이어 3번째 카드 8 → 멈춰요
    "002-third-8-banker-3-stands": [("banker_stands", "Banker stands on 3"), NEXT_ROUND],
    # 뱅커 6점, 플레이어 3번째 카드 6 → 한 장 더
    "002-banker-6-third-6-draws": [NEXT_ROUND],
    # 플레이어 7점 → 멈춰요; 뱅커 7점, 멈춰요
    "002-both-7": [("player_stands", "Player stands on 7"), ("banker_stands", "Banker stands on 7"),
                   NEXT_ROUND],
    # 뱅커 4점, 플레이어 3번째 카드 0 → 멈춰요
    "002-third-face-banker-4-stands": [("banker_stands", "Banker stands on 4"), NEXT_ROUND],
}
SEED002_SAY = {
    "002-both-natural": "Banker wins 9 to 8",
    "002-player-6-stands-banker-5-draws": "Banker wins 9 to 6",
    "002-third-8-banker-3-stands": "Tie 3 to 3",
    "002-banker-6-third-6-draws": "Banker wins 8 to 7",
    "002-both-7": "Tie 7 to 7",
    "002-third-face-banker-4-stands": "Tie 4 to 4",
}


@pytest.mark.parametrize("example_id", sorted(SEED002_EXPECTED))
def test_seed002_round(example_id: str) -> None:
    example = SEED002[example_id]
    order = with_suits(deal_order(example["player"], example["banker"]))
    n_player, n_banker = len(example["player"]), len(example["banker"])
    slots = slots_for(example["player"], example["banker"])
    player = [normal(order[slots.index(s)]) for s in ("P1", "P2", "P3")[:n_player]]
    banker = [normal(order[slots.index(s)]) for s in ("B1", "B2", "B3")[:n_banker]]

    run = play(" ".join(order))

    assert run.prompts == slots
    assert run.card_slots == list(zip(slots, map(normal, order), strict=True))
    assert run.instructions == SEED002_EXPECTED[example_id]
    assert len(run.of(CardEvent)) == n_player + n_banker
    result = run.result
    assert result["winner"] == example["winner"]
    assert result["natural"] is example["natural"]
    assert result["player"] == {"cards": player, "total": example["player_total"]}
    assert result["banker"] == {"cards": banker, "total": example["banker_total"]}
    assert result["say"] == SEED002_SAY[example_id]
    bets = run.of(SettlementEvent)[0]["bets"]
    if example["winner"] == "tie":
        # "플레이어·뱅커에 건 돈은 돌려받아요" and the tie pays 8:1
        assert bets["player"] == {"outcome": "push", "net": "0"}
        assert bets["banker"] == {"outcome": "push", "net": "0"}
        assert bets["tie"] == {"outcome": "win", "net": "+8"}
    else:
        assert bets[example["winner"]]["outcome"] == "win"
        assert bets["tie"] == {"outcome": "lose", "net": "-1"}


def test_seed002_ten_typed_as_10_is_the_card_t() -> None:
    # "플레이어 3·A·Q / 뱅커 4·10": the banker's "10" is dealt as the token 10C
    run = play("3S 4H AD 10C QS")
    assert run.result["banker"]["cards"] == ["4H", "TC"]


def test_seed002_calculator_stops_at_the_player_third_card() -> None:
    example = SEED002["002-calculator"]
    order = with_suits(deal_order(example["player"], example["banker"]))
    assert order == ["2S", "6H", "3H", "KD"]  # 2♠ 3♥ / 6♥ K♦

    run = play(" ".join(order))

    # 플레이어 5점 · 뱅커 6점 → 0~5 라서 한 장 더: the player's third card is due
    assert run.prompts == ["P1", "B1", "P2", "B2", "P3"]
    assert run.card_slots == [("P1", "2S"), ("B1", "6H"), ("P2", "3H"), ("B2", "KD")]
    assert run.instructions == []
    assert run.of(ResultEvent) == []
    last = run.calls[-1][-1]
    assert last == decode_event({"event": "prompt", "round": 1, "slot": "P3", "to": "player", "say": "Card to PLAYER",
                    "say_id": "prompt.player", "say_params": {}})
    assert run.table.state is State.P3
    assert run.table.in_round


# --------------------------------------------------------------------------- seed 003
def test_seed003_banker_reads_the_third_card_round_incomplete() -> None:
    example = SEED003["003-p6-8-b2-4-third7"]
    assert example["complete"] is False
    order = with_suits(deal_order(example["player"], example["banker"]))
    assert order == ["6S", "2H", "8D", "4C", "7S"]

    run = play(" ".join(order))

    # player 6+8 = 4 draws 7 (total 1); banker 6 sees the CARD 7 and draws
    assert run.prompts == ["P1", "B1", "P2", "B2", "P3", "B3"]
    assert run.card_slots == [("P1", "6S"), ("B1", "2H"), ("P2", "8D"), ("B2", "4C"), ("P3", "7S")]
    assert run.instructions == []  # nobody stands
    assert len(run.of(CardEvent)) == 5
    assert run.of(ResultEvent) == []  # "최종 승패는 알 수 없습니다"
    assert run.calls[-1][-1] == decode_event({"event": "prompt", "round": 1, "slot": "B3", "to": "banker",
                                 "say": "Card to BANKER", "say_id": "prompt.banker", "say_params": {}})
    table = run.table
    assert table.state is State.B3
    assert table.in_round
    assert table.due_slot == "B3"
    assert table.expecting == "banker"
    assert table.rounds_dealt == 0


def test_seed003_natural_first_banker_5_does_not_draw() -> None:
    example = SEED003["003-p4-4-b2-3-natural"]
    order = with_suits(deal_order(example["player"], example["banker"]))
    assert order == ["4S", "2H", "4D", "3C"]

    run = play(" ".join(order))

    # "‘0~5점이면 추가’보다 내추럴 판정이 먼저예요"
    assert run.prompts == ["P1", "B1", "P2", "B2"]
    assert run.card_slots == [("P1", "4S"), ("B1", "2H"), ("P2", "4D"), ("B2", "3C")]
    assert run.instructions == [("natural", "Natural: player 8, banker 5; no more cards"), NEXT_ROUND]
    assert len(run.of(CardEvent)) == 4
    result = run.result
    assert result["natural"] is True
    assert result["winner"] == "player"
    assert result["player"] == {"cards": ["4S", "4D"], "total": example["player_total"]}
    assert result["banker"] == {"cards": ["2H", "3C"], "total": example["banker_total"]}
    assert result["player_pair"] is True  # 4 and 4: same rank
    assert result["banker_pair"] is False


# --------------------------------------------------------------------------- seed 004
def _seed004_games() -> dict[str, list[int]]:
    data = json.loads((SEEDS / "seed004_round_lengths.json").read_text(encoding="utf-8"))
    assert len(data["games"]) == data["count"]
    return {game["id"]: game["cards"] for game in data["games"]}


GAMES = _seed004_games()


def _seed004_draw_lists() -> dict[int, set[int]]:
    """Banker total -> player third-card values on which the banker takes a third card.

    Read from the page's first block only; the repeated block (see the fixture
    header; checked equal in test_rules.py) is ignored.
    """
    draws: dict[int, set[int]] = {}
    total = None
    for line in (SEEDS / "seed004_draw_game.txt").read_text(encoding="utf-8").splitlines():
        heading = re.fullmatch(r"카드 두 장의 합이 플레이어 5이하, 뱅커 (\d)일 때,", line)
        if heading:
            total = int(heading.group(1))
        elif line.startswith("이때 "):
            break
        elif total is not None and "뱅커에 3rd 카드가 추가" in line:
            listed = re.search(r"3rd 카드가 ([\d,]+) 이면", line)
            assert listed, line
            draws[total] = {int(d) for d in listed.group(1).split(",")}
    assert sorted(draws) == [3, 4, 5, 6]
    return draws


DRAWS_004 = _seed004_draw_lists()
RANK_OF_VALUE = {0: "K", 1: "A", **{n: str(n) for n in range(2, 10)}}


def two_cards(total: int) -> list[str]:
    """Two ranks (no pair) making ``total``: T and the total's rank, T and K for 0."""
    return ["T", "K"] if total == 0 else [RANK_OF_VALUE[total], "T"]


@dataclass(frozen=True)
class Case:
    game: str
    player: list[str]
    banker: list[str]
    instructions: list[str]


# Rounds constructed for each game kind of seed 004 (ranks; suits by position).
SEED004_CASES = {
    "natural-player-9": Case("natural", ["4", "5"], ["2", "3"], ["natural"]),
    "natural-banker-8": Case("natural", ["3", "2"], ["6", "2"], ["natural"]),
    "natural-both-9-tie": Case("natural", ["9", "K"], ["4", "5"], ["natural"]),
    "natural-9-beats-8": Case("natural", ["8", "K"], ["9", "Q"], ["natural"]),
    "stand-both-6-7": Case("stand", ["6", "K"], ["3", "4"], ["player_stands", "banker_stands"]),
    "stand-player-7-banker-5-draws": Case("stand", ["7", "K"], ["2", "3", "9"], ["player_stands"]),
    "stand-banker-7-player-4-draws": Case("stand", ["2", "2", "5"], ["7", "K"], ["banker_stands"]),
    "tip-player-7-banker-6-stands": Case("tip_banker_6", ["7", "K"], ["6", "Q"],
                                         ["player_stands", "banker_stands"]),
    "tip-player-6-banker-6-stands": Case("tip_banker_6", ["4", "2"], ["6", "T"],
                                         ["player_stands", "banker_stands"]),
}


@pytest.mark.parametrize("case_id", sorted(SEED004_CASES))
def test_seed004_game(case_id: str) -> None:
    case = SEED004_CASES[case_id]
    order = with_suits(deal_order(case.player, case.banker))
    run = play(" ".join(order))
    count = len(case.player) + len(case.banker)
    assert count in GAMES[case.game]
    assert len(run.of(CardEvent)) == count
    assert run.prompts == slots_for(case.player, case.banker)
    # "플레이어 - 뱅커 - 플레이어 - 뱅커 순으로"
    assert [e["to"] for e in run.of(PromptEvent)][:4] == ["player", "banker", "player", "banker"]
    assert [action for action, _ in run.instructions] == [*case.instructions, "next_round"]
    assert run.result["natural"] is (case.game == "natural")


def _draw_game_cases() -> list[ParameterSet]:
    cases = []
    for banker in (3, 4, 5, 6):
        for third in range(10):
            cases.append(pytest.param(banker, third, 6 if third in DRAWS_004[banker] else 5,
                                      id=f"b{banker}-third{third}"))
    return cases


@pytest.mark.parametrize(("banker_total", "third", "count"), _draw_game_cases())
def test_seed004_draw_game_ends_after_5_or_6_cards(banker_total: int, third: int, count: int) -> None:
    # player A+2 = 3 draws; banker (banker_total) decides on the player's third card
    player = ["A", "2", RANK_OF_VALUE[third]]
    banker = two_cards(banker_total) + (["5"] if count == 6 else [])
    run = play(" ".join(with_suits(deal_order(player, banker))))
    assert count in GAMES["draw"]
    assert len(run.of(CardEvent)) == count
    assert run.prompts == slots_for(player, banker)
    expected = [] if count == 6 else [("banker_stands", f"Banker stands on {banker_total}")]
    assert run.instructions == [*expected, NEXT_ROUND]
    assert run.result["player"]["total"] == (3 + third) % 10
    assert run.result["banker"]["total"] == (banker_total + 5 * (count == 6)) % 10


@pytest.mark.parametrize("banker_total", [0, 1, 2])
@pytest.mark.parametrize("third", range(10))
def test_seed004_both_sides_draw_6_cards(banker_total: int, third: int) -> None:
    player = ["2", "3", RANK_OF_VALUE[third]]  # player 5 draws
    banker = [*two_cards(banker_total), "4"]
    run = play(" ".join(with_suits(deal_order(player, banker))))
    assert len(run.of(CardEvent)) == 6 and 6 in GAMES["both_draw"]
    assert run.prompts == ["P1", "B1", "P2", "B2", "P3", "B3"]
    assert run.instructions == [NEXT_ROUND]
    assert run.result["banker"]["total"] == banker_total + 4


def test_seed004_banker_6_draws_only_when_player_drew() -> None:
    # TIP: banker 6 stands when the player stood; with the player drawing a 6 it draws.
    stood = play(" ".join(with_suits(deal_order(["6", "K"], ["6", "Q"]))))
    assert len(stood.of(CardEvent)) == 4
    assert stood.instructions == [("player_stands", "Player stands on 6"),
                                  ("banker_stands", "Banker stands on 6"), NEXT_ROUND]
    drew = play(" ".join(with_suits(deal_order(["A", "K", "6"], ["6", "Q", "2"]))))
    assert len(drew.of(CardEvent)) == 6
    assert drew.instructions == [NEXT_ROUND]

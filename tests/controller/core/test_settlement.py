"""Bet settlement: exact decimal money, per unit staked.

From the seeds: player and banker pay 1:1, a winning banker bet pays 5%
commission (seed 001); a tie pays 8:1 and player/banker bets are returned
(seeds 001, 002); no-commission: a banker winning with 6 pays half (seed 002);
a pair (same rank in the first two cards) pays 11:1 (seed 002).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from config.loader import load_config
from controller.core.bets.catalogue import RoundFacts
from controller.core.bets.settle import BetOutcome, Settler
from controller.core.events import BetOutcome as BetOutcomeField
from controller.core.events import Outcome, ResultEvent, SettlementEvent, Winner
from controller.core.settlement import BETS as STANDARD
from controller.core.table import Table
from tests.tokens import dealt
from tests.typed_events import plain

VARIANTS = ["commission", "no_commission"]
BETS = {"player", "banker", "tie", "player_pair", "banker_pair"}
LOSE = ("lose", Decimal(-1))
PUSH = ("push", Decimal(0))


def outcome(bet: BetOutcome) -> tuple[str, Decimal]:
    assert type(bet.net) is Decimal, f"money must be Decimal, got {type(bet.net).__name__}"
    return bet.outcome, bet.net


# --------------------------------------------------------------------------- settle()
def settle(facts: RoundFacts, variant: str) -> dict[str, BetOutcome]:
    """Every standard bet's outcome for the round ``facts`` describes, as a table of ``variant`` settles it."""
    return Settler(STANDARD, variant).settle(facts)


def facts(winner: Winner, banker_total: int, player_pair: bool = False, banker_pair: bool = False,
          banker_cards: int = 2) -> RoundFacts:
    """A round won by ``winner`` with the banker on ``banker_total`` (the player one point off, or level)."""
    player_total = {"player": banker_total + 1, "banker": banker_total - 1, "tie": banker_total}[winner]
    return RoundFacts(player_total, banker_total, 2, banker_cards, player_pair, banker_pair)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("banker_total", range(9))
def test_player_win_pays_even_money(variant: str, banker_total: int) -> None:
    bets = settle(facts("player", banker_total), variant)
    assert set(bets) == BETS
    assert outcome(bets["player"]) == ("win", Decimal(1))
    assert outcome(bets["banker"]) == LOSE
    assert outcome(bets["tie"]) == LOSE


@pytest.mark.parametrize("banker_total", range(1, 10))
def test_banker_win_with_commission_pays_0_95(banker_total: int) -> None:
    bets = settle(facts("banker", banker_total), "commission")
    assert outcome(bets["banker"]) == ("win", Decimal("0.95"))
    assert outcome(bets["player"]) == LOSE
    assert outcome(bets["tie"]) == LOSE


@pytest.mark.parametrize("banker_cards", [2, 3])
@pytest.mark.parametrize("banker_total", range(1, 10))
def test_banker_win_without_commission_pays_1_or_half_on_6(banker_total: int, banker_cards: int) -> None:
    bets = settle(facts("banker", banker_total, banker_cards=banker_cards), "no_commission")
    expected = Decimal("0.5") if banker_total == 6 else Decimal(1)
    assert outcome(bets["banker"]) == ("win", expected)
    assert outcome(bets["player"]) == LOSE


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("total", range(10))
def test_tie_pays_8_and_pushes_player_and_banker(variant: str, total: int) -> None:
    bets = settle(facts("tie", total), variant)
    assert outcome(bets["tie"]) == ("win", Decimal(8))
    assert outcome(bets["player"]) == PUSH
    assert outcome(bets["banker"]) == PUSH


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("winner", ["player", "banker", "tie"])
@pytest.mark.parametrize(("player_pair", "banker_pair"), [(False, False), (True, False), (False, True),
                                                          (True, True)])
def test_pairs_pay_11_whatever_the_winner(variant: str, winner: Winner, player_pair: bool,
                                          banker_pair: bool) -> None:
    bets = settle(facts(winner, 5, player_pair, banker_pair), variant)
    assert outcome(bets["player_pair"]) == (("win", Decimal(11)) if player_pair else LOSE)
    assert outcome(bets["banker_pair"]) == (("win", Decimal(11)) if banker_pair else LOSE)


@pytest.mark.parametrize(("net", "text"), [
    (Decimal(1), "+1"), (Decimal("0.95"), "+0.95"), (Decimal("0.5"), "+0.5"), (Decimal(8), "+8"),
    (Decimal(11), "+11"), (Decimal(-1), "-1"), (Decimal(0), "0"),
])
def test_net_is_printed_exactly_with_its_sign(net: Decimal, text: str) -> None:
    kind: Outcome = "win" if net > 0 else "lose" if net < 0 else "push"
    assert plain(BetOutcome(kind, net).to_event()) == {"outcome": kind, "net": text}


def test_money_is_exact_over_many_rounds() -> None:
    # 20 banker wins at 0.95 are exactly 19 units (a float sum would not be)
    nets = [settle(facts("banker", 7), "commission")["banker"].net for _ in range(20)]
    assert sum(nets, Decimal(0)) == Decimal(19)
    assert all(type(n) is Decimal for n in nets)
    # 3 no-commission banker 6 wins and 1 loss
    halves = [settle(facts("banker", 6), "no_commission")["banker"].net for _ in range(3)]
    total = sum(halves, Decimal(0)) + settle(facts("player", 6), "no_commission")["banker"].net
    assert total == Decimal("0.5")


def test_unknown_variant_is_refused() -> None:
    with pytest.raises(ValueError, match="'european'"):
        settle(facts("player", 0), "european")


# --------------------------------------------------------------------------- through the Table
def deal(tokens: str, variant: str = "commission") -> tuple[ResultEvent, dict[str, BetOutcomeField]]:
    """Deal one round on a no-burn table; return its result and settlement events."""
    settings = load_config(environ={}, overrides={"shoe": {"burn": "none"}, "table": {"variant": variant}})
    events = dealt(tokens, Table(settings))
    (result,) = [e for e in events if isinstance(e, ResultEvent)]
    (settlement,) = [e for e in events if isinstance(e, SettlementEvent)]
    assert settlement.variant == variant
    assert settlement.round == result.round == 1
    assert_no_float(plain([result, settlement]))  # the money events carry no float anywhere
    return result, settlement.bets


def assert_no_float(value: Any) -> None:
    assert not isinstance(value, float), value
    if isinstance(value, dict):
        for item in value.values():
            assert_no_float(item)
    elif isinstance(value, list | tuple):
        for item in value:
            assert_no_float(item)


def nets(bets: dict[str, BetOutcomeField]) -> dict[str, str]:
    for bet in bets.values():
        Decimal(bet["net"])  # every net is an exact decimal string
    return {name: bet["net"] for name, bet in bets.items()}


# The cards of each round below were chosen by hand; the comment gives the working.
def test_table_banker_two_card_6_commission_pays_0_95() -> None:
    # P 2S KD = 2 draws 3C -> 5; B 6H QC = 6 stands on a 3: banker 6 to 5
    result, bets = deal("2S 6H KD QC 3C")
    assert (result["winner"], result["banker"]["total"], result["player"]["total"]) == ("banker", 6, 5)
    assert nets(bets) == {"player": "-1", "banker": "+0.95", "tie": "-1", "player_pair": "-1",
                          "banker_pair": "-1"}
    assert bets["banker"]["outcome"] == "win"


def test_table_banker_two_card_6_no_commission_pays_half() -> None:
    result, bets = deal("2S 6H KD QC 3C", "no_commission")
    assert (result["winner"], result["banker"]["total"]) == ("banker", 6)
    assert nets(bets)["banker"] == "+0.5"


def test_table_banker_three_card_6_no_commission_pays_half() -> None:
    # P AS QD = 1 draws JS -> 1; B KH TC = 0 draws 6H -> 6: banker wins with 6 (three cards)
    result, bets = deal("AS KH QD TC JS 6H", "no_commission")
    assert result["banker"] == {"cards": ["KH", "TC", "6H"], "total": 6}
    assert result["winner"] == "banker"
    assert result["banker_pair"] is False  # K and T: both worth 0, different ranks
    assert nets(bets) == {"player": "-1", "banker": "+0.5", "tie": "-1", "player_pair": "-1",
                          "banker_pair": "-1"}


def test_table_banker_7_no_commission_pays_even() -> None:
    # P 6S KH (6) / B 4D 3C (7): both stand, banker 7 to 6
    result, bets = deal("6S 4D KH 3C", "no_commission")
    assert (result["winner"], result["banker"]["total"]) == ("banker", 7)
    assert nets(bets)["banker"] == "+1"


@pytest.mark.parametrize("variant", VARIANTS)
def test_table_player_win(variant: str) -> None:
    # P 7S KH (7) / B 6D QC (6): both stand, player wins 7 to 6 (banker 6 loses: no half-pay question)
    result, bets = deal("7S 6D KH QC", variant)
    assert result["winner"] == "player"
    assert nets(bets) == {"player": "+1", "banker": "-1", "tie": "-1", "player_pair": "-1",
                          "banker_pair": "-1"}


@pytest.mark.parametrize("variant", VARIANTS)
def test_table_tie_pays_8_and_returns_player_and_banker(variant: str) -> None:
    # seed 002: P 7 K / B 7 J, 타이 — 플레이어·뱅커에 건 돈은 돌려받아요
    result, bets = deal("7S 7H KD JC", variant)
    assert result["winner"] == "tie"
    assert plain(bets["player"]) == {"outcome": "push", "net": "0"}
    assert plain(bets["banker"]) == {"outcome": "push", "net": "0"}
    assert plain(bets["tie"]) == {"outcome": "win", "net": "+8"}


def test_table_tie_on_6_no_commission_pushes_banker() -> None:
    # a tie 6-6 is not a "banker wins with 6": banker bet is returned, not paid half
    result, bets = deal("6S 6H KD JC", "no_commission")
    assert (result["winner"], result["banker"]["total"]) == ("tie", 6)
    assert plain(bets["banker"]) == {"outcome": "push", "net": "0"}


def test_table_pairs_pay_11() -> None:
    # P 5S 5H (0) pair, B 3D 3C (6) pair; player draws 2S -> 2, banker 6 stands on a 2: banker 6 to 2
    result, bets = deal("5S 3D 5H 3C 2S")
    assert (result["player_pair"], result["banker_pair"]) == (True, True)
    assert nets(bets) == {"player": "-1", "banker": "+0.95", "tie": "-1", "player_pair": "+11",
                          "banker_pair": "+11"}


def test_table_pair_is_same_rank_not_same_value() -> None:
    # "10" and T are the same rank (a pair); T and K are both 0 but not a pair
    result, bets = deal("10S KD TH QC 7S 5H")
    assert result["player"]["cards"][:2] == ["TS", "TH"]
    assert (result["player_pair"], result["banker_pair"]) == (True, False)
    assert nets(bets)["player_pair"] == "+11"
    assert nets(bets)["banker_pair"] == "-1"


def test_table_third_card_does_not_make_a_pair() -> None:
    # P 2S 4D (6) stands; B 5H KC (5) draws 5D: the banker's two 5s are its cards 1 and 3
    result, bets = deal("2S 5H 4D KC 5D")
    assert result["banker"]["cards"] == ["5H", "KC", "5D"]
    assert result["banker_pair"] is False
    assert nets(bets)["banker_pair"] == "-1"

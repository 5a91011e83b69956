"""Side bets settled by the table: each bet's pay classes cell by cell, EZ Baccarat, house pay tables
from [bets], and [bets] errors in one line."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from config.loader import load_config
from config.schema import OFFERABLE_BETS
from controller.core.bets.catalogue import BETS, RoundFacts
from controller.core.bets.settle import Settler
from controller.core.events import AlertEvent, BetOutcome, SettlementEvent
from controller.core.exceptions import ConfigError
from controller.core.table import Table
from tests.tokens import dealt


def deal(tokens: str, variant: str = "commission", bets: dict[str, Any] | None = None) -> dict[str, BetOutcome]:
    overrides: dict[str, Any] = {"shoe": {"burn": "none"}, "table": {"variant": variant},
                                 "bets": {"offered": list(OFFERABLE_BETS), **(bets or {})}}
    events = dealt(tokens, Table(load_config(environ={}, overrides=overrides)))
    (settlement,) = [e for e in events if isinstance(e, SettlementEvent)]
    return settlement.bets


def nets(bets: dict[str, BetOutcome]) -> dict[str, str]:
    return {name: bet["net"] for name, bet in bets.items()}


# Deal order P1 B1 P2 B2 (P3) (B3).
def test_banker_three_card_7_pays_dragon_7_and_pushes_the_ez_banker() -> None:
    # player 2+3=5 draws a T: 5; banker 3+K=3 draws on a T (3 draws unless it is an 8): a 4 makes 7
    bets = nets(deal("2S 3H 3D KC TD 4S", variant="ez"))
    assert bets["dragon_7"] == "+40" and bets["banker"] == "0"
    assert bets["big"] == "+0.54" and bets["small"] == "-1" and bets["panda_8"] == "-1"
    assert bets["dragon_bonus_banker"] == "-1"  # a non-natural win by 2


def test_ez_banker_wins_even_money_otherwise() -> None:
    assert nets(deal("2S 9H 3D KC", variant="ez"))["banker"] == "+1"  # banker natural 9


def test_player_three_card_8_pays_panda_8() -> None:
    bets = nets(deal("2S 3H 3D 3C 3S", variant="commission"))  # player 5 + 3 = 8; banker 6 stands on a 3
    assert bets["panda_8"] == "+25" and bets["player"] == "+1"
    assert bets["dragon_bonus_player"] == "-1"  # wins 8 to 6, by 2


def test_dragon_bonus_win_by_9_natural_and_natural_tie() -> None:
    assert nets(deal("KS KH KD KC 9S TD"))["dragon_bonus_player"] == "+30"  # 9 (three cards) to 0
    natural_win = nets(deal("9S 3H KD 3C"))
    assert natural_win["dragon_bonus_player"] == "+1" and natural_win["dragon_bonus_banker"] == "-1"
    natural_tie = nets(deal("9S 9H KD KC"))
    assert natural_tie["dragon_bonus_player"] == natural_tie["dragon_bonus_banker"] == "0"
    assert natural_tie["tie"] == "+8" and natural_tie["small"] == "+1.5"


def test_pairs_and_perfect_pairs() -> None:
    bets = nets(deal("QS 2H QS 2D 9S"))  # player Q Q of spades: perfect; banker 2 2: a pair, not perfect
    assert bets["player_pair"] == bets["banker_pair"] == "+11"
    assert bets["either_pair"] == "+5" and bets["perfect_pair"] == "+25"
    plain = nets(deal("QS 2H QH 3D 9C"))
    assert plain["either_pair"] == "+5" and plain["perfect_pair"] == "-1"


def test_lucky_6_two_and_three_cards() -> None:
    assert nets(deal("2S 3H 3D 3C 2S"))["lucky_6"] == "-1"  # player wins
    assert nets(deal("2S 3H 3D 3C KS"))["lucky_6"] == "+12"  # banker 3 3 stands on a K: 6 to 5
    assert nets(deal("2S 2H 3D AC KS 3S"))["lucky_6"] == "+20"  # banker 3 draws a 3: 6 to 5


def test_house_pay_tables_replace_the_defaults() -> None:
    bets = nets(deal("9S 9H KD KC", bets={"pays": {"tie": {"win": 9}, "small": {"small": "1.25"}}}))
    assert bets["tie"] == "+9" and bets["small"] == "+1.25"


def test_the_largest_pay_is_taken_settled_and_priced_by_the_advantage_alert() -> None:
    overrides: dict[str, Any] = {"shoe": {"burn": "none"}, "bets": {"offered": ["tie"], "alert_above": 0.0,
                                                                     "pays": {"tie": {"win": 1000000000}}}}
    events = dealt("9S 9H KD KC", Table(load_config(environ={}, overrides=overrides)))
    (settlement,) = [e for e in events if isinstance(e, SettlementEvent)]
    assert settlement.bets["tie"]["net"] == "+1000000000"
    (alert,) = [e for e in events if isinstance(e, AlertEvent) and e.kind == "advantage"]
    assert alert.bet == "tie" and "a counter staking 100 on it now expects to win +" in alert.detail


def test_only_offered_bets_are_settled_in_their_order() -> None:
    table = Table(load_config(environ={}, overrides={"bets": {"offered": ["tie", "dragon_7"]}}))
    assert [name for name, _, _ in table.context.settler.bets] == ["tie", "dragon_7"]


def test_every_pay_class_of_every_bet_is_reachable_and_priced() -> None:
    reached: dict[str, set[str]] = {name: set() for name in BETS}
    for pt in range(10):
        for bt in range(10):
            for pn in (2, 3):
                for bn in (2, 3):
                    for pair in (False, True):
                        facts = RoundFacts(pt, bt, pn, bn, pair, pair, pair, pair)
                        for name, bet in BETS.items():
                            pay_class = bet.classify(facts)
                            if pay_class not in (None, "push"):
                                reached[name].add(pay_class)
    assert {name: set(bet.pays) for name, bet in BETS.items()} == reached


def test_settler_under_each_variant_uses_its_banker_bet() -> None:
    three_card_7 = RoundFacts(5, 7, 3, 3)
    six = RoundFacts(5, 6, 2, 2)
    assert Settler(["banker"], "ez").settle(three_card_7)["banker"].net == 0
    assert Settler(["banker"], "no_commission").settle(six)["banker"].net == Decimal("0.5")
    assert Settler(["banker"], "commission").settle(six)["banker"].net == Decimal("0.95")


@pytest.mark.parametrize(("bets", "message"), [
    ({"offered": ["dragon_8"]}, "[bets] offered[0]: expected one of player,"),
    ({"offered": ["banker_ez"]}, "(the banker bet's variant is [table] variant)"),
    ({"pays": {"tie": {"win": 0}}}, "[bets] pays.tie.win: expected a number of units won above 0"),
    ({"pays": {"tie": {"lose": 2}}}, "[bets] pays.tie: expected one of win, got 'lose'"),
    ({"pays": {"big": {"big": "0.5412345"}}}, "[bets] pays.big.big: expected a number of units won above 0, "
                                            "e.g. 40, 0.95 or \"0.54\", with at most six decimal places"),
    ({"pays": {"dragon": {"win": 2}}}, "[bets] pays.dragon: expected a bet"),
    ({"pays": {"tie": {"win": "1e22"}}}, "[bets] pays.tie.win: expected a number of units won above 0, e.g. 40, "
                                         "0.95 or \"0.54\", at most 1000000000, got '1e22'"),
    ({"pays": {"tie": {"win": 1e30}}}, "[bets] pays.tie.win: expected a number of units won above 0, e.g. 40, "
                                       "0.95 or \"0.54\", at most 1000000000, got 1e+30"),
    ({"pays": {"tie": {"win": 1000000000.5}}}, "at most 1000000000, got 1000000000.5"),
    ({"alert_above": 3}, "[bets] alert_above: expected a number from -1 to 1"),
    ({"alert_above": {"dragon_7": 0.02, "tie": True}}, "[bets] alert_above.tie: expected a number from -1 to 1 "
                                                      "(expected net win per unit), got True"),
    ({"alert_above": {"tie": "0.1"}}, "[bets] alert_above.tie: expected a number from -1 to 1 (expected net win "
                                      "per unit), got '0.1'"),
])
def test_bets_config_errors_name_the_key(bets: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(environ={}, overrides={"bets": bets})
    text = str(caught.value)
    assert message in text and "\n" not in text


def test_docs_bets_md_is_generated_from_the_catalogue() -> None:
    from pathlib import Path

    from controller.cli.gendata import render_bets_doc
    text = (Path(__file__).resolve().parents[3] / "docs" / "bets.md").read_text(encoding="utf-8")
    assert text == render_bets_doc(), "regenerate docs/bets.md: python -m controller.cli.gendata"
    for bet in BETS:
        assert f"| `{bet}`" in text

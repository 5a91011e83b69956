"""What each standard bet wins or loses, per unit staked, in exact decimal money."""

from __future__ import annotations

from decimal import Decimal

from controller.core.bets.settle import LOSE, PUSH, BetOutcome, money, outcome_of
from controller.core.events import Winner

__all__ = ["BETS", "LOSE", "ONE", "PAYS", "PUSH", "VARIANTS", "BetOutcome", "banker_pays", "settle"]

VARIANTS = ("commission", "no_commission")
"""The variants :func:`settle` knows; the table settles through :mod:`controller.core.bets` (also ``ez``)."""

ONE = Decimal(1)
PAYS: dict[str, Decimal] = {
    "player": Decimal(1),
    "banker_commission": Decimal("0.95"),
    "banker_no_commission": Decimal(1),
    "banker_no_commission_six": Decimal("0.5"),
    "tie": Decimal(8),
    "pair": Decimal(11),
}
"""Payout odds (to 1) of each bet."""

BETS = ("player", "banker", "tie", "player_pair", "banker_pair")


_money = money


def _win(pays: Decimal) -> BetOutcome:
    return outcome_of(pays)


def banker_pays(variant: str, banker_total: int) -> Decimal:
    """What a winning banker bet pays to 1 in ``variant``."""
    if variant == "commission":
        return PAYS["banker_commission"]
    if banker_total == 6:
        return PAYS["banker_no_commission_six"]
    return PAYS["banker_no_commission"]


def settle(winner: Winner, banker_total: int, player_pair: bool, banker_pair: bool,
           variant: str) -> dict[str, BetOutcome]:
    """The outcome of every standard bet for one result.

    Player 1:1; banker 0.95:1 (commission) or 1:1 with a winning 6 paying 1:2
    (no commission); tie 8:1 with player and banker pushed; each pair 11:1.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant {variant!r}: expected one of {', '.join(VARIANTS)}")
    if winner == "player":
        player, banker, tie = _win(PAYS["player"]), LOSE, LOSE
    elif winner == "banker":
        player, banker, tie = LOSE, _win(banker_pays(variant, banker_total)), LOSE
    else:
        player, banker, tie = PUSH, PUSH, _win(PAYS["tie"])
    pair = _win(PAYS["pair"])
    return {
        "player": player,
        "banker": banker,
        "tie": tie,
        "player_pair": pair if player_pair else LOSE,
        "banker_pair": pair if banker_pair else LOSE,
    }

"""The standard bets (player, banker, tie and the pairs) and what each wins or loses for a round, per unit staked,
in exact decimal money: settled through the bets catalogue (:mod:`controller.core.bets`), where every pay is
defined once."""

from __future__ import annotations

from controller.core.bets.catalogue import RoundFacts
from controller.core.bets.settle import LOSE, PUSH, BetOutcome, Settler

__all__ = ["BETS", "LOSE", "PUSH", "BetOutcome", "settle"]

BETS = ("player", "banker", "tie", "player_pair", "banker_pair")
"""The standard bets, the ``banker`` bet settled by the table's variant."""


def settle(facts: RoundFacts, variant: str) -> dict[str, BetOutcome]:
    """The outcome of every standard bet for the round ``facts`` describes, on a table of ``variant`` (a
    ``ValueError`` names an unknown one)."""
    return Settler(BETS, variant).settle(facts)

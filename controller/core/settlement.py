"""The standard bets: player, banker, tie and the pairs. What each wins or loses is the bets catalogue's
(:mod:`controller.core.bets`: :class:`~controller.core.bets.settle.Settler`), where every pay is defined once."""

from __future__ import annotations

__all__ = ["BETS"]

BETS = ("player", "banker", "tie", "player_pair", "banker_pair")
"""The standard bets, the ``banker`` bet settled by the table's variant."""

"""Settling the offered bets of a finished round, per unit staked, in exact decimal money."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal

import msgspec

from config.schema import BetsSettings
from controller.core import events
from controller.core.bets.catalogue import BANKER_BY_VARIANT, BETS, Bet, RoundFacts


class BetOutcome(msgspec.Struct, frozen=True, gc=False):
    """One bet's outcome: ``win``, ``lose`` or ``push``, and the net per unit staked."""

    outcome: events.Outcome
    net: Decimal

    def to_event(self) -> events.BetOutcome:
        """The outcome as a settlement event's field."""
        return events.BetOutcome(outcome=self.outcome, net=money(self.net))


_MONEY: dict[Decimal, str] = {}


def money(amount: Decimal) -> str:
    """An exact decimal net with its sign: ``+0.95``, ``-1``, ``0``."""
    text = _MONEY.get(amount)
    if text is None:
        text = format(amount.normalize(), "f")
        text = text if amount < 0 or text == "0" else "+" + text
        if len(_MONEY) < 1024:
            _MONEY[amount] = text
    return text


LOSE = BetOutcome("lose", Decimal(-1))
PUSH = BetOutcome("push", Decimal(0))
_WINS: dict[Decimal, BetOutcome] = {}


def outcome_of(net: Decimal) -> BetOutcome:
    """The (shared) outcome object for a net win per unit."""
    if net < 0:
        return LOSE
    if net == 0:
        return PUSH
    found = _WINS.get(net)
    if found is None:
        found = _WINS[net] = BetOutcome("win", net)
    return found


def house_pays(bet: Bet, settings: BetsSettings | None) -> Mapping[str, Decimal]:
    """``bet``'s pay table: its defaults, with the classes ``[bets.pays]`` sets for it replaced."""
    if settings is None or bet.name not in settings.pays:
        return bet.pays
    return {**bet.pays, **{name: Decimal(str(value)) for name, value in settings.pays[bet.name].items()}}


def bet_for(name: str, variant: str) -> Bet:
    """The catalogue bet that settles ``name`` on a table of ``variant`` (``banker`` follows the variant)."""
    if name == "banker":
        if variant not in BANKER_BY_VARIANT:
            raise ValueError(f"variant {variant!r}: expected one of {', '.join(BANKER_BY_VARIANT)}")
        return BETS[BANKER_BY_VARIANT[variant]]
    return BETS[name]


class Settler:
    """Settles a table's offered bets under its house pay tables (built once per table)."""

    def __init__(self, offered: Iterable[str], variant: str, settings: BetsSettings | None = None) -> None:
        self.bets = [(name, bet, house_pays(bet, settings))
                     for name in offered for bet in (bet_for(name, variant),)]
        self.catalogue_names = frozenset(bet.name for _, bet, _ in self.bets)
        """The catalogue names of the bets settled (``banker`` as the variant's bet)."""

    def settle(self, facts: RoundFacts) -> dict[str, BetOutcome]:
        """Each offered bet's outcome for the round ``facts`` describes, keyed by the offered name."""
        return {name: outcome_of(bet.net(bet.classify(facts), pays)) for name, bet, pays in self.bets}

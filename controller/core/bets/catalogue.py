"""The catalogue of bets: what each one wins on, its default pay table and where the rules come from.

A bet is a classifier and a pay table (its name, pay classes and default pays are :mod:`controller.terms`').
The classifier names the *pay class* of a finished round (``"win"``, ``"win_by_9"``, ``"push"``) or None when
the bet loses; the pay table says what each class wins, net per unit staked. ``"push"`` always returns the
stake (net 0). House pay tables replace the defaults class by class (``[bets.pays]`` in the config). Settlement
(:mod:`controller.core.bets.settle`) and the exact odds (:mod:`controller.core.bets.exact`) both
read this table, so a bet is defined once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Literal

import msgspec

from controller.terms import BANKER_BY_VARIANT as BANKER_BY_VARIANT
from controller.terms import BANKER_VARIANT_BETS, DEFAULT_PAYS, OFFERABLE_BETS, STANDARD_BETS, BetName

PUSH = "push"
"""The pay class that returns the stake."""

PairEvent = Literal["player", "banker", "either", "perfect"]


class RoundFacts(msgspec.Struct, frozen=True, gc=False):
    """What the bets of a finished round look at: the totals, how many cards each hand took, and the
    pairs (same rank; ``perfect``: same rank and suit) in each hand's first two cards."""

    player_total: int
    banker_total: int
    player_cards: int
    banker_cards: int
    player_pair: bool = False
    banker_pair: bool = False
    player_perfect: bool = False
    banker_perfect: bool = False

    @property
    def winner(self) -> str:
        if self.player_total > self.banker_total:
            return "player"
        return "banker" if self.banker_total > self.player_total else "tie"

    @property
    def natural(self) -> bool:
        """A two-card 8 or 9 on either side ended the round."""
        return self.player_cards == self.banker_cards == 2 and max(self.player_total, self.banker_total) >= 8


Classifier = Callable[[RoundFacts], str | None]


class Bet(msgspec.Struct, frozen=True):
    """One bet of the catalogue: its name, when it wins, its default pays and the source of its rules."""

    name: str
    wins_when: str
    classify: Classifier
    pays: Mapping[str, Decimal]
    """Net win per unit for each winning pay class (the default pay table)."""
    source: str
    pair_event: PairEvent | None = None
    """For a pair bet: which pair it wins on (its odds come from rank and suit counts)."""
    table_bet: bool = False
    """A bet settled under ``banker`` by the table's ``[table] variant`` rather than by its own name."""

    def net(self, pay_class: str | None, pays: Mapping[str, Decimal] | None = None) -> Decimal:
        """What ``pay_class`` wins net per unit under ``pays`` (default: this bet's own pays)."""
        if pay_class is None:
            return Decimal(-1)
        if pay_class == PUSH:
            return Decimal(0)
        return (pays if pays is not None else self.pays)[pay_class]


def _side_wins(side: str) -> Classifier:
    def classify(facts: RoundFacts) -> str | None:
        winner = facts.winner
        return "win" if winner == side else PUSH if winner == "tie" else None
    return classify


def _banker_no_commission(facts: RoundFacts) -> str | None:
    if facts.winner == "banker":
        return "win_with_6" if facts.banker_total == 6 else "win"
    return PUSH if facts.winner == "tie" else None


def _banker_ez(facts: RoundFacts) -> str | None:
    if facts.winner == "banker":
        return PUSH if _banker_three_card_7(facts) else "win"
    return PUSH if facts.winner == "tie" else None


def _banker_three_card_7(facts: RoundFacts) -> bool:
    return facts.winner == "banker" and facts.banker_total == 7 and facts.banker_cards == 3


def _tie(facts: RoundFacts) -> str | None:
    return "win" if facts.winner == "tie" else None


def _pair(event: PairEvent) -> Classifier:
    def classify(facts: RoundFacts) -> str | None:
        won = {
            "player": facts.player_pair,
            "banker": facts.banker_pair,
            "either": facts.player_pair or facts.banker_pair,
            "perfect": facts.player_perfect or facts.banker_perfect,
        }[event]
        return "pair" if won else None
    return classify


def _dragon_7(facts: RoundFacts) -> str | None:
    return "banker_three_card_7" if _banker_three_card_7(facts) else None


def _panda_8(facts: RoundFacts) -> str | None:
    won = facts.winner == "player" and facts.player_total == 8 and facts.player_cards == 3
    return "player_three_card_8" if won else None


def _dragon_bonus(side: str) -> Classifier:
    def classify(facts: RoundFacts) -> str | None:
        cards = facts.player_cards if side == "player" else facts.banker_cards
        if facts.natural and facts.winner == "tie":
            return PUSH
        if facts.winner != side:
            return None
        if facts.natural and cards == 2:
            return "natural_win"
        margin = abs(facts.player_total - facts.banker_total)
        return f"win_by_{margin}" if margin >= 4 else None
    return classify


def _big(facts: RoundFacts) -> str | None:
    return "big" if facts.player_cards + facts.banker_cards >= 5 else None


def _small(facts: RoundFacts) -> str | None:
    return "small" if facts.player_cards + facts.banker_cards == 4 else None


def _lucky_6(facts: RoundFacts) -> str | None:
    if facts.winner != "banker" or facts.banker_total != 6:
        return None
    return "two_cards" if facts.banker_cards == 2 else "three_cards"


SEEDS = "Croupier seeds 001-002 (the standard Punto Banco payouts)"
WIZARD_SIDE_BETS = "Wizard of Odds, Baccarat side bets (wizardofodds.com/games/baccarat/side-bets/)"
EZ = "EZ Baccarat (DEQ Systems); Wizard of Odds, EZ Baccarat (wizardofodds.com/games/baccarat/ez-baccarat/)"


def _bet(name: BetName, wins_when: str, classify: Classifier, source: str, pair_event: PairEvent | None = None) -> Bet:
    """The bet ``name`` of :mod:`controller.terms`, with its default pays from there."""
    pays = {pay_class: Decimal(pay) for pay_class, pay in DEFAULT_PAYS[name].items()}
    return Bet(name, wins_when, classify, pays, source, pair_event, table_bet=name in BANKER_VARIANT_BETS)


CATALOGUE: tuple[Bet, ...] = (
    _bet("player", "the player's hand wins; a tie pushes", _side_wins("player"), SEEDS),
    _bet("banker", "the banker's hand wins; a tie pushes (5% commission)", _side_wins("banker"), SEEDS),
    _bet("banker_no_commission", "the banker's hand wins; a winning 6 pays half; a tie pushes",
         _banker_no_commission, SEEDS),
    _bet("banker_ez", "the banker's hand wins, except a three-card 7 pushes; a tie pushes", _banker_ez, EZ),
    _bet("tie", "the hands tie (9:1 where the house pays it)", _tie, SEEDS),
    _bet("player_pair", "the player's first two cards share a rank", _pair("player"), SEEDS, "player"),
    _bet("banker_pair", "the banker's first two cards share a rank", _pair("banker"), SEEDS, "banker"),
    _bet("either_pair", "either hand's first two cards share a rank", _pair("either"), WIZARD_SIDE_BETS, "either"),
    _bet("perfect_pair", "either hand's first two cards share rank and suit", _pair("perfect"), WIZARD_SIDE_BETS,
         "perfect"),
    _bet("dragon_7", "the banker wins with a three-card 7", _dragon_7, EZ),
    _bet("panda_8", "the player wins with a three-card 8", _panda_8, EZ),
    _bet("dragon_bonus_player", "the player wins: a natural pays 1 (a natural tie pushes); a non-natural win by "
         "9/8/7/6/5/4 pays 30/10/6/4/2/1, by less loses", _dragon_bonus("player"), WIZARD_SIDE_BETS),
    _bet("dragon_bonus_banker", "the banker wins: a natural pays 1 (a natural tie pushes); a non-natural win by "
         "9/8/7/6/5/4 pays 30/10/6/4/2/1, by less loses", _dragon_bonus("banker"), WIZARD_SIDE_BETS),
    _bet("big", "five or six cards are dealt", _big, WIZARD_SIDE_BETS),
    _bet("small", "four cards are dealt", _small, WIZARD_SIDE_BETS),
    _bet("lucky_6", "the banker wins with a 6: two cards pay 12, three cards 20", _lucky_6, WIZARD_SIDE_BETS),
)
"""Every bet, in the order docs and events list them."""

BETS: dict[str, Bet] = {bet.name: bet for bet in CATALOGUE}

def _banker_natural(total: int) -> Classifier:
    def classify(facts: RoundFacts) -> str | None:
        return "natural" if facts.banker_cards == 2 and facts.banker_total == total else None
    return classify


THORP_WALDEN = ("Thorp and Walden, A Favorable Side Bet in Nevada Baccarat, JASA 61 (1966) 313-328; "
                "Wizard of Odds, Banker Natural 8 and 9 (wizardofodds.com/games/baccarat/side-bets/natural-8-and-9/)")
REFERENCE_BETS: tuple[Bet, ...] = (
    Bet("natural_8", "the banker's first two cards total 8 (9:1)", _banker_natural(8), {"natural": Decimal("9")},
        THORP_WALDEN),
    Bet("natural_9", "the banker's first two cards total 9 (9:1)", _banker_natural(9), {"natural": Decimal("9")},
        THORP_WALDEN),
)
"""Published bets kept for the risk study's comparison with the literature (``croupier study --bets natural_9``):
the 1960s Nevada side bets Thorp and Walden beat by counting. No table offers or settles them and the ``edge``
event does not list them."""

OFFERABLE = OFFERABLE_BETS
"""Names ``[bets] offered`` may list (the banker variants come from ``[table] variant``)."""

STANDARD = STANDARD_BETS
"""The bets offered by default, the ones every settlement event has always covered."""

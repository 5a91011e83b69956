"""Exact odds: every deal of a fresh N-deck shoe enumerated through the rules table.

Cards are grouped by baccarat value (10 classes: 16N zeros, 4N of each of 1-9);
each sequence of up to six cards is weighted by how many ways it can be drawn
without replacement. All arithmetic is integer and the results are exact
fractions. The drawing decisions come from :mod:`controller.core.rules`, the same
table the round machine uses.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import msgspec

from controller.core import rules
from controller.core.bets.catalogue import BETS

VALUES = range(10)
DECKS = range(1, 9)
"""The shoes the odds are defined for: 1 to 8 decks."""


def value_counts(decks: int) -> list[int]:
    """Cards of each baccarat value 0-9 in a fresh shoe."""
    return [16 * decks] + [4 * decks] * 9


class Odds(msgspec.Struct, frozen=True, gc=False):
    """Exact probabilities of one fresh shoe's first round."""

    decks: int
    banker: Fraction
    player: Fraction
    tie: Fraction
    banker_wins_with_six: Fraction
    player_draws: Fraction
    banker_draws: Fraction
    natural: Fraction
    player_pair: Fraction
    banker_pair: Fraction

    def house_edge(self, bet: str, variant: str = "commission") -> Fraction:
        """The house edge of ``bet`` (player, banker, tie, player_pair, banker_pair) under the catalogue's default
        pays; ``banker`` as ``variant`` settles it (``commission`` or ``no_commission``: the ``ez`` banker's
        three-card 7 is not among these probabilities, :func:`controller.core.bets.exact.bet_odds` has it)."""
        if bet == "player":
            return self.banker - self.player * _pay("player", "win")
        if bet == "banker":
            if variant == "commission":
                return self.player - self.banker * _pay("banker", "win")
            if variant != "no_commission":
                raise ValueError(f"variant {variant!r}: expected commission or no_commission")
            six = self.banker_wins_with_six
            return (self.player - (self.banker - six) * _pay("banker_no_commission", "win")
                    - six * _pay("banker_no_commission", "win_with_6"))
        if bet == "tie":
            return (1 - self.tie) - self.tie * _pay("tie", "win")
        if bet in ("player_pair", "banker_pair"):
            pair = self.player_pair
            return (1 - pair) - pair * _pay(bet, "pair")
        raise ValueError(f"unknown bet {bet!r}")


def _pay(bet: str, pay_class: str) -> Fraction:
    """What ``bet``'s ``pay_class`` wins by default, from the catalogue."""
    return Fraction(BETS[bet].pays[pay_class])


def _settle(tally: list[int], player_total: int, banker_total: int, weight: int) -> None:
    """Add ``weight`` to the outcome of one finished deal (see ``tally`` in :func:`compute_odds`)."""
    if player_total > banker_total:
        tally[0] += weight
    elif banker_total > player_total:
        tally[1] += weight
        if banker_total == 6:
            tally[3] += weight
    else:
        tally[2] += weight


def _third_cards(counts: list[int], tally: list[int], pt: int, bt: int, w4: int, after5: int) -> tuple[int, int]:
    """Settle every ending of a four-card deal (weight ``w4``) with no natural, from its two-card totals
    ``pt`` and ``bt``; ``after5`` is the number of cards left for the sixth. Returns the weights, over all
    six cards, it adds to (player draws, banker draws)."""
    weight = w4 * (after5 + 1) * after5
    if rules.player_draws(pt, bt):
        row = rules.BANKER_TABLEAU[bt]
        banker_drew = 0
        for p3 in VALUES:
            w5 = w4 * counts[p3]
            if not w5:
                continue
            pf = (pt + p3) % 10
            if row[p3]:
                counts[p3] -= 1
                banker_drew += w5 * after5
                for b3 in VALUES:
                    if counts[b3]:
                        _settle(tally, pf, (bt + b3) % 10, w5 * counts[b3])
                counts[p3] += 1
            else:
                _settle(tally, pf, bt, w5 * after5)
        return weight, banker_drew
    if rules.banker_draws(bt, None):
        for b3 in VALUES:
            if counts[b3]:
                _settle(tally, pt, (bt + b3) % 10, w4 * counts[b3] * after5)
        return 0, weight
    _settle(tally, pt, bt, weight)
    return 0, 0


@cache
def compute_odds(decks: int) -> Odds:
    """Enumerate every deal of a fresh ``decks``-deck shoe exactly (once per process: the result is frozen)."""
    if decks not in DECKS:
        raise ValueError(f"decks {decks}: expected 1-8")
    counts = value_counts(decks)
    total = sum(counts)
    # Every outcome is weighted over the same denominator: all ordered 6-card draws.
    denominator = total * (total - 1) * (total - 2) * (total - 3) * (total - 4) * (total - 5)
    after4 = (total - 4) * (total - 5)
    after5 = total - 5
    tally = [0, 0, 0, 0]
    """Weights of: player wins, banker wins, tie, banker wins with 6."""
    p_draws = b_draws = natural = 0

    for p1 in VALUES:
        w1 = counts[p1]
        counts[p1] -= 1
        for b1 in VALUES:
            w2 = w1 * counts[b1]
            if not w2:
                continue
            counts[b1] -= 1
            for p2 in VALUES:
                w3 = w2 * counts[p2]
                if not w3:
                    continue
                counts[p2] -= 1
                for b2 in VALUES:
                    w4 = w3 * counts[b2]
                    if not w4:
                        continue
                    counts[b2] -= 1
                    pt = (p1 + p2) % 10
                    bt = (b1 + b2) % 10
                    if rules.is_natural(pt) or rules.is_natural(bt):
                        natural += w4 * after4
                        _settle(tally, pt, bt, w4 * after4)
                    else:
                        player_draws, banker_draws = _third_cards(counts, tally, pt, bt, w4, after5)
                        p_draws += player_draws
                        b_draws += banker_draws
                    counts[b2] += 1
                counts[p2] += 1
            counts[b1] += 1
        counts[p1] += 1
    player, banker, tie, banker_six = tally
    pair = Fraction(4 * decks - 1, 52 * decks - 1)
    return Odds(
        decks=decks,
        banker=Fraction(banker, denominator),
        player=Fraction(player, denominator),
        tie=Fraction(tie, denominator),
        banker_wins_with_six=Fraction(banker_six, denominator),
        player_draws=Fraction(p_draws, denominator),
        banker_draws=Fraction(b_draws, denominator),
        natural=Fraction(natural, denominator),
        player_pair=pair,
        banker_pair=pair,
    )


@cache
def fresh_odds(decks: int) -> Odds:
    """What :func:`compute_odds` gives for ``decks``, read from the module generated from it
    (:mod:`controller.core.fresh_odds`, which a test recomputes), without enumerating again."""
    from controller.core.fresh_odds import FIELDS, FRESH_ODDS

    if decks not in FRESH_ODDS:
        raise ValueError(f"decks {decks}: expected 1-8")
    values = {name: Fraction(*pair) for name, pair in zip(FIELDS, FRESH_ODDS[decks], strict=True)}
    return Odds(decks=decks, **values)

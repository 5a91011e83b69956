"""The calls a trainee makes, their vocabularies, and what the rules expect of each.

Every expected answer and every explanation is read from :mod:`controller.core.rules` (the tableau
is never restated here) and the pays from :mod:`controller.core.settlement`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Final, Literal

from controller.core import rules
from controller.core.cards import Card, hand_total
from controller.core.settlement import BETS, settle

CallKind = Literal["player", "banker", "winner", "pay"]

VOCABULARY: Final[dict[CallKind, tuple[str, ...]]] = {
    "player": ("natural", "draw", "stand"),
    "banker": ("draw", "stand"),
    "winner": ("player", "banker", "tie"),
}
"""The words each call accepts; a pay call takes a signed decimal instead (e.g. ``+0.95``, ``-1``, ``0``)."""

PAY_FORM: Final = "the net pay per unit staked, a decimal such as +0.95, +8, 0 or -1"


@dataclass(frozen=True, slots=True)
class Expected:
    """What the rules expect for one call: the answer, the tableau cell that decides it and the rule in words."""

    answer: str
    cell: str
    rule: str


def spans(values: Sequence[int]) -> str:
    """``[0, 1, 2, 3, 5]`` as ``0-3, 5``."""
    parts: list[str] = []
    start = previous = None
    for value in [*sorted(values), None]:
        if value is not None and previous is not None and value == previous + 1:
            previous = value
            continue
        if start is not None:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = value
    return ", ".join(parts)


def player_call(player: Sequence[Card], banker: Sequence[Card]) -> Expected:
    """The player's call on the first four cards: ``natural``, ``draw`` or ``stand``."""
    player_total, banker_total = hand_total(player[:2]), hand_total(banker[:2])
    if rules.is_natural(player_total) or rules.is_natural(banker_total):
        return Expected("natural", "natural",
                        f"a two-card 8 or 9 is a natural and ends the round: player {player_total}, "
                        f"banker {banker_total}")
    draws = sorted(rules.PLAYER_DRAWS_ON)
    if rules.player_draws(player_total, banker_total):
        return Expected("draw", f"player {player_total}",
                        f"player {player_total} draws (the player draws on {spans(draws)})")
    stands = [total for total in range(10) if total not in draws and not rules.is_natural(total)]
    return Expected("stand", f"player {player_total}",
                    f"player {player_total} stands (the player stands on {spans(stands)})")


def banker_call(banker: Sequence[Card], player_third: Card | None) -> Expected:
    """The banker's call: ``draw`` or ``stand``, on the banker's two cards and the player's third card."""
    total = hand_total(banker[:2])
    draws = rules.banker_draws(total, None if player_third is None else player_third.value)
    verb = "draws" if draws else "stands"
    answer = "draw" if draws else "stand"
    if player_third is None:
        return Expected(answer, f"banker {total} / player stood",
                        f"banker {total} {verb} when the player stood")
    row = rules.BANKER_TABLEAU[total]
    same = [column for column in range(10) if row[column] == draws]
    return Expected(answer, f"banker {total} / third card {player_third.value}",
                    f"banker {total} {verb} on the player's third card {spans(same)}: "
                    f"the third card was {player_third.value}")


def winner_call(player: Sequence[Card], banker: Sequence[Card]) -> Expected:
    """The winner of the finished hands: ``player``, ``banker`` or ``tie``."""
    player_total, banker_total = hand_total(player), hand_total(banker)
    won = rules.winner(player_total, banker_total)
    said = "a tie" if won == "tie" else f"{won} wins"
    return Expected(won, f"player {player_total} / banker {banker_total}",
                    f"player {player_total} against banker {banker_total}: {said}")


def pay_calls(player: Sequence[Card], banker: Sequence[Card], variant: str) -> dict[str, Expected]:
    """For each standard bet, its net pay per unit staked on the finished hands."""
    player_total, banker_total = hand_total(player), hand_total(banker)
    won = rules.winner(player_total, banker_total)
    outcomes = settle(won, banker_total, player[0].rank == player[1].rank, banker[0].rank == banker[1].rank,
                      variant)
    expected: dict[str, Expected] = {}
    for bet in BETS:
        outcome = outcomes[bet].to_dict()
        expected[bet] = Expected(outcome["net"], f"{bet} bet {outcome['outcome']}",
                                 f"the {bet} bet is a {outcome['outcome']} ({variant}): {outcome['net']}")
    return expected


def word_problem(kind: CallKind, text: str) -> str | None:
    """Why ``text`` is no answer to a ``kind`` call (None when it is a word of the call's vocabulary)."""
    if kind == "pay":
        return None if parse_pay(text) is not None else f"{text!r} is not a pay: expected {PAY_FORM}"
    words = VOCABULARY[kind]
    if text.strip().lower() in words:
        return None
    return f"{text!r} is not a {kind} call: expected one of {', '.join(words)}"


def parse_pay(text: str) -> Decimal | None:
    """A pay answer as a number, or None if it is not one."""
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def is_right(kind: CallKind, given: str, expected: str) -> bool:
    """Does the (valid) answer ``given`` match ``expected``?"""
    if kind == "pay":
        return parse_pay(given) == Decimal(expected)
    return given.strip().lower() == expected

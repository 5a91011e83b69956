"""The calls a trainee makes, their vocabularies, and what the rules expect of each (the drill, and game recall's
third-card decisions with the rule that made each: :mod:`controller.core.recall`).

Every expected answer and every explanation is read from :mod:`controller.core.rules` (the tableau
is never restated here) and the pays from the catalogue's settlement (:mod:`controller.core.bets.settle`), as the
table settles the standard bets under its variant.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Final, Literal

from config.schema import BetsSettings
from controller.core import rules
from controller.core.bets.catalogue import RoundFacts
from controller.core.bets.settle import Settler
from controller.core.cards import Card, hand_total
from controller.core.settlement import BETS
from controller.i18n.message import Message, message

CallKind = Literal["player", "banker", "winner", "pay"]

VOCABULARY: Final[dict[CallKind, tuple[str, ...]]] = {
    "player": ("natural", "draw", "stand"),
    "banker": ("draw", "stand"),
    "winner": ("player", "banker", "tie"),
}
"""The words each call accepts; a pay call takes a signed decimal instead (e.g. ``+0.95``, ``-1``, ``0``)."""

PAY_FORM: Final = message("train.pay_form", "the net pay per unit staked, a decimal such as +0.95, +8, 0 or -1")

CALL_NAMES: Final[dict[CallKind, Message]] = {
    "player": message("train.call.player", "player"),
    "banker": message("train.call.banker", "banker"),
    "winner": message("train.call.winner", "winner"),
    "pay": message("train.call.pay", "pay"),
}
"""Each call's name for a person (the JSON stream's ``call`` stays the machine word)."""

CELLS: Final = (
    message("train.cell.natural", "natural"),
    message("train.cell.player", "player {total}"),
    message("train.cell.banker_stood", "banker {total} / player stood"),
    message("train.cell.banker_third", "banker {total} / third card {third}"),
    message("train.cell.totals", "player {player} / banker {banker}"),
    message("train.cell.bet", "{bet} bet {outcome}"),
)
"""The tableau cells a call is scored on; the ``cell`` of ``call_scored`` is one in English."""

RULES: Final = (
    message("train.rule.natural", "a two-card 8 or 9 is a natural and ends the round: player {player}, "
            "banker {banker}"),
    message("train.rule.player_draws", "player {total} draws (the player draws on {totals})"),
    message("train.rule.player_stands", "player {total} stands (the player stands on {totals})"),
    message("train.rule.banker_draws_stood", "banker {total} draws when the player stood"),
    message("train.rule.banker_stands_stood", "banker {total} stands when the player stood"),
    message("train.rule.banker_draws_third", "banker {total} draws on the player's third card {thirds}: "
            "the third card was {third}"),
    message("train.rule.banker_stands_third", "banker {total} stands on the player's third card {thirds}: "
            "the third card was {third}"),
    message("train.rule.tie", "player {player} against banker {banker}: a tie"),
    message("train.rule.player_wins", "player {player} against banker {banker}: player wins"),
    message("train.rule.banker_wins", "player {player} against banker {banker}: banker wins"),
    message("train.rule.pay_win", "the {bet} bet wins ({variant}): {net}"),
    message("train.rule.pay_lose", "the {bet} bet loses ({variant}): {net}"),
    message("train.rule.pay_push", "the {bet} bet is a push, the stake returned ({variant}): {net}"),
)
"""The rule a wrong call broke; the ``rule`` of ``call_scored`` is one in English."""


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
        return Expected("natural", CELLS[0].text, _rule("natural", player=player_total, banker=banker_total))
    draws = sorted(rules.PLAYER_DRAWS_ON)
    if rules.player_draws(player_total, banker_total):
        return Expected("draw", _cell(1, total=player_total),
                        _rule("player_draws", total=player_total, totals=spans(draws)))
    stands = [total for total in range(10) if total not in draws and not rules.is_natural(total)]
    return Expected("stand", _cell(1, total=player_total),
                    _rule("player_stands", total=player_total, totals=spans(stands)))


def banker_call(banker: Sequence[Card], player_third: Card | None) -> Expected:
    """The banker's call: ``draw`` or ``stand``, on the banker's two cards and the player's third card."""
    total = hand_total(banker[:2])
    draws = rules.banker_draws(total, None if player_third is None else player_third.value)
    verb = "draws" if draws else "stands"
    answer = "draw" if draws else "stand"
    if player_third is None:
        return Expected(answer, _cell(2, total=total),
                        _rule(f"banker_{verb}_stood", total=total))
    row = rules.BANKER_TABLEAU[total]
    same = [column for column in range(10) if row[column] == draws]
    return Expected(answer, _cell(3, total=total, third=player_third.value),
                    _rule(f"banker_{verb}_third", total=total, thirds=spans(same), third=player_third.value))


def winner_call(player: Sequence[Card], banker: Sequence[Card]) -> Expected:
    """The winner of the finished hands: ``player``, ``banker`` or ``tie``."""
    player_total, banker_total = hand_total(player), hand_total(banker)
    won = rules.winner(player_total, banker_total)
    return Expected(won, _cell(4, player=player_total, banker=banker_total),
                    _rule("tie" if won == "tie" else f"{won}_wins", player=player_total, banker=banker_total))


def pay_calls(player: Sequence[Card], banker: Sequence[Card], variant: str,
              bets: BetsSettings | None = None) -> dict[str, Expected]:
    """For each standard bet, its net pay per unit staked on the finished hands, under the house's pay tables
    (``bets``: ``[bets.pays]`` over the defaults, as the table settles them; None: the defaults)."""
    facts = RoundFacts(hand_total(player), hand_total(banker), len(player), len(banker),
                       player_pair=player[0].rank == player[1].rank, banker_pair=banker[0].rank == banker[1].rank)
    outcomes = Settler(BETS, variant, bets).settle(facts)
    expected: dict[str, Expected] = {}
    for bet in BETS:
        outcome = outcomes[bet].to_event()
        expected[bet] = Expected(outcome.net, _cell(5, bet=bet, outcome=outcome.outcome),
                                 _rule(f"pay_{outcome.outcome}", bet=bet.replace("_", " "), variant=variant,
                                       net=outcome.net))
    return expected


def _cell(index: int, **params: str | int) -> str:
    return CELLS[index].text.format(**params)


def _rule(name: str, **params: str | int) -> str:
    return next(rule for rule in RULES if rule.id == f"train.rule.{name}").text.format(**params)


def _matching(templates: Sequence[Message], text: str, value: str) -> Message | None:
    for template in templates:
        pattern = re.escape(template.text)
        for name in re.findall(r"\{(\w+)\}", template.text):
            pattern = pattern.replace(re.escape("{" + name + "}"), f"(?P<{name}>{value})")
        found = re.fullmatch(pattern, text)
        if found:
            return message(template.id, template.text, **found.groupdict())
    return None


PAY_CELLS: Final = {
    "win": message("train.cell.bet_win", "{bet} bet wins"),
    "lose": message("train.cell.bet_lose", "{bet} bet loses"),
    "push": message("train.cell.bet_push", "{bet} bet is a push"),
}
"""A pay call's cell (``banker_pair bet win`` in the event) as a person reads it, by the bet's outcome."""


def cell_message(cell: str) -> Message | None:
    """The tableau cell ``cell`` (a ``call_scored`` event's, in English) as its message; None if it is none. A pay
    call's cell is a sentence, its bet named in the language."""
    found = _matching(CELLS, cell, r"\S+")
    if found is None or found.id != "train.cell.bet":
        return found
    worded, bet = PAY_CELLS.get(str(found.params["outcome"])), str(found.params["bet"]).replace("_", " ")
    if worded is None:
        return found
    return message(worded.id, worded.text, bet=PAY_BETS.get(bet, bet))


PAY_BETS: Final = {"player": message("bet.player", "player"), "banker": message("bet.banker", "banker"),
                   "tie": message("bet.tie", "tie"), "player pair": message("train.bet.player_pair", "player pair"),
                   "banker pair": message("train.bet.banker_pair", "banker pair")}
"""The bets a pay call names, as a pay rule's English names them, and their names for people."""


def rule_message(rule: str) -> Message | None:
    """The rule ``rule`` (a ``call_scored`` event's, in English) as its message; None if it is none. A pay rule's
    bet is worded as the language names the bet."""
    found = _matching(RULES, rule, r"[^:()]+?")
    if found is None or "bet" not in found.params:
        return found
    bet = PAY_BETS.get(str(found.params["bet"]))
    return found if bet is None else message(found.id, found.text, **{**found.params, "bet": bet})


def word_problem_message(kind: CallKind, text: str) -> Message | None:
    """Why ``text`` is no answer to a ``kind`` call (None when it is a word of the call's vocabulary)."""
    if kind == "pay":
        return None if parse_pay(text) is not None else message(
            "train.not_a_pay", "{given} is not a pay: expected {form}", given=repr(text), form=PAY_FORM)
    words = VOCABULARY[kind]
    if text.strip().lower() in words:
        return None
    return message("train.not_a_call", "{given} is not a {call} call: expected one of {words}", given=repr(text),
                   call=CALL_NAMES[kind], words=", ".join(words))


def word_problem(kind: CallKind, text: str) -> str | None:
    """Why ``text`` is no answer to a ``kind`` call, in English (:func:`word_problem_message`)."""
    problem = word_problem_message(kind, text)
    return None if problem is None else problem.english()


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

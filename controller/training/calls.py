"""The calls a trainee makes: defined in :mod:`controller.core.calls`, where game recall words the same rules."""

from __future__ import annotations

from controller.core.calls import (
    CALL_NAMES,
    CELLS,
    PAY_BETS,
    PAY_CELLS,
    PAY_FORM,
    RULES,
    VOCABULARY,
    CallKind,
    Expected,
    banker_call,
    cell_message,
    is_right,
    parse_pay,
    pay_calls,
    player_call,
    rule_message,
    spans,
    winner_call,
    word_problem,
    word_problem_message,
)

__all__ = ["CALL_NAMES", "CELLS", "PAY_BETS", "PAY_CELLS", "PAY_FORM", "RULES", "VOCABULARY", "CallKind", "Expected",
           "banker_call", "cell_message", "is_right", "parse_pay", "pay_calls", "player_call", "rule_message", "spans",
           "winner_call", "word_problem", "word_problem_message"]

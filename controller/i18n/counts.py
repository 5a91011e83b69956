"""Counted words ("1 round", "5 rounds") in every language: each form is a message of its own, chosen by the count.

English and Spanish say one form for 1 and another for every other count; Chinese, Japanese and Korean have one
form, which their catalogues give for both. A text that counts takes the counted words as a part
(``message("summary.rounds", "Summary: {rounds} over {shoes}", rounds=rounds(5), shoes=shoes(1))``), worded in
the language of the text around it.
"""

from __future__ import annotations

from controller.i18n.message import Message, message


def _shown(count: int, shown: str | None) -> str:
    return str(count) if shown is None else shown


def rounds(count: int, shown: str | None = None) -> Message:
    """``count`` rounds (``shown``: the number as written, e.g. with the language's thousands separator)."""
    if count == 1:
        return message("count.round", "{count} round", count=_shown(count, shown))
    return message("count.rounds", "{count} rounds", count=_shown(count, shown))


def shoes(count: int, shown: str | None = None) -> Message:
    """``count`` shoes."""
    if count == 1:
        return message("count.shoe", "{count} shoe", count=_shown(count, shown))
    return message("count.shoes", "{count} shoes", count=_shown(count, shown))


def decks(count: int, shown: str | None = None) -> Message:
    """``count`` decks."""
    if count == 1:
        return message("count.deck", "{count} deck", count=_shown(count, shown))
    return message("count.decks", "{count} decks", count=_shown(count, shown))


def calls(count: int, shown: str | None = None) -> Message:
    """``count`` calls (a trainee's calls in ``croupier train``)."""
    if count == 1:
        return message("count.call", "{count} call", count=_shown(count, shown))
    return message("count.calls", "{count} calls", count=_shown(count, shown))

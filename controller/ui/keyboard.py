"""Dealer inputs typed at the terminal: one command per line.

=========================  =====================================
type                       input
=========================  =====================================
``n`` or ``next``          start the next round
``s`` or ``shoe``          the new shoe is shuffled, cut and loaded
``b`` or ``burn``          resolve: burn the offending card(s)
``v`` or ``void``          resolve: void the round, bets returned
``e`` or ``exposed``       the last card dealt was exposed in error
``u`` or ``use``           resolve: keep the exposed card
``m XX`` or ``manual XX``  enter card XX by hand (unreadable card)
``c`` or ``close``         close the shoe early, between rounds
``r`` or ``reveal``        face down: reveal the next hand (``r 7``: and key its total)
``a ID`` or ``ack ID``     acknowledge the open alert ID (e.g. ``ack A1``)
``z`` or ``undo``          take back the last hand-entered card or exposed call (``@undo``)
``k`` or ``count``         the stub's count is the one the table shows (``k 312``: key the number counted)
=========================  =====================================

A dealer typing at a terminal is asked first, as in the dealer console, before a void, an early close, a new
shoe, a card entered by hand and an undo: the input is sent only when the next line is ``y``
(:class:`ConfirmingParser`); a card code that is not a card is refused before anything is asked.
Lines from a pipe (a script playing the dealer) are taken as they come.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from controller.core.cards import parse_card
from controller.core.exceptions import CardCodeError, ScriptError
from controller.core.inputs import REVEAL_TOTALS, Input, InputKind
from controller.i18n.catalogue import Catalogue
from controller.i18n.message import Message, message

KEYS: dict[str, InputKind] = {
    "n": InputKind.NEXT, "next": InputKind.NEXT,
    "s": InputKind.SHOE, "shoe": InputKind.SHOE,
    "b": InputKind.BURN, "burn": InputKind.BURN,
    "v": InputKind.VOID, "void": InputKind.VOID,
    "e": InputKind.EXPOSED, "exposed": InputKind.EXPOSED,
    "u": InputKind.USE, "use": InputKind.USE,
    "c": InputKind.CLOSE, "close": InputKind.CLOSE,
    "r": InputKind.REVEAL, "reveal": InputKind.REVEAL,
    "z": InputKind.UNDO, "undo": InputKind.UNDO,
    "k": InputKind.COUNT, "count": InputKind.COUNT,
}
MANUAL_WORDS = ("m", "manual")
ACK_WORDS = ("a", "ack")
HELP = ("n next, s shoe ready, b burn, v void, e exposed, u use, m XX manual card, c close the shoe, "
        "r reveal (r 7: with its total), a ID acknowledge an alert, z undo, k count the stub (k 312: with the number)")


def parse_dealer_line(line: str) -> Input | None:
    """The input a typed line asks for; None for an empty line.

    Raises :class:`ScriptError` naming the line and the commands that exist.
    """
    words = line.strip().lstrip("@").split()
    if not words:
        return None
    word = words[0].lower()
    if word in MANUAL_WORDS:
        if len(words) != 2:
            raise ScriptError(message("keyboard.manual", "{line}: expected 'm XX' with one card code, e.g. 'm 7H'",
                                      line=repr(line.strip())))
        return Input(InputKind.MANUAL, words[1])
    if word in ACK_WORDS:
        if len(words) != 2:
            raise ScriptError(message("keyboard.ack", "{line}: expected 'a ID' with the alert's id, e.g. 'a A1'",
                                      line=repr(line.strip())))
        return Input(InputKind.ACK, words[1].upper())
    kind = KEYS.get(word)
    if kind is InputKind.REVEAL and len(words) == 2:
        if words[1] not in REVEAL_TOTALS:
            raise ScriptError(message("keyboard.reveal", "{line}: expected 'r' or 'r TOTAL' with a total from 0 to 9, "
                                      "e.g. 'r 7'", line=repr(line.strip())))
        return Input(kind, words[1])
    if kind is InputKind.COUNT and len(words) == 2:
        if not words[1].isdecimal():
            raise ScriptError(message("keyboard.count", "{line}: expected 'k' or 'k CARDS' with the number of cards "
                                      "counted in the stub, e.g. 'k 312'", line=repr(line.strip())))
        return Input(kind, words[1])
    if kind is None or len(words) != 1:
        raise ScriptError(message("keyboard.unknown", "{line} is not a dealer command: expected n next, s "
                                  "shoe ready, b burn, v void, e exposed, u use, m XX manual card, c close the "
                                  "shoe, r reveal (r 7: with its total), a ID acknowledge an alert, z undo, k count "
                                  "the stub (k 312: with the number)", line=repr(line.strip())))
    return Input(kind)


def worded_parser(words: Catalogue) -> Callable[[str], Input | None]:
    """:func:`parse_dealer_line` whose refusals are worded in ``words``' language (the table's)."""

    def parse(line: str) -> Input | None:
        try:
            return parse_dealer_line(line)
        except ScriptError as error:
            if error.message is None:
                raise
            raise ScriptError(words.text(error.message)) from None

    return parse


YES = ("y", "yes")
"""The answers that confirm (the key stays y in every language, as in the console's dialogs)."""


def _question(item: Input) -> tuple[Message, Message] | None:
    """What a dealer is asked before ``item`` is sent, and what answering y does; None: sent at once."""
    match item.kind:
        case InputKind.VOID:
            return (message("keyboard.ask.void", "Void this round? Every bet goes back."),
                    message("console.ask.void.yes", "void it"))
        case InputKind.CLOSE:
            return (message("console.ask.close", "Close this shoe now? No more rounds are dealt from it."),
                    message("console.ask.close.yes", "close the shoe"))
        case InputKind.SHOE:
            return (message("console.ask.shoe", "New shoe: is it shuffled, cut and loaded?"),
                    message("console.ask.shoe.yes", "start the new shoe"))
        case InputKind.MANUAL:
            card = item.card or "?"
            return (message("keyboard.ask.manual", "Enter {card} by hand?", card=card),
                    message("console.ask.manual.yes", "enter {card} by hand", card=card))
        case InputKind.UNDO:
            return (message("keyboard.ask.undo", "Take back the last card entered by hand or the exposed call?"),
                    message("undo.yes", "take it back"))
    return None


class ConfirmingParser:
    """Typed lines as dealer inputs (``parse``), asking first before one that cannot be undone: ``say`` gets the
    question, and the input is sent only if the next line is y (anything else sends nothing, and says so)."""

    def __init__(self, parse: Callable[[str], Input | None], say: Callable[[str], None], words: Catalogue) -> None:
        self.parse = parse
        self.say = say
        self.words = words
        self._asked: Input | None = None

    def __call__(self, line: str) -> Input | None:
        asked, self._asked = self._asked, None
        if asked is not None:
            if line.strip().lower() in YES:
                return asked
            self.say(self.words.say("keyboard.not_sent", "Not sent: only y confirms."))
            return None
        item = self.parse(line)
        if item is not None and item.kind is InputKind.MANUAL:
            self._check_card(item.card or "")
        question = _question(item) if item is not None else None
        if question is None:
            return item
        self._asked = item
        asking, yes = question
        self.say(self.words.say("keyboard.confirm", "{question} Type y and Enter to {yes}; anything else "
                                "sends nothing.",
                                question=asking, yes=yes))
        return None


    def _check_card(self, code: str) -> None:
        """Refuse a code that is not a card before the dealer is asked to confirm it (as the console's dialog)."""
        try:
            parse_card(code)
        except CardCodeError as error:
            raise ScriptError(self.words.say(
                "console.manual.refused", "{code}: {error}; type it again", code=repr(code),
                error=self.words.text(error.message) if error.message is not None else str(error))) from None


def keyboard_parser(words: Catalogue, keyboard: TextIO | None) -> Callable[[str], Input | None]:
    """How typed lines become dealer inputs: a dealer typing at a terminal is asked first, on standard error
    (wrapped between words to its width), before what cannot be undone (as in the console); a pipe's lines are taken
    as they come."""
    parse = worded_parser(words)
    if keyboard is None or not keyboard.isatty():
        return parse
    from controller.ui.transcript import fitted

    return ConfirmingParser(parse, lambda line: print(fitted(line, sys.stderr), file=sys.stderr, flush=True), words)

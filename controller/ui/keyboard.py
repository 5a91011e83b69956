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
"""

from __future__ import annotations

from collections.abc import Callable

from controller.core.exceptions import ScriptError
from controller.core.inputs import REVEAL_TOTALS, Input, InputKind
from controller.i18n.catalogue import Catalogue
from controller.i18n.message import message

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
        if not words[1].isdigit():
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

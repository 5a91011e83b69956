"""Inputs to the table core: what the reader saw and what people pressed.

An :class:`Input` is plain data. The journal stores inputs, and the core's
state is a replay of them. Shoe scripts and ``--cards`` write inputs as tokens:

======================  ===========================================================
token                   input
======================  ===========================================================
``AS`` ``10h`` ...      the reader read this card (any text that is not a token
                        below is passed on as a card code; a bad one is a misdeal)
``??``                  the reader saw a card it could not read
``@cut``                the reader saw the cut card
``@double``             the reader saw two cards leave the shoe together
``@offline``            the reader went offline
``@online``             the reader came back
``@next``               the dealer starts the next round
``@shoe``               the dealer confirms a new shoe is shuffled, cut and loaded
``@burn``               resolve a halt: burn the offending card(s) and continue
``@void``               resolve a halt: void the round, bets returned
``@exposed``            the dealer reports the last card read was exposed in error
``@use``                resolve an exposed card: keep it where it was dealt
``@manual XX``          a hand-entered card (for an unreadable one)
``@reveal``             face-down dealing: the dealer turns the next hand (or third card) up
``@reveal 7``           the same, keying the total the hand shows on the layout (a digit
                        0-9 right after ``@reveal`` is its total, never a card)
``@close``              the supervisor closes the shoe early, between rounds
``@count``              the dealer confirms the stub's count the table shows (``[procedures] count_every``)
``@count 312``          the same, keying the number of cards counted in the stub (a number right after
                        ``@count`` is the count, never a card)
``@badge UID``          a staff badge was presented at the badge reader
``@badge_removed``      the badge was taken off the badge reader
``@sign_out``           the dealer signs out (also given when the idle time passes)
``@ack ID``             acknowledge the open alert ``ID`` (``A1``; a supervisor's, with badges)
``@undo``               take back the dealer's last input where the rules allow it: a hand-entered
                        card before anything follows it, an ``@exposed`` call not yet resolved
======================  ===========================================================

Three more inputs come from no script and no person: ``PROPERTY_REPEAT`` and ``PROPERTY_OFF``, given by
the app layer's property check (:mod:`controller.core.property_check`), and ``CLOCK``, the host clock as the app
read it (:mod:`controller.core.clock`); each is journaled like every other.
"""

from __future__ import annotations

import enum
from typing import Any

import msgspec

from controller.core.exceptions import ScriptError


class InputKind(enum.Enum):
    """What an input is."""

    CARD = "card"
    UNREADABLE = "unreadable"
    CUT = "cut"
    DOUBLE = "double"
    OFFLINE = "offline"
    ONLINE = "online"
    NEXT = "next"
    SHOE = "shoe"
    BURN = "burn"
    VOID = "void"
    EXPOSED = "exposed"
    USE = "use"
    MANUAL = "manual"
    CLOSE = "close"
    BADGE = "badge"
    BADGE_REMOVED = "badge_removed"
    SIGN_OUT = "sign_out"
    REVEAL = "reveal"
    ACK = "ack"
    UNDO = "undo"
    COUNT = "count"
    """The dealer counted the stub (``card``: the number keyed; None confirms the count the table shows)."""
    PROPERTY_REPEAT = "property_repeat"
    """The app layer's property check found this shoe repeating another table's shoe (``card``: the finding)."""
    PROPERTY_OFF = "property_off"
    """The app layer's property check is off: the floor archive cannot be read (``card``: why)."""
    CLOCK = "clock"
    """The app layer read the host clock (``card``: :class:`controller.core.clock.ClockReading` as text)."""

    __hash__ = object.__hash__
    """Members are singletons compared by identity; hashing by identity keeps lookups cheap (``enum``'s own hashes
    the name in Python, at every set or dict lookup of an input's kind)."""


APP_KINDS = (InputKind.PROPERTY_REPEAT, InputKind.PROPERTY_OFF, InputKind.CLOCK)
"""The inputs the property check gives the table (no script token)."""

READER_KINDS = frozenset(
    {InputKind.CARD, InputKind.UNREADABLE, InputKind.CUT, InputKind.DOUBLE,
     InputKind.OFFLINE, InputKind.ONLINE}
)
"""Inputs that come from the card reader; the rest come from people."""


class Input(msgspec.Struct, frozen=True, gc=False):
    """One input to the table core.

    ``card`` is the raw text the reader (or a person) gave, for CARD and MANUAL;
    ``approver`` names who approved it, when an approval was needed; ``at`` is when it was given (seconds since
    the epoch, by the clock of what gave it: the badge reader's watcher stamps each badge), None when no time came
    with it (a script). The core has no clock of its own: it reads time only here.
    """

    kind: InputKind
    card: str | None = None
    approver: str | None = None
    at: float | None = None

    @property
    def from_reader(self) -> bool:
        return self.kind in READER_KINDS

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind.value}
        if self.card is not None:
            data["card"] = self.card
        if self.approver is not None:
            data["approver"] = self.approver
        if self.at is not None:
            data["at"] = self.at
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Input:
        at = data.get("at")
        if at is not None and (isinstance(at, bool) or not isinstance(at, int | float)):
            raise TypeError("at is a number of seconds")
        return cls(InputKind(data["kind"]), data.get("card"), data.get("approver"), None if at is None else float(at))

    def token(self) -> str:
        """The script token that gives this input."""
        if self.kind is InputKind.CARD:
            return str(self.card)
        if self.kind is InputKind.UNREADABLE:
            return "??"
        if self.kind in ARGUMENT_KINDS or (self.kind in OPTIONAL_ARGUMENT_KINDS and self.card):
            return f"@{self.kind.value} {self.card}"
        return "@" + str(self.kind.value)


ARGUMENT_KINDS = (InputKind.MANUAL, InputKind.BADGE, InputKind.ACK)
"""Inputs whose token carries an argument (``card``): ``@manual XX``, ``@badge UID``, ``@ack ID``."""
OPTIONAL_ARGUMENT_KINDS = (InputKind.REVEAL, InputKind.COUNT, *APP_KINDS)
"""Inputs whose token may carry an argument: ``@reveal 7``, ``@count 312`` (and the property check's)."""


def card_read(code: str) -> Input:
    """The reader read ``code``."""
    return Input(InputKind.CARD, code)


_SIMPLE_TOKENS = {
    "@" + kind.value: kind
    for kind in InputKind
    if kind not in (InputKind.CARD, InputKind.UNREADABLE, *OPTIONAL_ARGUMENT_KINDS, *ARGUMENT_KINDS)
}
ARGUMENT_TOKENS = {"@manual": (InputKind.MANUAL, "a card code", "'@manual 7H'"),
                   "@badge": (InputKind.BADGE, "a badge UID in hex", "'@badge 04A1B2C3D4E5F6'"),
                   "@ack": (InputKind.ACK, "an alert id", "'@ack A1'")}
REVEAL_TOTALS = frozenset("0123456789")
"""The totals a dealer may key with ``@reveal``."""
TOKEN_FORM = (
    "a card code (AS, 10H), ??, @manual XX, @badge UID, @reveal [TOTAL], @count [CARDS], @ack ID, or one of "
    + ", ".join(sorted(_SIMPLE_TOKENS))
)


def parse_tokens(text: str, source: str = "--cards") -> list[Input]:
    """Parse a space-separated token string (see the module doc) into inputs.

    Card codes are not validated here: a reader can send anything, and a bad
    code is the core's ``unknown_card`` misdeal. Unknown ``@`` words, and a
    ``@manual``, ``@badge`` or ``@ack`` without its argument (nothing, or a
    token such as ``@burn`` or ``??`` in its place) raise :class:`ScriptError`
    naming the token.
    """
    inputs: list[Input] = []
    words = text.split()
    index = 0
    while index < len(words):
        word = words[index]
        lowered = word.lower()
        position = f"{source} token {index + 1} {word!r}"
        if lowered == "??":
            inputs.append(Input(InputKind.UNREADABLE))
        elif lowered in ARGUMENT_TOKENS:
            argument_kind, what, example = ARGUMENT_TOKENS[lowered]
            expected = f"{position}: expected {what} after {lowered}, e.g. {example}"
            if index + 1 >= len(words):
                raise ScriptError(expected)
            argument = words[index + 1]
            if argument.startswith("@") or argument == "??":
                raise ScriptError(f"{expected}, not the token {argument!r}")
            index += 1
            inputs.append(Input(argument_kind, words[index]))
        elif lowered == "@reveal":
            total = words[index + 1] if index + 1 < len(words) and words[index + 1] in REVEAL_TOTALS else None
            index += total is not None
            inputs.append(Input(InputKind.REVEAL, total))
        elif lowered == "@count":
            counted = words[index + 1] if index + 1 < len(words) and words[index + 1].isdecimal() else None
            index += counted is not None
            inputs.append(Input(InputKind.COUNT, counted))
        elif lowered.startswith("@"):
            simple_kind = _SIMPLE_TOKENS.get(lowered)
            if simple_kind is None:
                raise ScriptError(f"{position} is not a token: expected {TOKEN_FORM}")
            inputs.append(Input(simple_kind))
        else:
            inputs.append(Input(InputKind.CARD, word))
        index += 1
    return inputs

"""Where a mock shoe was when it gave each journaled input: a resume seeks the shoe to the last such place.

A seeded shoe (``mock://?seed=...`` in the header's arguments) and ``--cards`` deal the same inputs at the same
places every time, so every place the journal gives can be checked against them: a card taken from the shoe is
journaled at the place just after the one before (the first of a later shoe, after a shoe change) and is the input
the shoe has there; any other input of a seeded shoe came from a person or from the reader's line and leaves the
shoe where it was (``--cards`` gives the dealer's inputs too, each at its place). A place moved with the hash chain
recomputed after it would otherwise replay as intact and make a resume deal from elsewhere in the shoe: a card
dealt twice, or cards never dealt. A script file is not read here (it may have changed since: a resume refuses it
by its hash, and an audit may run where it is not)"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.core.exceptions import CroupierError, JournalError
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.i18n.message import message
from drivers.mock import MockShoe

Place = tuple[int, int]

DEALT = (InputKind.CARD, InputKind.CUT, InputKind.UNREADABLE, InputKind.DOUBLE)
"""The reader's inputs that take a card from the shoe (it moves on one place each); the dealer's keyboard gives
none of them."""


class SeededPlaces:
    """The places of a seeded mock shoe's (or ``--cards``') inputs, checked as a replay reads them."""

    def __init__(self, shoe: MockShoe, named: str) -> None:
        self.shoe = shoe
        self.named = named
        """How the journal's header names the shoe (``mock:// (--cards)`` for ``--cards``)."""

    @classmethod
    def of_header(cls, header: Mapping[str, Any]) -> SeededPlaces | None:
        """The check for the journal whose header is ``header``; None when its source is no seeded mock shoe and no
        ``--cards`` (a script file may have changed since: the resume refuses it by its hash)."""
        identity = header.get("identity")
        arguments = identity.get("arguments") if isinstance(identity, Mapping) else None
        if not isinstance(arguments, Mapping) or arguments.get("script"):
            return None
        url, cards = arguments.get("driver"), arguments.get("cards")
        if arguments.get("command") not in ("simulate", "run") or not isinstance(url, str) \
                or not url.startswith("mock:") or not isinstance(cards, str | None):
            return None
        try:
            shoe = MockShoe(url) if cards is None else MockShoe("mock://", inputs=parse_tokens(cards))
        except (CroupierError, OSError, ValueError):
            return None  # the resume refuses the URL or the cards itself
        return None if shoe.scripted and cards is None else cls(shoe, url)

    def check(self, path: str, seq: int, item: Input, before: Place | None, place: Place) -> None:
        """Input record ``seq`` gave ``item`` from the shoe, which was at ``before`` (None: at its start) and then
        at ``place``; raises :class:`JournalError` naming the record when the shoe could not have.

        A card (a card, the cut card, an unreadable card, two cards together) moves the shoe on; any other input
        a seeded shoe never gives (the shoe stays, or is at the start of a later shoe), and ``--cards`` gives
        the dealer's inputs too (it moves on, or they came from the keyboard and it stays)."""
        if item.kind in DEALT:
            if _next(before, place) and self.shoe.dealt_at(*place) == item:
                return
        elif place == before:
            return
        elif self.shoe.scripted:
            if _next(before, place) and self.shoe.dealt_at(*place) == item:
                return
        elif place[1] == 0 and _later_shoe(before, place):
            return
        raise JournalError(message(
            "journal.place_edited", "{path}: record {seq} was edited: the shoe {url} cannot have been at [{shoe}, "
            "{offset}] after it, {after}", path=path, seq=seq, url=self.named, shoe=place[0], offset=place[1],
            after=message("journal.place_before", "where it was at [{shoe}, {offset}] before it", shoe=before[0],
                          offset=before[1]) if before is not None else
            message("journal.place_first", "the first input it gave")))


def _later_shoe(before: Place | None, place: Place) -> bool:
    """``place`` is in a shoe after the one of ``before`` (any, when the source gave nothing before)."""
    return before is None or place[0] > before[0]


def _next(before: Place | None, place: Place) -> bool:
    """``place`` is the one just after ``before``: the next in its shoe, or the first of a later one."""
    return (place[1] == 1 and _later_shoe(before, place)) or (before is not None
                                                              and place == (before[0], before[1] + 1))

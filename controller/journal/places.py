"""Where a seeded mock shoe was when it gave each journaled input: a resume seeks the shoe to the last such place.

A seeded shoe (``mock://?seed=...`` in the header's arguments, no script or ``--cards``) deals the same inputs at
the same places every time, so every place the journal gives can be checked against it: a card or the cut card
is journaled at the place just after the one before (the first of a later shoe, after a shoe change) and is the
input the shoe has there; any other input came from a person or from the reader's line, and leaves the shoe where
it was. A place moved with the hash chain recomputed after it would otherwise replay as intact and make a resume
deal from elsewhere in the shoe: a card dealt twice, or cards never dealt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.core.exceptions import CroupierError, JournalError
from controller.core.inputs import Input, InputKind
from controller.i18n.message import message
from drivers.mock import MockShoe

Place = tuple[int, int]

DEALT = (InputKind.CARD, InputKind.CUT)
"""The inputs a seeded shoe gives (moving on one place each)."""


class SeededPlaces:
    """The places of a seeded mock shoe's inputs, checked as a replay reads them."""

    def __init__(self, shoe: MockShoe) -> None:
        self.shoe = shoe

    @classmethod
    def of_header(cls, header: Mapping[str, Any]) -> SeededPlaces | None:
        """The check for the journal whose header is ``header``; None when its source is no seeded mock shoe."""
        identity = header.get("identity")
        arguments = identity.get("arguments") if isinstance(identity, Mapping) else None
        if not isinstance(arguments, Mapping) or arguments.get("cards") or arguments.get("script"):
            return None
        url = arguments.get("driver")
        if arguments.get("command") not in ("simulate", "run") or not isinstance(url, str) \
                or not url.startswith("mock:"):
            return None
        try:
            shoe = MockShoe(url)
        except (CroupierError, OSError, ValueError):
            return None  # the resume refuses the URL itself
        return None if shoe.scripted else cls(shoe)

    def check(self, path: str, seq: int, item: Input, before: Place | None, place: Place) -> None:
        """Input record ``seq`` gave ``item`` from the shoe, which was at ``before`` (None: at its start) and then
        at ``place``; raises :class:`JournalError` naming the record when the seeded shoe could not have."""
        if item.kind in DEALT:
            if _next(before, place) and self.shoe.dealt_at(*place) == item:
                return
        elif place == before or (place[1] == 0 and _later_shoe(before, place)):
            return
        raise JournalError(message(
            "journal.place_edited", "{path}: record {seq} was edited: the shoe {url} cannot have been at [{shoe}, "
            "{offset}] after it, {after}", path=path, seq=seq, url=self.shoe.url, shoe=place[0], offset=place[1],
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

"""The two hands as the dealer console shows them: each slot with its card (``10♥`` in red, ``A♠``), the total,
and the slot due. Shared by the dealer console and the training console (``croupier train --console``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Final

from rich.text import Text

from controller.core.cards import parse_card
from controller.core.exceptions import CardCodeError
from controller.i18n.catalogue import Catalogue
from controller.ui.console_words import MANUAL_MARK
from controller.ui.moments import side_word
from controller.ui.roadsview import WINNER_STYLES
from controller.ui.tableview import FACE_DOWN

SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def card_text(code: str | None, manual: bool = False) -> Text:
    """A card as the dealer reads it: ``10♥`` in red, ``A♠`` in white; ``··`` for an empty slot, ``▒▒``
    for a card dealt face down and not yet revealed."""
    if code is None:
        return Text("··", style="dim")
    if code == FACE_DOWN:
        return Text("▒▒", style="bold reverse")
    try:
        card = parse_card(code)
    except CardCodeError:
        return Text(code, style="bold yellow")
    rank = "10" if card.rank == "T" else card.rank
    style = "bold red" if card.suit in "HD" else "bold"
    text = Text(rank + SUIT_SYMBOLS[card.suit], style=style)
    if manual:
        text.append(MANUAL_MARK, style="bold yellow")
    return text


def hand_text(side: str, slots: tuple[str, ...], cards: Mapping[str, str], total: int | None, words: Catalogue, *,
              due: str | None = None, manual: Collection[str] = (), compact: bool = False) -> Text:
    """A hand's title, total and slots with their ``cards``; the slot ``due`` pointed at (``← next``); ``compact``
    (a small terminal): on one row, the due slot's name in reverse instead of the pointer."""
    title = Text(side_word(side, words), style=WINNER_STYLES["P" if side == "player" else "B"])
    title.append(("" if compact else "  ") + " " + words.say("console.total", "total {total}",
                                                              total=str(total if total is not None else "–")),
                 style="bold")
    line = Text()
    for slot in slots:
        if compact and slot == due:
            line.append(slot, style="reverse bold")
            line.append(" ")
        else:
            line.append(f"{slot} ", style="dim")
        line.append_text(card_text(cards.get(slot), manual=slot in manual))
        line.append(" " if compact else "   ")
    if compact:
        line.rstrip()
        return Text("  ").join([title, line])
    if due in slots:
        line.append(words.say("console.next_slot", "← next: {slot}", slot=str(due)), style="reverse bold")
    return Text("\n").join([title, line])

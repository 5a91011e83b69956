"""Cards as the dealer reads them on the layout (``J♥``, ``10♠``), in every text the console shows: the slots, a
misdeal's card and the messages that name one. No styling: :func:`controller.ui.console.card_text` colours them."""

from __future__ import annotations

from typing import Final

from controller.core.cards import parse_card
from controller.core.exceptions import CardCodeError

SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def card_name(code: str) -> str:
    """``J♥`` for ``JH``, ``10♠`` for ``TS``; anything that is not a card code as it is (``ZZ``, ``??``)."""
    try:
        card = parse_card(code)
    except CardCodeError:
        return code
    return ("10" if card.rank == "T" else card.rank) + SUIT_SYMBOLS[card.suit]


def card_params(params: dict[str, str | int]) -> dict[str, str | int]:
    """A message's parameters with its ``card`` as :func:`card_name` words it."""
    card = params.get("card")
    if not isinstance(card, str):
        return params
    return {**params, "card": card_name(card)}

"""Playing cards: parsing, normalised codes and baccarat values."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from controller.core.exceptions import CardCodeError
from controller.i18n.message import Message, message

RANKS = "A23456789TJQK"
SUITS = "SHDC"
RANK_VALUES = {rank: (index + 1 if index < 9 else 0) for index, rank in enumerate(RANKS)}
EXPECTED_FORM = "a rank (A 2-9 T/10 J Q K) followed by a suit (S H D C), e.g. AS, 10H, kd"


def _not_a_card(text: str) -> Message:
    return message("card.not_a_card", "{given} is not a card: expected a rank (A 2-9 T/10 J Q K) followed by a suit "
                   "(S H D C), e.g. AS, 10H, kd", given=repr(text))


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card, printed as its normalised code (``TH``, ``AS``)."""

    rank: str
    suit: str
    value: int = field(init=False, compare=False, repr=False)
    """Baccarat value: A = 1, 2-9 face value, T J Q K = 0."""
    code: str = field(init=False, compare=False, repr=False)
    """The normalised code: rank then suit, e.g. ``TH``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", RANK_VALUES[self.rank])
        object.__setattr__(self, "code", self.rank + self.suit)

    def __str__(self) -> str:
        return self.code


_CACHE: dict[str, Card] = {}


def parse_card(text: str) -> Card:
    """Parse a card code case-insensitively; ``10`` is accepted for ``T``.

    Raises :class:`CardCodeError` naming the text and the expected form.
    """
    cached = _CACHE.get(text)
    if cached is not None:
        return cached
    code = text.strip().upper()
    if not text.isascii():
        raise CardCodeError(_not_a_card(text))
    if code.startswith("10"):
        code = "T" + code[2:]
    if len(code) != 2 or code[0] not in RANKS or code[1] not in SUITS:
        raise CardCodeError(_not_a_card(text))
    card = Card(code[0], code[1])
    if len(_CACHE) < 4096:
        _CACHE[text] = card
    return card


def is_card_code(text: str) -> bool:
    """True when ``text`` parses as a card code."""
    try:
        parse_card(text)
    except CardCodeError:
        return False
    return True


def hand_total(cards: Iterable[Card]) -> int:
    """The baccarat total of a hand: the sum of the values, mod 10."""
    total = 0
    for card in cards:
        total += card.value
    return total % 10


def full_deck() -> list[Card]:
    """The 52 cards of one deck, in new-deck order by suit then rank."""
    return [Card(rank, suit) for suit in SUITS for rank in RANKS]

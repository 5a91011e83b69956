"""The Punto Banco drawing rules, as data, defined once.

Everything that decides whether a hand draws reads these tables: the round
machine's guards, the exact odds enumerator and the tests. Sources: seeds 000-004
(N.J.A.C. 13:69F-3.9).
"""

from __future__ import annotations

from typing import Final

from controller.core.events import Winner

NATURAL_TOTALS: Final = frozenset({8, 9})
"""A two-card total that ends the round at once, for both hands."""

PLAYER_DRAWS_ON: Final = frozenset({0, 1, 2, 3, 4, 5})
"""Player two-card totals that take a third card (6 and 7 stand)."""

PLAYER_STOOD: Final = "stood"
"""Column key of the banker tableau used when the player did not draw."""

TABLEAU_COLUMNS: Final[tuple[str | int, ...]] = (PLAYER_STOOD, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)

_TABLEAU_TEXT: Final = {
    # banker      player    player's third card value
    # total       stood     0 1 2 3 4 5 6 7 8 9
    0: "D DDDDDDDDDD",
    1: "D DDDDDDDDDD",
    2: "D DDDDDDDDDD",
    3: "D DDDDDDDDSD",
    4: "D SSDDDDDDSS",
    5: "D SSSSDDDDSS",
    6: "S SSSSSSDDSS",
    7: "S SSSSSSSSSS",
}

BANKER_TABLEAU: Final[dict[int, dict[str | int, bool]]] = {
    total: {
        column: mark == "D"
        for column, mark in zip(TABLEAU_COLUMNS, row.replace(" ", ""), strict=True)
    }
    for total, row in _TABLEAU_TEXT.items()
}
"""``BANKER_TABLEAU[banker_total][column]`` is True when the banker draws.

``column`` is :data:`PLAYER_STOOD` or the value (0-9) of the player's third card.
Banker totals 8 and 9 are naturals and never reach the tableau.
"""


def is_natural(two_card_total: int) -> bool:
    """True for a two-card 8 or 9."""
    return two_card_total in NATURAL_TOTALS


def player_draws(player_total: int, banker_total: int) -> bool:
    """True when the player takes a third card (no natural on either side)."""
    if is_natural(player_total) or is_natural(banker_total):
        return False
    return player_total in PLAYER_DRAWS_ON


def banker_draws(banker_total: int, player_third_value: int | None) -> bool:
    """True when the banker takes a third card.

    ``player_third_value`` is the value of the player's third card, or None when
    the player stood. Naturals are settled before this is asked.
    """
    column: str | int = PLAYER_STOOD if player_third_value is None else player_third_value
    return BANKER_TABLEAU[banker_total][column]


def winner(player_total: int, banker_total: int) -> Winner:
    """``"player"``, ``"banker"`` or ``"tie"``."""
    if player_total > banker_total:
        return "player"
    if banker_total > player_total:
        return "banker"
    return "tie"

"""What the console tells the dealer about a misdeal, in the dealer's words, written once.

The misdeal policy (:data:`controller.core.misdeals.POLICIES`) decides which resolutions a kind
offers and which need a supervisor; this module only words them. A test checks that every kind
and every resolution of the policy has its words here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

WHAT_HAPPENED: Final = {
    "extra_card": "A card came out that was not due.",
    "exposed_card": "The last card was exposed: it has been taken back from its place.",
    "unreadable_card": "The shoe could not read the card.",
    "unknown_card": "The shoe read something that is not a card.",
    "foreign_card": "A card that cannot belong to this shoe came out.",
    "two_cards": "Two cards came out together.",
    "reader_offline": "The card reader is offline.",
    "card_after_shoe_closed": "A card came out after the shoe was closed.",
    "no_dealer": "A card came out with no dealer signed in.",
    "shoe_restarted": "The shoe restarted: it may report cards again.",
    "reveal_mismatch": "The total keyed for the revealed hand is not the shoe's: a card may have been switched.",
}
"""Each misdeal kind, said as the dealer sees it."""

RESOLUTION_WORDS: Final = {
    "burn": ("B", "BURN", "put the card(s) in the discard and carry on"),
    "void": ("V", "VOID", "void the round: every bet goes back"),
    "use": ("U", "USE", "leave the card where it was dealt"),
    "manual": ("M", "TYPE", "type the card in by hand"),
    "online": ("", "RECONNECT", "reconnect the card reader; the table carries on by itself"),
}
"""Each resolution: its key (none when it is not a key), its word in large type, and what it does."""


def misdeal_keys(misdeal: Mapping[str, Any]) -> str:
    """The resolutions as large-type keys: ``"B BURN  V VOID"`` (a supervisor's resolution says so)."""
    parts = []
    supervisor = set(misdeal.get("supervisor") or [])
    for resolution in misdeal.get("resolutions") or []:
        key, word, _ = RESOLUTION_WORDS.get(str(resolution), ("", str(resolution).upper(), ""))
        parts.append(f"{key} {word}".strip() + ("+SUP" if resolution in supervisor else ""))
    return "  ".join(parts)


def misdeal_lines(misdeal: Mapping[str, Any]) -> list[str]:
    """What happened and what to do now, one line each, for the misdeal screen."""
    kind = str(misdeal.get("kind", ""))
    lines = [WHAT_HAPPENED.get(kind, f"Misdeal: {kind.replace('_', ' ')}.")]
    if misdeal.get("card"):
        lines[0] += f" Card: {misdeal['card']}."
    supervisor = set(misdeal.get("supervisor") or [])
    for resolution in misdeal.get("resolutions") or []:
        key, word, what = RESOLUTION_WORDS.get(str(resolution), ("", str(resolution), str(resolution)))
        press = f"press {key}" if key else word.capitalize()
        if resolution in supervisor:
            lines.append(f"Call the supervisor to {what}; then {press}.")
        else:
            lines.append(f"To {what}: {press}.")
    return lines

"""Each side bet's name for people (``dragon_7``: "dragon 7"), as a message to word in the table's language.

The English text is the bet's catalogue name with spaces for underscores, as the texts have always shown it.
"""

from __future__ import annotations

from controller.i18n.message import Message, message

BET_NAMES: dict[str, Message] = {
    "banker_no_commission": message("bet.banker_no_commission", "banker no commission"),
    "banker_ez": message("bet.banker_ez", "banker ez"),
    "either_pair": message("bet.either_pair", "either pair"),
    "perfect_pair": message("bet.perfect_pair", "perfect pair"),
    "dragon_7": message("bet.dragon_7", "dragon 7"),
    "panda_8": message("bet.panda_8", "panda 8"),
    "dragon_bonus_player": message("bet.dragon_bonus_player", "dragon bonus player"),
    "dragon_bonus_banker": message("bet.dragon_bonus_banker", "dragon bonus banker"),
    "big": message("bet.big", "big"),
    "small": message("bet.small", "small"),
    "lucky_6": message("bet.lucky_6", "lucky 6"),
}
"""Every bet of :data:`~controller.core.bets.catalogue.BETS` but the five standard ones (which each text names in
its own words, ``history.banker``, ``bet.player_pair``), by its catalogue name."""


def bet_name(name: str) -> Message:
    """The name for people of the catalogue bet ``name`` (an unknown name: itself, spaced)."""
    known = BET_NAMES.get(name)
    if known is not None:
        return known
    return Message("bet.unknown", "{name}", {"name": name.replace("_", " ")})



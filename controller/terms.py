"""The table's terms, defined once: the bets with their pay classes, and the actions an approval is given for.

Plain data at the bottom of the layers, read by the core and by the typed config alike: the bet catalogue
(:mod:`controller.core.bets.catalogue`) gives each bet here its rules, the misdeal policy
(:mod:`controller.core.misdeals`) offers the resolutions, and :mod:`config.schema` checks ``[bets] offered``,
``[bets.pays]`` and ``[auth] supervisor_only`` against them.
"""

from __future__ import annotations

from typing import Literal, get_args

from controller.i18n.message import Message, message

BetName = Literal["player", "banker", "banker_no_commission", "banker_ez", "tie", "player_pair", "banker_pair",
                  "either_pair", "perfect_pair", "dragon_7", "panda_8", "dragon_bonus_player", "dragon_bonus_banker",
                  "big", "small", "lucky_6"]
"""Every bet of the catalogue, in the order docs and events list them."""
BET_NAMES: tuple[BetName, ...] = get_args(BetName)

_DRAGON_BONUS = {"natural_win": "1", "win_by_9": "30", "win_by_8": "10", "win_by_7": "6", "win_by_6": "4",
                 "win_by_5": "2", "win_by_4": "1"}

DEFAULT_PAYS: dict[BetName, dict[str, str]] = {
    "player": {"win": "1"},
    "banker": {"win": "0.95"},
    "banker_no_commission": {"win": "1", "win_with_6": "0.5"},
    "banker_ez": {"win": "1"},
    "tie": {"win": "8"},
    "player_pair": {"pair": "11"},
    "banker_pair": {"pair": "11"},
    "either_pair": {"pair": "5"},
    "perfect_pair": {"pair": "25"},
    "dragon_7": {"banker_three_card_7": "40"},
    "panda_8": {"player_three_card_8": "25"},
    "dragon_bonus_player": _DRAGON_BONUS,
    "dragon_bonus_banker": _DRAGON_BONUS,
    "big": {"big": "0.54"},
    "small": {"small": "1.5"},
    "lucky_6": {"two_cards": "12", "three_cards": "20"},
}
"""Each bet's pay classes and what each wins by default, net per unit staked (a decimal, as text); a house's
``[bets.pays]`` replaces them class by class."""

BET_PAY_CLASSES: dict[BetName, tuple[str, ...]] = {name: tuple(pays) for name, pays in DEFAULT_PAYS.items()}
"""The pay classes of each bet (what ``[bets.pays]`` may set for it)."""

Variant = Literal["commission", "no_commission", "ez"]
BANKER_BY_VARIANT: dict[str, BetName] = {
    "commission": "banker",
    "no_commission": "banker_no_commission",
    "ez": "banker_ez",
}
"""The bet that settles the ``banker`` bet under each ``[table] variant``."""

BANKER_VARIANT_BETS: tuple[BetName, ...] = tuple(bet for bet in BANKER_BY_VARIANT.values() if bet != "banker")
"""Bets settled as ``banker`` when ``[table] variant`` picks them; not listed in ``[bets] offered``."""

OFFERABLE_BETS: tuple[BetName, ...] = tuple(name for name in BET_NAMES if name not in BANKER_VARIANT_BETS)
"""Names ``[bets] offered`` may list."""

STANDARD_BETS: tuple[BetName, ...] = ("player", "banker", "tie", "player_pair", "banker_pair")
"""The bets offered by default, the ones every settlement event has always covered."""

ApprovedResolution = Literal["burn", "void", "use", "manual", "online", "count"]
"""The resolutions an approval is given for under their own name."""
Resolution = Literal[ApprovedResolution, "close"]
"""How a misdeal is resolved: each is a dealer input (``@burn``...) and an action an approval is given for (``close``,
the supervisor closing the shoe on a ``count_mismatch``, as ``close_shoe``)."""
RESOLUTIONS: tuple[Resolution, ...] = get_args(Resolution)

ApprovalAction = Literal[ApprovedResolution, "foreign_card", "close_shoe"]
"""Every action an approval can be asked for: a misdeal's resolutions, voiding for a foreign card
(``foreign_card``) and closing the shoe early (``close_shoe``)."""
APPROVAL_ACTIONS: tuple[ApprovalAction, ...] = get_args(ApprovalAction)

MisdealKind = Literal["extra_card", "exposed_card", "unreadable_card", "unknown_card", "foreign_card", "two_cards",
                      "reader_offline", "card_after_shoe_closed", "no_dealer", "shoe_restarted", "sequence_gap",
                      "reveal_mismatch", "count_mismatch"]
"""Every misdeal kind the table raises (the misdeal policy's table, :data:`controller.core.misdeals.POLICIES`, has
one row for each: a test checks it)."""
MISDEAL_KINDS: tuple[MisdealKind, ...] = get_args(MisdealKind)

AlertKind = Literal["unshuffled_shoe", "sequence_repeat", "advantage", "property_check_off", "clock", "badge_lockout"]
"""Every alert kind (:data:`controller.core.alerts.SEVERITY` has one row for each: a test checks it)."""
ALERT_KINDS: tuple[AlertKind, ...] = get_args(AlertKind)

Mode = Literal["live", "simulation", "training"]
"""What a table's journal records: live play, a simulation (the mock shoe, a script: ``simulate``, ``run`` on a
mock or scripted source) or a training drill (``train``). Only ``live`` is play; the others never count as it."""
MODES: tuple[Mode, ...] = get_args(Mode)
MODE_WORDS: dict[Mode | None, Message] = {
    "live": message("mode.live", "LIVE"),
    "simulation": message("mode.simulation", "SIMULATION"),
    "training": message("mode.training", "TRAINING"),
    None: message("mode.unknown", "UNKNOWN"),
}
"""Each mode as the screens and texts name it (None: a journal that does not say)."""

__all__ = [
                  "ALERT_KINDS",
                  "APPROVAL_ACTIONS",
                  "BANKER_BY_VARIANT",
                  "BANKER_VARIANT_BETS",
                  "BET_NAMES",
                  "BET_PAY_CLASSES",
                  "DEFAULT_PAYS",
                  "MISDEAL_KINDS",
                  "MODES",
                  "MODE_WORDS",
                  "OFFERABLE_BETS",
                  "RESOLUTIONS",
                  "STANDARD_BETS",
                  "AlertKind",
                  "ApprovalAction",
                  "BetName",
                  "MisdealKind",
                  "Mode",
                  "Resolution",
                  "Variant",
]

"""Machine words said to people: a misdeal's or an alert's kind, an alert's severity, a staff role and an action a
supervisor approves, each a message of its own (``unshuffled_shoe`` is read "unshuffled shoe", in every
language). The event stream keeps the machine words; what a person reads passes them through here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from controller.i18n.catalogue import Catalogue
from controller.i18n.message import Message, Param, message

KIND_WORDS: Final[Mapping[str, Message]] = {
    "unshuffled_shoe": message("kind.unshuffled_shoe", "unshuffled shoe"),
    "sequence_repeat": message("kind.sequence_repeat", "repeated sequence"),
    "advantage": message("kind.advantage", "player advantage"),
    "property_check_off": message("kind.property_check_off", "property check off"),
    "extra_card": message("kind.extra_card", "card not due"),
    "exposed_card": message("kind.exposed_card", "exposed card"),
    "unreadable_card": message("kind.unreadable_card", "unreadable card"),
    "unknown_card": message("kind.unknown_card", "unknown card"),
    "foreign_card": message("kind.foreign_card", "foreign card"),
    "two_cards": message("kind.two_cards", "two cards together"),
    "reader_offline": message("kind.reader_offline", "reader offline"),
    "card_after_shoe_closed": message("kind.card_after_shoe_closed", "card after the shoe closed"),
    "no_dealer": message("kind.no_dealer", "no dealer signed in"),
    "shoe_restarted": message("kind.shoe_restarted", "shoe restarted"),
    "sequence_gap": message("kind.sequence_gap", "messages lost"),
    "reveal_mismatch": message("kind.reveal_mismatch", "revealed total differs"),
    "count_mismatch": message("kind.count_mismatch", "stub count differs"),
    "clock": message("kind.clock", "clock not trusted"),
    "badge_lockout": message("kind.badge_lockout", "badges locked out"),
}
"""Each misdeal and alert kind, as a person reads it."""

SEVERITY_WORDS: Final[Mapping[str, Message]] = {
    "critical": message("severity.critical", "critical"),
    "warning": message("severity.warning", "warning"),
}

ROLE_WORDS: Final[Mapping[str, Message]] = {
    "dealer": message("role.dealer", "dealer"),
    "supervisor": message("role.supervisor", "supervisor"),
}

ACTION_WORDS: Final[Mapping[str, Message]] = {
    "foreign_card": message("action.foreign_card", "void the round for a foreign card"),
    "close_shoe": message("action.close_shoe", "close the shoe early"),
}
"""The actions a supervisor approves that are no misdeal's resolution (those are worded as the dealer is told
them: :data:`controller.core.misdeals.SAY_RESOLUTION`)."""


def _worded(table: Mapping[str, Message], word: str, words: Catalogue) -> str:
    known = table.get(word)
    return words.text(known) if known is not None else word.replace("_", " ")


def named_kind(kind: str) -> Message:
    """A kind in words with its machine name after it, for a line a person may also search or report
    ("unknown card (unknown_card)")."""
    known = KIND_WORDS.get(kind)
    if known is None:
        return message("kind.unnamed", "{id}", id=kind)
    return message("kind.named", "{kind} ({id})", kind=known, id=kind)


def kind_name(kind: str, words: Catalogue) -> str:
    """A misdeal's or an alert's kind in ``words``' language (an unknown one with spaces for underscores)."""
    return _worded(KIND_WORDS, kind, words)


def severity_name(severity: str, words: Catalogue) -> str:
    """An alert's severity in ``words``' language."""
    return _worded(SEVERITY_WORDS, severity, words)


def role_name(role: str, words: Catalogue) -> str:
    """A staff role in ``words``' language."""
    return _worded(ROLE_WORDS, role, words)


def action_name(action: str, words: Catalogue, resolutions: Mapping[str, Message] | None = None) -> str:
    """What a supervisor approves, in ``words``' language (a resolution from ``resolutions``)."""
    return _worded({**(resolutions or {}), **ACTION_WORDS}, action, words)


def worded_params(params: Mapping[str, Param], words: Catalogue) -> dict[str, Param]:
    """A message's parameters with a ``kind`` said in words (the core passes the machine word)."""
    kind = params.get("kind")
    if isinstance(kind, str):
        return {**params, "kind": kind_name(kind, words)}
    return dict(params)

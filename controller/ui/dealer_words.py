"""What the console tells the dealer about a misdeal, in the dealer's words, written once.

The misdeal policy (:data:`controller.core.misdeals.POLICIES`) decides which resolutions a kind
offers and which need a supervisor; this module only words them, as catalogue messages
(docs/languages.md) shown in the table's language. A test checks that every kind and every
resolution of the policy has its words here.
"""

from __future__ import annotations

from typing import Final

from controller.core.events import EventLike
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import Message, message
from controller.ui.cardnames import card_name

WHAT_HAPPENED: Final = {
    "extra_card": message("console.misdeal.extra_card", "A card came out that was not due."),
    "exposed_card": message("console.misdeal.exposed_card",
                            "The last card was exposed: it has been taken back from its place."),
    "unreadable_card": message("console.misdeal.unreadable_card", "The shoe could not read the card."),
    "unknown_card": message("console.misdeal.unknown_card", "The shoe read something that is not a card."),
    "foreign_card": message("console.misdeal.foreign_card", "A card that cannot belong to this shoe came out."),
    "two_cards": message("console.misdeal.two_cards", "Two cards came out together."),
    "reader_offline": message("console.misdeal.reader_offline", "The card reader is offline."),
    "card_after_shoe_closed": message("console.misdeal.card_after_shoe_closed",
                                      "A card came out after the shoe was closed."),
    "no_dealer": message("console.misdeal.no_dealer", "A card came out with no dealer signed in."),
    "shoe_restarted": message("console.misdeal.shoe_restarted", "The shoe restarted: it may report cards again."),
    "sequence_gap": message("console.misdeal.sequence_gap",
                            "Messages from the shoe were lost: a card may have come out unseen."),
    "reveal_mismatch": message("console.misdeal.reveal_mismatch", "The total keyed for the revealed hand is not "
                               "the shoe's: a card may have been switched."),
    "count_mismatch": message("console.misdeal.count_mismatch", "The stub count is not the table's: a card may be "
                              "missing or added."),
}
"""Each misdeal kind, said as the dealer sees it."""

RESOLUTION_WORDS: Final = {
    "burn": ("B", message("console.resolution.burn", "BURN"),
             message("console.resolution.burn.what", "put the card(s) in the discard and carry on")),
    "void": ("V", message("console.resolution.void", "VOID"),
             message("console.resolution.void.what", "void the round: every bet goes back")),
    "use": ("U", message("console.resolution.use", "USE"),
            message("console.resolution.use.what", "leave the card where it was dealt")),
    "manual": ("M", message("console.resolution.manual", "TYPE"),
               message("console.resolution.manual.what", "type the card in by hand")),
    "online": ("", message("console.resolution.online", "RECONNECT"),
               message("console.resolution.online.what", "reconnect the card reader")),
    "count": ("T", message("console.resolution.count", "RECOUNT"),
              message("console.resolution.count.what", "count the stub again and type the number")),
    "close": ("C", message("console.resolution.close", "CLOSE"),
              message("console.resolution.close.what", "close the shoe")),
}
"""Each resolution: its key (none when it is not a key), its word in large type, and what it does."""

BY_ITSELF: Final = {
    "online": message("console.resolution.online.line", "Reconnect the card reader: the table carries on by itself "
                      "once it is back."),
}
"""The line of each resolution that is no key: what the dealer does, and what then happens by itself."""


def _resolution(resolution: str, words: Catalogue) -> tuple[str, str, str]:
    """A resolution's key, large-type word and what it does, in ``words``' language (an unknown one by name)."""
    known: tuple[str, Message, Message] | None = RESOLUTION_WORDS.get(resolution)
    if known is None:
        return "", resolution.upper(), resolution
    key, word, what = known
    return key, words.text(word), words.text(what)


def misdeal_keys(misdeal: EventLike, words: Catalogue = ENGLISH) -> str:
    """The resolutions as large-type keys: ``"B BURN  V VOID"`` (a supervisor's resolution says so)."""
    parts = []
    supervisor = set(misdeal.get("supervisor") or [])
    for resolution in misdeal.get("resolutions") or []:
        key, word, _ = _resolution(str(resolution), words)
        mark = words.say("console.resolution.supervisor_mark", "+SUP") if resolution in supervisor else ""
        parts.append(f"{key} {word}".strip() + mark)
    return "  ".join(parts)


def misdeal_lines(misdeal: EventLike, words: Catalogue = ENGLISH) -> list[str]:
    """What happened and what to do now, one line each, for the misdeal screen."""
    kind = str(misdeal.get("kind", ""))
    happened = WHAT_HAPPENED.get(kind)
    lines = [words.text(happened) if happened is not None else
             words.say("console.misdeal.other", "Misdeal: {kind}.", kind=kind.replace("_", " "))]
    if kind == "count_mismatch":  # its card is the count keyed (docs/events.md), no card: say the two counts
        params = misdeal.get("say_params") or {}
        counted, expected = params.get("counted"), params.get("expected")
        if isinstance(counted, int) and isinstance(expected, int):
            lines[0] += " " + words.say("console.misdeal.counted", "Counted {counted}; the table expects {expected}.",
                                        counted=counted, expected=expected)
    elif misdeal.get("card"):
        lines[0] += " " + words.say("console.misdeal.card", "Card: {card}.", card=card_name(str(misdeal["card"])))
    supervisor = set(misdeal.get("supervisor") or [])
    for resolution in misdeal.get("resolutions") or []:
        key, word, what = _resolution(str(resolution), words)
        if not key and resolution in BY_ITSELF:
            lines.append(words.text(BY_ITSELF[resolution]))
            continue
        press = words.say("console.press", "press {key}", key=key) if key else word.capitalize()
        if resolution in supervisor:
            lines.append(words.say("console.misdeal.supervisor", "Call the supervisor to {what}; then {press}.",
                                   what=what, press=press))
        else:
            lines.append(words.say("console.misdeal.resolve", "To {what}: {press}.", what=what, press=press))
    return lines

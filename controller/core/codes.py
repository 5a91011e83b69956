"""Every event's stable code: one table, the documented one (docs/events.md, "Event codes", checked against it).

A code names what happened, for a log searched by code (9 NYCRR 5317.26(a), Fla. Admin. Code 61D-14.046): an event
type, and for a misdeal, its resolution and an alert the kind too. A fault has the code that clears it (25 CFR
547.10(a): faults are recorded when raised and when cleared). Codes never change meaning and are never reused;
a new event or kind gets a new number. Pure data.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple, cast

from controller.core.events import Event, EventLike
from controller.terms import ALERT_KINDS, MISDEAL_KINDS


class Code(NamedTuple):
    """One event code: its number, what it means, and for a fault the code that records it cleared."""

    number: int
    meaning: str
    cleared_by: int | None = None


EVENT_CODES: Mapping[str, Code] = {
    "table": Code(100, "a run of the table began (its settings, source and mode)"),
    "shoe": Code(101, "a shoe was loaded, or confirmed shuffled and cut"),
    "burn": Code(102, "a card was burned"),
    "cut_card": Code(103, "the cut card came out"),
    "shoe_closing": Code(104, "the shoe is closed early"),
    "shoe_closed": Code(105, "the shoe was closed, with its report"),
    "round": Code(200, "a round started"),
    "edge": Code(201, "each bet's live edge before a round"),
    "prompt": Code(202, "a card is due in a slot"),
    "card": Code(203, "a card was dealt to a slot"),
    "revealed": Code(204, "a hand dealt face down was revealed"),
    "instruction": Code(205, "what the dealer must do next"),
    "result": Code(206, "a round's result"),
    "settlement": Code(207, "a round's bets settled"),
    "undone": Code(208, "an input was taken back"),
    "rejected": Code(209, "an input was refused"),
    "round_voided": Code(210, "a round was voided, its bets returned"),
    "dealer_signed_in": Code(600, "a dealer signed in with a badge"),
    "dealer_signed_out": Code(601, "the dealer signed out"),
    "sign_in_refused": Code(602, "a badge was refused"),
    "approval_required": Code(603, "an action waits for a supervisor's badge"),
    "approval": Code(604, "a supervisor approved an action"),
    "approval_refused": Code(605, "a badge could not approve an action"),
    "approval_cancelled": Code(606, "an approval was no longer needed"),
    "clock": Code(700, "the host clock's synchronisation, read at start, hourly and on a jump"),
    "stub_count": Code(211, "the dealer counted the stub ([procedures] count_every)"),
    "alert_updated": Code(490, "an advantage alert followed its bet's edge"),
    "alert_cleared": Code(491, "an advantage alert closed by itself: the advantage ended"),
    "alert_acknowledged": Code(492, "an alert was acknowledged"),
}
"""The code of each event type whose code does not depend on its kind or status."""

MISDEAL_CODES: Mapping[str, int] = {
    "extra_card": 301, "exposed_card": 302, "unreadable_card": 303, "unknown_card": 304, "foreign_card": 305,
    "two_cards": 306, "reader_offline": 307, "card_after_shoe_closed": 308, "no_dealer": 309,
    "shoe_restarted": 310, "sequence_gap": 311, "reveal_mismatch": 312, "count_mismatch": 313,
}
"""A ``misdeal`` event's code by its kind (a fault: the table halts); its ``resolved`` event's code is 50 more."""
RESOLVED_OFFSET = 50

ALERT_CODES: Mapping[str, int] = {
    "unshuffled_shoe": 401, "sequence_repeat": 402, "advantage": 403, "property_check_off": 404, "clock": 405,
    "badge_lockout": 406,
}
"""An ``alert`` event's code by its kind (a fault until acknowledged, or for an advantage until it ends)."""

READER_CODES: Mapping[str, int] = {"offline": 501, "online": 502}
"""A ``reader`` event's code by its status: offline is a fault, online clears it."""


def _all_codes() -> dict[int, Code]:
    """Every code, by number: each misdeal with its resolution, each alert kind, the reader's two."""
    table = {code.number: code for code in EVENT_CODES.values()}
    for kind, number in MISDEAL_CODES.items():
        resolved = number + RESOLVED_OFFSET
        table[number] = Code(number, f"misdeal {kind}: the table halts", resolved)
        table[resolved] = Code(resolved, f"misdeal {kind} resolved: the table goes on")
    for kind, number in ALERT_CODES.items():
        cleared = EVENT_CODES["alert_cleared"].number if kind == "advantage" else EVENT_CODES[
            "alert_acknowledged"].number
        table[number] = Code(number, f"alert {kind} raised", cleared)
    table[READER_CODES["offline"]] = Code(READER_CODES["offline"], "the card reader went offline",
                                          READER_CODES["online"])
    table[READER_CODES["online"]] = Code(READER_CODES["online"], "the card reader is back online")
    return dict(sorted(table.items()))


CODES: Mapping[int, Code] = _all_codes()
"""Every code, by number (the documented table)."""


def code_of(event: Event) -> int:
    """The stable code of ``event``."""
    name = event["event"]
    if name == "misdeal":
        return MISDEAL_CODES[str(event["kind"])]
    if name == "resolved":
        return MISDEAL_CODES[str(event["kind"])] + RESOLVED_OFFSET
    if name == "alert":
        return ALERT_CODES[str(event["kind"])]
    if name == "reader":
        return READER_CODES[str(event["status"])]
    return EVENT_CODES[name].number


def known_code(event: EventLike) -> int | None:
    """The code of ``event``, or None for an event of another producer's own shape (a training journal's)."""
    try:
        return code_of(cast(Event, event))
    except KeyError:
        return None


def codes_markdown() -> str:
    """The documented table of every code (docs/events.md, "Event codes")."""
    lines = ["| code | meaning | cleared by |", "|---|---|---|"]
    for number, code in CODES.items():
        lines.append(f"| {number} | {code.meaning} | {code.cleared_by if code.cleared_by is not None else ''} |")
    return "\n".join(lines) + "\n"


def every_kind_has_a_code() -> bool:
    """Each misdeal and alert kind the table may raise has its code."""
    return set(MISDEAL_CODES) == set(MISDEAL_KINDS) and set(ALERT_CODES) == set(ALERT_KINDS)


__all__ = ["ALERT_CODES", "CODES", "EVENT_CODES", "MISDEAL_CODES", "READER_CODES", "Code", "code_of",
           "codes_markdown", "known_code"]

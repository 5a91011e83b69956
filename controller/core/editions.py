"""The editions of the table's rules: what changed between event formats, as data.

A journal names the event format it was written in (its header's ``"events"``); replaying it (``croupier audit
verify --replay``, ``history``, the floor's property check) deals it again under that format's edition, so a
journal written before an upgrade still gives exactly the events it journaled. New tables deal under
:data:`CURRENT`. Each switch names what the later edition changed and why (issue numbers of docs/issues).
"""

from __future__ import annotations

import msgspec


class Edition(msgspec.Struct, frozen=True, gc=False):
    """The rules of one event format."""

    events: int
    """The event format (the journal header's ``"events"``)."""
    offered_advantage_alerts: bool
    """Advantage alerts for the bets the table offers only, one a bet that follows the edge while it lasts and
    closes itself when it ends (``alert_updated``, ``alert_cleared``); before: for every bet, once a shoe."""
    advantage_counter_words: bool
    """An advantage alert says the house's threshold and what a counter staking 100 expects to win."""
    critical_alert_stops: bool
    """An open critical alert stops the table: no card is dealt until it is acknowledged."""
    squeeze_order: bool
    """Face down, both two-card hands (and the player's third card) are revealed before a third card is called."""
    waits_for_reader: bool
    """Between rounds a table whose reader is offline waits for it instead of halting again."""


EDITIONS: dict[int, Edition] = {
    2: Edition(events=2, offered_advantage_alerts=False, advantage_counter_words=False, critical_alert_stops=False,
               squeeze_order=False, waits_for_reader=False),
    3: Edition(events=3, offered_advantage_alerts=True, advantage_counter_words=True, critical_alert_stops=True,
               squeeze_order=True, waits_for_reader=True),
}
"""Every edition by event format (format 1 journals were dealt under format 2's rules)."""

CURRENT = EDITIONS[max(EDITIONS)]
"""The edition new tables deal under."""


def edition_of(events_format: int) -> Edition:
    """The rules a journal of ``events_format`` was dealt under."""
    return EDITIONS.get(events_format, EDITIONS[min(EDITIONS)] if events_format < min(EDITIONS) else CURRENT)

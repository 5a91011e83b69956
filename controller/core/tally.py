"""The running totals of a table's events: rounds by winner, naturals, pairs, misdeals, voided rounds, shoes.

One pure function over events, shared by the final summary (:class:`controller.ui.transcript.Summary`) and
the journal's checkpoints (which keep the totals of the events before them, so a resumed table's summary
counts the whole game without replaying it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from decimal import Decimal

from controller.core.events import (
    Event,
    MisdealEvent,
    ResultEvent,
    RoundVoidedEvent,
    SettlementEvent,
    ShoeEvent,
    UndoneEvent,
)

KEYS = ("rounds", "banker", "player", "tie", "natural", "player_pair", "banker_pair", "misdeal", "voided",
        "shoes", "settled")
"""Every total :func:`count_events` may keep, besides each bet's net (:func:`net_key`)."""
NET_UNITS = 10**6
"""Nets are kept in millionths of a unit, exactly (pays have at most six decimal places)."""


def net_key(bet: str) -> str:
    """The total of ``bet``'s settled nets, in :data:`NET_UNITS` of a unit stake."""
    return f"net:{bet}"


def net_units(net: str) -> int:
    """A settlement's ``net`` (``"-1"``, ``"0.95"``) in millionths of a unit."""
    scaled = Decimal(net) * NET_UNITS
    if scaled != scaled.to_integral_value():
        raise ValueError(f"net {net!r} has more than six decimal places")
    return int(scaled)


def count_result(counts: Counter[str], result: ResultEvent) -> None:
    """Add a round's ``result`` to ``counts``: the round, its winner, a natural and the pairs."""
    counts["rounds"] += 1
    counts[result.winner] += 1
    counts["natural"] += result.natural
    counts["player_pair"] += result.player_pair
    counts["banker_pair"] += result.banker_pair


def count_events(counts: Counter[str], events: Iterable[Event]) -> None:
    """Add ``events`` to ``counts``."""
    for event in events:
        if isinstance(event, ResultEvent):
            count_result(counts, event)
        elif isinstance(event, MisdealEvent):
            counts["misdeal"] += 1
        elif isinstance(event, UndoneEvent) and event.input == "@exposed":
            counts["misdeal"] -= 1  # the call was pressed in error: no misdeal after all
        elif isinstance(event, RoundVoidedEvent):
            counts["voided"] += 1
        elif isinstance(event, ShoeEvent) and event.status == "new":
            counts["shoes"] += 1
        elif isinstance(event, SettlementEvent):
            counts["settled"] += 1
            for bet, outcome in event.bets.items():
                counts[net_key(bet)] += net_units(outcome.net)

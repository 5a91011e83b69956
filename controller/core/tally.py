"""The running totals of a table's events: rounds by winner, naturals, pairs, misdeals, voided rounds, shoes.

One pure function over events, shared by the final summary (:class:`controller.ui.transcript.Summary`) and
the journal's checkpoints (which keep the totals of the events before them, so a resumed table's summary
counts the whole game without replaying it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from controller.core.events import Event

KEYS = ("rounds", "banker", "player", "tie", "natural", "player_pair", "banker_pair", "misdeal", "voided",
        "shoes")
"""Every total :func:`count_events` may keep."""


def count_events(counts: Counter[str], events: Iterable[Event]) -> None:
    """Add ``events`` to ``counts``."""
    for event in events:
        if event["event"] == "result":
            counts["rounds"] += 1
            counts[event["winner"]] += 1
            counts["natural"] += event["natural"]
            counts["player_pair"] += event["player_pair"]
            counts["banker_pair"] += event["banker_pair"]
        elif event["event"] == "misdeal":
            counts["misdeal"] += 1
        elif event["event"] == "round_voided":
            counts["voided"] += 1
        elif event["event"] == "shoe" and event["status"] == "new":
            counts["shoes"] += 1

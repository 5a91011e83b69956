"""A table's delivery as the archive proves it: what the archive confirmed, and what to send it again.

The archive tells each table its archived head on the retained ``croupier/SITE/TABLE/archived``
(``{"seq", "hash", "wants"}``, :mod:`controller.floor.archive_book`). A record counts as delivered only
once that head reaches it and its hash is the journal's own; ``wants`` is the first record the archive
misses (records a broker lost, an archive started late or on an empty database). :class:`Delivery` keeps
the confirmed head and decides when to send the journal again from ``wants``: at once, except while the
archive is taking what was just sent again (asked again within :data:`REWIND_AGAIN` seconds of it, or
while the head still moves), so that a long resend is not restarted by every batch's request.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from enum import Enum

MAX_SEQ = (1 << 63) - 1
"""The highest record number a journal (SQLite) or the archive (PostgreSQL ``BIGINT``) holds."""
REWIND_AGAIN = 5.0
"""Seconds after a resend (or the archived head's last move) within which the same request is not
answered again."""


@dataclass(frozen=True)
class Archived:
    """One ``archived`` message: the archive's head for this table, and what it wants next."""

    seq: int
    hash: str | None
    wants: int | None


def parse_archived(payload: bytes) -> Archived | None:
    """An ``archived`` payload, or None when it is not one."""
    try:
        data = json.loads(payload.decode("utf-8"))
        seq, hash_, wants = data["seq"], data.get("hash"), data.get("wants")
    except (UnicodeDecodeError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None
    if not (isinstance(seq, int) and not isinstance(seq, bool) and 0 <= seq <= MAX_SEQ):
        return None  # a seq past any record number is no archive's word (the journal cannot even be asked for it)
    if not (hash_ is None or isinstance(hash_, str)) or (seq and hash_ is None):
        return None
    if not (wants is None or (isinstance(wants, int) and not isinstance(wants, bool) and 1 <= wants <= MAX_SEQ)):
        return None
    return Archived(seq, hash_, wants)


class Conflict(Enum):
    """What an archived head that is not this journal's record says of the archive's chain and this journal."""

    FORKED = "forked"
    """The archive's record at a seq this journal holds is another: its chain does not continue this journal's."""
    OLDER_COPY = "older_copy"
    """The archive confirmed records of this journal before and holds records past its end: this journal is an
    older copy (restored from a backup, or cut)."""
    AHEAD = "ahead"
    """Past this journal's end, and nothing of it confirmed: another journal, or a longer copy of this one."""


def conflict(seq: int, mine: str | None, resumed_end: int, confirmed: int) -> Conflict:
    """What the archive's head ``seq`` (not this journal's record) says: ``mine`` is this journal's hash of record
    ``seq`` (None: it has none), ``resumed_end`` the journal's last record when the table started, ``confirmed``
    the last record of it the archive ever confirmed (its ``feed_acked`` mark)."""
    if confirmed >= 1 and seq > resumed_end:
        return Conflict.OLDER_COPY
    return Conflict.AHEAD if mine is None else Conflict.FORKED


class Delivery:
    """What the archive confirmed of one journal, and the journal's records to send it again."""

    def __init__(self, confirmed: int, published: int, now: float) -> None:
        self.confirmed = confirmed
        """The archive's head, when it is this journal's record (its word, even when it went back)."""
        self.mark = confirmed
        """The highest head the archive ever confirmed: the journal's ``feed_acked`` mark."""
        self.heard = False
        """An ``archived`` message came in this run: an archive answers for this table."""
        self.foreign: int | None = None
        """The seq of an archived record that is not this journal's (another journal under this name)."""
        self.resend_next = confirmed + 1 if confirmed < published else 0
        """The next record to send again (journal message only; 0: none)."""
        self.resend_end = published
        self.rewound_at = now if self.resend_next else -math.inf
        self.rewound_from = self.resend_next
        self.moved_at = -math.inf

    def archived(self, told: Archived, mine: str | None, cursor: int, now: float) -> None:
        """Take the archive's word ``told``; ``mine`` is this journal's hash of record ``told.seq`` (None: it
        has no such record); ``cursor`` the last record handed to the broker."""
        self.heard = True
        if told.seq and told.hash != mine:
            self.foreign = told.seq
            return
        self.foreign = None
        if told.seq > self.confirmed:
            self.moved_at = now
        self.confirmed = told.seq
        self.mark = max(self.mark, told.seq)
        if told.wants is not None:
            self._asked(told.wants, cursor, now)

    def _asked(self, wants: int, cursor: int, now: float) -> None:
        if wants > cursor:
            return  # not handed to the broker yet: it is on its way
        if self.rewound_from and wants >= self.rewound_from and (
                now - self.rewound_at < REWIND_AGAIN or now - self.moved_at < REWIND_AGAIN):
            return  # what was just sent again, or the archive is still taking it
        self.resend_next, self.resend_end = wants, cursor
        self.rewound_at, self.rewound_from = now, wants

    def resent(self, seq: int) -> None:
        """Record ``seq`` was handed to the broker again."""
        self.resend_next = seq + 1 if seq < self.resend_end else 0

    @property
    def resending(self) -> bool:
        return self.resend_next != 0

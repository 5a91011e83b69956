"""A compact index of three-card runs: where each three codes in a row occur in the references.

The repeated-sequence check (:mod:`controller.core.sequence_check`) keeps every earlier shoe of
the table for the table's whole life, so its index must not cost more than the cards do. A card
is a small number (:data:`CARD_NUMBERS`, 0-51), three in a row one number, their **key**
(``a * 2704 + b * 52 + c``, below :data:`KEYS`). The index holds, for every run, one byte and
one 32-bit position, grouped by key bucket (the key's high bits, :data:`BUCKET_BITS` low bits
kept in the byte): a look-up is one ``bytearray.find`` in one small bucket, then one more per
position found. About seven bytes a card above a fixed 85 KiB, where a dict of tuples of code
strings took two hundred.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterable

from controller.core.cards import RANKS, SUITS

CARD_CODES: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""Every card code, in the order of its number."""

CARD_NUMBERS: dict[str, int] = {code: number for number, code in enumerate(CARD_CODES)}
"""A card code's number (0-51)."""

KEYS = 52 ** 3
"""How many keys three cards in a row can have."""

BUCKET_BITS = 8
"""The key's low bits kept per entry (one byte); the others choose its bucket."""

BUCKETS = (KEYS >> BUCKET_BITS) + 1

LOW_MASK = (1 << BUCKET_BITS) - 1

_NO_POSITIONS: array[int] = array("I")
"""The positions of every empty bucket (never added to: a bucket's first entry gets its own)."""


def encode(cards: Iterable[str]) -> bytes:
    """The numbers of ``cards`` (codes like ``TH``), one byte each; raises :class:`ValueError` for an unknown code."""
    try:
        return bytes(CARD_NUMBERS[code] for code in cards)
    except KeyError as error:
        raise ValueError(f"card code {error.args[0]!r} is not one of {', '.join(CARD_CODES)}") from None


def decode(numbers: bytes) -> tuple[str, ...]:
    """The codes of card numbers ``numbers`` (what :func:`encode` made)."""
    return tuple(map(CARD_CODES.__getitem__, numbers))


def gram_key(first: int, second: int, third: int) -> int:
    """The key of three card numbers in a row."""
    return first * 2704 + second * 52 + third


class GramIndex:
    """Where each run of three cards occurs: a key's positions, in the order they were added.

    Keys are grouped in :data:`BUCKETS` buckets (``key >> BUCKET_BITS``); bucket ``b`` keeps,
    per entry, the key's low byte in ``lows[b]`` and its position in ``positions[b]``, in the
    order added (a key's positions ascend, as positions are added in increasing order). A
    look-up is one ``find`` of the low byte in one bucket. The buckets change in place, so a
    holder of them sees later additions (:meth:`below` gives an index without them).
    """

    __slots__ = ("end", "lows", "positions")

    def __init__(self) -> None:
        self.lows: list[bytes | bytearray] = [b""] * BUCKETS
        """Each bucket's low bytes (an empty bucket is the shared ``b""`` until its first entry)."""
        self.positions: list[array[int]] = [_NO_POSITIONS] * BUCKETS
        self.end = 0
        """One past the last position the added cards take (0 for an empty index)."""

    def __len__(self) -> int:
        return sum(map(len, self.lows))

    def copy(self) -> GramIndex:
        """An index holding the same entries, whose buckets this one's later additions do not change."""
        twin = GramIndex.__new__(GramIndex)
        twin.lows = [bytearray(bucket) for bucket in self.lows]
        twin.positions = [array("I", bucket) for bucket in self.positions]
        twin.end = self.end
        return twin

    def below(self, limit: int) -> GramIndex:
        """A copy holding only the entries at positions below ``limit`` (each bucket's positions ascend)."""
        twin = GramIndex.__new__(GramIndex)
        cuts = [bisect.bisect_left(bucket, limit) for bucket in self.positions]
        twin.lows = [bytearray(bucket[:cut]) for bucket, cut in zip(self.lows, cuts, strict=True)]
        twin.positions = [bucket[:cut] for bucket, cut in zip(self.positions, cuts, strict=True)]
        twin.end = min(self.end, limit)
        return twin

    def add(self, numbers: bytes, base: int) -> None:
        """Index each three cards in a row of ``numbers`` under the position (``base`` + place) of the last.

        ``base`` must be past every position already indexed (a key's positions stay in order)."""
        lows, positions, bits, mask = self.lows, self.positions, BUCKET_BITS, LOW_MASK
        self.end = base + len(numbers)
        key = gram_key(0, *numbers[:2]) if len(numbers) > 1 else 0
        for position, number in enumerate(numbers[2:], base + 2):
            key = key % 2704 * 52 + number
            bucket = key >> bits
            found = lows[bucket]
            if found.__class__ is bytes:  # the bucket's first entry
                lows[bucket] = bytearray((key & mask,))
                positions[bucket] = array("I", (position,))
            else:
                found.append(key & mask)  # type: ignore[union-attr]
                positions[bucket].append(position)

    def find(self, key: int) -> list[int]:
        """The positions indexed under ``key``, in increasing order."""
        bucket, low = key >> BUCKET_BITS, key & LOW_MASK
        lows, positions = self.lows[bucket], self.positions[bucket]
        found = []
        at = lows.find(low)
        while at >= 0:
            found.append(positions[at])
            at = lows.find(low, at + 1)
        return found

"""The live edge's multiset tables as a compact data file shipped with the package.

:func:`controller.core.bets.exact.build_table_data` classifies every deal of four to six baccarat values
through the rules table (a constant of the rules, about a second of work); ``python -m controller.cli.gendata``
writes the result to ``controller/core/bets/exact_tables.bin`` with :func:`encode`, and every process reads it
back with :func:`load` (package data, read once through the import system as a module's code is; the core does
no other reading), a test checking that the file is what the classification gives today.

The format, little-endian: the 8 bytes ``CRPXT001``; the number of multisets of 1 to 6 values (6 x uint16);
each multiset's parent (the index of the multiset less its largest value, one level down; uint16 each, level
by level); each multiset's factor (``10 * j + v``: its largest value ``v``, of which the parent holds ``j``;
uint8 each, level by level); the number of final positions (uint16) and of their entries (uint32); each
position (player total, banker total, player cards, banker cards: 4 x uint8) and its number of entries
(uint16); every entry's multiset index (uint16, position by position); every entry's number of orderings
(uint8, in the same order). The compiled kernel (``_kernel.c``) reads the same bytes.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from functools import cache

Position = tuple[int, int, int, int]
"""A round's final position: player total, banker total, player cards, banker cards."""
TableData = tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...],
                  tuple[tuple[Position, tuple[int, ...], tuple[int, ...]], ...]]
"""The tables as plain data: parents, factors, and each position with its multisets' indices and orderings."""

MAGIC = b"CRPXT001"
RESOURCE = "exact_tables.bin"
LEVELS = 6


def _array(code: str, items: Sequence[int]) -> bytes:
    numbers = array(code, items)
    if sys.byteorder != "little":
        numbers.byteswap()
    return numbers.tobytes()


def encode(data: TableData) -> bytes:
    """The file's bytes for the tables ``data``."""
    parents, factors, positions = data
    if len(parents) != LEVELS or len(factors) != LEVELS:
        raise ValueError(f"expected {LEVELS} levels of multisets")
    entries = sum(len(found) for _, found, _ in positions)
    out = [MAGIC, _array("H", [len(level) for level in parents])]
    out += [_array("H", level) for level in parents]
    out += [bytes(level) for level in factors]
    out.append(_array("H", [len(positions)]) + _array("I", [entries]))
    for position, found, _ in positions:
        out.append(bytes(position) + _array("H", [len(found)]))
    out += [_array("H", found) for _, found, _ in positions]
    out += [bytes(orderings) for _, _, orderings in positions]
    return b"".join(out)


class _Reader:
    def __init__(self, blob: bytes) -> None:
        self.blob = memoryview(blob)
        self.at = 0

    def take(self, size: int) -> memoryview:
        if self.at + size > len(self.blob):
            raise ValueError("the edge tables end too early")
        chunk = self.blob[self.at:self.at + size]
        self.at += size
        return chunk

    def numbers(self, code: str, count: int) -> array[int]:
        found = array(code)
        found.frombytes(self.take(count * found.itemsize))
        if sys.byteorder != "little":
            found.byteswap()
        return found


def decode(blob: bytes) -> TableData:
    """The tables the file's bytes ``blob`` hold (:func:`encode`'s inverse)."""
    reader = _Reader(blob)
    if bytes(reader.take(len(MAGIC))) != MAGIC:
        raise ValueError("not the edge tables (their first bytes differ)")
    sizes = reader.numbers("H", LEVELS)
    parents = tuple(tuple(reader.numbers("H", size)) for size in sizes)
    factors = tuple(tuple(reader.take(size)) for size in sizes)
    (count,) = reader.numbers("H", 1)
    reader.numbers("I", 1)
    heads = [(tuple(reader.take(4)), reader.numbers("H", 1)[0]) for _ in range(count)]
    members = [tuple(reader.numbers("H", size)) for _, size in heads]
    orderings = [tuple(reader.take(size)) for _, size in heads]
    if reader.at != len(blob):
        raise ValueError("the edge tables have bytes past their end")
    positions = tuple((head, found, times) for (head, _), found, times in zip(heads, members, orderings, strict=True))
    return parents, factors, positions  # type: ignore[return-value]


@cache
def blob() -> bytes:
    """The shipped file's bytes, read once per process."""
    import pkgutil

    found = pkgutil.get_data(__package__ or "controller.core.bets", RESOURCE)
    if found is None:
        raise FileNotFoundError(f"{RESOURCE} is missing from the package; reinstall croupier")
    return found


@cache
def position_order() -> tuple[Position, ...]:
    """The final positions in the file's order (the order the kernel's groups index), read from its heads."""
    reader = _Reader(blob())
    reader.take(len(MAGIC))
    sizes = reader.numbers("H", LEVELS)
    reader.take(3 * sum(sizes))
    (count,) = reader.numbers("H", 1)
    reader.numbers("I", 1)
    heads = []
    for _ in range(count):
        pt, bt, pn, bn = reader.take(4)
        reader.take(2)
        heads.append((pt, bt, pn, bn))
    return tuple(heads)


@cache
def load() -> TableData:
    """The shipped tables, decoded once per process."""
    return decode(blob())


__all__ = ["MAGIC", "RESOURCE", "Position", "TableData", "blob", "decode", "encode", "load", "position_order"]

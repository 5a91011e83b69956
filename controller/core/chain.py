"""An immutable sequence that grows at its end in constant time: the table state's lists.

A :class:`Chain` is a view of the first ``len`` items of a list it may share with the chains it grew from.
:meth:`Chain.plus` appends in place when this chain is the list's longest view (the usual case: a table's
state only ever grows its newest value), and copies otherwise, so every chain still shows exactly what it
showed when it was made. A card read while halted thus costs the same at the ten-thousandth held card as at
the first, where a tuple copied on every append would cost as many steps as cards held.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Generic, TypeVar, overload

T = TypeVar("T")
_new = object.__new__


class Chain(Sequence[T], Generic[T]):
    """An immutable sequence; :meth:`plus` and :meth:`extended` return longer ones."""

    __slots__ = ("_items", "_len")

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._items: list[T] = list(items)
        self._len = len(self._items)

    @classmethod
    def _view(cls, items: list[T], length: int) -> Chain[T]:
        chain: Chain[T] = _new(cls)
        chain._items = items
        chain._len = length
        return chain

    def plus(self, item: T) -> Chain[T]:
        """This chain with ``item`` after its last."""
        items = self._items
        length = self._len
        if len(items) != length:
            items = items[:length]
        items.append(item)
        chain: Chain[T] = _new(Chain)
        chain._items = items
        chain._len = length + 1
        return chain

    def extended(self, more: Iterable[T]) -> Chain[T]:
        """This chain with ``more`` after its last."""
        items = self._items
        if len(items) != self._len:
            items = items[: self._len]
        items.extend(more)
        return Chain._view(items, len(items))

    def without_last(self) -> Chain[T]:
        """This chain without its last item."""
        return Chain._view(self._items, max(0, self._len - 1))

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return self._items[: self._len][index]
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("chain index out of range")
        return self._items[index]

    def __iter__(self) -> Iterator[T]:
        items, length = self._items, self._len
        if len(items) == length:
            return iter(items)
        return iter(items[:length])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Chain):
            return list(self) == list(other)
        if isinstance(other, list | tuple):
            return list(self) == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Chain({list(self)!r})"

    def to_list(self) -> list[T]:
        """The items, as a new list."""
        return self._items[: self._len]

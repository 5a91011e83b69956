"""Feeding tokens (``docs/scripts.md``: cards, ``??``, ``@shoe``, ``@burn`` ...) to a real table core, the one place
the tests do it: :func:`feed` gives a table each input in turn (:func:`one_by_one` with the events of each),
:func:`dealt` deals them on a fresh table from its start, :func:`table_of` makes that table from the embedded
defaults."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from config.loader import load_config
from controller.core.events import Event
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.table import Table

NO_BURN: Mapping[str, object] = {"burn": "none"}
"""The ``[shoe]`` of a table that deals at once, with no burn (what most tests deal on)."""


def table_of(**sections: Mapping[str, object]) -> Table:
    """A fresh table on the embedded defaults with these sections' keys (``shoe={"burn": "none"}``); no variable of
    the environment counts."""
    return Table(load_config(environ={}, overrides={name: dict(keys) for name, keys in sections.items()}))


def one_by_one(table: Table, tokens: str) -> Iterator[tuple[Input, list[Event]]]:
    """Give ``table`` each input of ``tokens`` in turn, yielding it with the events it gave."""
    for item in parse_tokens(tokens):
        yield item, table.handle(item)


def feed(table: Table, tokens: str) -> list[Event]:
    """Give ``table`` each input of ``tokens`` in turn; the events of them all, in order."""
    return [event for _, events in one_by_one(table, tokens) for event in events]


def dealt(tokens: str, table: Table | None = None, confirm: bool = True) -> list[Event]:
    """Every event of ``table`` (default: a fresh one with no burn) from its start: the start, the dealer confirming
    the new shoe (unless not ``confirm``), then ``tokens``."""
    table = table if table is not None else table_of(shoe=NO_BURN)
    events = table.start()
    if confirm:
        events += table.handle(Input(InputKind.SHOE))
    return events + feed(table, tokens)

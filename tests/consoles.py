"""The dealer console as a table shows it: its events and the table's own view, as ``croupier run`` gives them."""

from __future__ import annotations

from typing import Any, NamedTuple

from controller.core.events import Event
from controller.core.published import View
from controller.core.table import Table
from controller.ui.console import DealerConsole
from tests.tokens import NO_BURN, dealt, one_by_one, table_of


class Shown(NamedTuple):
    """What a table gave a console: its events and then its own view."""

    events: list[Event]
    view: View


def shown(tokens: str = "", table: Table | None = None, confirm: bool = True) -> Shown:
    """Every event of ``table`` (default: a fresh one with no burn) from its start and ``tokens``
    (:func:`tests.tokens.dealt`), and the table's view after them."""
    table = table if table is not None else table_of(shoe=NO_BURN)
    events = dealt(tokens, table, confirm)
    return Shown(events, table.view)


def console_dealt(tokens: str = "", table: Table | None = None, confirm: bool = True, **options: Any) -> DealerConsole:
    """A console that was shown :func:`shown` ``(tokens, table, confirm)``; ``options`` go to the console."""
    events, view = shown(tokens, table, confirm)
    return DealerConsole(events=events, table=view, **options)


def show_more(console: DealerConsole, table: Table, tokens: str) -> None:
    """Give ``table`` the inputs of ``tokens`` and show ``console`` their events and the table's view, as the
    running table does after each input."""
    for _, events in one_by_one(table, tokens):
        console.apply_batch(events, table.view)

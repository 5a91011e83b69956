"""Tables in every state of the round machine, and the machine with a row taken out: what the tests of "the machine
owns the round flow" (issue 26 item 3) deal on.

:func:`table_states` plays a few seeded shoes with a dealer that mostly does what the table asks and sometimes errs
(every state of the flow, halts, stub counts, squeezes, closed shoes) and keeps a handful of the tables' states of
each kind (once a process, when a test first asks). :func:`without_row` takes the rows of one trigger from one
state out of the machine's compiled table, so a test can see that a decision follows the table: one taken by hand
would not change.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache

import pytest

from config.loader import load_config
from config.schema import Settings
from controller.core import machine
from controller.core.editions import EDITIONS, Edition
from controller.core.inputs import parse_tokens
from controller.core.machine import State
from controller.core.state import TableState
from controller.core.stopping import stopping_alert
from controller.core.table import Table

CODES = [rank + suit for rank in "A23456789TJQK" for suit in "SHDC"]
ERRORS = ["??", "@double", "ZZ", "@exposed", "@next", "@cut", "@offline", "@online", "@undo", "@reveal", "@close",
          "@shoe", "@count", "@count 7"]


@dataclass(frozen=True)
class Case:
    """A table's state, with the settings and edition it was dealt under."""

    settings: Settings
    edition: Edition
    value: TableState

    def table(self) -> Table:
        """A table in this state (each call a new one: a probe may step it)."""
        table = Table(self.settings, self.edition)
        table.value = self.value
        return table

    @property
    def running(self) -> bool:
        """Nothing but the flow decides: no pending misdeal, no critical alert, the reader there."""
        table = self.table()
        return (self.value.misdeal is None and self.value.reader_online
                and stopping_alert(self.value, table.context) is None)


SETTINGS: tuple[tuple[dict[str, dict[str, object]], int], ...] = (
    ({"shoe": {"burn": "none", "cut_card": "this_round"}, "table": {"decks": 1}}, 3),
    ({"shoe": {"burn": "first_card"}, "table": {"decks": 1, "dealing": "face_down"},
      "procedures": {"count_every": 2}}, 3),
    ({"shoe": {"burn": "fixed"}, "table": {"decks": 1, "dealing": "face_down", "reveal_confirm": "total"},
      "procedures": {"count_every": 1}}, 2),
    ({"shoe": {"burn": "first_card"}, "table": {"decks": 8}, "procedures": {"count_every": 3}}, 3),
)
"""(settings, edition): face up and down (a squeeze game, and an edition before it), every burn, stub counts."""


def _play(overrides: dict[str, dict[str, object]], edition: Edition, seed: int, keep: dict[tuple[object, ...],
          list[TableState]]) -> Settings:
    settings = load_config(environ={}, overrides={**overrides, "bets": {"live_edge": False}})
    table = Table(settings, edition)
    table.start()
    rng = random.Random(seed)
    shoe: list[str] = []
    for _ in range(900):
        value = table.value
        kind = (value.round.state, value.misdeal is None, value.result_due, value.reader_online,
                value.round.uncounted, bool(value.slots_dealt))
        if len(keep.setdefault(kind, [])) < 3 and value not in keep[kind]:
            keep[kind].append(value)
        view = table.view
        if rng.random() < 0.06:
            token = rng.choice(ERRORS)
        elif view.expecting in ("player", "banker", "burn") or not view.accepts:
            if not shoe:
                shoe = CODES * table.decks
                rng.shuffle(shoe)
            token = shoe.pop()
        else:
            choice = rng.choice(view.accepts)
            if choice == "shoe":
                shoe = CODES * table.decks
                rng.shuffle(shoe)
            due = table.reveal_due
            token = {"manual": "@manual " + (shoe[-1] if shoe else "AS"), "count": "@count",
                     "ack": "@ack " + (view.alerts[0]["id"] if view.alerts else "A1"),
                     "reveal": f"@reveal {due.total}" if due is not None else "@reveal"}.get(choice, "@" + choice)
        for item in parse_tokens(token):
            table.handle(item)
    return settings


@cache
def table_states() -> tuple[Case, ...]:
    """States of tables dealt by :data:`SETTINGS`: a few of each kind (the round's state, halted or not, a result
    due, the reader there, rounds since the stub count, cards down); dealt once a process, on first use."""
    cases: list[Case] = []
    for number, (overrides, edition_number) in enumerate(SETTINGS):
        edition = EDITIONS[edition_number]
        keep: dict[tuple[object, ...], list[TableState]] = {}
        settings = _play(overrides, edition, number, keep)
        cases += [Case(settings, edition, value) for values in keep.values() for value in values]
    return tuple(cases)


def says(case: Case, trigger: str) -> bool:
    """What the machine's table says of ``trigger`` at this table now: no pending misdeal holds the round, no result
    waits for its reveals, and the table has a row whose guard holds."""
    value = case.value
    rules = case.table().context.rules
    return value.misdeal is None and not value.result_due and machine.may(trigger, value.round, rules)


def rows_from(state: State, trigger: str) -> bool:
    """The machine has a row for ``trigger`` from ``state``."""
    return any(row.trigger == trigger and state in row.source for row in machine.TRANSITIONS)


@contextmanager
def without_row(state: State, trigger: str) -> Iterator[None]:
    """The machine without its rows for ``trigger`` from ``state``: ``may`` and ``fire`` refuse it there."""
    compiled = {key: rows for key, rows in machine.COMPILED.items() if key != (state, trigger)}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(machine, "COMPILED", compiled)
        yield

"""A reader that floods a halted table: each card read while halted costs the same work however many the
table already holds (no quadratic path), counted in bytecode instructions and memory, never timed."""

from __future__ import annotations

import itertools

import pytest

from config.loader import load_config
from controller.core.events import MisdealEvent, ResolvedEvent
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.machine import State
from controller.core.misdeals import SHOE_CARD
from controller.core.table import Table
from tests.typed_events import every
from tests.work import Work, work_of

CODES = [rank + suit for rank in "A23456789TJQK" for suit in "SHDC"]
FLOOD = [Input(InputKind.CARD, code) for code in CODES] + [
    Input(InputKind.UNREADABLE), Input(InputKind.DOUBLE), Input(InputKind.CARD, "ZZ")]
"""One cycle of what a stuck or noisy reader sends: every card code (shoe cards, then foreign ones once every
copy is out), an unread card, two cards at once, a code that is no card."""
HALTS = {
    "between rounds (extra_card)": "9S 8H KD 2C 3S",
    "mid-round on an unread card (unreadable_card)": "9S ??",
}


def halted(before: str) -> Table:
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"},
                                                     "simulation": {"auto_next": False}}))
    table.start()
    table.handle(Input(InputKind.SHOE))
    for item in parse_tokens(before):
        table.handle(item)
    assert table.state is State.HALTED
    return table


def flood(table: Table, inputs: int) -> None:
    for item in itertools.islice(itertools.cycle(FLOOD), inputs):
        table.handle(item)


def one_cycle(table: Table) -> Work:
    """The work of one input, averaged over a whole cycle of the flood."""
    return work_of(lambda: flood(table, len(FLOOD))).per(len(FLOOD))


@pytest.mark.parametrize("before", HALTS.values(), ids=HALTS.keys())
def test_a_card_read_while_halted_costs_the_same_at_n_and_ten_n_cards_held(before: str) -> None:
    table = halted(before)
    flood(table, 400)
    at_n = one_cycle(table)
    flood(table, 3600)
    at_ten_n = one_cycle(table)
    assert table.misdeal is not None and len(table.misdeal.held) > 4000
    assert at_ten_n.instructions <= at_n.instructions * 1.1, (at_n, at_ten_n)
    assert at_ten_n.peak_bytes <= at_n.peak_bytes * 1.5, (at_n, at_ten_n)


def test_the_flood_is_held_and_set_aside_whole() -> None:
    table = halted(HALTS["between rounds (extra_card)"])
    events = [event for item in FLOOD * 20 for event in table.handle(item)]
    misdeals = every(events, MisdealEvent)
    assert len(misdeals) == len(FLOOD) * 20 and all(misdeal.get("while_halted") for misdeal in misdeals)
    assert table.misdeal is not None
    held = list(table.misdeal.held)
    assert len(held) == 1 + 20 * (len(FLOOD) + 1), "the extra card, then the flood (@double holds two)"
    resolved = every(table.handle(Input(InputKind.BURN)), ResolvedEvent)
    assert len(resolved) == 1 and resolved[0]["cards"] == [text for text, _ in held]
    assert held[0] == ("3S", SHOE_CARD)
    assert table.cards_seen + len(table.foreign) == 4 + len(held), \
        "every card out of the shoe is counted once: in the shoe's count or as foreign"

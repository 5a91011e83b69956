"""The property watch: the table's cards compared with other tables' shoes, findings given as journaled inputs."""

from __future__ import annotations

import random

from config.loader import load_config
from controller.app.property_watch import PropertyWatch
from controller.core.cards import RANKS
from controller.core.exceptions import ArchiveError
from controller.core.inputs import Input, InputKind, card_read
from controller.core.property_check import PropertyRepeat, PropertyShoe
from controller.core.table import Table


def shoe(seed: int) -> list[str]:
    cards = [rank + suit for rank in RANKS for suit in "SHDC"] * 8
    random.Random(seed).shuffle(cards)
    return cards


def dealt(table: Table, watch: PropertyWatch, codes: list[str]) -> list[Input]:
    """Hand ``codes`` to ``table`` as the runner does, the watch's findings fed in after each card."""
    found: list[Input] = []
    for code in codes:
        table.handle(card_read(code))
        for finding in watch.after(table):
            found.append(finding)
            table.handle(finding)
    return found


def fresh_table() -> Table:
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}}))
    table.start()
    table.handle(Input(InputKind.SHOE))
    return table


def test_a_run_of_another_tables_shoe_gives_one_finding_naming_it() -> None:
    earlier = shoe(1)[:80]
    notices: list[str] = []
    watch = PropertyWatch(lambda: [PropertyShoe("casino", "t2", 4, tuple(earlier))], notices.append)
    table = fresh_table()
    watch.prime(table)
    cards = [code for code in shoe(2) if code not in earlier[20:60]][:15] + earlier[20:60]
    found = dealt(table, watch, cards[:4])
    table.handle(Input(InputKind.NEXT))
    found += dealt(table, watch, cards[4:])
    assert len(found) == 1 and notices == []
    finding = PropertyRepeat.from_text(found[0].card or "")
    assert (finding.site, finding.table, finding.shoe) == ("casino", "t2", 4)
    assert (finding.start, finding.earlier_start) == (16, 21)
    assert finding.threshold == 0.5e-6 / (416 * 80), "half the one-in-a-million bound, over every alignment"
    assert [alert["earlier_table"] for alert in table.alerts.open_alerts] == ["t2"]


def test_an_archive_that_cannot_be_read_is_said_once_and_nothing_is_found() -> None:
    notices: list[str] = []

    def load() -> list[PropertyShoe]:
        raise ArchiveError("--archive 'postgresql://host/db': cannot connect to the database (refused)")

    watch = PropertyWatch(load, notices.append)
    table = fresh_table()
    watch.prime(table)
    assert dealt(table, watch, shoe(3)[:4]) == []
    assert not watch.active
    assert notices == ["--archive 'postgresql://host/db': cannot connect to the database (refused); the property "
                       "check is off; this table's own shoes are still compared"]


def test_a_finding_that_is_not_one_is_rejected_naming_it() -> None:
    table = fresh_table()
    events = table.handle(Input(InputKind.PROPERTY_REPEAT, '{"site": "x"}'))
    assert events[0]["event"] == "rejected" and "not a property check finding" in str(events[0]["reason"])
    assert table.alerts.open_alerts == []

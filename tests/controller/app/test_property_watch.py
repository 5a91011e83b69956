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
    off = watch.prime(table)
    assert [item.kind for item in off] == [InputKind.PROPERTY_OFF]
    table.handle(off[0])
    assert dealt(table, watch, shoe(3)[:4]) == []
    assert not watch.active
    assert notices == ["--archive 'postgresql://host/db': cannot connect to the database (refused); the property "
                       "check is off; this table's own shoes are still compared"]
    alert, = table.alerts.open_alerts
    assert (alert["kind"], alert["severity"], alert["say_id"]) == ("property_check_off", "warning",
                                                                    "alert.property_check_off")
    assert "cannot connect to the database" in alert["detail"] and "threshold" not in alert
    table.handle(Input(InputKind.CLOSE))
    table.handle(Input(InputKind.SHOE))
    assert dealt(table, watch, shoe(4)[:4]) == [], "one alert for the outage, not one per shoe"
    assert len(notices) == 1



def test_an_archive_lost_after_a_load_keeps_the_shoes_loaded_before_and_is_not_off() -> None:
    loads: list[int] = []

    def load() -> list[PropertyShoe]:
        loads.append(1)
        if len(loads) > 1:
            raise ArchiveError("--archive 'postgresql://host/db': cannot read the archive (gone)")
        return []

    watch = PropertyWatch(load, lambda _: None)
    table = fresh_table()
    assert watch.prime(table) == [] and dealt(table, watch, ["9S", "KD", "9H", "2C"]) == []  # a natural: over
    table.handle(Input(InputKind.CLOSE))
    table.handle(Input(InputKind.SHOE))
    off = watch.after(table)
    assert len(loads) == 2 and table.shoe_number == 2
    assert off == [], "the shoes loaded before are still compared: not off"
    assert Input.from_dict(Input(InputKind.PROPERTY_OFF, "why").to_dict()) == Input(InputKind.PROPERTY_OFF, "why")


def test_a_finding_that_is_not_one_is_rejected_naming_it() -> None:
    table = fresh_table()
    events = table.handle(Input(InputKind.PROPERTY_REPEAT, '{"site": "x"}'))
    assert events[0]["event"] == "rejected" and "not a property check finding" in str(events[0]["reason"])
    assert table.alerts.open_alerts == []


def test_the_check_being_off_is_an_open_warning_on_the_console_and_in_the_tables_language() -> None:
    import asyncio

    from controller.i18n.catalogue import Catalogue
    from controller.ui.console import DealerConsole
    from controller.ui.localise import Localiser
    from tests.controller.ui.test_console import rendered

    def load() -> list[PropertyShoe]:
        raise ArchiveError("--archive 'postgresql://host/db': cannot connect to the database (refused)")

    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}}))
    events = table.start() + table.handle(Input(InputKind.SHOE))
    for item in PropertyWatch(load, lambda _: None).prime(table):
        events += table.handle(item)
    alert = next(event for event in events if event["event"] == "alert")
    assert "floor archive" not in str(Localiser(Catalogue("ja")).event(alert).get("detail"))
    assert "フロアのアーカイブを読めません" in str(Localiser(Catalogue("ja")).event(alert).get("detail"))

    async def main() -> None:
        app = DealerConsole(events=events)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert app.screen.query_one("#alert-box").display is True
            assert "WARNING property_check_off" in rendered(app, "#alert-text")
            assert "1 ALERT OPEN" in rendered(app, "#top-bar")

    asyncio.run(main())

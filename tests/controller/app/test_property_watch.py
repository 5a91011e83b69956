"""The property watch: the table's cards compared with other tables' shoes, findings given as journaled inputs."""

from __future__ import annotations

import json
import random

from config.loader import load_config
from controller.app.property_watch import PropertyWatch
from controller.core.cards import RANKS
from controller.core.exceptions import ArchiveError
from controller.core.inputs import Input, InputKind, card_read
from controller.core.property_check import PropertyRepeat, PropertyShoe
from controller.core.table import Table
from tests.pilot_wait import settle


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
            await settle(pilot)
            assert app.screen.query_one("#alert-box").display is True
            assert "WARNING property_check_off" in rendered(app, "#alert-text")
            assert "1 ALERT OPEN" in rendered(app, "#top-bar")

    asyncio.run(main())


def carried_shoe() -> tuple[PropertyWatch, list[str]]:
    """A watch over another table's shoe, and a shoe that deals 40 of its cards in its order after 15 others."""
    earlier = shoe(1)[:80]
    watch = PropertyWatch(lambda: [PropertyShoe("casino", "t2", 4, tuple(earlier))], lambda _: None)
    return watch, [code for code in shoe(2) if code not in earlier[20:60]][:15] + earlier[20:60]


def dealt_whole(table: Table, watch: PropertyWatch, cards: list[str]) -> list[Input]:
    watch.prime(table)
    found = dealt(table, watch, cards[:4])
    table.handle(Input(InputKind.NEXT))
    return found + dealt(table, watch, cards[4:])


def resumed(table: Table) -> Table:
    """The table a resume from a checkpoint taken now gives."""
    from controller.core.snapshot import restore, snapshot

    return restore(table.settings, json.loads(json.dumps(snapshot(table))))


def test_a_finding_given_again_this_shoe_is_refused_and_opens_no_second_alert() -> None:
    watch, cards = carried_shoe()
    table = fresh_table()
    finding, = dealt_whole(table, watch, cards)
    again = table.handle(finding)
    assert again[0]["event"] == "rejected" and "already given (alert A1)" in str(again[0]["reason"])
    table.handle(Input(InputKind.ACK, "A1"))
    assert table.handle(finding)[0]["event"] == "rejected", "acknowledged, it is still given"
    assert resumed(table).handle(finding)[0]["event"] == "rejected", "a checkpoint keeps what was given"
    assert table.alerts.raised == 1 and table.alerts.open_alerts == []


def test_a_watch_resumed_after_a_stop_between_a_card_and_its_finding_gives_that_finding_once() -> None:
    watch, cards = carried_shoe()
    reference = fresh_table()
    finding, = dealt_whole(reference, watch, cards)
    _, cards = carried_shoe()
    table = fresh_table()
    lost: list[Input] = []
    watch = PropertyWatch(watch.load, lambda _: None)
    watch.prime(table)
    table.handle(card_read(cards[0]))
    for code in cards[1:]:
        table.handle(card_read(code))
        lost = watch.after(table)
        if lost:
            break  # the controller stops: the card is committed, its finding is not
    assert lost == [finding]
    table = resumed(table)
    given = PropertyWatch(watch.load, lambda _: None).prime(table)
    assert given == [finding]
    alert = table.handle(given[0])[0]
    assert alert == reference.alerts.open_alerts[0]
    assert PropertyWatch(watch.load, lambda _: None).prime(resumed(table)) == [], "given once"


def test_a_resumed_watch_gives_none_of_the_findings_the_table_holds_open_or_acknowledged() -> None:
    watch, cards = carried_shoe()
    table = fresh_table()
    assert len(dealt_whole(table, watch, cards)) == 1
    assert PropertyWatch(watch.load, lambda _: None).prime(resumed(table)) == []
    table.handle(Input(InputKind.ACK, "A1"))
    assert PropertyWatch(watch.load, lambda _: None).prime(resumed(table)) == []


def test_a_snapshot_written_before_findings_were_kept_loads_with_none_and_a_new_shoe_starts_with_none() -> None:
    from controller.core.snapshot import restore, snapshot

    watch, cards = carried_shoe()
    table = fresh_table()
    dealt_whole(table, watch, cards)
    state = snapshot(table)
    assert state["property_findings"] == [["casino", "t2", 4, 16, 21, "A1"]]
    del state["property_findings"]
    assert restore(table.settings, state).ledger.property_findings == {}
    table.handle(Input(InputKind.ACK, "A1"))  # the repeated sequence stops the table until released
    for kind in (InputKind.VOID, InputKind.CLOSE, InputKind.SHOE):  # the carried shoe ends halted on a misdeal
        table.handle(Input(kind))
    assert table.shoe_number == 2
    assert snapshot(table)["property_findings"] == []

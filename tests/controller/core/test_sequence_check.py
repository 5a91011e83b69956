"""The repeated-sequence alert: replayed, partly replayed and cut shoes are caught; random ones never."""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from config.loader import load_config
from controller.app.runner import Runner
from controller.core.cards import parse_card
from controller.core.events import Event
from controller.core.inputs import Input, InputKind, card_read
from controller.core.property_check import PropertyArchive, PropertyShoe
from controller.core.sequence_check import (
    FALSE_ALARM,
    SequenceArchive,
    SequenceMonitor,
    SequenceRepeat,
    factory_order,
    false_alarm_budgets,
)
from controller.core.shoe import shuffled_shoe
from controller.core.table import Table
from drivers.mock import MockShoe
from tests.hypothesis_profile import examples

DECKS = 8


def random_shoe(rng: random.Random, decks: int = DECKS) -> list[str]:
    cards = factory_order(decks)
    rng.shuffle(cards)
    return cards


def deal(cards: list[str], archive: SequenceArchive, decks: int = DECKS) -> tuple[SequenceRepeat | None, int]:
    """Compare ``cards`` with ``archive``; the first repeat found and the 1-based card it came on."""
    monitor = SequenceMonitor(archive, decks)
    seen: Counter[str] = Counter()
    for index, code in enumerate(cards):
        found = monitor.observe(parse_card(code), seen, index)
        if found is not None:
            return found, index + 1
        seen[code] += 1
    return None, 0


def archive_of(*shoes: list[str], decks: int = DECKS) -> SequenceArchive:
    archive = SequenceArchive(decks)
    for number, cards in enumerate(shoes, start=1):
        archive.add_shoe(number, cards)
    return archive


def with_block(rng: random.Random, block: list[str], decks: int = DECKS) -> list[str]:
    """A random shoe (same composition) holding ``block`` in order at a random place."""
    rest = Counter(factory_order(decks))
    rest.subtract(block)
    others = list(rest.elements())
    rng.shuffle(others)
    at = rng.randrange(len(others) + 1)
    return others[:at] + block + others[at:]


def implausible_after(cards: list[str], start: int, decks: int, threshold: float) -> int:
    """How many cards from ``start`` (0-based) a run must match before its probability falls below
    ``threshold``, counted from the shoe's composition independently of the monitor."""
    seen = Counter(cards[:start])
    log_p = 0.0
    for length, code in enumerate(cards[start:], start=1):
        unseen = 52 * decks - sum(seen.values())
        log_p += math.log((decks - seen[code]) / unseen)
        seen[code] += 1
        if log_p < math.log(threshold):
            return length
    raise AssertionError("the run never becomes implausible")


def test_a_replayed_shoe_is_caught_as_soon_as_the_run_is_implausible() -> None:
    first = random_shoe(random.Random(1))
    archive = archive_of(first)
    found, at = deal(first, archive)
    assert found is not None
    assert (found.reference.shoe, found.reference.order) == (1, "dealt")
    assert (found.start, found.earlier_start) == (1, 1)
    threshold = FALSE_ALARM / (52 * DECKS * (3 * 52 * DECKS))
    assert math.isclose(found.threshold, threshold)
    needed = implausible_after(first, 0, DECKS, threshold)
    assert found.length == needed == at
    assert needed < 12  # a handful of cards in an eight-deck shoe
    assert found.probability < found.threshold


def test_a_partly_replayed_shoe_names_where_the_run_starts_in_both() -> None:
    rng = random.Random(2)
    first = random_shoe(rng)
    block = first[100:130]
    second = with_block(rng, block)
    start = next(i for i in range(len(second)) if second[i:i + 30] == block)
    found, at = deal(second, archive_of(first))
    assert found is not None and found.reference.order == "dealt"
    assert found.earlier_start <= 101 and found.start <= start + 1
    assert found.start - found.earlier_start == start - 100
    assert at < start + 15


def test_the_previous_shoes_discard_order_and_the_factory_order_are_references() -> None:
    rng = random.Random(3)
    first = random_shoe(rng)
    found, _ = deal(list(reversed(first)), archive_of(first))
    assert found is not None and (found.reference.shoe, found.reference.order) == (1, "discard")
    found, _ = deal(with_block(rng, factory_order(1)[13:43]), archive_of(first))
    assert found is not None and (found.reference.shoe, found.reference.order) == (None, "factory")


def test_every_earlier_shoe_is_compared_not_only_the_last() -> None:
    rng = random.Random(4)
    shoes = [random_shoe(rng) for _ in range(5)]
    found, _ = deal(with_block(rng, shoes[1][200:240]), archive_of(*shoes))
    assert found is not None and found.reference.shoe == 2 and found.earlier_start <= 201


def test_an_archive_value_compares_only_its_own_shoes_when_a_later_one_shares_its_index() -> None:
    """A table's state holds its archive as a value: the archive after a shoe shares the earlier one's index, and
    neither the earlier archive nor another future grown from it sees that shoe."""
    rng = random.Random(5)
    first, second, third = (random_shoe(rng) for _ in range(3))
    before = archive_of(first)
    after_second = before.with_shoe(2, second)
    after_third = before.with_shoe(2, third)  # another future of the same value
    assert deal(second, after_second)[0] is not None
    assert deal(second, before) == (None, 0)
    assert deal(second, after_third) == (None, 0)
    found, _ = deal(third, after_third)
    assert found is not None and found.reference.shoe == 2 and found.reference.order == "dealt"
    assert deal(third, after_second) == (None, 0)
    assert deal(third, before.with_shoe(2, second).with_shoe(3, first)) == (None, 0)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), cut=st.integers(1, 52 * DECKS - 1))
def test_a_cut_and_replayed_shoe_is_caught(seed: int, cut: int) -> None:
    first = random_shoe(random.Random(seed))
    found, _ = deal(first[cut:] + first[:cut], archive_of(first))
    assert found is not None and found.reference.shoe == 1


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), length=st.integers(30, 52), decks=st.integers(1, DECKS))
def test_a_block_of_thirty_or_more_cards_in_the_same_order_is_caught(seed: int, length: int, decks: int) -> None:
    rng = random.Random(seed)
    first = random_shoe(rng, decks)
    begin = rng.randrange(len(first) - length + 1)
    found, _ = deal(with_block(rng, first[begin:begin + length], decks), archive_of(first, decks=decks),
                    decks)
    assert found is not None


@settings(max_examples=examples(2000), deadline=None)  # every example deals a whole shoe
@given(seed=st.integers(0, 2**63), decks=st.sampled_from([1, 2, 6, 8]))
def test_no_alert_over_thousands_of_random_shoes(seed: int, decks: int) -> None:
    rng = random.Random(seed)
    earlier = [random_shoe(rng, decks) for _ in range(3)]
    found, _ = deal(random_shoe(rng, decks), archive_of(*earlier, decks=decks), decks)
    assert found is None


def test_the_table_alerts_during_the_second_shoe_of_a_replayed_script() -> None:
    """Two shoes given as tokens, the second repeating 30 cards of the first: a ``sequence_repeat``
    alert comes while the second shoe is dealt."""
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}}))
    first = shuffled_shoe(7, DECKS)
    events: list[Event] = []
    table.start()

    def play(cards: list[str], at_least: int) -> None:
        events.extend(table.handle(Input(InputKind.SHOE)))
        for dealt, code in enumerate(cards):
            if table.state.value == "round_over":
                if dealt >= at_least:
                    return
                events.extend(table.handle(Input(InputKind.NEXT)))
            events.extend(table.handle(card_read(code)))

    play(first, at_least=60)
    assert not [e for e in events if e["event"] == "alert"]
    events.extend(table.handle(Input(InputKind.CLOSE)))
    assert table.state.value == "shoe_closed"
    shoe_two_starts = len(events)
    play(first[:30], at_least=30)
    alerts = [e for e in events[shoe_two_starts:] if e["event"] == "alert"]
    assert len(alerts) == 1
    alert: Any = alerts[0]
    assert (alert["kind"], alert["shoe"], alert["earlier_shoe"], alert["order"]) == (
        "sequence_repeat", 2, 1, "dealt")
    assert (alert["start"], alert["earlier_start"]) == (1, 1)
    assert alert["length"] < 12 and "shoe 1" in alert["detail"]


@pytest.mark.parametrize(("overrides", "own_bound"), [({}, FALSE_ALARM),
                                                      ({"property_check": True}, FALSE_ALARM / 2),
                                                      ({"archive": "postgresql://host/db"}, FALSE_ALARM / 2)])
def test_the_tables_own_check_leaves_half_the_bound_to_the_property_check_when_it_is_on(
        overrides: dict[str, Any], own_bound: float) -> None:
    """One in a million shoes over both checks: with the property check on, each has half."""
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}, "protection": overrides}))
    first = shuffled_shoe(7, DECKS)[:100]
    table.start()

    def shoe_of(cards: list[str]) -> tuple[list[Event], int]:
        events = table.handle(Input(InputKind.SHOE))
        for dealt, code in enumerate(cards):
            if table.state.value == "round_over":
                if dealt >= 60:
                    return events, dealt
                events += table.handle(Input(InputKind.NEXT))
            events += table.handle(card_read(code))
        return events, len(cards)

    _, dealt = shoe_of(first)
    table.handle(Input(InputKind.CLOSE))
    alerts: list[Any] = [event for event in shoe_of(first[:20])[0] if event["event"] == "alert"]
    assert len(alerts) == 1
    references = 52 * DECKS + 2 * dealt  # the factory order, shoe 1 dealt and its discard order
    assert alerts[0]["threshold"] == pytest.approx(own_bound / (52 * DECKS * references))
    property_monitor = PropertyArchive(DECKS, [PropertyShoe("casino", "t2", 1, tuple(first))]).monitor(DECKS)
    assert property_monitor.threshold == pytest.approx(FALSE_ALARM / 2 / (52 * DECKS * len(first)))
    own, at_property = false_alarm_budgets(table.settings.protection.property_check)
    assert own == own_bound and own + at_property == FALSE_ALARM


def seeded_alerts(seed: int, shoes: int) -> tuple[list[Event], Table]:
    """Play ``shoes`` seeded shoes in a row as ``croupier simulate --seed`` does; their alerts (the live
    edge off: its advantage alerts are about bets, not the order of the cards, and it is the slow part)."""
    table = Table(load_config(environ={"CROUPIER_BETS_LIVE_EDGE": "false"}))
    closed: list[Event] = []
    alerts: list[Event] = []

    def sink(events: list[Event]) -> None:
        closed.extend(e for e in events if e["event"] == "shoe_closed")
        alerts.extend(e for e in events if e["event"] == "alert")
        if len(closed) >= shoes:
            runner.stopped = True

    runner = Runner(table, MockShoe(f"mock://?seed={seed}"), sink, new_shoes=True)
    table.start()
    runner.run()
    assert len(closed) == shoes
    return alerts, table


def test_no_alert_over_200_seeded_shoes_of_the_simulation() -> None:
    """The simulation's seeded shoes (``croupier simulate --seed N``), 50 shoes in a row for each of
    four seeds (two in the quick loop: :func:`~tests.hypothesis_profile.examples`), every shoe compared with
    all earlier ones: no sequence alert."""
    for seed in range(examples(4, least=2)):
        alerts, table = seeded_alerts(seed, 50)
        assert len(table.archive.references) == 50  # the factory order and 49 earlier shoes
        assert alerts == []


def test_the_sequence_alert_detail_is_a_catalogue_message_in_every_order() -> None:
    from controller.core.sequence_check import Reference, sequence_alert
    from controller.i18n.catalogue import Catalogue
    from controller.i18n.message import Message

    for shoe, order in ((None, "factory"), (1, "discard"), (1, "dealt")):
        reference = Reference(shoe, order, ("AS", "2S", "3S"))  # type: ignore[arg-type]
        alert: Any = sequence_alert(SequenceRepeat(reference, 4, 7, 9, 1.5e-9, 2e-9), 2, 3, "A1")
        assert alert["say_id"] == f"alert.sequence_repeat.{order}"
        assert all(isinstance(value, int | str) for value in alert["say_params"].values())
        worded = Message(alert["say_id"], "", alert["say_params"])
        assert Catalogue("en").text(worded) == alert["detail"]
        assert "9 cards from card 4 of shoe 2" in alert["detail"] and "1.5e-09" in alert["detail"]
        korean = Catalogue("ko").text(worded)
        assert "9" in korean and "1.5e-09" in korean and "cards from card" not in korean

"""The view the core publishes (controller/core/published.py) says what the table is, for any script of inputs.

Each check has an oracle of its own: the inputs the view says the table takes are tried on the table itself (the
step must not refuse them, and must refuse the others); the cards out of the shoe are counted from the inputs (a
card, an unread card and two cards at once leave the shoe; a hand-entered or a put-back card does not); the
game's totals, the shoe's results and the open alerts are read from the events the table emitted.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from config.loader import load_config
from config.schema import Settings
from controller.core.events import (
    AlertAcknowledgedEvent,
    AlertEvent,
    Event,
    InstructionEvent,
    RejectedEvent,
    ResultEvent,
    ShoeEvent,
)
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.published import View, view_of
from controller.core.step import step
from controller.core.table import Table
from controller.core.tally import count_events
from tests.hypothesis_profile import examples

CODES = [rank + suit for rank in "A23456789TJQK" for suit in "SHDC"]
DEALER_TOKENS = ["@next", "@close", "@shoe", "@exposed", "@cut", "@undo", "@burn", "@void", "@use"]
TOKENS = ["card"] * 14 + ["??", "@double", "ZZ", "@reveal", "@offline", "@online", "@manual", "@count",
                          *DEALER_TOKENS]
PROBED = {"@next": InputKind.NEXT, "@close": InputKind.CLOSE, "@shoe": InputKind.SHOE,
          "@exposed": InputKind.EXPOSED, "@cut": InputKind.CUT, "@undo": InputKind.UNDO, "@burn": InputKind.BURN,
          "@void": InputKind.VOID, "@use": InputKind.USE}


def table_settings(dealing: str, reveal_confirm: str, count_every: int = 0) -> Settings:
    return load_config(environ={}, overrides={
        "table": {"decks": 8, "dealing": dealing, "reveal_confirm": reveal_confirm},
        "shoe": {"burn": "none"}, "bets": {"live_edge": False}, "procedures": {"count_every": count_every}})


def probe_inputs(table: Table) -> dict[str, Input]:
    """One input of each dealer's kind, as the keys would send it now."""
    probes = {token: parse_tokens(token)[0] for token in PROBED}
    due = table.reveal_due
    probes["@reveal"] = parse_tokens(f"@reveal {due.total}" if due is not None else "@reveal 0")[0]
    if table.open_alerts:
        probes["@ack"] = parse_tokens(f"@ack {table.open_alerts[0].id}")[0]
    probes["@count"] = parse_tokens(f"@count {table.view.cards_left}")[0]  # the count the dealer finds, keyed
    return probes


def refused(table: Table, item: Input) -> bool:
    _, events = step(table.value, item, table.context)
    return any(isinstance(event, RejectedEvent) for event in events)


def check_accepts(table: Table) -> None:
    view = table.view
    for token, item in probe_inputs(table).items():
        kind = item.kind.value
        if kind == "reveal" and not table.face_down:
            continue
        assert (kind in view.accepts) == (not refused(table, item)), (token, view.accepts, view.state)


def token_input(token: str, rng: random.Random, shoe: list[str]) -> list[Input]:
    if token == "card":
        return parse_tokens(shoe.pop())
    if token == "@manual":
        return parse_tokens(f"@manual {rng.choice(CODES)}")
    if token == "@reveal":
        return parse_tokens(f"@reveal {rng.randrange(10)}")
    if token == "@count":  # a confirmation, or a keyed count (mostly the table's: the shoe has 416 cards)
        return parse_tokens(rng.choice(["@count", "@count", f"@count {rng.randrange(300, 417)}"]))
    return parse_tokens(token)


def out_of_shoe(item: Input) -> int:
    """Cards that left the shoe with ``item``, as the shoe's reader reports them."""
    if item.kind is InputKind.DOUBLE:
        return 2
    return 1 if item.kind in (InputKind.CARD, InputKind.UNREADABLE) else 0


@given(seed=st.integers(0, 2**32 - 1), length=st.integers(1, 120),
       dealing=st.sampled_from(["face_up", "face_down"]), reveal_confirm=st.sampled_from(["none", "total"]),
       count_every=st.sampled_from([0, 1, 3]))
@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_view_says_what_the_table_is(seed: int, length: int, dealing: str, reveal_confirm: str,
                                         count_every: int) -> None:
    rng = random.Random(seed)
    shoe = CODES * 8
    rng.shuffle(shoe)
    table = Table(table_settings(dealing, reveal_confirm, count_every))
    emitted: list[Event] = list(table.start())
    out = 0
    check_accepts(table)
    for _ in range(length):
        for item in token_input(rng.choice(TOKENS), rng, shoe):
            shoe_before = table.shoe_number
            events = table.handle(item)
            emitted += events
            if table.shoe_number != shoe_before:
                out = 0
            elif not any(isinstance(event, RejectedEvent) for event in events):
                out += out_of_shoe(item)
            view = table.view
            assert view == view_of(table.value, table.context)
            assert view.cards_left == 52 * 8 - out, (item, events)
            check_stub_count(view)
            check_accepts(table)
            check_read_from_events(view, emitted)


def check_stub_count(view: View) -> None:
    """The stub count the view asks for is what the dealer is told to count: the cards left in the shoe (an offline
    reader is said first: the count is taken meanwhile; a critical alert stops the table, the count included)."""
    if view.stub_count is not None:
        assert view.stub_count == view.cards_left and "next" not in view.accepts
        assert ("count" in view.accepts) == (view.stopped_by is None)
    if view.stopped_by is not None or not view.reader_online:
        return
    asked = view.next if isinstance(view.next, InstructionEvent) and view.next.action == "count_stub" else None
    assert (view.stub_count is not None) == (asked is not None), (view.stub_count, view.next)
    if asked is not None:
        assert isinstance(asked.say_params, dict) and view.stub_count == asked.say_params["expected"]


def check_read_from_events(view: object, emitted: list[Event]) -> None:
    from controller.core.published import View

    assert isinstance(view, View)
    counts: Counter[str] = Counter()
    count_events(counts, emitted)
    totals = view.totals
    assert (totals.shoes, totals.rounds, totals.banker, totals.player, totals.tie, totals.natural,
            totals.player_pair, totals.banker_pair, totals.misdeal, totals.voided) == tuple(
        counts[key] for key in ("shoes", "rounds", "banker", "player", "tie", "natural", "player_pair",
                                "banker_pair", "misdeal", "voided"))
    shoe_starts = [index for index, event in enumerate(emitted) if isinstance(event, ShoeEvent)
                   and event.status == "new"]
    this_shoe = emitted[shoe_starts[-1]:]
    results = [event for event in this_shoe if isinstance(event, ResultEvent)]
    assert [result.round for result in view.results] == [result.round for result in results]
    acknowledged = {event.id for event in emitted if isinstance(event, AlertAcknowledgedEvent)}
    assert [alert.id for alert in view.alerts] == [
        event.id for event in emitted if isinstance(event, AlertEvent) and event.id not in acknowledged]


@pytest.mark.parametrize(("script", "left"), [
    ("@shoe 5H 2C @double @void", 412),
    ("@shoe 5H 2C 3C @exposed @burn", 413),
    ("@shoe 5H 2C @double", 412),
    ("@shoe 5H 2C ??", 413),
    ("@shoe 5H 2C ZZ", 413),
    ("@shoe 5H 2C ?? @manual 3C", 413),
    ("@shoe 5H 2C 3C @exposed @use", 413),
])
def test_cards_left_count_every_card_out_of_the_shoe_at_once(script: str, left: int) -> None:
    """Issue 26: after ``@double @void`` the shoe has 412 cards and after ``@exposed @burn`` 413, as the dealer
    counts them; two cards held by a pending misdeal are out of the shoe already."""
    table = Table(table_settings("face_up", "none"))
    table.start()
    for item in parse_tokens(script):
        table.handle(item)
    assert table.view.cards_left == left
    assert table.cards_left == left


@pytest.mark.parametrize(("script", "held"), [
    ("@shoe 5H 2C 3C @exposed", 1),
    ("@shoe 5H 2C 3C @exposed 4D", 2),
    ("@shoe 5H 2C @double", 2),
    ("@shoe 5H 2C ?? 7S", 2),
    ("@shoe 5H 2C 3C @exposed @use", None),
])
def test_the_misdeal_holds_the_exposed_card_it_took_back(script: str, held: int | None) -> None:
    """What a pending misdeal holds, to be burned or removed by its resolution: an exposed card taken back from its
    slot is among them (``croupier history --cards`` says it is held, and so does the view)."""
    table = Table(table_settings("face_up", "none"))
    table.start()
    for item in parse_tokens(script):
        table.handle(item)
    misdeal = table.view.misdeal
    assert (misdeal.held if misdeal is not None else None) == held


@pytest.mark.parametrize("script", ["@shoe 3S 9H 5D 6C @close", "@shoe 3S 9H 5D 6C @next 7H 8D 2S TC @close"])
def test_a_shoe_closed_early_says_its_cut_card_never_came_out(script: str) -> None:
    """``@close`` between rounds closes the shoe early: the view says it is closed and that the cut card is still in
    it (the console, the board and the floor show it), and a cut card later in that shoe still comes out."""
    table = Table(table_settings("face_up", "none"))
    table.start()
    for item in parse_tokens(script):
        table.handle(item)
    view = table.view
    assert view.closed and not view.cut_card_out
    assert view.cards_left == 416 - len(script.replace("@shoe", "").replace("@next", "").replace("@close", "")
                                         .split())


def test_a_shoe_closed_by_its_cut_card_says_it_came_out() -> None:
    table = Table(table_settings("face_up", "none"))
    table.start()
    for item in parse_tokens("@shoe 3S 9H 5D 6C @next 7H @cut 8D 2S TC @next 9D 4C KH 2H"):
        table.handle(item)
    view = table.view
    assert view.closed and view.cut_card_out

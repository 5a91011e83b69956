"""The runner: the simulated dealer, new shoes, idle sign-out and resuming, around the pure core."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from config.loader import load_config
from controller.app.runner import Runner
from controller.core.events import Event
from controller.core.inputs import Input, InputKind
from controller.core.machine import TRIGGERS, State
from controller.core.shoe import shuffled_shoe
from controller.core.table import Table
from controller.journal.replay import attach_journal
from drivers.base import CardSource, Indication
from drivers.merged import MergedSource
from drivers.mock import MockShoe
from tests.flow_cases import Case, rows_from, says, table_states, without_row

AUTH = {"enabled": True, "reader": "pcsc://?reader=X", "idle_signout_seconds": 900,
        "badges": {"04A1B2C3": {"name": "Alice", "role": "dealer"}}}


class Scripted(CardSource):
    """Gives its inputs, then nothing for ``idle_polls`` polls, then is exhausted."""

    schemes = ("scripted",)

    def __init__(self, items: list[Input], idle_polls: int = 0) -> None:
        super().__init__("scripted://")
        self.items = list(items)
        self.idle_polls = idle_polls

    def _recv(self, timeout: float | None) -> Input | None:
        if self.items:
            return self.items.pop(0)
        self.idle_polls -= 1
        return None

    @property
    def exhausted(self) -> bool:
        return not self.items and self.idle_polls <= 0


class Ticking(Scripted):
    """Each empty poll moves the fake clock on by ``step`` seconds."""

    def __init__(self, clock: list[float], step: float, idle_polls: int) -> None:
        super().__init__([], idle_polls)
        self.clock = clock
        self.step = step

    def _recv(self, timeout: float | None) -> Input | None:
        self.clock[0] += self.step
        return super()._recv(timeout)


def test_a_restored_dealer_is_not_signed_out_at_once() -> None:
    """A resumed table has its dealer back from the replay; the idle timer starts now, not at boot."""
    table = Table(load_config(environ={}, overrides={"auth": AUTH}))
    table.handle(Input(InputKind.BADGE, "04A1B2C3"))
    events: list[Event] = []
    runner = Runner(table, Scripted([], idle_polls=3), events.extend, poll=0.0, idle_signout=900,
                    clock=lambda: 10_000.0)
    runner.run()
    assert not [e for e in events if e["event"] == "dealer_signed_out"]


def test_idle_sign_out_after_the_configured_time_without_input() -> None:
    clock = [10_000.0]
    table = Table(load_config(environ={}, overrides={"auth": AUTH}))
    table.handle(Input(InputKind.BADGE, "04A1B2C3"))
    events: list[Event] = []
    runner = Runner(table, Ticking(clock, 400.0, idle_polls=4), events.extend, poll=0.0, idle_signout=900,
                    clock=lambda: clock[0])
    runner.run()
    signed_out = [e for e in events if e["event"] == "dealer_signed_out"]
    assert len(signed_out) == 1 and signed_out[0]["reason"] == "idle"
    assert clock[0] - 10_000.0 >= 900


def test_held_source_waits_through_a_new_shoe_until_the_dealer_confirms() -> None:
    mock = MockShoe("mock://?seed=3&decks=1&cut=12")
    source = MergedSource(mock, hold_when_idle=True)
    assert source.recv(0.01) is None, "a new table waits for the dealer"
    source.indicate("burn")
    first = source.recv(0.01)
    assert first is not None and first.kind is InputKind.CARD
    source.indicate("new_shoe")
    assert source.recv(0.01) is None, "after a shoe closes the next shoe waits for the dealer's confirmation"
    source.put(Input(InputKind.SHOE))
    assert source.recv(0.01) == Input(InputKind.SHOE)
    source.indicate("burn")
    second = source.recv(0.01)
    assert second is not None and second.card == shuffled_shoe(3, 1, 1)[0]


def run_session(path: Path, dealer: Any, stop: Any) -> tuple[Table, MockShoe, list[Event]]:
    table = Table(load_config(environ={}, overrides={"table": {"decks": 1}, "shoe": {"cut_card_from_end": 12}}))
    mock = MockShoe("mock://?seed=3&decks=1&cut=12")
    source = MergedSource(mock)
    source.keep_open = True
    out: list[Event] = []

    def sink(events: list[Event]) -> None:
        out.extend(events)
        for event in events:
            dealer(event, source)
        if stop(events):
            runner.stopped = True

    runner = Runner(table, source, sink, auto_next=False, auto_shoe=False, new_shoes=True, poll=0.02)
    journal = attach_journal(runner, path, argv_key={"command": "run", "driver": "mock"}, header_events=[])
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    thread.join(20)
    runner.stopped = True
    thread.join(5)
    journal.close()
    return table, mock, out


def test_resuming_on_a_closed_shoe_deals_the_next_shoe_not_the_one_after(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    typed_after_close: list[int] = []

    def dealer(event: Event, source: MergedSource) -> None:
        if event["event"] == "instruction" and event["action"] == "next_round":
            source.put(Input(InputKind.NEXT))
        if event["event"] == "instruction" and event["action"] in ("confirm_shoe", "new_shoe") \
                and typed_after_close:
            source.put(Input(InputKind.SHOE))
        if event["event"] == "instruction" and event["action"] == "confirm_shoe" and not typed_after_close:
            source.put(Input(InputKind.SHOE))
        if event["event"] == "shoe_closed" and not typed_after_close:
            typed_after_close.append(1)
            source.put(Input(InputKind.NEXT))  # refused: the shoe is closed; journaled all the same

    table, mock, _ = run_session(path, dealer,
                                 lambda events: any(e["event"] == "rejected" for e in events))
    assert table.state is State.SHOE_CLOSED
    assert mock.position[0] == 2, "the runner had already asked the mock for shoe 2"
    table, mock, out = run_session(path, dealer, lambda events: any(e["event"] == "burn" for e in events))
    burns = [e["card"] for e in out if e["event"] == "burn"]
    assert burns[:1] == shuffled_shoe(3, 1, 1)[:1], "shoe 2's first card, not shoe 3's"


class FollowingShoe(CardSource):
    """A shoe that deals only while told to (``shoe-emulator --follow-table``), with a dealer who reveals
    each face-down hand when the table waits for it."""

    schemes = ("following",)

    def __init__(self, cards: list[str], table: Table) -> None:
        super().__init__("following://")
        self.cards = list(cards)
        self.table = table
        self.told = "hold"

    def _indicate(self, what: Any) -> None:
        self.told = str(what)

    def _recv(self, timeout: float | None) -> Input | None:
        if self.told in ("player", "banker", "burn") and self.cards:
            return Input(InputKind.CARD, self.cards.pop(0))
        if self.table.reveal_due is not None:
            return Input(InputKind.REVEAL)
        return None

    @property
    def exhausted(self) -> bool:
        """Nothing to do: no card it is told to deal and no hand to reveal (a halted table waits for people)."""
        return not (self.told in ("player", "banker", "burn") and self.cards) and self.table.reveal_due is None


def test_face_down_with_auto_next_waits_for_the_reveals_before_the_shoe_deals_on() -> None:
    """Issue 25 item 9: the table told the shoe to deal the next round before the dealer revealed, so the
    next card was an extra-card misdeal."""
    settings = load_config(environ={}, overrides={"shoe": {"burn": "none"}, "table": {"dealing": "face_down"}})
    table = Table(settings)
    events: list[Event] = list(table.start())
    cards = shuffled_shoe(3, 8)[:60]
    runner = Runner(table, FollowingShoe(cards, table), events.extend, auto_next=True, auto_shoe=True, rounds=5)
    assert runner.run() == 0
    assert not [e for e in events if e["event"] == "misdeal"], [e for e in events if e["event"] == "misdeal"]
    assert [e["round"] for e in events if e["event"] == "result"] == [1, 2, 3, 4, 5]


def test_a_card_while_a_face_down_round_waits_for_its_reveals_says_so() -> None:
    settings = load_config(environ={}, overrides={"shoe": {"burn": "none"}, "table": {"dealing": "face_down"}})
    table = Table(settings)
    table.start()
    table.handle(Input(InputKind.SHOE))
    for code in ("9S", "8H", "KD", "2C"):  # a natural: every card is down, the reveals are due
        table.handle(Input(InputKind.CARD, code))
    events = table.handle(Input(InputKind.CARD, "5D"))
    misdeal = [e for e in events if e["event"] == "misdeal"]
    assert misdeal and misdeal[0]["kind"] == "extra_card"
    assert "is over" not in misdeal[0]["detail"] and "reveal" in misdeal[0]["detail"], misdeal[0]["detail"]


def test_a_live_table_holds_the_shoe_for_the_stub_count_and_a_simulated_dealer_counts() -> None:
    """``[procedures] count_every``: a live table's runner starts rounds itself (``--auto-next``) but never counts
    the stub for the dealer: the shoe is told to hold until someone counts; the simulated dealer confirms each."""
    settings = load_config(environ={}, overrides={"shoe": {"burn": "none"}, "procedures": {"count_every": 2}})
    live = Table(settings)
    events: list[Event] = list(live.start())
    cards = shuffled_shoe(3, 8)[:60]
    runner = Runner(live, FollowingShoe(cards, live), events.extend, auto_next=True, auto_shoe=True, rounds=5)
    assert runner.run() == 0
    assert [e["round"] for e in events if e["event"] == "result"] == [1, 2]
    assert live.stub_count_due and runner.indication() == "hold"
    assert not [e for e in events if e["event"] in ("misdeal", "rejected", "stub_count")]
    simulated = Table(settings)
    events = list(simulated.start())
    runner = Runner(simulated, FollowingShoe(cards, simulated), events.extend, auto_next=True, auto_shoe=True,
                    rounds=5, auto_count=True)
    assert runner.run() == 0
    assert [e["round"] for e in events if e["event"] == "stub_count"] == [2, 4]
    assert [e["round"] for e in events if e["event"] == "result"] == [1, 2, 3, 4, 5]


def dealer_moves(case: Case) -> list[str]:
    """What the simulated dealer must do before the next card, by the machine's table: confirm the shoe (or load
    the next), or count the stub when it is due and start the next round."""
    if says(case, "shoe_ready") or says(case, "load_shoe"):
        return ["@shoe"]
    if case.value.round.number > 0 and (says(case, "next_round") or says(case, "count_stub")):
        return ["@count", "@next"] if says(case, "count_stub") else ["@next"]
    return []


def simulated_dealer(case: Case) -> tuple[str, list[str]]:
    """The runner's simulated dealer at this table, one card to come: what it tells the shoe, and what it does
    before the card (confirming shoes, loading the next, counting the stub and starting rounds itself)."""
    table = case.table()
    fed: list[str] = []
    runner = Runner(table, Scripted([Input(InputKind.CARD, "AS")]), lambda events: None, new_shoes=True,
                    auto_count=True, record=lambda item: fed.append(item.token()))
    told = runner.indication()
    runner.run()
    return told, fed[:-1]


def told(case: Case) -> str:
    """What the shoe must be told, by the machine's table: deal (the burn or the player's card) when the simulated
    dealer starts a shoe or a round at the next card, else what the table expects."""
    moves = dealer_moves(case)
    table = case.table()
    if moves == ["@shoe"]:
        return "player" if table.settings.shoe.burn == "none" else "burn"
    return "player" if moves else table.expecting


RUNNER_TRIGGERS = ("shoe_ready", "load_shoe", "next_round", "count_stub")


@pytest.mark.parametrize("trigger", [trigger for trigger in RUNNER_TRIGGERS if trigger in TRIGGERS])
def test_the_simulated_dealer_moves_the_round_only_as_the_machine_allows(trigger: str) -> None:
    """Issue 26 item 3: the runner asked the round's state by hand (a new shoe, a closed one, a round over); now it
    asks the table's machine, so a row taken out of the table takes the simulated dealer's move away too."""
    checked = 0
    for case in table_states():
        state = case.value.round.state
        assert simulated_dealer(case) == (told(case), dealer_moves(case)), (state, case.value.round)
        if rows_from(state, trigger):
            with without_row(state, trigger):
                assert simulated_dealer(case) == (told(case), dealer_moves(case)), (
                    f"without {trigger} from {state.name}", case.value.round)
            checked += 1
    assert checked


class TellingMock(MockShoe):
    """A mock shoe that notes what the table tells it."""

    told: list[str]

    def _indicate(self, what: Indication) -> None:
        self.told.append(what.value)
        super()._indicate(what)


class ShowingMock(TellingMock):
    shows_expecting = True


@pytest.mark.parametrize("source_class", [TellingMock, ShowingMock])
def test_a_source_is_told_what_the_table_expects_after_each_input_only_when_it_shows_it(
        source_class: type[TellingMock]) -> None:
    table = Table(load_config(environ={}, overrides={"table": {"decks": 1}, "shoe": {"cut_card_from_end": 12}}))
    source = source_class("mock://?seed=3&decks=1&cut=12")
    source.told = []
    inputs: list[Input] = []
    runner = Runner(table, source, lambda events: None, rounds=30, new_shoes=True, record=inputs.append)
    assert runner.run() == 0
    assert table.shoe_number >= 2, "the run must reach a second shoe"
    new_shoes = source.told.count("new_shoe")
    assert new_shoes == table.shoe_number - 1
    if source.shows_expecting:
        assert len(source.told) - new_shoes >= len(inputs), "a source that shows it is told after every input"
        assert {"player", "banker", "burn"} <= set(source.told)
    else:
        assert set(source.told) == {"new_shoe"}, "the mock acts only on new_shoe and is told only that"

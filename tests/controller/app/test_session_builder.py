"""The session builder: what ``run`` and ``simulate`` are made of, declared, checked before anything starts."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

import drivers
from config.loader import load_config
from controller.app.builder import JournalOptions, SessionOptions, build_session
from controller.app.session import Session
from controller.core.exceptions import CroupierError
from controller.core.inputs import Input, InputKind
from drivers.base import CardSource, Delivery
from drivers.mock import MockShoe
from tests.inprocess import croupier_in_process


class ShuffledReader(CardSource):
    """A plugin's reader with no dealer's hand on it: a shuffled shoe's cards, each there whenever read."""

    schemes = ("shuffled",)

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.cards = ["3S", "9C", "5H", "9D"]

    def _recv(self, timeout: float | None) -> Input | None:
        return Input(InputKind.CARD, self.cards.pop(0)) if self.cards else None

    @property
    def exhausted(self) -> bool:
        return not self.cards

    @property
    def delivery(self) -> Delivery:
        return Delivery.SHUFFLED


@pytest.fixture
def shuffled_driver(monkeypatch: pytest.MonkeyPatch) -> str:
    """``shuffled://`` opens a :class:`ShuffledReader` (a built-in scheme for this test)."""
    monkeypatch.setitem(drivers.DRIVERS, "shuffled", (__name__, ShuffledReader.__name__))
    return "shuffled://"


def test_a_source_that_deals_on_demand_says_so_and_is_refused_without_a_dealer(shuffled_driver: str) -> None:
    """Not the mock's class but the source's own declared delivery: no dealer at the keyboard, none to confirm the
    shoe and start each round."""
    run = croupier_in_process("run", "--driver", shuffled_driver, "--no-keyboard", "--no-burn", "--json")
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.splitlines() == [
        "croupier run: shuffled://: a seeded mock shoe without --auto-next waits for the dealer to confirm the shoe "
        "and start each round, but --no-keyboard leaves no dealer; give --auto-next, or use croupier simulate "
        "--interactive"]
    assert run.stdout == ""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.mark.parametrize("command", [["simulate", "--seed", "1", "--rounds", "2"],
                                     ["run", "--driver", "mock://?seed=1", "--auto-next", "--rounds", "1"]])
def test_a_session_that_cannot_be_built_starts_nothing(command: list[str]) -> None:
    """A bad --archive is refused before the scoreboard listens: one error line, no notice of a board that never
    served, and its port free again."""
    port = free_port()
    run = croupier_in_process(*command, "--scoreboard", f"127.0.0.1:{port}", "--archive", "mysql://x")
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        f"croupier {command[0]}: --archive 'mysql://x': unknown scheme mysql://; expected "
        "postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE"]
    assert port_is_free(port), "the scoreboard was left listening"


class Recording:
    """A stage that notes when it joins and closes (and can refuse to join)."""

    def __init__(self, name: str, notes: list[str], refuse: bool = False) -> None:
        self.name, self.notes, self.refuse = name, notes, refuse

    def join(self, session: Session) -> None:
        self.notes.append(f"join {self.name}")
        session.when_begun(lambda: self.notes.append(f"begun {self.name}"))
        session.at_end(lambda: self.notes.append(f"end {self.name}"))
        if self.refuse:
            raise CroupierError(f"{self.name} cannot start")

    def close(self) -> None:
        self.notes.append(f"close {self.name}")


def test_stages_join_in_order_begin_after_the_journal_opened_and_close_in_reverse_before_it(tmp_path: Path) -> None:
    notes: list[str] = []
    settings = load_config(environ={}, overrides={"shoe": {"burn": "none"}})
    path = tmp_path / "table.journal"
    session = build_session(SessionOptions(settings, MockShoe("mock://?seed=4"), rounds=2,
                                           journal=JournalOptions(str(path), {"test": "stages"})))
    session.join([Recording("first", notes), Recording("second", notes)])

    def journal_is_open() -> bool:
        return (tmp_path / "table.journal-wal").exists()

    session.when_begun(lambda: notes.append(f"journal open {journal_is_open()}"))
    assert session.play() == 0
    assert notes == ["join first", "join second", "begun first", "begun second", "journal open True",
                     "close second", "close first", "end first", "end second"]
    assert session.source.closed and not journal_is_open()


def test_a_stage_that_cannot_join_closes_those_before_it_and_the_source() -> None:
    notes: list[str] = []
    shoe = MockShoe("mock://?seed=4")
    session = build_session(SessionOptions(load_config(environ={}), shoe))
    with pytest.raises(CroupierError, match="second cannot start"):
        session.join([Recording("first", notes), Recording("second", notes, refuse=True), Recording("third", notes)])
    assert notes == ["join first", "join second", "close third", "close second", "close first"]
    assert shoe.closed

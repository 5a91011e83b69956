"""PcscCardSource keeps the CardSource contract (tests/drivers/contract.py) on a real pcscd.

Each token is a virtual tag presented to the reader by a feeder thread: a card
code is a tag storing that code, ``??`` a tag that answers every read with an
error, ``@cut`` the cut card's tag. The feeder takes each tag away once the
source has read it, and waits until pcscd has seen the reader empty, so the
next tag is a new arrival.

``@double`` (two cards at once) and ``@next`` (a dealer input) cannot come from
a single-slot PC/SC reader, so this source's contract tokens leave them out.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from drivers.base import CardSource
from drivers.pcsc.source import PcscCardSource
from tests.drivers.contract import CardSourceContract
from tests.drivers.pcsc.conftest import READER_A, Hand

pytestmark = pytest.mark.pcsc


class Feeder:
    """Presents one tag per token, in order, each until it has been read."""

    def __init__(self, hand: Hand, tokens: list[str]) -> None:
        self.hand = hand
        self.tokens = tokens
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="pcsc-feeder")
        self.thread.start()

    def _run(self) -> None:
        for index, token in enumerate(self.tokens):
            if self.stop.is_set():
                return
            uid = f"04C0FFEE{index:06X}"
            unreadable = token == "??"
            tag = self.hand.card(uid, code="TH" if unreadable else token, fail_reads=unreadable)
            self.hand.present(tag)
            while not tag.memory_read.wait(0.05):
                if self.stop.is_set():
                    break
            self.hand.take_away(tag)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(30)


class TestPcscCardSourceContract(CardSourceContract):
    """The pcsc:// source delivers exactly the tags presented, and keeps the lifecycle contract."""

    tokens = ("AS", "10H", "??", "KD", "@cut", "9C", "QS")
    patience = 30.0  # pcscd polls every 0.4 s: each tag takes ~1 s to come and go

    @pytest.fixture
    def make_source(self, hand_a: Hand) -> Iterator[object]:
        opened: list[CardSource] = []
        feeders: list[Feeder] = []

        def make(tokens: list[str]) -> CardSource:
            source = PcscCardSource(f"pcsc://?reader={READER_A}&poll=20")
            opened.append(source)
            feeders.append(Feeder(hand_a, tokens))
            return source

        yield make
        for source in opened:
            source.close()
        for feeder in feeders:
            feeder.close()

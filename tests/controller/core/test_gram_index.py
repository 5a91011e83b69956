"""The compact trigram index finds exactly what the dict of code tuples it replaced found, in far less memory."""

from __future__ import annotations

import math
import random
import tracemalloc
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from config.loader import load_config
from controller.core.cards import parse_card
from controller.core.exceptions import SnapshotError
from controller.core.gram_index import CARD_CODES, GramIndex, decode, encode, gram_key
from controller.core.sequence_check import (
    DISCARD_BASE,
    FALSE_ALARM,
    Reference,
    SequenceArchive,
    SequenceMonitor,
    factory_order,
)
from controller.core.snapshot import restore, snapshot
from controller.core.table import Table

DECKS = 8


class DictMonitor:
    """The check as it was: every reference's trigrams (tuples of codes) in a dict of position lists."""

    def __init__(self, shoes: list[list[str]], decks: int, false_alarm: float = FALSE_ALARM) -> None:
        self.references: list[tuple[int | None, str, list[str]]] = [(None, "factory", factory_order(decks))]
        self.references += [(number, "dealt", cards) for number, cards in enumerate(shoes, start=1)]
        self.starts: list[int] = []
        self.index: dict[tuple[str, str, str], list[int]] = {}
        size = 0
        for _, _, cards in self.references:
            self.starts.append(size)
            self._grams(self.index, cards, size)
            size += len(cards)
        self.discard: dict[tuple[str, str, str], list[int]] = {}
        if shoes:
            self.references.append((len(shoes), "discard", shoes[-1][::-1]))
            self._grams(self.discard, shoes[-1][::-1], DISCARD_BASE)
            size += len(shoes[-1])
        self.total, self.decks = 52 * decks, decks
        self.threshold = false_alarm / max(1, self.total * size)
        self.cards: list[str] = []
        self.last_two = (0.0, 0.0)
        self.runs: dict[int, tuple[int, float]] = {}
        self.alerted: set[int] = set()

    @staticmethod
    def _grams(index: dict[tuple[str, str, str], list[int]], cards: list[str], base: int) -> None:
        for place in range(2, len(cards)):
            index.setdefault((cards[place - 2], cards[place - 1], cards[place]), []).append(base + place)

    def observe(self, code: str, seen: Counter[str]) -> tuple[Any, ...] | None:
        unseen, copies = self.total - sum(seen.values()), self.decks - seen[code]
        log_p = math.log(copies / unseen) if copies > 0 and unseen > 0 else 0.0
        self.cards.append(code)
        found = None
        if len(self.cards) > 2:
            gram = (self.cards[-3], self.cards[-2], code)
            runs: dict[int, tuple[int, float]] = {}
            for at in self.index.get(gram, []) + self.discard.get(gram, []):
                run = self.runs.get(at - 1)
                run = (run[0], run[1] + log_p) if run else (len(self.cards) - 2, sum(self.last_two) + log_p)
                runs[at] = run
                if run[1] < math.log(self.threshold) and found is None:
                    found = self._finding(at, run)
            self.runs = runs
        self.last_two = (self.last_two[1], log_p)
        return found

    def _finding(self, at: int, run: tuple[int, float]) -> tuple[Any, ...] | None:
        if at >= DISCARD_BASE:
            number, place = len(self.references) - 1, at - DISCARD_BASE
        else:
            number = max(n for n, start in enumerate(self.starts) if start <= at)
            place = at - self.starts[number]
        if number in self.alerted:
            return None
        self.alerted.add(number)
        shoe, order, _ = self.references[number]
        length = len(self.cards) - run[0] + 1
        return shoe, order, run[0], place - length + 2, length, math.exp(run[1]), self.threshold


def compare(shoes: list[list[str]], new_shoe: list[str], decks: int = DECKS) -> int:
    """Deal ``new_shoe`` through both monitors after ``shoes``; assert they agree card by card; the findings."""
    archive = SequenceArchive(decks)
    for number, cards in enumerate(shoes, start=1):
        archive.add_shoe(number, cards)
    compact, plain = SequenceMonitor(archive, decks), DictMonitor(shoes, decks)
    assert compact.threshold == plain.threshold
    seen: Counter[str] = Counter()
    findings = 0
    for index, code in enumerate(new_shoe):
        repeat = compact.observe(parse_card(code), seen, index)
        expected = plain.observe(code, seen)
        got = None if repeat is None else (repeat.reference.shoe, repeat.reference.order, repeat.start,
                                           repeat.earlier_start, repeat.length, repeat.probability,
                                           repeat.threshold)
        assert got == expected, f"card {index + 1}"
        assert compact.runs == plain.runs, f"card {index + 1}"
        findings += got is not None
        seen[code] += 1
    return findings


def random_shoe(rng: random.Random, decks: int = DECKS) -> list[str]:
    cards = factory_order(decks)
    rng.shuffle(cards)
    return cards[:rng.randrange(3 * 52 * decks // 4, 52 * decks + 1)]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**63), decks=st.sampled_from([1, 2, 8]), earlier=st.integers(0, 6))
def test_the_compact_index_finds_what_the_dict_index_found_in_random_shoes(seed: int, decks: int,
                                                                          earlier: int) -> None:
    rng = random.Random(seed)
    shoes = [random_shoe(rng, decks) for _ in range(earlier)]
    assert compare(shoes, random_shoe(rng, decks), decks) == 0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**63), decks=st.sampled_from([1, 2, 8]))
def test_the_compact_index_finds_what_the_dict_index_found_in_replayed_shoes(seed: int, decks: int) -> None:
    """Shoes made of blocks of earlier shoes (dealt, reversed, cut) and of the factory order: several findings
    a shoe, each the same, at the same card, with the same numbers."""
    rng = random.Random(seed)
    shoes = [random_shoe(rng, decks) for _ in range(rng.randrange(1, 5))]
    sources = [*shoes, shoes[-1][::-1], factory_order(decks)]
    replayed: list[str] = []
    while len(replayed) < 52 * decks:
        source = rng.choice(sources)
        begin = rng.randrange(len(source) - 20)
        replayed += source[begin:begin + rng.randrange(5, 60)]
    assert compare(shoes, replayed, decks) >= 1


def test_a_replayed_day_raises_the_same_findings_as_the_dict_index() -> None:
    """Twenty shoes, each the previous one cut: every shoe's findings agree."""
    rng = random.Random(17)
    shoes = [random_shoe(rng)]
    for _ in range(20):
        cut = rng.randrange(1, len(shoes[-1]))
        shoe = shoes[-1][cut:] + shoes[-1][:cut]
        assert compare(shoes, shoe) >= 1
        shoes.append(shoe)


@settings(max_examples=100, deadline=None)
@given(runs=st.lists(st.lists(st.integers(0, 51), max_size=40), max_size=6))
def test_the_index_gives_every_position_of_a_key_in_order(runs: list[list[int]]) -> None:
    index, expected = GramIndex(), dict[int, list[int]]()
    base = 0
    for numbers in runs:
        index.add(bytes(numbers), base)
        for place in range(2, len(numbers)):
            expected.setdefault(gram_key(*numbers[place - 2:place + 1]), []).append(base + place)
        base += len(numbers) + 7
    assert len(index) == sum(len(positions) for positions in expected.values())
    for key in {*expected, 0, 52**3 - 1, *range(0, 52**3, 997)}:
        assert index.find(key) == expected.get(key, [])


def test_card_codes_and_numbers_round_trip_and_an_unknown_code_is_named() -> None:
    assert decode(encode(CARD_CODES)) == CARD_CODES and len(set(CARD_CODES)) == 52
    assert Reference(3, "dealt", ["AS", "KC"]) == Reference(3, "dealt", encode(["AS", "KC"]))
    assert Reference(3, "dealt", ("TH", "2D")).cards == ("TH", "2D")
    with pytest.raises(ValueError, match="card code 'XX' is not one of AS, 2S"):
        encode(["AS", "XX"])


@pytest.mark.parametrize("cards", ["AS2SZZ", ["AS", "2S", "ZZ"]], ids=["one string", "older: a list"])
def test_a_checkpoint_with_an_unknown_earlier_card_is_refused(cards: object) -> None:
    table = Table(load_config(environ={}))
    table.start()
    data = snapshot(table)
    data["earlier_shoes"] = [[1, cards]]
    with pytest.raises(SnapshotError, match="ZZ"):
        restore(table.settings, data)


def test_a_checkpoint_with_an_earlier_shoe_cut_mid_card_is_refused() -> None:
    table = Table(load_config(environ={}))
    table.start()
    data = snapshot(table)
    data["earlier_shoes"] = [[1, "AS2SK"]]
    with pytest.raises(SnapshotError, match="two characters each"):
        restore(table.settings, data)


def test_a_40_shoe_day_of_references_and_its_index_take_under_a_third_of_a_mebibyte() -> None:
    rng = random.Random(40)
    shoes = [rng.sample(factory_order(DECKS), 400) for _ in range(40)]
    tracemalloc.start()
    try:
        archive = SequenceArchive(DECKS)
        for number, cards in enumerate(shoes, start=1):
            archive.add_shoe(number, cards)
        size, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert archive.size == 52 * DECKS + 16_000
    assert size < 0.3 * 2**20, f"{size} bytes"

"""The compiled kernel against the reference enumeration (``position_weights``, plain Python), the pure-Python
packed path and the tests' second enumerator (tests/controller/core/test_bets_exact.py): the same whole numbers
for every deck count and random partial shoes of 1-8 decks, and the same exact fractions for every bet under
any house pay table. Where the kernel cannot be loaded the command line says so in one line and gives the same
output."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.core.bets import kernel, tables
from controller.core.bets.catalogue import BETS, CATALOGUE
from controller.core.bets.exact import Shoe, bet_evs, position_weights, reference_bet_odds
from controller.core.bets.packed import packed_position_weights
from tests.controller.core.test_bets_exact import rank_pairs, value_enumeration
from tests.hypothesis_profile import examples

ROOT = Path(__file__).resolve().parents[3]
CODES = [rank + suit for rank in "A23456789TJQK" for suit in "SHDC"]
PURE = kernel.BetValues(kernel.bets_under(), use_kernel=False)


def random_shoe(generator: random.Random, decks: int | None = None) -> Shoe:
    decks = decks if decks is not None else generator.randint(1, 8)
    cards = [code for code in CODES for _ in range(decks)]
    return Shoe.of(decks, Counter(generator.sample(cards, generator.randint(0, len(cards) - 6))))


def evs_of(values: kernel.BetValues, shoe: Shoe) -> dict[str, Fraction]:
    return values.evs(shoe.values, shoe.ranks, shoe.cards)


def reference_evs(shoe: Shoe, pays: Mapping[str, Mapping[str, Decimal]] | None = None) -> dict[str, Fraction]:
    return {name: odds.ev for name, odds in reference_bet_odds(shoe, pays).items()}


def test_the_kernel_is_built_and_loaded_here() -> None:
    assert kernel.compiled(), f"the compiled kernel did not load ({kernel.UNAVAILABLE}); run .ci/setup"
    assert kernel.default_values().compiled and not PURE.compiled


@pytest.mark.parametrize("decks", range(1, 9))
def test_fresh_shoes_give_the_reference_weights_and_values(decks: int) -> None:
    shoe = Shoe.of(decks)
    assert kernel.position_weights(shoe.values) == position_weights(list(shoe.values))
    assert bet_evs(shoe) == reference_evs(shoe) == evs_of(PURE, shoe)


def test_random_partial_shoes_of_one_to_eight_decks_give_the_reference_numbers() -> None:
    generator = random.Random(30)
    for _ in range(150):
        shoe = random_shoe(generator)
        values = list(shoe.values)
        assert kernel.position_weights(shoe.values) == position_weights(values) == packed_position_weights(values)
        assert bet_evs(shoe) == reference_evs(shoe) == evs_of(PURE, shoe), shoe.values


@settings(max_examples=examples(10, least=5), deadline=None)
@given(st.integers(1, 8), st.lists(st.sampled_from(CODES), max_size=410))
def test_hypothesis_shoes_agree_with_the_second_enumerator(decks: int, seen: list[str]) -> None:
    shoe = Shoe.of(decks, Counter(seen))
    if shoe.size < 6:
        return
    evs = bet_evs(shoe)
    expected = value_enumeration(list(shoe.values)) | rank_pairs(list(shoe.ranks))
    assert {bet: evs[bet] for bet in expected} == expected
    assert kernel.position_weights(shoe.values) == position_weights(list(shoe.values))


pay = st.decimals(min_value=Decimal("0.000001"), max_value=Decimal(1000), places=6).filter(lambda amount: amount > 0)


@st.composite
def house_pays(draw: st.DrawFn) -> dict[str, dict[str, Decimal]]:
    """A house pay table for some bets, every pay class possibly changed."""
    chosen = draw(st.lists(st.sampled_from(CATALOGUE), unique_by=lambda bet: bet.name, max_size=len(CATALOGUE)))
    return {bet.name: {**bet.pays, **{name: draw(pay) for name in bet.pays if draw(st.booleans())}}
            for bet in chosen}


@settings(max_examples=100, deadline=None)
@given(house_pays(), st.integers(0, 2**32))
def test_any_house_pay_table_gives_the_reference_fractions(pays: dict[str, dict[str, Decimal]], seed: int) -> None:
    shoe = random_shoe(random.Random(seed))
    priced = kernel.bets_under(pays)
    compiled, pure = kernel.BetValues(priced), kernel.BetValues(priced, use_kernel=False)
    assert evs_of(compiled, shoe) == reference_evs(shoe, pays) == evs_of(pure, shoe)


def test_parts_are_whole_numbers_over_positive_denominators() -> None:
    shoe = Shoe.of(8, {"9S": 6, "8H": 5, "4D": 2})
    parts = kernel.default_values().parts(shoe.values, shoe.ranks, shoe.cards)
    assert all(isinstance(n, int) and isinstance(d, int) and d > 0 for n, d in parts)
    assert [Fraction(n, d) for n, d in parts] == list(bet_evs(shoe).values())


def test_a_shoe_larger_than_the_kernel_takes_is_summed_in_python_exactly() -> None:
    shoe = Shoe.of(40)
    assert shoe.size > kernel.MAX_CARDS_LEFT
    assert kernel.position_weights(shoe.values) == position_weights(list(shoe.values))


def test_the_kernel_refuses_what_it_cannot_sum_exactly() -> None:
    from controller.core.bets import _kernel  # type: ignore[attr-defined]

    sums = _kernel.Kernel(tables.blob(), [[0, 1], [2]])
    weights, order = position_weights(list(Shoe.of(8).values)), tables.position_order()
    assert sums.sums(Shoe.of(8).values) == [weights.get(order[0], 0) + weights.get(order[1], 0),
                                            weights.get(order[2], 0)]
    for values, problem in (([1] * 9, "ten"), ([2000] + [0] * 9, "out of range"), ([1] * 5 + [0] * 5, "5 cards"),
                            ([-1] + [4] * 9, "out of range"), ([300] * 10, "3000 cards")):
        with pytest.raises(ValueError, match=problem):
            sums.sums(values)
    with pytest.raises(ValueError, match="first bytes"):
        _kernel.Kernel(b"X" * 64, [])
    with pytest.raises(ValueError, match="end too early"):
        _kernel.Kernel(tables.blob()[:1000], [])
    with pytest.raises(ValueError, match="past their end"):
        _kernel.Kernel(tables.blob() + b"\0", [])
    with pytest.raises(ValueError, match="out of range"):
        _kernel.Kernel(tables.blob(), [[len(tables.position_order())]])


BLOCK_KERNEL = '''
import importlib.abc, sys
class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "controller.core.bets._kernel":
            raise ImportError("blocked for the test: no compiled kernel here")
        return None
sys.meta_path.insert(0, Blocked())
'''


def croupier_without_kernel(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "sitecustomize.py").write_text(BLOCK_KERNEL, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                          timeout=300, env=env, cwd=tmp_path)


def croupier(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def test_without_the_kernel_odds_says_so_in_one_line_and_gives_the_same_fractions(tmp_path: Path) -> None:
    args = ("odds", "--decks", "6", "--seen", "AS 9H 9D 8C KD 4S", "--json")
    slow, fast = croupier_without_kernel(tmp_path, *args), croupier(*args)
    assert slow.returncode == fast.returncode == 0, slow.stderr
    assert json.loads(slow.stdout) == json.loads(fast.stdout)
    assert fast.stderr == ""
    assert slow.stderr.count("\n") == 1 and "Traceback" not in slow.stderr
    assert slow.stderr.startswith("croupier odds: note: the compiled live-edge kernel is not available "
                                  "(blocked for the test: no compiled kernel here); ")


def test_without_the_kernel_the_edge_events_are_the_same(tmp_path: Path) -> None:
    args = ("simulate", "--seed", "5", "--rounds", "12", "--json")
    slow, fast = croupier_without_kernel(tmp_path, *args), croupier(*args)
    assert slow.returncode == fast.returncode == 0, slow.stderr
    edges = [[line for line in run.stdout.splitlines() if '"event": "edge"' in line] for run in (slow, fast)]
    assert len(edges[1]) == 12 and edges[0] == edges[1]
    assert slow.stderr.count("note: the compiled live-edge kernel is not available") == 1


def test_every_catalogue_bet_has_a_value() -> None:
    assert list(kernel.default_values().names) == list(BETS)

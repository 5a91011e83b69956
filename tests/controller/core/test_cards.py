"""Cards: parsing, normalised printing, baccarat values and hand totals.

Values and scoring examples come from the seeds (001: "사람이 그려져있는 카드와
숫자가 10 인 카드는 0", "8+9=17 ... 합은 7"; 002/003: "7+8=15 → 5점", "K와 9는 9점").
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.core.cards import Card, full_deck, hand_total, is_card_code, parse_card
from controller.core.exceptions import CardCodeError, CroupierError

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"]
SUITS = ["S", "H", "D", "C"]
# seed 001 / 002 / 003: A = 1, 2-9 face value, 10 J Q K = 0
VALUES = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
          "T": 0, "J": 0, "Q": 0, "K": 0}


@pytest.mark.parametrize(("text", "code", "rank", "suit"), [
    ("AS", "AS", "A", "S"),
    ("as", "AS", "A", "S"),
    ("th", "TH", "T", "H"),
    ("TH", "TH", "T", "H"),
    ("10H", "TH", "T", "H"),
    ("10h", "TH", "T", "H"),
    ("Kd", "KD", "K", "D"),
    ("kD", "KD", "K", "D"),
    (" 9c ", "9C", "9", "C"),
    ("\t2s\n", "2S", "2", "S"),
    (" 10c ", "TC", "T", "C"),
    ("qh", "QH", "Q", "H"),
    ("jc", "JC", "J", "C"),
])
def test_parse_case_insensitive_and_normalised(text: str, code: str, rank: str, suit: str) -> None:
    card = parse_card(text)
    assert (card.rank, card.suit) == (rank, suit)
    assert card.code == code
    assert str(card) == code
    assert card == Card(rank, suit)
    assert is_card_code(text)


def test_parse_twice_gives_equal_cards() -> None:
    assert parse_card("th") == parse_card("th") == parse_card("10H") == parse_card("TH")


@pytest.mark.parametrize("rank", RANKS)
@pytest.mark.parametrize("suit", SUITS)
def test_every_card_prints_as_rank_then_suit(rank: str, suit: str) -> None:
    card = parse_card(rank.lower() + suit.lower())
    assert str(card) == rank + suit
    assert card.value == VALUES[rank]


@pytest.mark.parametrize(("rank", "value"), sorted(VALUES.items()))
def test_values(rank: str, value: int) -> None:
    assert Card(rank, "S").value == value


@pytest.mark.parametrize(("codes", "total"), [
    (["8S", "9H"], 7),            # seed 001: 8+9=17 → 7
    (["9S", "TH"], 9),            # seed 001 예1: 9+0=9
    (["4S", "KH", "9D"], 3),      # seed 001 예2: 4+0+9=13 → 3
    (["7S", "8H"], 5),            # seed 002 / 003: 7+8=15 → 5
    (["KS", "9H"], 9),            # seed 003: K와 9는 0+9라서 9점
    (["TS", "JH", "QD"], 0),
    (["AS", "AH"], 2),
    (["5S", "5H"], 0),
    (["9S", "9H", "9D"], 7),      # 27
    ([], 0),
])
def test_hand_totals_mod_10(codes: list[str], total: int) -> None:
    assert hand_total(parse_card(c) for c in codes) == total


@given(st.lists(st.sampled_from(RANKS), max_size=6))
def test_hand_total_is_the_sum_of_values_mod_10(ranks: list[str]) -> None:
    cards = [Card(rank, "H") for rank in ranks]
    assert hand_total(cards) == sum(VALUES[r] for r in ranks) % 10
    assert 0 <= hand_total(cards) <= 9


@given(st.sampled_from([*RANKS, "10"]), st.sampled_from(SUITS), st.data())
def test_parse_any_casing_and_padding(rank: str, suit: str, data: st.DataObject) -> None:
    text = rank + suit
    cased = "".join(data.draw(st.sampled_from([ch.lower(), ch.upper()])) for ch in text)
    padded = data.draw(st.sampled_from(["", " ", "  ", "\t"])) + cased + data.draw(st.sampled_from(["", " ", "\n"]))
    card = parse_card(padded)
    assert card.code == ("T" if rank == "10" else rank) + suit


def test_full_deck() -> None:
    deck = full_deck()
    assert len(deck) == 52
    assert {c.code for c in deck} == {r + s for r in RANKS for s in SUITS}
    assert sum(c.value for c in deck) == 4 * 45


@pytest.mark.parametrize("text", ["1X", "ZZ", "", "11H", "AH1", "10", "A", "XS", "AX", "1H", "0S",
                                  "A S", "AS AS", "@next", "??", "T10"])
def test_bad_codes_raise_card_code_error(text: str) -> None:
    with pytest.raises(CardCodeError) as caught:
        parse_card(text)
    message = str(caught.value)
    assert repr(text) in message  # names the text
    # and the expected form: ranks and suits, with an example
    assert "A 2-9 T/10 J Q K" in message
    assert "S H D C" in message
    assert "AS" in message
    assert not is_card_code(text)


def test_card_code_error_is_a_croupier_error_and_a_value_error() -> None:
    with pytest.raises(CroupierError):
        parse_card("ZZ")
    with pytest.raises(ValueError):
        parse_card("ZZ")


def test_bad_code_after_good_code_with_same_text_shape() -> None:
    # the parse cache must not make a bad text good or a good text bad
    assert parse_card("AS").code == "AS"
    with pytest.raises(CardCodeError):
        parse_card("AS1")
    assert parse_card("AS").code == "AS"

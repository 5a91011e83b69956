"""What a newcomer reads after a first short run, in every language (issue 28 item 19): counts agree with their
number ("1 round", not "1 rounds"), a halt's instruction does not go on in lower case after a full stop, and one
round is too few to call a frequency UNUSUAL."""

from __future__ import annotations

import json
import re

import pytest

from controller.i18n.catalogue import Catalogue
from controller.i18n.languages import LANGUAGES
from tests.inprocess import croupier_in_process

ONE_ROUND_WITH_A_PAIR = ("--no-burn", "--cards", "5H 2C 5D 3C 9S")
"""One round, the player's two fives a pair: a 7.5 % event that a z-score over one round puts 3.5 standard errors
out."""


def counted(words: Catalogue, msg_id: str, english: str, count: int) -> str:
    return words.say(msg_id, english, count=str(count))


@pytest.mark.parametrize("language", LANGUAGES)
def test_one_round_on_one_shoe_of_one_deck_is_counted_in_the_singular(language: str) -> None:
    run = croupier_in_process("simulate", "--lang", language, "--decks", "1", *ONE_ROUND_WITH_A_PAIR)
    assert run.returncode == 0, run.stderr
    words = Catalogue(language)
    for singular, plural in ((("count.round", "{count} round"), ("count.rounds", "{count} rounds")),
                             (("count.shoe", "{count} shoe"), ("count.shoes", "{count} shoes")),
                             (("count.deck", "{count} deck"), ("count.decks", "{count} decks"))):
        one, many = counted(words, *singular, 1), counted(words, *plural, 1)
        assert one in run.stdout, (one, run.stdout)
        if many != one:
            assert many not in run.stdout, (many, run.stdout)
    assert "1 rounds" not in run.stdout and "(s)" not in run.stdout
    assert "1 manos" not in run.stdout and "1 mazos" not in run.stdout


def test_counts_other_than_one_keep_the_plural() -> None:
    run = croupier_in_process("simulate", "--seed", "3", "--rounds", "2")
    assert "Summary: 2 rounds over 1 shoe\n" in run.stdout, run.stdout
    assert "over 2 rounds:" in run.stdout
    spanish = croupier_in_process("simulate", "--lang", "es", "--seed", "3", "--rounds", "2")
    assert "2 manos" in spanish.stdout and "1 sabot" in spanish.stdout, spanish.stdout


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_halt_goes_on_with_a_capital_after_its_full_stop(language: str) -> None:
    """"Halt. enter the card by hand": the resolutions follow the halt as a list, never as a lower-case
    sentence."""
    run = croupier_in_process("simulate", "--lang", language, "--json", "--cards", "ZZ 5H")
    instructions = [event["instruction"] for event in map(json.loads, run.stdout.splitlines())
                    if event["event"] == "misdeal"]
    assert instructions, run.stdout
    for text in [*instructions, run.stderr]:
        assert not re.search(r"\. [a-záéíóú]", text), text


@pytest.mark.parametrize("language", LANGUAGES)
def test_one_round_is_too_few_to_call_a_frequency_unusual(language: str) -> None:
    run = croupier_in_process("simulate", "--lang", language, *ONE_ROUND_WITH_A_PAIR)
    assert run.returncode == 0, run.stderr
    words = Catalogue(language)
    unusual = words.say("comparison.unusual", "  UNUSUAL: {names} more than {z} standard errors from the exact odds; "
                        "check the shoe and the rules", names="{names}", z="3").split("{names}")[0].strip()
    assert "UNUSUAL" not in run.stdout and unusual not in run.stdout, run.stdout
    # a pair (7.47 %) is judged from 67 rounds on: five of them expected
    assert words.say("comparison.too_few", "  too few rounds to judge the frequencies against the exact odds: about "
                     "{needed} are needed", needed="67") in run.stdout.splitlines(), run.stdout


def test_a_long_run_still_judges_every_frequency() -> None:
    run = croupier_in_process("simulate", "--seed", "42", "--rounds", "2000", "--quiet")
    assert "every frequency is within 3 standard errors of the exact odds" in run.stdout, run.stdout
    assert "too few rounds" not in run.stdout

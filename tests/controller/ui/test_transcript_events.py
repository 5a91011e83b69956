"""The plain transcript words every kind of event the table emits, or leaves it out on purpose: it never prints an
event's machine name in place of a sentence."""

from __future__ import annotations

import io

import pytest

from controller.core.events import ClockEvent, Event, StubCountEvent
from controller.i18n.catalogue import Catalogue
from controller.ui.transcript import Transcript


def lines_of(events: list[Event], lang: str = "en") -> str:
    stream = io.StringIO()
    Transcript(stream, words=Catalogue(lang))(events)
    return stream.getvalue()


def test_a_clock_reading_is_for_the_journal_not_the_dealer() -> None:
    shown = lines_of([ClockEvent(synchronised=True, source="chronyc", offset=0.002)])
    assert shown == "", "the clock's readings are journaled; a clock that is off raises an alert, which is shown"


@pytest.mark.parametrize("lang", ["en", "es", "ja", "ko", "zh_Hans", "zh_Hant"])
def test_a_stub_count_says_what_was_counted_and_expected(lang: str) -> None:
    shown = lines_of([StubCountEvent(round=12, shoe=1, expected=340, counted=340)], lang)
    assert "stub_count" not in shown
    assert "340" in shown
    if lang == "en":
        assert shown == "  Stub counted: 340 cards, as the table expects\n"


def test_a_stub_count_that_differs_says_both_numbers() -> None:
    shown = lines_of([StubCountEvent(round=12, shoe=1, expected=340, counted=338)])
    assert shown == "  Stub counted: 338 cards; the table expects 340\n"


def test_the_dealer_is_told_what_to_do_once_when_a_reading_of_the_clock_comes_between() -> None:
    from tests.inprocess import croupier_in_process

    done = croupier_in_process("run", "--driver", "mock://?seed=9", "--auto-next", "--rounds", "1")
    assert done.returncode == 0, done
    lines = done.stdout.splitlines()
    assert lines.count("  Shuffle, cut and load shoe 1; confirm when ready") == 1, lines[:6]


def test_an_instruction_said_again_after_a_refusal_is_printed_again() -> None:
    from tests.tokens import NO_BURN, dealt, table_of

    shown = lines_of(dealt("3S KD 5H 9C @void", table_of(shoe=NO_BURN)))
    assert shown.count("Round 1 is over; start the next round") == 0, "between rounds it is left out (show_next)"
    stream = io.StringIO()
    Transcript(stream, show_next=True)(dealt("3S KD 5H 9C @void", table_of(shoe=NO_BURN)))
    assert stream.getvalue().count("  Round 1 is over; start the next round") == 2, stream.getvalue()


@pytest.mark.parametrize(("read", "shown"), [("??", "??"), ("XX", "XX")])
def test_a_burn_card_the_reader_could_not_identify_shows_what_it_read(read: str, shown: str) -> None:
    """docs/events.md: a burn card the reader could not identify is burned all the same, ``card`` null and ``read``
    what the reader sent; the transcript printed the null as ``Burn: None``."""
    from controller.core.events import BurnEvent

    assert lines_of([BurnEvent(card=None, read=read)]) == f"  Burn: {shown}\n"
    assert "None" not in lines_of([BurnEvent(card=None, read=read)], "ko")
    assert lines_of([BurnEvent(card=None)]) == "  Burn: ??\n"

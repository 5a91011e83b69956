"""The stub count at the console (issue 29 item 6): the request in large type with its key, ``k`` confirming the
count the table shows, ``t`` a dialog to type the count, and a count other than the table's shown as the
``count_mismatch`` misdeal with its keys. The console drives a real table."""

from __future__ import annotations

import asyncio

import pytest

from config.loader import load_config
from controller.core.exceptions import ScriptError
from controller.core.inputs import Input, InputKind, card_read
from controller.core.table import Table
from controller.i18n.catalogue import Catalogue
from controller.ui.console import DealerConsole
from controller.ui.keyboard import parse_dealer_line
from tests.controller.ui.test_face_down_views import rendered as rendered_lines
from tests.controller.ui.test_face_down_views import shown_keys
from tests.pilot_wait import press, settle


def rendered(app: DealerConsole, selector: str) -> str:
    """The text a widget shows, its lines joined (wrapped at the width of the screen, in any language)."""
    lines = rendered_lines(app, selector).splitlines()
    return "".join(line if not joined or not line or not line[0].isascii() or not joined[-1].isascii()
                   else " " + line for joined, line in _pairs(lines))


def _pairs(lines: list[str]) -> list[tuple[str, str]]:
    pairs, so_far = [], ""
    for line in lines:
        pairs.append((so_far, line))
        so_far += line
    return pairs


LEFT = 8 * 52 - 4
"""The cards left after one round of four cards, no burn."""


def counted_table() -> Table:
    return Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}, "procedures": {"count_every": 1}}))


def run(keys: list[str], table: Table, language: str = "en") -> tuple[list[Input], dict[str, str]]:
    """Deal one round (the count is then due), press ``keys`` on the console, each input it sends fed to the real
    table at once (with the table's own view, as the app does); returns what it sent and what it showed."""
    events = [*table.start(), *table.handle(Input(InputKind.SHOE))]
    for code in ["9S", "KD", "TH", "2C"]:
        events += table.handle(card_read(code))
    sent: list[Input] = []
    seen: dict[str, str] = {}

    async def main() -> None:
        app = DealerConsole(on_input=sent.append, events=list(events), table=table.view, words=Catalogue(language))
        async with app.run_test(size=(120, 50)) as pilot:
            await settle(pilot)
            seen["big"] = str(app.view.instruction_action)
            seen["action"] = rendered(app, "#next-action-text")
            seen["footer"] = shown_keys(app)
            for key in keys:
                before = len(sent)
                await press(pilot, key)
                await settle(pilot)
                for item in sent[before:]:
                    app.apply_batch(table.handle(item), table.view)
                await settle(pilot)
                if app.screen.query("#count-question"):
                    seen["question"] = rendered(app, "#count-question")
                    seen["error"] = rendered(app, "#count-error")
            seen["misdeal"] = rendered(app, "#misdeal")
            seen["action_after"] = rendered(app, "#next-action-text")
            seen["footer_after"] = shown_keys(app)

    asyncio.run(main())
    return sent, seen


def test_the_count_is_asked_in_large_type_and_k_confirms_the_shown_count() -> None:
    table = counted_table()
    sent, seen = run(["k"], table)
    assert seen["big"] == "count_stub"
    assert seen["action"] == (f"Count the cards left in the shoe: the table expects {LEFT}. Press k if you count "
                              f"{LEFT}; press t to type the number you count.")
    assert "k" in seen["footer"].split() and "t" in seen["footer"].split() and "n" not in seen["footer"].split()
    assert sent == [Input(InputKind.COUNT)]
    assert table.misdeal is None and not table.stub_count_due
    assert "n" in seen["footer_after"].split() and "k" not in seen["footer_after"].split()


def test_the_count_key_is_shown_in_large_type_with_the_expected_count() -> None:
    table = counted_table()

    async def main() -> str:
        events = [*table.start(), *table.handle(Input(InputKind.SHOE))]
        for code in ["9S", "KD", "TH", "2C"]:
            events += table.handle(card_read(code))
        app = DealerConsole(events=events, table=table.view)
        async with app.run_test(size=(120, 50)) as pilot:
            await settle(pilot)
            from controller.ui.moments import next_moment
            return next_moment(app.view, app.words).big

    assert asyncio.run(main()) == f"COUNT {LEFT}: k"


def test_t_types_the_count_and_a_wrong_one_halts_with_the_mismatch_keys() -> None:
    table = counted_table()
    sent, seen = run(["t", "4", "0", "0", "enter"], table)
    assert seen["question"] == f"How many cards are left in the shoe? (the table expects {LEFT})"
    assert sent == [Input(InputKind.COUNT, "400")]
    assert table.misdeal is not None and table.misdeal.kind == "count_mismatch"
    assert seen["action_after"] == ("MISDEAL: The stub count is not the table's: a card may be missing or added. "
                                    f"Counted 400; the table expects {LEFT}.")
    assert "press T" in seen["misdeal"] and "close the shoe" in seen["misdeal"]
    footer = seen["footer_after"].split()
    assert "t" in footer and "c" in footer and "k" not in footer and "n" not in footer


def test_a_recount_typed_at_the_console_resolves_the_mismatch() -> None:
    table = counted_table()
    sent, seen = run(["t", "9", "enter", "t", *str(LEFT), "enter"], table)
    assert sent == [Input(InputKind.COUNT, "9"), Input(InputKind.COUNT, str(LEFT))]
    assert table.misdeal is None and not table.stub_count_due
    assert "n" in seen["footer_after"].split()


def test_a_typed_count_that_is_no_number_is_explained_and_esc_sends_nothing() -> None:
    sent, seen = run(["t", "x", "enter", "escape"], counted_table())
    assert sent == []
    assert seen["error"] == "'x' is not a count: type the number of cards left in the shoe, e.g. 312"


@pytest.mark.parametrize("typed", ["²", "3²", "½"])
def test_a_typed_count_of_digit_signs_that_are_no_decimal_digits_is_explained_not_a_crash(typed: str) -> None:
    """'²' is a digit to str.isdigit() but no number to int(): the dialog raised ValueError and the console crashed."""
    sent, seen = run(["t", *typed, "enter", "escape"], counted_table())
    assert sent == []
    assert seen["error"] == f"{typed!r} is not a count: type the number of cards left in the shoe, e.g. 312"


def test_a_count_typed_in_other_decimal_digits_is_that_number() -> None:
    table = counted_table()
    sent, _ = run(["t", *"".join(chr(0x0660 + int(digit)) for digit in str(LEFT)), "enter"], table)
    assert sent == [Input(InputKind.COUNT, str(LEFT))]


@pytest.mark.parametrize("language", ["es", "ja", "ko", "zh_Hans", "zh_Hant"])
def test_the_request_is_worded_in_the_tables_language(language: str) -> None:
    _, seen = run([], counted_table(), language)
    worded = Catalogue(language).say(
        "console.count_stub.detail", "Count the cards left in the shoe: the table expects {expected}. Press k if you "
        "count {expected}; press t to type the number you count.", expected=str(LEFT))
    assert "".join(seen["action"].split()) == "".join(worded.split())  # wrapped at the screen's width
    assert not seen["action"].startswith("Count the cards") and str(LEFT) in seen["action"]


def test_the_plain_console_keys_the_count() -> None:
    assert parse_dealer_line("k") == Input(InputKind.COUNT)
    assert parse_dealer_line("count 312") == Input(InputKind.COUNT, "312")
    with pytest.raises(ScriptError, match="expected 'k' or 'k CARDS'"):
        parse_dealer_line("k twelve")
    with pytest.raises(ScriptError, match="expected 'k' or 'k CARDS'"):  # a digit to isdigit(), no number
        parse_dealer_line("k 3²")


def test_a_recorded_stream_without_the_tables_view_still_shows_the_count_and_the_recount() -> None:
    """``python -m controller.ui.console EVENTS.jsonl`` has only the events: the count comes from the instruction,
    the recount's from the misdeal."""
    from controller.ui.moments import next_moment
    from controller.ui.tableview import TableView

    table = counted_table()
    view = TableView()
    for event in [*table.start(), *table.handle(Input(InputKind.SHOE)),
                  *(event for code in ["9S", "KD", "TH", "2C"] for event in table.handle(card_read(code)))]:
        view.apply(event)
    assert next_moment(view).big == f"COUNT {LEFT}: k" and view.stub_count_expected() == LEFT
    for event in table.handle(Input(InputKind.COUNT, "12")):
        view.apply(event)
    assert view.misdeal is not None and view.stub_count_expected() == LEFT
    assert next_moment(view).big == "T RECOUNT  C CLOSE+SUP"


def test_a_count_mismatch_names_the_counts_never_the_count_as_a_card() -> None:
    """The misdeal's ``card`` holds the count keyed (docs/events.md): it is no card, so the dealer is told the two
    counts, not "Card: 400" (from a recorded stream too, where only the event is known)."""
    from controller.ui.dealer_words import misdeal_lines

    event = {"event": "misdeal", "round": 2, "kind": "count_mismatch", "card": "400",
             "say_id": "misdeal.count_mismatch", "say_params": {"counted": 400, "expected": 412},
             "resolutions": ["count", "close"], "supervisor": ["close"]}
    first = misdeal_lines(event)[0]
    assert first.endswith(" Counted 400; the table expects 412.") and "Card" not in first
    assert "Card" not in misdeal_lines({**event, "say_params": {}})[0]

"""controller.core.codes: one table of stable event codes, documented, every event and kind with its own."""

from __future__ import annotations

import re
import typing
from pathlib import Path

from controller.core.codes import ALERT_CODES, CODES, EVENT_CODES, MISDEAL_CODES, READER_CODES, code_of, codes_markdown
from controller.core.events import AnyEvent
from controller.terms import ALERT_KINDS, MISDEAL_KINDS
from tests.tokens import NO_BURN, dealt, table_of

DOCS = Path(__file__).resolve().parents[3] / "docs" / "events.md"


def test_every_event_type_and_kind_has_a_code_of_its_own() -> None:
    tags = {member.__struct_config__.tag for member in typing.get_args(AnyEvent)}
    by_kind = {"misdeal", "resolved", "alert", "reader"}
    assert tags - by_kind == set(EVENT_CODES)
    assert set(MISDEAL_CODES) == set(MISDEAL_KINDS) and set(ALERT_CODES) == set(ALERT_KINDS)
    numbers = [code.number for code in EVENT_CODES.values()] + list(MISDEAL_CODES.values()) + [
        number + 50 for number in MISDEAL_CODES.values()] + list(ALERT_CODES.values()) + list(READER_CODES.values())
    assert len(numbers) == len(set(numbers)) == len(CODES)


def test_every_fault_names_a_code_that_clears_it() -> None:
    faults = [code for code in CODES.values() if code.cleared_by is not None]
    assert {code.number for code in faults} >= set(MISDEAL_CODES.values()) | set(ALERT_CODES.values()) | {501}
    assert all(code.cleared_by in CODES for code in faults)


def test_the_documented_table_is_the_table() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert codes_markdown() in text
    documented = [int(number) for number in re.findall(r"^\| (\d+) \|", text, flags=re.MULTILINE)]
    assert documented == list(CODES)


def test_codes_of_a_game() -> None:
    events = dealt("3S KD 5H ZZ @burn 9C", table_of(shoe=NO_BURN))
    codes = [code_of(event) for event in events]
    assert codes[0] == 101 and 304 in codes and 354 in codes and codes.count(203) == 4

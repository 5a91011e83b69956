"""A refused input's reason in the table's language: the core gives each reason an id and parameters
(``reason_id``, ``reason_params``), the English ``reason`` stays as it was, and what a person reads (the
console's status line, the transcript) is worded by the Localiser."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest

from config.loader import load_config
from controller.core.events import Event
from controller.core.inputs import parse_tokens
from controller.core.table import Table
from controller.core.undo import FROM_THE_SHOE, NOTHING
from controller.i18n.catalogue import Catalogue
from controller.ui.localise import Localiser
from controller.ui.tableview import TableView
from controller.ui.transcript import Transcript

ENGLISH_WORD = re.compile(r"\b[a-z]{3,}\b")
"""A lowercase English word (the card codes and alert ids that stay as they are have none)."""
KEY = re.compile(r'@\w+|\[\w+\] \w+ = "\w+"')
"""A dealer key (``@undo``, ``@exposed``) or a config setting (``[table] dealing = "face_up"``): they stay as
they are."""


def rejection(tokens: str) -> Event:
    config = load_config(None, environ={}, overrides={"shoe": {"burn": "none"}, "table": {"dealing": "face_up"},
                                                      "simulation": {"auto_next": False}})
    table = Table(config)
    events = table.start()
    for item in parse_tokens(tokens):
        events = table.handle(item)
    refused = [event for event in events if event["event"] == "rejected"]
    assert len(refused) == 1, events
    return refused[0]


CASES = {
    "undo_first": ("@undo", f"@undo not accepted: {NOTHING}"),
    "undo_shoe_card": ("@shoe 4D @undo", f"@undo not accepted: {FROM_THE_SHOE}"),
    "ack_unknown": ("@ack A9", "@ack A9 not accepted: no alert A9; no alert is open"),
    "undo_twice": ("4D 5H 6C 7S @ack A9 @undo", "@undo not accepted: @ack A9 was not accepted, so there is "
                                                "nothing to undo"),
    "next_mid_round": ("@shoe 4D @next", "@next not accepted: round 1 is still being dealt: B1 (card to BANKER) "
                                         "is due"),
    "cut_twice": ("@cut @cut", "@cut not accepted: the cut card is already out"),
    "void_no_misdeal": ("@void", "@void not accepted: there is no misdeal to resolve"),
    "reveal_face_up": ("@reveal", '@reveal not accepted: dealing is face up ([table] dealing = "face_up"): nothing '
                       "to reveal"),
    "manual_bad_code": ("@shoe 4D 5H XX @manual ZZ", "@manual ZZ not accepted: 'ZZ' is not a card: expected a rank "
                        "(A 2-9 T/10 J Q K) followed by a suit (S H D C), e.g. AS, 10H, kd; enter the card again"),
}


@pytest.mark.parametrize("case", CASES)
def test_the_english_reason_and_say_are_unchanged_and_carry_an_id(case: str) -> None:
    tokens, say = CASES[case]
    event: Any = rejection(tokens)
    assert event["say"] == say
    assert event["say"] == f"{event['input']} not accepted: {event['reason']}"
    assert event["say_id"] == "rejected" and event["say_params"] == {"input": event["input"],
                                                                    "reason": event["reason"]}
    assert event["reason_id"].startswith("rejected.")
    assert Localiser(Catalogue("en")).event(event) == event


@pytest.mark.parametrize("language", ["ko", "ja"])
@pytest.mark.parametrize("case", CASES)
def test_the_status_line_and_the_transcript_word_the_reason(language: str, case: str) -> None:
    event: Any = rejection(CASES[case][0])
    worded: Any = Localiser(Catalogue(language)).event(event)
    view = TableView()
    view.apply(worded)
    assert view.rejected == worded["say"]
    out = io.StringIO()
    Transcript(out, words=Catalogue(language))([worded])
    assert out.getvalue() == f"  ?? {worded['say']}\n"
    assert not ENGLISH_WORD.findall(KEY.sub("", worded["say"])), worded["say"]
    assert worded["reason"] == event["reason"] and worded["reason_id"] == event["reason_id"]

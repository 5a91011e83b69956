"""The journal's JSON shortcuts: :func:`parsed` reads as ``json.loads`` reads, :func:`encodes_as` says yes only
for the JSON value :func:`compact` wrote."""

from __future__ import annotations

import json
import math

import pytest

from controller.core.events import AlertEvent, CardEvent
from controller.journal.store import compact, encodes_as, parsed

EVENTS = {"events": [CardEvent(round=7, slot="P1", card="TH"),
                     AlertEvent(id="a1", kind="advantage", severity="warning", shoe=2, round=7, bet="tie",
                                edge="1/3", threshold=0.25, detail="tie is worth …", say_id="alert.advantage")],
          "device": "T-7", "codes": [101, 402]}


@pytest.mark.parametrize("text", [compact(EVENTS), '{"a":1,"a":2}', "[1.5e-07, -0.0, 12345678901234567890123]",
                                  '"caf\\u00e9 \\n \u2028"', "  {} ", '[1e400, NaN, -Infinity]', '"\\ud800"'])
def test_parsed_reads_what_json_reads(text: str) -> None:
    found, expected = parsed(text), json.loads(text)
    assert json.dumps(found) == json.dumps(expected) and type(found) is type(expected)


def test_parsed_takes_json_s_extensions_through_json() -> None:
    found = parsed("[NaN, 1e400]")
    assert math.isnan(found[0]) and found[1] == math.inf


@pytest.mark.parametrize("text", ["{", "", "[1,]", "{'a': 1}", "nul"])
def test_parsed_refuses_what_json_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        parsed(text)


def test_encodes_as_knows_the_text_compact_writes() -> None:
    assert encodes_as(EVENTS, compact(EVENTS))


def test_encodes_as_says_no_to_another_value_or_form() -> None:
    text = compact(EVENTS)
    assert not encodes_as(EVENTS, text.replace('"TH"', '"TS"'))
    assert not encodes_as(EVENTS, text.replace("0.25", "0.250"))
    assert not encodes_as(EVENTS, json.dumps(json.loads(text)))  # the same value, spaced: not the stored text
    assert not encodes_as({"x": object()}, "{}")


def test_a_float_with_an_exponent_is_left_to_compact() -> None:
    """msgspec writes ``1e-6`` where :func:`compact` (``repr``) writes ``1e-06``: the shortcut says no, and the
    caller compares with :func:`compact` as before."""
    value = {"threshold": 1e-06}
    assert compact(value) == '{"threshold":1e-06}'
    assert not encodes_as(value, compact(value))

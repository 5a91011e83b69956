"""What the archive takes from a ``croupier/SITE/TABLE/journal`` message, before any database: the record exactly as
``json.loads`` reads the message, or the one-line reason it is refused, whatever reads it fastest."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.floor.archive_decode import MAX_SEQ, StateRefusal, decode_message, decode_state
from controller.floor.archive_store import Head, Rejection
from controller.floor.messages import TableState
from controller.journal.store import GENESIS, Record

TOPIC = "croupier/s1/t1/journal"
HASH = "ab" * 32
FIELDS = {"seq": 3, "kind": "round", "at": "2026-12-02T10:00:00.000000Z", "body": '{"x":1}', "prev": GENESIS,
          "hash": HASH}


def message(ascii_only: bool = True, **changed: object) -> bytes:
    return json.dumps({**FIELDS, **changed}, separators=(",", ":"), ensure_ascii=ascii_only).encode()


def record(**changed: Any) -> tuple[str, str, Record]:
    fields: dict[str, Any] = {**FIELDS, **changed}
    return "s1", "t1", Record(fields["seq"], fields["kind"], fields["at"], fields["body"], fields["prev"],
                              fields["hash"])


TAKEN = {
    "a record": (message(), record()),
    "white space around it": (b" \n" + message() + b"\r\n\t", record()),
    "a key given twice: the last one counts, as json.loads reads it": (
        message()[:-1] + b',"seq":7}', record(seq=7)),
    "a key given twice, first of the wrong type": (b'{"seq":"x",' + message()[1:-1] + b'}', record()),
    "escaped and unescaped text": (message(body='{"name":"caf\\u00e9 caf\u00e9 \\"q\\" \\\\"}'),
                                   record(body='{"name":"caf\\u00e9 caf\u00e9 \\"q\\" \\\\"}')),
    "a body in other scripts, in UTF-8": (message(False, body='{"name":"\u4e2d\u6587 \U0001f0a1"}'),
                                          record(body='{"name":"\u4e2d\u6587 \U0001f0a1"}')),
    "an escaped surrogate pair": (message(body="\U0001f0a1"), record(body="\U0001f0a1")),
    "the largest seq": (message(seq=2 ** 63 - 1), record(seq=2 ** 63 - 1)),
}

REFUSED = {
    "seq 0": (message(seq=0), "seq is a record number from 1 to 9223372036854775807"),
    "seq -0": (message().replace(b'"seq":3', b'"seq":-0'), "seq is a record number"),
    "seq 2^63": (message(seq=2 ** 63), "seq is a record number"),
    "seq of 4,301 digits": (message().replace(b'"seq":3', b'"seq":' + b"9" * 4301), "the message is not JSON"),
    "seq 3.0": (message().replace(b'"seq":3', b'"seq":3.0'), "seq is a record number"),
    "seq 3e0": (message().replace(b'"seq":3', b'"seq":3e0'), "seq is a record number"),
    "seq true": (message(seq=True), "seq is a record number"),
    "seq as text": (message(seq="3"), "seq is a record number"),
    "a body NaN": (message().replace(b'"body":"{\\"x\\":1}"', b'"body":NaN'), "kind, at, body, prev and hash are "
                                                                              "text"),
    "a body that is an object": (message(body={"x": 1}), "kind, at, body, prev and hash are text"),
    "an escaped NUL": (message(body='{"x":"\u0000"}'), "its body contains a NUL character"),
    "a lone surrogate": (message().replace(b'"round"', b'"\\ud800"'), "its kind contains a lone surrogate"),
    "a lone surrogate in the body": (message(body="x\ud800"), "its body contains a lone surrogate"),
    "a field missing": (json.dumps({k: v for k, v in FIELDS.items() if k != "hash"}).encode(),
                        "a journal record has the fields seq, kind, at, body, prev, hash (got at, body, kind, prev, "
                        "seq)"),
    "a field more": (message(extra=1), "(got at, body, extra, hash, kind, prev, seq)"),
    "an upper-case hash": (message(hash=HASH.upper()), "prev and hash are SHA-256 hashes"),
    "a kind that is not one": (message(kind="Round"), "kind is a record kind"),
    "a byte order mark": (b"\xef\xbb\xbf" + message(), "the message is not JSON"),
    "invalid UTF-8": (message().replace(b"round", b"r\xffund"), "the message is not JSON"),
    "a surrogate in UTF-8": (message().replace(b"round", b"r\xed\xa0\x80und"), "the message is not JSON"),
    "a control character in text": (message().replace(b"round", b"ro\tund"), "the message is not JSON"),
    "something after it": (message() + b" {}", "the message is not JSON"),
    "an array": (b"[" + message() + b"]", "the message is not a JSON object"),
    "deep JSON": (b"[" * 100_000 + b"]" * 100_000, "the message is not JSON"),
}


@pytest.mark.parametrize("name", sorted(TAKEN))
def test_a_good_message_gives_its_record_as_json_loads_reads_it(name: str) -> None:
    payload, expected = TAKEN[name]
    assert decode_message(TOPIC, payload) == expected


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_bad_message_is_refused_with_its_reason(name: str) -> None:
    payload, reason = REFUSED[name]
    found = decode_message(TOPIC, payload)
    assert isinstance(found, Rejection), found
    assert (found.site, found.table) == ("s1", "t1")
    assert reason in found.reason, found.reason


STATE_TOPIC = "croupier/s1/t1/state"


def state(seq: object = 3, hash_: object = HASH, **changed: object) -> bytes:
    """The producer's own retained ``state`` of s1/t1, its journal head ``{"seq": seq, "hash": hash_}``, with
    ``changed`` fields."""
    published = json.loads(TableState("s1", "t1").message())
    return json.dumps({**published, "head": {"seq": seq, "hash": hash_}, **changed}).encode()


STATES_TAKEN = {
    "a table's state": (state(), (("s1", "t1"), Head(3, HASH))),
    "a table's state before its first record": (state(0, ""), (("s1", "t1"), None)),
    "the largest seq": (state(MAX_SEQ), (("s1", "t1"), Head(MAX_SEQ, HASH))),
    "a retained state cleared (an empty message)": (b"", (("s1", "t1"), None)),
}

STATES_REFUSED = {
    "not JSON": (b"this is not json", "the state is not JSON"),
    "cut short": (b"[[[[[[[[", "the state is not JSON"),
    "deep JSON": (b"[" * 100_000 + b"]" * 100_000, "the state is not JSON"),
    "invalid UTF-8": (b"\xff\xfe", "the state is not JSON"),
    "an array": (b"[1]", "the state is not a JSON object"),
    "too large": (b" " * (300 * 1024), "the state is 307200 bytes, more than the archive takes (262144)"),
    "no site or table": (b'{"head": "nope"}', "the state names None/None, not the topic's s1/t1"),
    "another table's": (state(table="t2"), "the state names 's1'/'t2', not the topic's s1/t1"),
    "no head": (state(head=None), "its head is"),
    "a head that is text": (state(head="nope"), "its head is"),
    "a seq beyond PostgreSQL's bigint": (state(2 ** 70, "abc"), "its head's seq is a record number from 0 to "
                                                                f"{MAX_SEQ}"),
    "a negative seq": (state(-1), "its head's seq is a record number"),
    "a seq that is true": (state(True), "its head's seq is a record number"),
    "a seq as text": (state("3"), "its head's seq is a record number"),
    "a seq 3.0": (state(3.0), "its head's seq is a record number"),
    "a short hash": (state(5, "abc"), "its head's hash is a SHA-256 hash (64 hex digits"),
    "an upper-case hash": (state(5, HASH.upper()), "its head's hash is a SHA-256 hash"),
    "no hash": (state(5, None), "its head's hash is a SHA-256 hash"),
    "a hash before any record": (state(0, HASH), "its head's hash is a SHA-256 hash"),
}


@pytest.mark.parametrize("name", sorted(STATES_TAKEN))
def test_a_good_state_gives_its_table_and_journal_head(name: str) -> None:
    payload, expected = STATES_TAKEN[name]
    assert decode_state(STATE_TOPIC, payload) == expected


@pytest.mark.parametrize("name", sorted(STATES_REFUSED))
def test_a_bad_state_is_refused_naming_its_topic_and_why(name: str) -> None:
    payload, reason = STATES_REFUSED[name]
    found = decode_state(STATE_TOPIC, payload)
    assert isinstance(found, StateRefusal), found
    assert str(found).startswith(f"{STATE_TOPIC}: "), str(found)
    assert reason in found.reason, found.reason
    assert "\n" not in str(found)


def test_a_state_on_a_topic_that_is_no_floor_place_is_refused() -> None:
    found = decode_state("croupier/bad site/t\n1/state", state())
    assert isinstance(found, StateRefusal), found
    assert str(found) == ("topic 'croupier/bad site/t\\n1/state': SITE and TABLE are 1-64 letters, digits, '-', "
                          "'_' or '.'")

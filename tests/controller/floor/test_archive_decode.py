"""What the archive takes from a ``croupier/SITE/TABLE/journal`` message, before any database: the record exactly as
``json.loads`` reads the message, or the one-line reason it is refused, whatever reads it fastest."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.floor.archive_decode import decode_message
from controller.floor.archive_store import Rejection
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

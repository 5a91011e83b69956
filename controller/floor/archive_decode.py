"""What the archive takes from the broker: a ``croupier/SITE/TABLE/journal`` message, checked before the database.

Every message is judged here on its own, so that one bad message is refused alone (kept apart in
``journal_rejects`` with its reason and acknowledged) and never reaches PostgreSQL, where it would roll
back the other tables' records of its batch: a message larger than :data:`MAX_MESSAGE_BYTES`, not UTF-8,
not JSON, not an object with exactly the record's fields, a ``seq`` that is not a record number PostgreSQL
can hold (1 to 2^63 - 1), a text with a NUL character or a lone surrogate (PostgreSQL's ``text`` takes
neither), a hash that is not 64 hex digits, and a topic whose SITE or TABLE is not a floor name.

A table's retained ``croupier/SITE/TABLE/state`` is judged here too (:func:`decode_state`): the archive reads only
its journal ``head``, and takes it only from a state that is one: a JSON object of at most :data:`MAX_STATE_BYTES`
naming the topic's site and table, whose head is ``{"seq": 0 to 2^63 - 1, "hash": 64 hex digits}`` (``""`` while
``seq`` is 0, before the table's first record), as ``controller/floor/messages.py`` publishes it. Another one is
refused with its reason (:class:`StateRefusal`), never taken as a table.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass

import msgspec

from controller.floor.archive_store import Head, Place, Rejection
from controller.floor.urls import NAME
from controller.journal.store import Record

FIELDS = ("seq", "kind", "at", "body", "prev", "hash")
FIELD_SET = frozenset(FIELDS)
MAX_MESSAGE_BYTES = 1 << 20
"""The largest journal message the archive takes (1 MiB; a journal's largest records, its checkpoints, are
tens of KB). ``croupier floor acl``'s broker settings refuse larger ones at the broker already."""
MAX_SEQ = (1 << 63) - 1
"""The largest ``seq`` PostgreSQL's ``bigint`` holds."""
KEPT_OF_A_REJECT = 4096
"""How much of a refused message's text ``journal_rejects`` keeps (its size is said after it)."""
HASHES = re.compile(r"[0-9a-f]{128}")
"""Two hashes one after the other (each 64 characters long: then each is a hash)."""
HASH = re.compile(r"[0-9a-f]{64}")
KIND = re.compile(r"[a-z_]{1,32}")
MAX_STATE_BYTES = 256 * 1024
"""The largest ``state`` message the archive reads (a table's is about a kilobyte)."""
LONGEST_AT = 64


class _RecordFields(msgspec.Struct, forbid_unknown_fields=True):
    """A journal message's fields as :data:`STRICT_DECODER` reads them."""

    seq: int
    kind: str
    at: str
    body: str
    prev: str
    hash: str


STRICT_DECODER = msgspec.json.Decoder(_RecordFields)
"""The common case in one C call (a fifth of ``json.loads``'s time): exactly the record's fields, ``seq`` an integer,
the others text. It takes only what ``json.loads`` takes, with the same values (a repeated key's last value); what it
refuses (a lone surrogate, a float, NaN, a missing or extra field...) goes through ``json.loads``, which says why."""


def decode_message(topic: str, payload: bytes) -> tuple[str, str, Record] | Rejection:
    """(site, table, record) of a ``croupier/SITE/TABLE/journal`` message, or why it is not one."""
    place = _place(topic)
    if isinstance(place, Rejection):
        return place
    site, table = place
    if len(payload) > MAX_MESSAGE_BYTES:
        return Rejection(site, table, None, f"the message is {len(payload)} bytes, more than the archive takes "
                                            f"({MAX_MESSAGE_BYTES})")
    try:
        fields = STRICT_DECODER.decode(payload)
    except msgspec.DecodeError:
        return _judged_by_json(site, table, payload)
    return _checked(site, table, fields.seq, fields.kind, fields.at, fields.body, fields.prev, fields.hash)


@functools.lru_cache(maxsize=4096)
def _place(topic: str) -> tuple[str, str] | Rejection:
    """(site, table) of a journal topic, or why it is not one (a floor's few topics, each judged once)."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != "croupier" or parts[3] != "journal":
        return Rejection(None, None, None, f"topic {topic!a} is not croupier/SITE/TABLE/journal")
    site, table = parts[1], parts[2]
    if not (NAME.fullmatch(site) and NAME.fullmatch(table)):
        return Rejection(None, None, None, f"topic {topic!a}: SITE and TABLE are 1-64 letters, digits, '-', "
                                           "'_' or '.'")
    return site, table


@functools.lru_cache(maxsize=256)
def _is_kind(kind: str) -> bool:
    """Whether ``kind`` is a record kind (a journal's few kinds, each judged once)."""
    return KIND.fullmatch(kind) is not None


def _judged_by_json(site: str, table: str, payload: bytes) -> tuple[str, str, Record] | Rejection:
    """A message :data:`STRICT_DECODER` refused, read by ``json.loads`` to say why (or taken, when only the strict
    reading refused it)."""
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return Rejection(site, table, None, "the message is not JSON")
    if not isinstance(data, dict):
        return Rejection(site, table, None, "the message is not a JSON object")
    return _record(site, table, data)


def _record(site: str, table: str, data: dict[str, object]) -> tuple[str, str, Record] | Rejection:
    seq = data.get("seq")
    number = seq if type(seq) is int and 1 <= seq <= MAX_SEQ else None
    if data.keys() != FIELD_SET:
        return Rejection(site, table, number, f"a journal record has the fields {', '.join(FIELDS)} "
                                              f"(got {', '.join(ascii(name)[1:-1] for name in sorted(data))})")
    if number is None:
        return Rejection(site, table, None, f"seq is a record number from 1 to {MAX_SEQ}")
    kind, at, body, prev, hash_ = data["kind"], data["at"], data["body"], data["prev"], data["hash"]
    if not (type(kind) is str and type(at) is str and type(body) is str and type(prev) is str
            and type(hash_) is str):
        return Rejection(site, table, number, "kind, at, body, prev and hash are text")
    return _checked(site, table, number, kind, at, body, prev, hash_)


def _checked(site: str, table: str, seq: int, kind: str, at: str, body: str, prev: str,
             hash_: str) -> tuple[str, str, Record] | Rejection:
    """The record of these fields (their types right), or why PostgreSQL or the archive cannot take it."""
    if not 1 <= seq <= MAX_SEQ:
        return Rejection(site, table, None, f"seq is a record number from 1 to {MAX_SEQ}")
    number = seq
    if "\x00" in body or not body.isascii() or not (kind + at + prev + hash_).isascii() or "\x00" in at:
        for name, value in (("kind", kind), ("at", at), ("body", body), ("prev", prev), ("hash", hash_)):
            problem = _text_problem(value)
            if problem is not None:
                return Rejection(site, table, number, f"its {name} {problem}")
    if not _is_kind(kind) or len(at) > LONGEST_AT:
        return Rejection(site, table, number, "kind is a record kind (a-z, _) and at a journal time")
    if not (len(prev) == len(hash_) == 64 and HASHES.fullmatch(prev + hash_)):
        return Rejection(site, table, number, "prev and hash are SHA-256 hashes (64 hex digits)")
    return site, table, Record(number, kind, at, body, prev, hash_)


def _text_problem(text: str) -> str | None:
    """Why PostgreSQL's ``text`` cannot hold ``text`` (None: it can)."""
    if "\x00" in text:
        return "contains a NUL character"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return "contains a lone surrogate (not Unicode text)"
    return None


@dataclass(frozen=True)
class StateRefusal:
    """A ``croupier/SITE/TABLE/state`` message the archive does not take: its topic, and why."""

    topic: str
    reason: str

    def __str__(self) -> str:
        return f"{self.topic}: {self.reason}"


def decode_state(topic: str, payload: bytes) -> tuple[Place, Head | None] | StateRefusal:
    """The table (site, table) of a retained ``state`` message and the journal head it names (None: no record yet,
    or the retained state cleared by an empty message), or why it is not a table's state."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != "croupier" or parts[3] != "state":
        return StateRefusal(f"topic {topic!a}", "not croupier/SITE/TABLE/state")
    site, table = parts[1], parts[2]
    if not (NAME.fullmatch(site) and NAME.fullmatch(table)):
        return StateRefusal(f"topic {topic!a}", "SITE and TABLE are 1-64 letters, digits, '-', '_' or '.'")
    if not payload:
        return (site, table), None
    problem = _state_problem(site, table, payload)
    if isinstance(problem, str):
        return StateRefusal(topic, problem)
    return (site, table), problem


def _state_problem(site: str, table: str, payload: bytes) -> Head | str | None:
    """The journal head a state names (None: none yet), or why the payload is not a state of ``site``/``table``."""
    if len(payload) > MAX_STATE_BYTES:
        return f"the state is {len(payload)} bytes, more than the archive takes ({MAX_STATE_BYTES})"
    try:
        state = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return "the state is not JSON"
    if not isinstance(state, dict):
        return "the state is not a JSON object"
    if state.get("site") != site or state.get("table") != table:
        return (f"the state names {ascii(state.get('site'))[:80]}/{ascii(state.get('table'))[:80]}, not the topic's "
                f"{site}/{table}")
    head = state.get("head")
    if not isinstance(head, dict):
        return 'its head is not {"seq": ..., "hash": ...}'
    seq, hash_ = head.get("seq"), head.get("hash")
    if type(seq) is not int or not 0 <= seq <= MAX_SEQ:
        return f"its head's seq is a record number from 0 to {MAX_SEQ}"
    if seq == 0 and hash_ == "":
        return None
    if not (seq and isinstance(hash_, str) and HASH.fullmatch(hash_)):
        return 'its head\'s hash is a SHA-256 hash (64 hex digits; "" while seq is 0)'
    return Head(seq, hash_)


def kept_text(payload: bytes) -> str:
    """The text ``journal_rejects`` keeps of a refused message: UTF-8 (bad bytes and NUL replaced), at most
    :data:`KEPT_OF_A_REJECT` characters, then its size."""
    text = payload[:KEPT_OF_A_REJECT * 4].decode("utf-8", errors="replace").replace("\x00", "\ufffd")
    if len(payload) > KEPT_OF_A_REJECT or len(text) > KEPT_OF_A_REJECT:
        return f"{text[:KEPT_OF_A_REJECT]}... ({len(payload)} bytes)"
    return text

"""Verifying a journal: the hash chain, the order of records, the delivered and feed marks (``audit verify``)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from controller.core.exceptions import JournalTamperedError
from controller.i18n.message import Message, message
from controller.journal.files import FORMAT
from controller.journal.store import GENESIS, KINDS, Journal, Record, parsed, record_hash

# -- verification ---------------------------------------------------------------


HASH = message("journal.problem.hash", "was edited: its contents do not match its hash")
FIELD_TYPE = message("journal.problem.field_type", "is damaged or was edited: a field is missing or has the wrong type")
BEFORE_FIRST = message("journal.problem.before_first", "was inserted before record 1 (records are numbered from 1)")
FIELD_FORM = message("journal.problem.field_form", "was edited: a field has the wrong form")
NOT_JSON = message("journal.problem.not_json", "was edited: its body is not JSON")
NOT_OBJECT = message("journal.problem.not_object", "was edited: its body is not a JSON object")
HEADER_PLACE = message("journal.problem.header_place",
                       "is out of place: the header must be record 1, and only record 1")
NOT_HEADER = message("journal.problem.not_header", "is not a Croupier journal header")
EVENTS_PLACE = message("journal.problem.events_place", "is out of place: events must follow their input")
CHECKPOINT_PLACE = message("journal.problem.checkpoint_place",
                           "is out of place: a checkpoint must follow an events record")
NOTE_PLACE = message("journal.problem.note_place", "is out of place: a note never follows an input")


@dataclass
class Verified:
    """The outcome of a successful verification."""

    records: int
    head: str
    inputs: int
    events: int
    header: dict[str, Any]


def _holds_entry(record: Record, seq: int) -> bool:
    return record_hash(seq, record.kind, record.at, record.prev, record.body) == record.hash


def verify(journal: Journal, since: int = 1) -> Verified:
    """Check the hash chain and the record structure of ``journal``.

    With ``since`` (a resume from the checkpoint at record ``since``) only the header and the records
    from ``since - 1`` on are checked: the chain is whole from there to the end (``audit verify``
    checks it all). Raises :class:`JournalTamperedError` naming the first record that was edited,
    deleted, inserted or reordered. The records are read one at a time (memory does not grow with the
    journal); only a broken link reads them all again, to say why it broke.
    """
    path = journal.path
    with journal.snapshot():
        base = max(1, since - 1)
        first = journal.record(1, stored=True) if base > 1 else None
        acknowledged = journal.delivered()
        published = journal.feed_acked()
        walk = _Walk(path, base)
        if base > 1 and first is not None:
            walk.header = _check_header(path, first)
        for row in journal.records(base, stored=True):
            if base > 1 and first is None:
                break
            if not walk.step(row):
                _name_the_break(path, list(journal.records(base, stored=True)), base)
                raise JournalTamperedError.at(path, row.seq, HASH)  # the walk and the rows agree: not reached
    last = walk.previous
    if last is None or (base > 1 and first is None):
        raise JournalTamperedError(message("journal.emptied", "{path}: the journal has no records: it was emptied",
                                           path=path))
    _check_end(path, last, acknowledged)
    _check_published(path, last, published)
    return Verified(last.seq, last.hash, walk.inputs, walk.events, walk.header)


def first_tampering(journal: Journal) -> JournalTamperedError | None:
    """The first record of ``journal`` that fails the check of its hash chain and record order (:func:`verify`,
    which ``croupier audit verify`` makes first), as the error that names it; None when it passes. For the readers
    of a journal that say so and go on (``croupier report dealers``, ``croupier roads --journal``)."""
    try:
        verify(journal)
    except JournalTamperedError as error:
        return error
    return None


def _check_header(path: str, first: Record) -> dict[str, Any]:
    """Record 1, read on its own (a check from a later record on): the header, intact; returns its body."""
    _check_form(path, first, 1)
    if not _holds_entry(first, 1):
        raise JournalTamperedError.at(path, 1, HASH)
    return _check_body(path, first, 0, "")


@dataclass
class _Walk:
    """The records checked so far, one at a time, from record ``base`` on."""

    path: str
    base: int
    previous: Record | None = None
    header: dict[str, Any] = field(default_factory=dict)
    inputs: int = 0
    events: int = 0

    def step(self, row: Record) -> bool:
        """Check the next record; False when it does not hold its hash or name the one before it (the
        caller says why, from all the records). Raises for any other fault, as :func:`_name_the_break` would."""
        previous = self.previous
        seq = self.base if previous is None else previous.seq + 1
        _check_form(self.path, row, seq)
        if previous is None and self.base > 1:  # the first record checked: its predecessor is not read
            if not _holds_entry(row, self.base):
                raise JournalTamperedError.at(self.path, self.base, HASH)
            _check_body(self.path, row, self.base - 1, {"events": "input", "checkpoint": "events"}.get(row.kind, ""))
        else:
            if not _holds_entry(row, row.seq) or row.prev != (previous.hash if previous else GENESIS):
                return False
            body = _check_body(self.path, row, seq - 1, previous.kind if previous else "")
            if row.kind == "header":
                self.header = body
        self.inputs += row.kind == "input"
        self.events += row.kind == "events"
        self.previous = row
        return True


def _name_the_break(path: str, rows: list[Record], base: int) -> None:
    """Check ``rows`` (from record ``base`` on) all together, to name the first one that is wrong and why."""
    by_hash = {row.hash: index for index, row in enumerate(rows)}
    for index, row in enumerate(rows):
        if base > 1 and index == 0:
            continue
        _check_form(path, row, base + index)
        _check_link(path, rows, index, by_hash)
        _check_body(path, row, base - 1 + index, rows[index - 1].kind if index else "")


def _check_form(path: str, row: Record, seq: int) -> None:
    """The record's fields have their types and forms, and it is numbered ``seq``."""
    if not (isinstance(row.seq, int) and isinstance(row.kind, str) and isinstance(row.at, str)
            and isinstance(row.body, str) and isinstance(row.prev, str) and isinstance(row.hash, str)):
        raise JournalTamperedError.at(path, seq, FIELD_TYPE)
    if row.seq != seq:
        if seq == 1 and row.seq < 1:
            raise JournalTamperedError.at(path, row.seq, BEFORE_FIRST)
        if row.seq > seq:
            gap = f"{seq}" if row.seq == seq + 1 else f"{seq}-{row.seq - 1}"
            raise JournalTamperedError.at(path, seq,
                                          message("journal.problem.deleted", "is missing: record(s) {gap} were deleted "
                                       "(the next record is {next})", gap=gap, next=row.seq))
    if "\n" in row.kind or len(row.prev) != 64 or not _is_time(row.at):
        raise JournalTamperedError.at(path, row.seq, FIELD_FORM)


_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")
"""The form of a record's ``at``: the UTC time of its commit, as the journal writes it."""


@functools.lru_cache(maxsize=8)  # the records of one commit share their time
def _is_time(at: str) -> bool:
    """``at`` is a UTC time in the form the journal writes (``2026-12-01T09:51:56.628245Z``), a day and time
    that are (the readers of a journal read it as one: ``croupier report dealers``)."""
    if _TIME.fullmatch(at) is None:
        return False
    try:
        datetime.fromisoformat(at[:-1])
    except ValueError:
        return False
    return True


def _check_link(path: str, rows: list[Record], index: int, by_hash: dict[str, int]) -> None:
    """Record ``rows[index]`` holds its hash and names the record before it."""
    row = rows[index]
    if not _holds_entry(row, row.seq):
        raise JournalTamperedError.at(path, *_why_mismatch(rows, index, by_hash))
    if row.prev != (rows[index - 1].hash if index else GENESIS):
        origin = by_hash.get(row.prev)
        if origin is not None and origin < index - 1:
            raise JournalTamperedError.at(path, row.seq,
                                          message("journal.problem.written_after", "does not follow record {previous}: "
                                       "it was written after record {origin}, so the records between were "
                                       "deleted or reordered", previous=row.seq - 1, origin=rows[origin].seq))
        raise JournalTamperedError.at(path, row.seq,
                                      message("journal.problem.broken_link", "does not follow record {previous}: a "
                                              "record before it was inserted, deleted, edited or reordered",
                                              previous=row.seq - 1))


def _check_body(path: str, row: Record, index: int, previous_kind: str) -> dict[str, Any]:
    """The record is of a known kind, in its place, with a JSON object for a body; returns the body."""
    if row.kind not in KINDS:
        raise JournalTamperedError.at(path, row.seq,
                                      message("journal.problem.unknown_kind", "was edited: unknown record kind {kind}",
                                                              kind=repr(row.kind)))
    try:
        body = parsed(row.body)
    except ValueError:
        raise JournalTamperedError.at(path, row.seq, NOT_JSON) from None
    if not isinstance(body, dict):
        raise JournalTamperedError.at(path, row.seq, NOT_OBJECT)
    if (index == 0) != (row.kind == "header"):
        raise JournalTamperedError.at(path, row.seq, HEADER_PLACE)
    if row.kind == "header" and body.get("format") != FORMAT:
        raise JournalTamperedError.at(path, row.seq, NOT_HEADER)
    if row.kind == "events" and previous_kind != "input":
        raise JournalTamperedError.at(path, row.seq, EVENTS_PLACE)
    if row.kind == "checkpoint" and previous_kind != "events":
        raise JournalTamperedError.at(path, row.seq, CHECKPOINT_PLACE)
    if row.kind == "note" and previous_kind == "input":
        raise JournalTamperedError.at(path, row.seq, NOTE_PLACE)
    return body


def _check_end(path: str, last: Record, acknowledged: int) -> None:
    """No record that was shown was deleted from the end."""
    if acknowledged > last.seq:
        raise JournalTamperedError.at(path, last.seq + 1,
                                      message("journal.problem.shown_deleted", "is missing: records {first}-"
                                   "{last} were written and shown, then deleted from the end", first=last.seq + 1,
                                   last=acknowledged))


def _check_published(path: str, last: Record, published: int) -> None:
    """No record that the table's feed had delivered to the floor was deleted from the end."""
    if published > last.seq:
        raise JournalTamperedError.at(path, last.seq + 1,
                                      message("journal.problem.published_deleted", "is missing: records {first}-{last} "
                                   "were published to the floor (the archive confirmed them), then deleted "
                                   "from the end", first=last.seq + 1, last=published))


def _why_mismatch(rows: list[Record], index: int, by_hash: dict[str, int]) -> tuple[int, Message]:
    """Say why record ``rows[index]``'s contents do not match its hash: (record to name, problem)."""
    row = rows[index]
    seq = row.seq
    written_as = None
    if row.prev == GENESIS:
        written_as = 1 if _holds_entry(row, 1) else None
    elif row.prev in by_hash:
        candidate = rows[by_hash[row.prev]].seq + 1
        written_as = candidate if _holds_entry(row, candidate) else None
    if written_as is None:
        for candidate in range(max(1, seq - 8), seq + 9):
            if candidate != seq and _holds_entry(row, candidate):
                written_as = candidate
                break
    if written_as is None:
        return seq, HASH
    if written_as > seq and _holds_entry_of(rows, index + written_as - seq, written_as, seq):
        return seq, message("journal.problem.swapped", "was reordered: records {seq} and {next} were swapped",
                            seq=seq, next=written_as)
    if written_as > seq:
        return seq, message("journal.problem.renumbered", "is missing: it was deleted and the records after it "
                            "renumbered (record {seq} holds the entry written as record {written_as})", seq=seq,
                            written_as=written_as)
    inserted = f"{written_as}" if written_as == seq - 1 else f"{written_as}-{seq - 1}"
    return written_as, message("journal.problem.inserted", "was inserted: record(s) {inserted} are not in the "
                               "chain (record {seq} holds the entry written as record {written_as}, so records were "
                               "inserted or moved before it)", inserted=inserted, seq=seq, written_as=written_as)


def _holds_entry_of(rows: list[Record], index: int, seq: int, written_as: int) -> bool:
    """Record ``seq``, at ``rows[index]``, holds the entry written as record ``written_as``."""
    return index < len(rows) and rows[index].seq == seq and _holds_entry(rows[index], written_as)

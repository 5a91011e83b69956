"""Verifying a journal: the hash chain, the order of records, the delivered and feed marks (``audit verify``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from controller.core.exceptions import JournalTamperedError
from controller.journal.files import FORMAT
from controller.journal.store import GENESIS, KINDS, Journal, Record, record_hash

# -- verification ---------------------------------------------------------------


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
    deleted, inserted or reordered.
    """
    path = journal.path
    with journal.snapshot():
        base = max(1, since - 1)
        rows = list(journal.records(base))
        first = journal.record(1) if base > 1 else (rows[0] if rows else None)
        acknowledged = journal.delivered()
        published = journal.feed_acked()
    if not rows or first is None:
        raise JournalTamperedError(f"{path}: the journal has no records: it was emptied")
    header: dict[str, Any] = {}
    if base > 1:
        _check_form(path, first, 1)
        if not _holds_entry(first, 1):
            raise JournalTamperedError.at(path, 1, "was edited: its contents do not match its hash")
        header = _check_body(path, first, 0, "")
        _check_form(path, rows[0], base)
        if not _holds_entry(rows[0], base):
            raise JournalTamperedError.at(path, base, "was edited: its contents do not match its hash")
        _check_body(path, rows[0], base - 1, {"events": "input", "checkpoint": "events"}.get(rows[0].kind, ""))
    by_hash = {row.hash: index for index, row in enumerate(rows)}
    for index, row in enumerate(rows):
        if base > 1 and index == 0:
            continue
        _check_form(path, row, base + index)
        _check_link(path, rows, index, by_hash)
        body = _check_body(path, row, base - 1 + index, rows[index - 1].kind if index else "")
        if row.kind == "header":
            header = body
    _check_end(path, rows[-1], acknowledged)
    _check_published(path, rows[-1], published)
    inputs = sum(1 for row in rows if row.kind == "input")
    events = sum(1 for row in rows if row.kind == "events")
    return Verified(rows[-1].seq, rows[-1].hash, inputs, events, header)


def _check_form(path: str, row: Record, seq: int) -> None:
    """The record's fields have their types and forms, and it is numbered ``seq``."""
    if not (isinstance(row.seq, int) and isinstance(row.kind, str) and isinstance(row.at, str)
            and isinstance(row.body, str) and isinstance(row.prev, str) and isinstance(row.hash, str)):
        raise JournalTamperedError.at(path, seq, "is damaged or was edited: a field is missing or has the "
                                   "wrong type")
    if row.seq != seq:
        if seq == 1 and row.seq < 1:
            raise JournalTamperedError.at(path, row.seq, "was inserted before record 1 "
                                       "(records are numbered from 1)")
        if row.seq > seq:
            gap = f"{seq}" if row.seq == seq + 1 else f"{seq}-{row.seq - 1}"
            raise JournalTamperedError.at(path, seq, f"is missing: record(s) {gap} were deleted "
                                       f"(the next record is {row.seq})")
    if "\n" in row.at or "\n" in row.kind or len(row.prev) != 64:
        raise JournalTamperedError.at(path, row.seq, "was edited: a field has the wrong form")


def _check_link(path: str, rows: list[Record], index: int, by_hash: dict[str, int]) -> None:
    """Record ``rows[index]`` holds its hash and names the record before it."""
    row = rows[index]
    if not _holds_entry(row, row.seq):
        raise JournalTamperedError.at(path, *_why_mismatch(rows, index, by_hash))
    if row.prev != (rows[index - 1].hash if index else GENESIS):
        origin = by_hash.get(row.prev)
        if origin is not None and origin < index - 1:
            raise JournalTamperedError.at(path, row.seq, f"does not follow record {row.seq - 1}: "
                                       f"it was written after record {rows[origin].seq}, so the "
                                       "records between were deleted or reordered")
        raise JournalTamperedError.at(path, row.seq, f"does not follow record {row.seq - 1}: a record "
                                   "before it was inserted, deleted, edited or reordered")


def _check_body(path: str, row: Record, index: int, previous_kind: str) -> dict[str, Any]:
    """The record is of a known kind, in its place, with a JSON object for a body; returns the body."""
    if row.kind not in KINDS:
        raise JournalTamperedError.at(path, row.seq, f"was edited: unknown record kind {row.kind!r}")
    try:
        body = json.loads(row.body)
    except ValueError:
        raise JournalTamperedError.at(path, row.seq, "was edited: its body is not JSON") from None
    if not isinstance(body, dict):
        raise JournalTamperedError.at(path, row.seq, "was edited: its body is not a JSON object")
    if (index == 0) != (row.kind == "header"):
        raise JournalTamperedError.at(path, row.seq, "is out of place: the header must be record 1, "
                                   "and only record 1")
    if row.kind == "header" and body.get("format") != FORMAT:
        raise JournalTamperedError.at(path, row.seq, "is not a Croupier journal header")
    if row.kind == "events" and previous_kind != "input":
        raise JournalTamperedError.at(path, row.seq, "is out of place: events must follow their input")
    if row.kind == "checkpoint" and previous_kind != "events":
        raise JournalTamperedError.at(path, row.seq, "is out of place: a checkpoint must follow an events record")
    return body


def _check_end(path: str, last: Record, acknowledged: int) -> None:
    """No record that was shown was deleted from the end."""
    if acknowledged > last.seq:
        raise JournalTamperedError.at(path, last.seq + 1, f"is missing: records {last.seq + 1}-"
                                   f"{acknowledged} were written and shown, then deleted from the end")


def _check_published(path: str, last: Record, published: int) -> None:
    """No record that the table's feed had delivered to the floor was deleted from the end."""
    if published > last.seq:
        raise JournalTamperedError.at(path, last.seq + 1, f"is missing: records {last.seq + 1}-{published} "
                                   "were published to the floor (the broker acknowledged them), then deleted "
                                   "from the end")


def _why_mismatch(rows: list[Record], index: int, by_hash: dict[str, int]) -> tuple[int, str]:
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
        return seq, "was edited: its contents do not match its hash"
    if written_as == seq + 1 and index + 1 < len(rows) and _holds_entry(rows[index + 1], seq):
        return seq, f"was reordered: records {seq} and {seq + 1} were swapped"
    if written_as > seq:
        return seq, (f"is missing: it was deleted and the records after it renumbered (record {seq} "
                     f"holds the entry written as record {written_as})")
    inserted = f"{written_as}" if written_as == seq - 1 else f"{written_as}-{seq - 1}"
    return written_as, (f"was inserted: record(s) {inserted} are not in the chain (record {seq} holds "
                        f"the entry written as record {written_as}, so records were inserted or moved "
                        "before it)")



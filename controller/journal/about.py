"""What a journal says about itself: its mode (live play, a simulation or a training drill) and the software that
wrote it, from its first records, and each later note on the software (``croupier history``, ``audit``,
``report``, ``recall``; docs/journal.md, "Mode and software").

A journal written before modes has no ``mode`` field: its ``table`` event's mode is taken (``simulation`` or
``live``), or ``training`` for a drill's journal. Nothing here trusts the records: a journal that fails
verification is read as it is (the callers say so), and a field that is missing or of the wrong form reads as
not there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.core.exceptions import JournalError
from controller.i18n.message import Message, message
from controller.journal.store import Journal, Record
from controller.terms import MODE_WORDS, MODES, Mode


@dataclass(frozen=True)
class About:
    """A journal's mode and the software that wrote it."""

    mode: Mode | None
    """None: the journal does not say (not a table's journal, or its first records cannot be read)."""
    software: Mapping[str, Any] | None = None
    """The start record's ``software`` (``version``, ``signature``, ``manifest``, ``components``), or None for a
    journal written before it was recorded."""
    notes: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)
    """The ``note`` records' bodies, in order (``software_changed``, ``integrity_failed``), each with its ``at``."""

    @property
    def live(self) -> bool:
        """The journal is live play's (not a simulation, a drill, or a journal that does not say)."""
        return self.mode == "live"


def is_training_header(header: Mapping[str, Any]) -> bool:
    """``header`` (a header record's body) is a training journal's (``croupier train``)."""
    identity = header.get("identity")
    arguments = identity.get("arguments") if isinstance(identity, dict) else None
    return isinstance(arguments, dict) and arguments.get("command") == "train"


def training_refusal(path: str) -> Message:
    """Why the journal at ``path``, a training journal's, is refused where a table's is expected."""
    return message("journal.training", "{path}: is a training journal (croupier train); give a table's journal",
                   path=path)


def refuse_training_header(path: str, header: Mapping[str, Any]) -> None:
    """Refuse (JournalError) the journal at ``path`` when ``header`` is a training journal's: a table's journal is
    expected, and a drill's events and settings are not a table's."""
    if is_training_header(header):
        raise JournalError(training_refusal(path))


def is_training_record(record: Record) -> bool:
    """``record`` is a training journal's header; a header that cannot be read is not."""
    return record.kind == "header" and is_training_header(_body(record))


def refuse_training_journal(journal: Journal) -> None:
    """:func:`refuse_training_header` for an open journal (its first record), before anything else reads it."""
    first = journal.record(1)
    if first is not None and is_training_record(first):
        raise JournalError(training_refusal(journal.path))


def _body(record: Record | None) -> dict[str, Any]:
    if record is None:
        return {}
    try:
        body = json.loads(record.body)
    except (ValueError, RecursionError):
        return {}
    return body if isinstance(body, dict) else {}


def _stated(value: object) -> Mode | None:
    return next((mode for mode in MODES if mode == value), None)


def mode_in(header: Mapping[str, Any], start: Mapping[str, Any]) -> Mode | None:
    """The mode the header and start record bodies state (the start record's first), else the ``table`` event's,
    else ``training`` for a drill's journal; None when none says."""
    for stated in (start.get("mode"), header.get("mode")):
        if _stated(stated) is not None:
            return _stated(stated)
    events = start.get("events")
    if isinstance(events, list):
        for event in events:
            if isinstance(event, dict) and event.get("event") == "table" and _stated(event.get("mode")):
                return _stated(event.get("mode"))
    identity = header.get("identity")
    arguments = identity.get("arguments") if isinstance(identity, dict) else None
    if isinstance(arguments, dict) and arguments.get("command") == "train":
        return "training"
    return None


COMMAND_MODES: dict[str, Mode] = {"simulate": "simulation", "train": "training"}
"""The mode of a journal written before modes, by the command its header names (any other: ``run``, live)."""


def header_mode(header: Mapping[str, Any]) -> Mode:
    """The mode a journal's header (record 1) alone gives: the one it states, else (a journal written before modes)
    its command's (``simulate``: simulation, ``train``: training, ``run``: live, as its ``table`` event said then).
    The floor's archive marks each table's rows with it (``journal_records.mode``)."""
    stated = _stated(header.get("mode"))
    if stated is not None:
        return stated
    identity = header.get("identity")
    arguments = identity.get("arguments") if isinstance(identity, dict) else None
    command = arguments.get("command") if isinstance(arguments, dict) else None
    return COMMAND_MODES.get(command, "live") if isinstance(command, str) else "live"


def about(journal: Journal) -> About:
    """The mode and software ``journal`` states (read as it is, not verified)."""
    header = _body(journal.record(1))
    start_record = next((record for record in journal.records(2) if record.kind == "start"), None)
    start = _body(start_record)
    software = start.get("software")
    notes = tuple({**_body(record), "at": record.at} for record in journal.records_of(("note",)))
    return About(mode_in(header, start), software if isinstance(software, dict) else None, notes)


def mode_word(mode: Mode | None) -> Message:
    """The mode as a person reads it: LIVE, SIMULATION, TRAINING (UNKNOWN when the journal does not say)."""
    return MODE_WORDS[mode]

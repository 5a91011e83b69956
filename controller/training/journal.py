"""The training journal (``croupier train --journal PATH``): the drill in a hash-chained journal.

It has the table journal's format (``docs/journal.md``; ``croupier audit verify`` checks its chain): a
header naming the drill, a ``start`` record (mode ``training``) with the events up to the first call, then for
each answer an ``input`` record (``{"answer": {"round", "call", "text", "seconds"}}``) and an ``events`` record with
what the drill said to it, the ``training_report`` last (after ``{"end": "..."}`` when the input ended early).
A drill is not resumed: it is written to a new path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from controller.core.exceptions import JournalError
from controller.journal.store import Journal
from controller.training.events import TrainingEvent


class TrainingJournal:
    """Writes one drill, each answer and what followed it durably, before it is shown."""

    def __init__(self, path: str, identity: Mapping[str, Any], software: Mapping[str, Any] | None = None) -> None:
        if os.path.lexists(path):
            raise JournalError(f"{path}: already exists; a training journal is written to a new path "
                               "(give another --journal)")
        self._journal = Journal.create_or_open(path)
        start: dict[str, Any] = {"mode": "training"}
        if software is not None:
            start["software"] = dict(software)
        self._journal.begin(identity, [], start=start)

    def write(self, answer: Mapping[str, Any] | None, events: Sequence[TrainingEvent]) -> None:
        """Journal ``events``: the drill's opening (``answer`` None), what followed ``answer``, or the end."""
        self._journal.append_step({"start": "drill"} if answer is None else answer, events)

    def close(self) -> None:
        self._journal.close()

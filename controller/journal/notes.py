"""The journal's ``note`` records: what happened to the software (V4, E2; docs/journal.md, "Mode and software") and
each restart of the table (L2, E3; docs/journal.md, "Restarts").

A new journal's start record states the software that wrote it (``software``: its version, signature, whether it
was verified against a manifest, and each component's version and digest). Three notes follow when needed, each
committed on its own, never after an input:

``software_changed``
    a run on an existing journal finds other software than the journal last recorded (an install, an upgrade, a
    changed file or config): ``software`` (now), ``previous`` (the version and signature before, null when the
    journal never recorded one) and ``changed`` (each component added, removed or changed: ``component``, ``was``
    and ``now``, each ``{"version", "digest"}`` or null);
``integrity_failed``
    ``croupier run`` found the software not to match its manifest and did not play: ``software`` and
    ``problems`` (what is wrong, in English, the first :data:`MAX_PROBLEMS`).
``resumed``
    the table was started again on the journal (after a stop, a crash, a power cut: L2, E3): ``previous_at`` (the
    time of the last record before, when the table was last heard of), ``inputs`` (the inputs the resume replayed),
    ``shoe`` and ``round`` it resumed in, ``halted`` (the misdeal kind it is still halted on, or null) and
    ``stopped_by`` (the critical alert it is still stopped on, or null).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from controller.journal.store import Journal

KIND = "note"
SOFTWARE_CHANGED = "software_changed"
INTEGRITY_FAILED = "integrity_failed"
RESUMED = "resumed"
MAX_PROBLEMS = 100


def _parts(software: Mapping[str, Any] | None) -> dict[str, dict[str, str]]:
    components = software.get("components") if software is not None else None
    if not isinstance(components, dict):
        return {}
    return {str(name): {"version": str(part.get("version", "")), "digest": str(part.get("digest", ""))}
            for name, part in components.items() if isinstance(part, dict)}


def last_software(journal: Journal) -> Mapping[str, Any] | None:
    """The software the journal last recorded (its start record's, or the last note that states one: a
    ``resumed`` note does not); None: it never did."""
    for record in reversed(list(journal.records_of(("start", KIND)))):
        try:
            body = json.loads(record.body)
        except ValueError:
            return None
        software = body.get("software") if isinstance(body, dict) else None
        if isinstance(software, dict):
            return software
        if record.kind == "start":
            return None
    return None


def software_change(previous: Mapping[str, Any] | None, current: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``software_changed`` note from ``previous`` to ``current`` (None: the same signature)."""
    if previous is not None and previous.get("signature") == current.get("signature"):
        return None
    was, now = _parts(previous), _parts(current)
    changed = [{"component": name, "was": was.get(name), "now": now.get(name)}
               for name in sorted(set(was) | set(now)) if was.get(name) != now.get(name)]
    return {"note": SOFTWARE_CHANGED, "software": dict(current),
            "previous": None if previous is None else {"version": previous.get("version"),
                                                       "signature": previous.get("signature")},
            "changed": changed}


def integrity_failure(software: Mapping[str, Any], problems: Sequence[str]) -> dict[str, Any]:
    """The ``integrity_failed`` note: the software found and what was wrong with it."""
    return {"note": INTEGRITY_FAILED, "software": dict(software), "problems": list(problems[:MAX_PROBLEMS]),
            "more": max(0, len(problems) - MAX_PROBLEMS)}


def resumed(previous_at: str, inputs: int, shoe: int, round_number: int, halted: str | None,
            stopped_by: str | None) -> dict[str, Any]:
    """The ``resumed`` note: where a restarted table came back, and the fault that came back with it."""
    return {"note": RESUMED, "previous_at": previous_at, "inputs": inputs, "shoe": shoe, "round": round_number,
            "halted": halted, "stopped_by": stopped_by}


def note_software(journal: Journal, software: Mapping[str, Any] | None) -> int:
    """Note in ``journal`` (being resumed) that the software changed since it last recorded it; returns the note's
    seq (0: nothing to note)."""
    if software is None:
        return 0
    note = software_change(last_software(journal), software)
    return journal.append_note(note) if note is not None else 0

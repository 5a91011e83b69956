"""The host clock as the app reads it, given to the table as a ``CLOCK`` input so that the journal keeps it.

The app reads the clock's synchronisation (``timedatectl``, ``chronyc``) at start and every ``[journal]
clock_every`` seconds, and notices a jump (the wall clock against the monotonic one); the table journals a
``clock`` event for each reading and raises a ``clock`` alert when the clock jumped backwards, jumped by more than
``[journal] clock_limit`` seconds, or is synchronised with an offset beyond it (13 Miss. Code R. 8-4.5: the clock
time-stamps the events; clocks are synchronised at least every 24 hours). Pure: the reading is the input's text.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

from controller.core.alerts import severity_of
from controller.core.approvals import rejected
from controller.core.events import AlertEvent, ClockEvent
from controller.core.inputs import Input
from controller.i18n.message import Message, message

if TYPE_CHECKING:
    from controller.core.step import Draft

SYNCED_WORDS = {"yes": True, "no": False, "unknown": None}


class ClockReadingError(ValueError):
    """A ``CLOCK`` input whose text is not a reading."""


class ClockReading(NamedTuple):
    """What the app read: synchronised or not (None: unknown), by what (``timedatectl``, ``chronyc``, ``none``),
    the offset from the reference and a jump just noticed, in seconds (None: not known, none)."""

    synchronised: bool | None
    source: str
    offset: float | None = None
    jump: float | None = None

    def text(self) -> str:
        """The reading as the input carries it: ``synced=yes source=chronyc offset=0.000012 jump=-3.5``."""
        synced = {True: "yes", False: "no", None: "unknown"}[self.synchronised]
        parts = [f"synced={synced}", f"source={self.source}"]
        if self.offset is not None:
            parts.append(f"offset={self.offset:.6f}")
        if self.jump is not None:
            parts.append(f"jump={self.jump:.3f}")
        return " ".join(parts)

    @classmethod
    def from_text(cls, text: str) -> ClockReading:
        """The reading ``text`` (:meth:`text`) gives; :class:`ClockReadingError` when it is not one."""
        fields = dict(part.partition("=")[::2] for part in text.split())
        if set(fields) - {"synced", "source", "offset", "jump"} or fields.get("synced") not in SYNCED_WORDS \
                or not fields.get("source", "").isidentifier():
            raise ClockReadingError(f"not a clock reading: {text!r}")
        try:
            offset = float(fields["offset"]) if "offset" in fields else None
            jump = float(fields["jump"]) if "jump" in fields else None
        except ValueError:
            raise ClockReadingError(f"not a clock reading: {text!r}") from None
        if any(value is not None and not math.isfinite(value) for value in (offset, jump)):
            raise ClockReadingError(f"not a clock reading: {text!r}")
        return cls(SYNCED_WORDS[fields["synced"]], fields["source"], offset, jump)


def clock_problem(reading: ClockReading, limit: float) -> Message | None:
    """What is wrong with the clock ``reading`` says, given ``[journal] clock_limit``, or None."""
    if reading.jump is not None and (reading.jump < 0 or abs(reading.jump) > limit):
        return message("alert.clock.jump", "The host clock jumped {jump} s; the journal's times around it may be "
                       "wrong. Check the clock's synchronisation and call the supervisor", jump=f"{reading.jump:+.3f}")
    if reading.synchronised and reading.offset is not None and abs(reading.offset) > limit:
        return message("alert.clock.offset", "The host clock is {offset} s off its time source ({source}), beyond "
                       "{limit} s; the journal's times may be wrong. Call the supervisor",
                       offset=f"{reading.offset:+.3f}", source=reading.source, limit=f"{limit:g}")
    return None


def clock_read(draft: Draft, item: Input) -> None:
    """Journal the clock reading of ``item`` as a ``clock`` event, and a ``clock`` alert when it calls for one; a
    text that is not a reading is refused."""
    events = draft.events
    try:
        reading = ClockReading.from_text(item.card or "")
    except ClockReadingError:
        events.append(rejected(item, message("rejected.clock", "not a clock reading")))
        return
    events.append(ClockEvent(synchronised=reading.synchronised, source=reading.source, offset=reading.offset,
                             jump=reading.jump))
    problem = clock_problem(reading, draft.context.settings.journal.clock_limit)
    if problem is not None:
        events.append(draft.open_alert(AlertEvent(
            id=draft.alerts.next_id(), kind="clock", severity=severity_of("clock"), shoe=draft.shoe_number,
            round=draft.round.number, detail=problem.english(), say_id=problem.id, say_params=problem.params)))

"""Badge reader: staff badges presented to a PC/SC reader, identified by UID or by their own application.

:class:`BadgeReader` watches one reader (``[auth] reader = "pcsc://?reader=NAME"``)
and turns what happens there into :class:`BadgeEvent` s: ``presented`` (with the
badge's identity), ``removed``, ``unreadable`` (with the reason), ``offline``
and ``online``. The identity is upper-case hex without separators: the UID
(``FF CA 00 00 00``) when ``identify = "uid"``, or the data the badge's own
application answers to ``select_apdu`` then ``read_apdu`` when
``identify = "apdu"``. Deciding what a badge may do is :mod:`controller.core.auth`'s job.

pyscard is imported when a reader is opened (see :func:`drivers.pcsc.source.load_scard`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from config.schema import AuthSettings, Identify
from controller.core.exceptions import ConfigError
from drivers.pcsc.source import GET_UID_APDU, ReaderWatch, ReadFailed, parse_apdu

log = logging.getLogger(__name__)



def reader_from_url(url: str) -> str | None:
    """The reader name in ``pcsc://?reader=NAME`` (None when the URL names none)."""
    values = parse_qs(urlsplit(url).query, keep_blank_values=True).get("reader")
    return values[0] if values else None


BadgeEventKind = Literal["presented", "removed", "unreadable", "offline", "online"]


@dataclass(frozen=True, slots=True)
class BadgeEvent:
    """Something seen at the badge reader. ``uid`` is set for ``presented`` and ``removed``."""

    kind: BadgeEventKind
    reader: str
    uid: str | None = None
    message: str = ""


class BadgeReader:
    """Watch a PC/SC reader for badges. Use as a context manager, or call :meth:`close`.

    Raises :class:`DriverError` when pyscard is missing, pcscd is not running or
    the reader is not there (the message lists the readers present).
    """

    def __init__(
        self,
        reader: str | None,
        *,
        identify: Identify = "uid",
        select_apdu: str | None = None,
        read_apdu: str | None = None,
        poll: float = 0.2,
        scard: Any = None,
    ) -> None:
        self.identify = identify
        self._closed = False
        if identify == "uid":
            self._apdus = [GET_UID_APDU]
        else:
            if not read_apdu:
                raise ConfigError('auth.read_apdu: expected an APDU in hex when identify = "apdu", got nothing')
            self._apdus = [parse_apdu(text) for text in (select_apdu, read_apdu) if text]
        label = f"badge reader pcsc://?reader={reader}" if reader else "badge reader pcsc://"
        self._watch = ReaderWatch(reader, poll=poll, label=label, scard=scard)
        self.reader = self._watch.reader
        self._current: str | None = None

    @classmethod
    def from_settings(cls, settings: AuthSettings, reader: str | None = None, **options: Any) -> BadgeReader:
        """A reader configured from ``[auth]``; ``reader`` overrides the configured name."""
        return cls(
            reader if reader is not None else reader_from_url(settings.reader or ""),
            identify=settings.identify,
            select_apdu=settings.select_apdu,
            read_apdu=settings.read_apdu,
            **options,
        )

    def next_event(self, timeout: float | None = None) -> BadgeEvent | None:
        """The next badge event, or None when ``timeout`` seconds pass (None: wait for ever)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            event = self._watch.wait(left)
            if event is not None:
                badge_event = self._translate(event.kind, event.message)
                if badge_event is not None:
                    return badge_event
            if self._closed or (deadline is not None and time.monotonic() >= deadline):
                return None

    def events(self) -> Iterator[BadgeEvent]:
        """Badge events as they happen, until :meth:`close`."""
        while not self._closed:
            event = self.next_event(None)
            if event is not None:
                yield event

    def _translate(self, kind: str, message: str) -> BadgeEvent | None:
        if kind == "inserted":
            try:
                answers = self._watch.transmit(self._apdus)
            except ReadFailed as error:
                text = f"{self._watch.label}: unreadable badge: {error}"
                log.warning("%s", text)
                return BadgeEvent("unreadable", self.reader, message=text)
            identity = answers[-1].hex().upper()
            if not identity:
                return BadgeEvent("unreadable", self.reader,
                                  message=f"{self._watch.label}: the badge answered an empty ID")
            self._current = identity
            return BadgeEvent("presented", self.reader, identity)
        if kind == "removed":
            uid, self._current = self._current, None
            return None if uid is None else BadgeEvent("removed", self.reader, uid)
        if kind == "missed":
            return BadgeEvent("unreadable", self.reader,
                              message=f"{self._watch.label}: a badge came and went before it could be read")
        if kind == "offline":
            uid, self._current = self._current, None
            log.warning("%s", message)
            return BadgeEvent("offline", self.reader, uid, message)
        return BadgeEvent("online", self.reader, message=message)

    def close(self) -> None:
        """Stop watching; a :meth:`next_event` blocked in another thread returns None."""
        self._closed = True
        self._watch.close()

    def __enter__(self) -> BadgeReader:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


__all__ = ["BadgeEvent", "BadgeReader"]

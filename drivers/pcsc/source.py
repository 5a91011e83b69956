"""PC/SC card source: NFC-tagged playing cards on a contactless reader, through pcscd.

URL: ``pcsc://?reader=NAME&apdu=HEX&poll=MS`` or ``pcsc://?reader=NAME&map=FILE``.

* ``reader``: the PC/SC reader name, exactly or a unique part of it
  (``Virtual PCD 00 00``, ``ACR122``). Optional when exactly one reader is present.
* ``apdu``: the APDU that reads the card code stored in the tag, as hex. The
  answer is ASCII (``TH``, NUL or space padded). Default ``FFB0000404``: READ
  BINARY of 4 bytes at page 4, where NTAG user memory starts.
* ``map``: instead of reading a code, read the tag's UID (``FF CA 00 00 00``) and
  look it up in FILE: TOML (``"04A1B2C3D4E5F6" = "TH"``, top level or under
  ``[cards]``) or text lines ``UID CODE`` (``#`` comments).
* ``poll``: milliseconds between reconnection attempts while pcscd or the
  reader is gone (default 200, 10-10000).

Each tag presented gives one ``Input(CARD, code)``; the cut card's tag, storing
``@cut`` (or mapped to ``@cut``), gives ``Input(CUT)``. A tag whose UID is not in
the map gives ``Input(CARD, UID)``, which is not a card code (the core's unknown
card misdeal). A tag that cannot be read (an error status, or it left the
field mid-read) gives ``Input(UNREADABLE)``; so does a tag pcscd saw come and go
before it could be read. pcscd stopping or the reader being unplugged gives
``Input(OFFLINE)``, and ``Input(ONLINE)`` when it is back. A tag still lying on
the reader across an outage is not read twice. The reason for every
UNREADABLE and OFFLINE, and for a tag not in the map, is logged (logger ``drivers.pcsc.source``) and kept in
:attr:`PcscCardSource.last_problem`. Tags are read in the source's own thread, so a
tag slow to answer keeps no caller of :meth:`~drivers.base.CardSource.recv` waiting past its timeout.

pyscard is imported only when a source is opened; without it the error says
``.ci/setup --test`` in the checkout (or ``.venv/bin/pip install -e '.[pcsc]'``).
"""

from __future__ import annotations

import collections
import contextlib
import logging
import queue
import threading
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from config.schema import apdu_hex, normalise_uid
from controller.core.cards import is_card_code
from controller.core.exceptions import DriverError, DriverURLError
from controller.core.inputs import Input, InputKind
from controller.i18n.message import message
from drivers.base import CardSource, Option

log = logging.getLogger(__name__)

PYSCARD_MISSING = (
    "the pcsc:// driver needs pyscard, which is not installed; install it with .ci/setup --test in the Croupier "
    "checkout, which installs all it needs (or .venv/bin/pip install -e '.[pcsc]' there: it builds from source "
    "and needs libpcsclite-dev, gcc and Python's headers, python3-dev for Debian's python3)"
)
PCSCD_DOWN = "pcscd is not running (start it: sudo systemctl start pcscd.socket, or pcscd -f)"

def parse_apdu(text: str) -> bytes:
    """An APDU given as hex (spaces and colons allowed) as bytes; at least 4 bytes (CLA INS P1 P2).

    Raises :class:`ValueError` naming the text (the rule ``[auth] select_apdu``/``read_apdu`` are checked by).
    """
    return bytes.fromhex(apdu_hex(text))


GET_UID_APDU = bytes.fromhex("FFCA000000")
"""PC/SC part 3 GET DATA: the contactless card's UID."""
CUT_CARD_TEXT = "@cut"
"""What the cut card's tag stores (or its UID maps to): it gives ``Input(CUT)``."""
DEFAULT_CODE_APDU = bytes.fromhex("FFB0000404")
"""READ BINARY of 4 bytes at page 4 (start of NTAG user memory), where the card code is stored."""
READ_POLL = 0.2
"""Seconds the reading thread waits on pcscd, and a caller waiting for ever on the queue, between two looks at
whether the source was closed."""


def load_scard() -> Any:
    """pyscard's ``smartcard.scard`` module, or :class:`DriverError` saying how to install it."""
    try:
        import smartcard.scard as scard  # optional dependency: imported on use only
    except ImportError:
        raise DriverError(PYSCARD_MISSING) from None
    return scard


def _u32(code: int) -> int:
    return code & 0xFFFFFFFF


class ReadFailed(Exception):
    """A tag could not be read: error status, removed mid-read, not answering."""


WatchKind = Literal["online", "offline", "inserted", "removed", "missed"]


@dataclass(frozen=True, slots=True)
class WatchEvent:
    """Something a :class:`ReaderWatch` saw: a card came or went, or the reader went or came back."""

    kind: WatchKind
    message: str = ""


class ReaderWatch:
    """Watch one PC/SC reader for cards; survives pcscd restarts and the reader being unplugged.

    Opening checks that pcscd runs and the reader exists (:class:`DriverError`
    otherwise, listing the readers present). :meth:`wait` then returns
    :class:`WatchEvent` s: ``inserted``/``removed`` for each card, ``missed`` for
    a card pcscd saw come and go between two waits, ``offline`` (with the
    reason) when pcscd or the reader goes, ``online`` when it is back.
    :meth:`transmit` talks to the card while it is inserted.
    """

    def __init__(self, reader: str | None, *, poll: float = 0.2, label: str = "pcsc://",
                 scard: Any = None) -> None:
        self.scard = scard if scard is not None else load_scard()
        self.label = label
        self.poll = poll
        self._wanted = reader
        self._context: Any = None
        self._state = 0
        self._card_present = False
        self._online = False
        self._pending: collections.deque[WatchEvent] = collections.deque()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._in_calls = 0
        """Threads inside a PC/SC call on the context; the last to leave after :meth:`close` releases it."""
        self.reader = self._connect()
        self._online = True

    # -- connection ----------------------------------------------------------
    def _error(self, code: int) -> str:
        return f"{self.scard.SCardGetErrorMessage(code)} (0x{_u32(code):08X})"

    def _why(self, code: int) -> str:
        """An error during a read, saying when it means the card left the reader."""
        s = self.scard
        left = (s.SCARD_W_REMOVED_CARD, s.SCARD_E_NO_SMARTCARD, s.SCARD_E_NOT_TRANSACTED,
                s.SCARD_W_UNRESPONSIVE_CARD, s.SCARD_W_UNPOWERED_CARD, s.SCARD_W_RESET_CARD)
        if _u32(code) in {_u32(c) for c in left}:
            return f"the tag left the reader or stopped answering mid-read ({self._error(code)})"
        return self._error(code)

    def _connect(self) -> str:
        """Establish a context and find the reader; raise DriverError with a clear message."""
        s = self.scard
        code, context = s.SCardEstablishContext(s.SCARD_SCOPE_USER)
        if code != s.SCARD_S_SUCCESS:
            if _u32(code) in (_u32(s.SCARD_E_NO_SERVICE), _u32(s.SCARD_E_SERVICE_STOPPED)):
                raise DriverError(message("pcsc.pcscd_down", "{label}: pcscd is not running (start it: sudo systemctl "
                                          "start pcscd.socket, or pcscd -f)", label=self.label))
            raise DriverError(f"{self.label}: cannot talk to pcscd: {self._error(code)}")
        try:
            code, readers = s.SCardListReaders(context, [])
            if _u32(code) == _u32(s.SCARD_E_NO_READERS_AVAILABLE):
                readers = []
            elif code != s.SCARD_S_SUCCESS:
                raise DriverError(f"{self.label}: cannot list the PC/SC readers: {self._error(code)}")
            name = self._choose(list(readers))
            code, states = s.SCardGetStatusChange(context, 0, [(name, s.SCARD_STATE_UNAWARE)])
            if code != s.SCARD_S_SUCCESS:
                raise DriverError(f"{self.label}: reader {name!r} cannot be watched: {self._error(code)}")
        except BaseException:
            s.SCardReleaseContext(context)
            raise
        self._context = context
        self._state = states[0][1] & ~s.SCARD_STATE_CHANGED
        # A card already lying on the reader is reported like one that arrives.
        self._card_present = bool(self._state & s.SCARD_STATE_PRESENT)
        if self._card_present:
            self._pending.append(WatchEvent("inserted"))
        return name

    def _choose(self, readers: list[str]) -> str:
        present = ", ".join(repr(name) for name in readers) or "none"
        wanted = self._wanted
        if wanted is None:
            if len(readers) == 1:
                return readers[0]
            raise DriverError(message("pcsc.name_the_reader", "{label}: name the reader with ?reader=NAME; readers "
                                      "present: {present}", label=self.label, present=present))
        if wanted in readers:
            return wanted
        matches = [name for name in readers if wanted.lower() in name.lower()]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise DriverError(message("pcsc.several_readers", "{label}: reader {wanted} matches several readers: "
                                      "{present}; give the full name", label=self.label, wanted=repr(wanted),
                                      present=present))
        raise DriverError(message("pcsc.no_reader", "{label}: no PC/SC reader {wanted}; readers present: {present}",
                                  label=self.label, wanted=repr(wanted), present=present))

    def _release(self) -> None:
        context, self._context = self._context, None
        if context is not None:
            self.scard.SCardReleaseContext(context)

    def _go_offline(self, reason: str) -> WatchEvent:
        self._release()
        self._online = False
        self._card_present = False
        self._pending.clear()
        return WatchEvent("offline", reason)

    @property
    def online(self) -> bool:
        """True while pcscd runs and the reader is present."""
        return self._online

    @property
    def card_present(self) -> bool:
        """True between an ``inserted`` event and its ``removed``."""
        return self._card_present

    # -- events ---------------------------------------------------------------
    def wait(self, timeout: float | None) -> WatchEvent | None:
        """The next event, or None after ``timeout`` seconds (at most :attr:`poll` when offline)."""
        if self._stop.is_set():
            return None
        if self._pending:
            return self._pending.popleft()
        if not self._online:
            try:
                self.reader = self._connect()
            except DriverError as error:
                wait = self.poll if timeout is None else min(self.poll, timeout)
                self._stop.wait(wait)
                log.debug("%s", error)
                return None
            with self._lock:
                if self._stop.is_set():  # closed while reconnecting
                    self._release()
                    return None
            self._online = True
            return WatchEvent("online", f"{self.label}: reader {self.reader!r} is back")
        return self._status_change(timeout)

    @contextlib.contextmanager
    def _using_context(self) -> Iterator[Any]:
        """The context, for one PC/SC call; :meth:`close` cancels the call instead of releasing under it."""
        with self._lock:
            if self._stop.is_set() or self._context is None:
                yield None
                return
            self._in_calls += 1
        try:
            yield self._context
        finally:
            with self._lock:
                self._in_calls -= 1
                if self._stop.is_set() and self._in_calls == 0:
                    self._release()

    def _status_change(self, timeout: float | None) -> WatchEvent | None:
        s = self.scard
        limit = 1.0 if timeout is None else min(timeout, 1.0)
        with self._using_context() as context:
            if context is None:
                return None
            code, states = s.SCardGetStatusChange(context, int(limit * 1000), [(self.reader, self._state)])
        code = _u32(code)
        if self._stop.is_set() or code in (_u32(s.SCARD_E_TIMEOUT), _u32(s.SCARD_E_CANCELLED)):
            return None
        if code != s.SCARD_S_SUCCESS:
            if code in (_u32(s.SCARD_E_UNKNOWN_READER), _u32(s.SCARD_E_READER_UNAVAILABLE)):
                return self._go_offline(f"{self.label}: reader {self.reader!r} was unplugged")
            return self._go_offline(f"{self.label}: lost pcscd: {self._error(code)}; {PCSCD_DOWN}")
        event_state = states[0][1]
        gone = s.SCARD_STATE_UNKNOWN | s.SCARD_STATE_IGNORE | s.SCARD_STATE_UNAVAILABLE
        if event_state & gone:
            return self._go_offline(f"{self.label}: reader {self.reader!r} was unplugged")
        old_count = (self._state >> 16) & 0xFFFF
        new_count = (event_state >> 16) & 0xFFFF
        changes = (new_count - old_count) & 0xFFFF
        self._state = event_state & ~s.SCARD_STATE_CHANGED
        present = bool(event_state & s.SCARD_STATE_PRESENT)
        # pcsc-lite counts each insertion and each removal. Cards that came and
        # went between two waits show as extra counts.
        if self._card_present:
            if present:
                if changes >= 2:  # removed, (others passed,) another one inserted
                    self._pending.append(WatchEvent("removed"))
                    self._pending.extend(WatchEvent("missed") for _ in range((changes - 2) // 2))
                    self._pending.append(WatchEvent("inserted"))
            else:
                self._card_present = False
                self._pending.append(WatchEvent("removed"))
                self._pending.extend(WatchEvent("missed") for _ in range((changes - 1) // 2))
        elif present:
            self._card_present = True
            self._pending.extend(WatchEvent("missed") for _ in range((changes - 1) // 2 if changes else 0))
            self._pending.append(WatchEvent("inserted"))
        else:
            self._pending.extend(WatchEvent("missed") for _ in range(changes // 2))
        if self._pending:
            return self._pending.popleft()
        return None

    # -- talking to the card -------------------------------------------------
    def transmit(self, apdus: list[bytes]) -> list[bytes]:
        """Send each APDU to the inserted card; return each answer's data (SW 9000 stripped).

        Raises :class:`ReadFailed` with the reason on any failure.
        """
        with self._using_context() as context:
            if context is None:
                raise ReadFailed(f"reader {self.reader!r} is offline" if not self._stop.is_set()
                                 else f"reader {self.reader!r} is closed")
            return self._transmit(context, apdus)

    def _transmit(self, context: Any, apdus: list[bytes]) -> list[bytes]:
        s = self.scard
        code, card, protocol = s.SCardConnect(
            context, self.reader, s.SCARD_SHARE_SHARED, s.SCARD_PROTOCOL_T0 | s.SCARD_PROTOCOL_T1
        )
        if code != s.SCARD_S_SUCCESS:
            raise ReadFailed(f"cannot connect to the card: {self._why(code)}")
        answers: list[bytes] = []
        try:
            for apdu in apdus:
                code, response = s.SCardTransmit(card, protocol, list(apdu))
                if code != s.SCARD_S_SUCCESS:
                    raise ReadFailed(f"APDU {apdu.hex().upper()} failed: {self._why(code)}")
                data = bytes(response)
                if not data:  # vpcd's answer when the card's connection drops mid-command
                    raise ReadFailed(f"APDU {apdu.hex().upper()} got no answer: the tag left the reader or "
                                     f"stopped answering mid-read")
                if len(data) < 2:
                    raise ReadFailed(f"APDU {apdu.hex().upper()} answered {data.hex().upper()}, too short for a "
                                     f"status word; expected its data and 9000")
                if data[-2:] != b"\x90\x00":
                    raise ReadFailed(f"APDU {apdu.hex().upper()} answered status {data[-2:].hex().upper()}, "
                                     f"not 9000")
                answers.append(data[:-2])
        finally:
            s.SCardDisconnect(card, s.SCARD_LEAVE_CARD)
        return answers

    def close(self) -> None:
        """Stop watching and release the PC/SC context. Safe from another thread.

        A thread blocked in a PC/SC call on the context is cancelled, and releases the context itself
        when the call returns: releasing it under the waiting call could leave that thread stuck.
        """
        with self._lock:
            self._stop.set()
            if self._context is None:
                return
            if self._in_calls:
                self.scard.SCardCancel(self._context)
            else:
                self._release()


def _card_map_text(path: str, label: str) -> str:
    """The text of the card map at ``path``; :class:`DriverURLError` when it cannot be read or is not UTF-8."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # -sig: a BOM an editor wrote is no UID
    except OSError as error:
        raise DriverURLError(f"{label}: cannot read card map {path!r}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:  # a binary file, or a text in another encoding
        raise DriverURLError(message("pcsc.map_not_utf8", "{label}: card map {path} is not UTF-8 text (byte {start} "
                                     "is 0x{byte}); expected 'UID CODE' lines or a TOML file: save it as UTF-8",
                                     label=label, path=repr(path), start=error.start,
                                     byte=f"{error.object[error.start]:02x}")) from None
    return text


def load_card_map(path: str, label: str = "map") -> dict[str, str]:
    """A UID-to-card table: TOML (top level or ``[cards]``) or ``UID CODE`` text lines.

    UIDs are normalised to upper-case hex; codes must be card codes. Raises
    :class:`DriverURLError` naming the file (and line) and the problem.
    """
    file = Path(path)
    text = _card_map_text(path, label)
    pairs: list[tuple[str, object, object]] = []  # (where, uid, code)
    if file.suffix.lower() == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise DriverURLError(f"{label}: card map {path!r} is not valid TOML: {error}") from None
        table = data.get("cards", data) if isinstance(data.get("cards"), dict) else data
        pairs = [(f"{path}: key {uid!r}", uid, code) for uid, code in table.items()]
    else:
        for number, line in enumerate(text.splitlines(), 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) != 2:
                raise DriverURLError(f"{label}: {path} line {number}: expected 'UID CODE', e.g. "
                                     f"'04A1B2C3D4E5F6 TH', got {line.strip()!r}")
            pairs.append((f"{path} line {number}", words[0], words[1]))
    table_out: dict[str, str] = {}
    for where, uid, code in pairs:
        try:
            key = normalise_uid(uid) if isinstance(uid, str) else ""
        except ValueError:
            key = ""
        if not key:
            raise DriverURLError(f"{label}: {where}: expected a UID in hex, got {uid!r}")
        is_cut = isinstance(code, str) and code.strip().lower() == CUT_CARD_TEXT
        if not isinstance(code, str) or not (is_cut or is_card_code(code)):
            raise DriverURLError(f"{label}: {where}: expected a card code such as TH or AS, or @cut, "
                                 f"got {code!r}")
        if key in table_out:
            raise DriverURLError(f"{label}: {where}: UID {key} is mapped twice")
        table_out[key] = CUT_CARD_TEXT if is_cut else code.strip().upper()
    return table_out


def _code_apdu(url: str, text: str) -> bytes:
    """Option ``apdu``: the APDU that reads a tag's card code."""
    try:
        return parse_apdu(text)
    except ValueError as error:
        raise DriverURLError(f"{url}: option apdu: expected an APDU in hex, e.g. FFB0000404; {error}") from None


class PcscCardSource(CardSource):
    """Playing cards with NFC tags, read through pcscd (see the module doc for the URL)."""

    schemes = ("pcsc",)
    options: ClassVar[Mapping[str, Option]] = {
        "reader": Option("PC/SC reader name, or a unique part of it"),
        "apdu": Option("hex APDU reading the card code stored in the tag (default FFB0000404)",
                       default=DEFAULT_CODE_APDU.hex().upper()),
        "map": Option("file mapping tag UIDs to card codes (TOML or 'UID CODE' lines)"),
        "poll": Option("milliseconds between retries while the reader is gone (default 200)", int, 200, (10, 10_000)),
    }

    def __init__(self, url: str, *, scard: Any = None) -> None:
        super().__init__(url)
        values = self._checked_query(url)
        self.card_map: dict[str, str] | None = None
        self.apdu = DEFAULT_CODE_APDU
        self.map_path: str | None = values.get("map")
        if self.map_path is not None:
            self.card_map = load_card_map(self.map_path, url)
        elif "apdu" in values:
            self.apdu = _code_apdu(url, values["apdu"])
        poll_ms: int = self.option_value(url, values, "poll")
        reader = values.get("reader") or None
        self.last_problem: str | None = None
        """Why the last UNREADABLE or OFFLINE happened."""
        self._present_uid: str | None = None
        self._watch = ReaderWatch(reader, poll=poll_ms / 1000, label=url, scard=scard)
        self.reader = self._watch.reader
        self._inputs: queue.Queue[Input] = queue.Queue()
        """What the reading thread saw, in order."""
        self._reading: threading.Thread | None = None
        self._failure: BaseException | None = None

    @classmethod
    def check_url(cls, url: str) -> None:
        """Refuse a host or path, an unknown option, a bad poll or APDU, or both apdu and map; the card map is a
        file, read only when the source opens, and the reader is looked for only then."""
        values = cls._checked_query(url)
        if "apdu" in values:
            _code_apdu(url, values["apdu"])
        cls.option_value(url, values, "poll")

    @classmethod
    def _checked_query(cls, url: str) -> dict[str, str]:
        location, values = cls.parse_query(url)
        if location:
            raise DriverURLError(f"{url}: put the reader name in the query: pcsc://?reader={location}")
        if "apdu" in values and "map" in values:
            raise DriverURLError(f"{url}: give apdu=HEX or map=FILE, not both")
        return values

    def _problem(self, message: str) -> None:
        self.last_problem = message
        log.warning("%s", message)

    def _recv(self, timeout: float | None) -> Input | None:
        """The next input the reading thread queued. Tags are read in that thread (started by the first call, so a
        tag already on the reader is read then): a tag slow to answer keeps no caller waiting past ``timeout``, and
        the dealer's inputs are taken meanwhile."""
        if self._reading is None:
            self._reading = threading.Thread(target=self._read_all, name=f"pcsc {self.reader}", daemon=True)
            self._reading.start()
        try:
            return self._inputs.get(timeout=READ_POLL if timeout is None else min(timeout, READ_POLL))
        except queue.Empty:
            pass
        if self._failure is not None:
            try:  # the thread may have queued its last inputs between the wait above and its failure
                return self._inputs.get_nowait()
            except queue.Empty:
                raise self._failure from None
        return None

    def _read_all(self) -> None:
        """The reading thread: every input of the reader, queued in order, until closed (a failure is raised by
        :meth:`_recv` once the inputs before it were taken)."""
        try:
            while not self._closed:
                item = self._next_input(READ_POLL)
                if item is not None and not self._closed:
                    self._inputs.put(item)
        except Exception as error:  # raised to the caller, not lost with the thread
            self._failure = error

    def _next_input(self, timeout: float | None) -> Input | None:
        event = self._watch.wait(timeout)
        if event is None:
            return None
        if event.kind == "offline":
            self._problem(event.message)
            return Input(InputKind.OFFLINE)
        if event.kind == "online":
            log.info("%s", event.message)
            return Input(InputKind.ONLINE)
        if event.kind == "removed":
            self._present_uid = None
            return None
        if event.kind == "missed":
            self._problem(f"{self.url}: a tag came and went before it could be read")
            return Input(InputKind.UNREADABLE)
        return self._read_card()

    def _read_card(self) -> Input | None:
        kept = self._present_uid
        try:
            uid_data, *rest = self._watch.transmit(
                [GET_UID_APDU] if self.card_map is not None else [GET_UID_APDU, self.apdu]
            )
        except ReadFailed as error:
            self._present_uid = None
            if self.card_map is None:
                return self._read_code_only(str(error))
            self._problem(f"{self.url}: unreadable tag: {error}")
            return Input(InputKind.UNREADABLE)
        uid = uid_data.hex().upper()
        if kept is not None and uid == kept:
            log.info("%s: tag %s is still on the reader after the outage; not read again", self.url, uid)
            return None
        self._present_uid = uid
        if self.card_map is not None:
            code = self.card_map.get(uid)
            if code is None:  # the core's unknown card misdeal; the engineer learns why here
                self._problem(f"{self.url}: tag {uid} is not in the card map {self.map_path}: a foreign tag, or a "
                              f"card of the shoe to add to the map as '{uid} CODE'")
                return Input(InputKind.CARD, uid)
            return Input(InputKind.CUT) if code == CUT_CARD_TEXT else Input(InputKind.CARD, code)
        return self._code_input(rest[0])

    def _read_code_only(self, uid_error: str) -> Input:
        """Tags that cannot give a UID: read the code alone (no duplicate check across outages)."""
        try:
            (data,) = self._watch.transmit([self.apdu])
        except ReadFailed as error:
            self._problem(f"{self.url}: unreadable tag: {error}")
            return Input(InputKind.UNREADABLE)
        log.debug("%s: no UID (%s)", self.url, uid_error)
        return self._code_input(data)

    def _code_input(self, data: bytes) -> Input:
        text = data.rstrip(b"\x00 ").decode("ascii", errors="replace").strip()
        if not text or not text.isprintable() or "\ufffd" in text:
            self._problem(
                f"{self.url}: unreadable tag: its data {data.hex().upper()} is not an ASCII card code"
            )
            return Input(InputKind.UNREADABLE)
        if text.lower() == CUT_CARD_TEXT:
            return Input(InputKind.CUT)
        return Input(InputKind.CARD, text)

    @property
    def exhausted(self) -> bool:
        """True once closed (a blocked :meth:`recv` in another thread then returns None)."""
        return self._closed

    def _close(self) -> None:
        self._watch.close()


__all__ = ["PYSCARD_MISSING", "PcscCardSource", "ReadFailed", "ReaderWatch", "WatchEvent", "load_card_map",
           "load_scard"]

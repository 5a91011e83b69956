"""Framing of the card-shoe serial protocol, separate from the transport (pymodbus style).

A framer turns a byte stream into :class:`Frame` objects and back:

* :meth:`Framer.decode` looks at the start of a receive buffer and returns
  ``(consumed, frame)``: how many bytes to drop from the buffer and the frame
  they held, if any. ``(0, None)`` means "need more bytes". Bytes that are not
  part of a frame are consumed with ``frame=None`` and recorded in
  :attr:`Framer.rejected` (and the counters), so the caller can log them; a frame
  with a bad checksum is never returned.
* :meth:`Framer.encode` turns a frame into bytes.

Two framings exist, described byte by byte in ``docs/serial-protocol.md``:

``line``
    ``K[,seq][,data][*XX|*XXXX]`` + terminator, e.g. ``C,17,TH*59\\r\\n``; ``XX`` is the
    hex XOR of the bytes before ``*``, ``XXXX`` their CRC-16/CCITT-FALSE. A
    configurable regular expression with a named group ``card`` reads a vendor's
    card lines without code.
``stx``
    ``STX payload ETX BCC``; the payload is the line body (``C,17,TH``), optionally
    followed by ``*XXXX`` (its CRC-16), BCC the XOR of payload and ETX. Answered ACK / NAK.

Each framing is one :class:`Framer` subclass, registered by name (:func:`register_framer`, looked up by
:func:`framer_class` and :func:`make_framer`, as pymodbus maps a ``FramerType`` to its class); the class
also carries the framing's link behaviour, for both ends of the line: the controller's hello, its answers
(:meth:`Framer.ack`, :meth:`Framer.nak`, :meth:`Framer.bad_message_answer`), how it frames an indication,
and on the shoe's end how it reads the hello and the answers. The base class speaks the reference messages
(``R,A``, ``A,<seq>``, ``N``), so a framing that only wraps the messages differently is its ``encode`` and
``decode``; see ``docs/drivers.md``.

A shoe that sends ``V,crc16`` after the controller's hello protects its
messages with the CRC; from then on the decoder refuses every message of it
without a right one (``require_crc``): a message whose ``*XXXX`` is missing is
refused, never read as another kind. Every 1- and 2-bit error of every message
then decodes to a refusal or to the same message (``tests/drivers/serial/test_bit_errors.py``).
"""

from __future__ import annotations

import binascii
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Final, Self, TypeVar

from drivers.base import Indication, one_of

STX: Final = 0x02
ETX: Final = 0x03
ENQ: Final = 0x05
ACK: Final = 0x06
NAK: Final = 0x15

MAX_FRAME: Final = 128
"""Longest frame body (line without terminator, or stx payload) accepted, in bytes."""

MAX_SEQ: Final = 999_999
MAX_CARD_TEXT: Final = 16

# Message kinds, shoe -> controller
CARD: Final = "C"
UNREADABLE: Final = "U"
CUT: Final = "X"
BUTTON: Final = "B"
DOUBLE: Final = "D"
HEARTBEAT: Final = "H"
STATUS: Final = "S"
FEATURES: Final = "V"
# Message kinds, controller -> shoe
READY: Final = "R"
ACKNOWLEDGE: Final = "A"
NEGATIVE: Final = "N"
INDICATE: Final = "I"
# Single control bytes decoded by an StxFramer with ``controls=True`` (the shoe side)
CONTROL_ACK: Final = "\x06"
CONTROL_NAK: Final = "\x15"
CONTROL_ENQ: Final = "\x05"

OWN_KINDS: Final = frozenset({READY, ACKNOWLEDGE, NEGATIVE, INDICATE})
"""Kinds only the controller writes, never with a CRC-16: read back on the controller's end they are its own
messages echoed by the line (a half-duplex RS-485 adapter), which the inbox drops unanswered."""

NO_DATA_KINDS: Final = frozenset({UNREADABLE, CUT, BUTTON, DOUBLE, HEARTBEAT, ACKNOWLEDGE, NEGATIVE})
"""Kinds whose frames carry no data field."""
KINDS: Final = frozenset({CARD, STATUS, READY, INDICATE, FEATURES}) | NO_DATA_KINDS

CRC16: Final = "crc16"
"""The feature a shoe announces in ``V,crc16``: its messages carry ``*XXXX``, a CRC-16/CCITT-FALSE."""

INDICATIONS: Final = tuple(indication.value for indication in Indication)
"""What :meth:`CardSource.indicate` may be told, sent as ``I,<what>``."""

_CARD_TEXT = re.compile(r"[!-~]{1,16}")  # printable ASCII, no space
_SEQ_TEXT = re.compile(r"[0-9]{1,6}")
_FEATURES_TEXT = re.compile(r"[a-z0-9]+(\+[a-z0-9]+)*")
_HEX = frozenset("0123456789abcdefABCDEF")


@dataclass(frozen=True, slots=True)
class Frame:
    """One protocol message: a one-letter kind, an optional sequence number and data text."""

    kind: str
    seq: int | None = None
    data: str = ""

    def body(self) -> str:
        """The message text without checksum or framing, e.g. ``C,17,TH``."""
        text = self.kind
        if self.seq is not None:
            text += f",{self.seq}"
        if self.data:
            first = self.data.split(",", 1)[0]
            if self.seq is None and (first == "" or _SEQ_TEXT.fullmatch(first)):
                text += ","  # an empty seq field, so the data is not read as a seq
            text += "," + self.data
        return text


@dataclass(frozen=True, slots=True)
class Rejection:
    """Bytes a decoder consumed without yielding a frame, and why."""

    reason: str
    """``garbage``, ``overlong``, ``bad_checksum`` or ``bad_message``."""
    raw: bytes
    hint: str = ""
    """What the bytes look like and what to do about it, when the decoder can tell (a wrong terminator)."""

    def describe(self) -> str:
        """``reason: N byte(s) b'...'`` (the first 40 bytes), and the hint when there is one."""
        shown = self.raw[:40]
        more = f" (+{len(self.raw) - 40} more)" if len(self.raw) > 40 else ""
        hint = f"; {self.hint}" if self.hint else ""
        return f"{self.reason}: {len(self.raw)} byte(s) {shown!r}{more}{hint}"


def xor_checksum(data: bytes) -> int:
    """The XOR of all bytes of ``data`` (0 for none)."""
    value = 0
    for byte in data:
        value ^= byte
    return value


def crc16_ccitt_false(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data``: poly 0x1021, init 0xFFFF, not reflected, xorout 0 (``123456789`` -> 0x29B1).

    :func:`binascii.crc_hqx` computes exactly this CRC (the same polynomial, not reflected) from the initial value.
    """
    return binascii.crc_hqx(data, 0xFFFF)


def with_crc(body: bytes) -> bytes:
    """``body`` followed by ``*XXXX``, its CRC-16 in upper-case hex."""
    return body + b"*%04X" % crc16_ccitt_false(body)


def split_crc(text: str) -> tuple[str, bool | None]:
    """``(body, crc_ok)`` for ``body*XXXX``; ``(text, None)`` when ``text`` carries no CRC."""
    body, star, check = text.rpartition("*")
    if not star or len(check) != 4 or not set(check) <= _HEX:
        return text, None
    return body, int(check, 16) == crc16_ccitt_false(body.encode("ascii"))


def parse_body(text: str) -> Frame | None:
    """Parse a message text ``K[,seq][,data]`` (no checksum); None when it is not one.

    A card's data is 1-16 printable characters without space, comma or ``*``;
    the card code itself is not validated (a bad code is the core's misdeal).
    """
    if not text or "*" in text:
        return None
    kind, sep, rest = text.partition(",")
    if kind not in KINDS:
        return None
    fields = _seq_and_data(rest) if sep else (None, "")
    if fields is None or not _data_fits(kind, fields[1]):
        return None
    return Frame(kind, *fields)


def _seq_and_data(rest: str) -> tuple[int | None, str] | None:
    """The sequence number and data of the fields after the kind; None when they are malformed."""
    first, more, remainder = rest.partition(",")
    if _SEQ_TEXT.fullmatch(first):
        if more and not remainder:
            return None  # "C,17," : a trailing comma
        return int(first), remainder
    if first == "":
        return (None, remainder) if remainder else None  # "K,,data": no seq, data that looks like a number
    return None, rest


def _data_fits(kind: str, data: str) -> bool:
    """Is ``data`` what a message of ``kind`` may carry?"""
    if kind in NO_DATA_KINDS:
        return not data
    if kind == CARD:
        return _CARD_TEXT.fullmatch(data) is not None and "," not in data
    if kind == INDICATE:
        return data in INDICATIONS
    if kind == STATUS:
        return data.isprintable()
    if kind == READY:
        return data in ("", "A")
    return kind != FEATURES or _FEATURES_TEXT.fullmatch(data) is not None


TERMINATORS: Final = {"crlf": b"\r\n", "lf": b"\n", "cr": b"\r"}

_BARE_CR = re.compile(rb"\r[^\n]")
BARE_CR_HINT: Final = ("the shoe's lines end with a bare CR (\\r), which ends no line here: give terminator=cr in the "
                       "URL (or the profile)")
"""Why a line framer that ends lines with LF reads nothing from a shoe that ends them with CR alone."""
MISSING_CRC_HINT: Final = ("no CRC-16 (*XXXX), which this shoe announced (V,crc16) for every message of it: a line "
                           "error, or, if it goes on, a shoe that leaves its CRC out of some messages")
"""Why a message is refused from a shoe held to its CRC-16 when it carries none (its XOR or BCC may be right)."""
MISSING_CHECKSUM_HINT: Final = ("no *XX checksum, which checksum=required asks for: have the shoe send checksums, or "
                                "leave checksum=required out of the URL (or the profile)")
"""Why a line framer with ``require_checksum`` refuses a message that is otherwise good."""


@dataclass(frozen=True, slots=True)
class FramerSettings:
    """What a framer is made from: the URL's options (or a profile's) on the controller's end, the emulator's on the
    shoe's. A framing takes the settings it has a use for (stx: none but :attr:`shoe_end`)."""

    terminator: bytes = b"\r\n"
    """Line framing: what ends the lines written (a bare ``\\n`` always ends a line read)."""
    pattern: re.Pattern[str] | None = None
    """Line framing: a vendor's card lines, a regular expression with a named group ``card``."""
    require_checksum: bool = False
    """Line framing: refuse lines without a checksum."""
    checksum_on_encode: bool = True
    """Line framing: write ``*XX`` after each message."""
    acks: bool = True
    """The controller's end answers each message (False is ignored by a framing that :attr:`~Framer.always_acks`)."""
    shoe_end: bool = False
    """The framer reads the controller's control bytes (the shoe's end of stx)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """The controller's answer to a shoe's message, as the shoe's end reads it."""

    positive: bool
    """True: confirmed; False: send it again."""
    seq: int | None
    """The sequence number of the message it answers; None when it names none."""
    outstanding: bool = False
    """It answers whichever message the shoe is waiting on (line ``N``)."""

    def answers(self, seq: int | None) -> bool:
        """Does this answer concern the message numbered ``seq`` that the shoe waits on?"""
        return self.outstanding or (self.seq is not None and self.seq == seq)


class Framer:
    """One framing: a byte stream turned into frames and back, and the link procedures of both ends.

    Subclasses implement :meth:`encode` and :meth:`decode` and are registered by name with
    :func:`register_framer`. The link methods speak the reference messages (hello ``R,A``, acknowledgement
    ``A,<seq>``, negative acknowledgement ``N``, indication ``I,<what>``) in the framing; a framing with its own
    control bytes (stx) overrides them. Holds the counters and the last rejection.
    """

    name: ClassVar[str] = ""
    """The framing's name, as ``framing=`` gives it (set by :func:`register_framer`)."""
    always_acks: ClassVar[bool] = False
    """The controller answers every message, whatever ``ack`` says (stx)."""
    url_options: ClassVar[frozenset[str]] = frozenset()
    """Which of :data:`FRAMING_OPTIONS` the framing takes (line: all of them)."""

    def __init__(self) -> None:
        self.garbage_bytes = 0
        """Bytes discarded as not part of any frame (including overlong and bad frames)."""
        self.bad_checksums = 0
        """Frames dropped because their checksum did not match."""
        self.overlong = 0
        """Frames dropped because they exceeded :data:`MAX_FRAME` bytes."""
        self.bad_messages = 0
        """Well-framed messages whose text is not a message of the protocol."""
        self.rejected: Rejection | None = None
        """Set by :meth:`decode` when it consumed bytes without a frame; else None."""
        self.require_crc = False
        """Refuse every message without a right CRC-16 (set once the shoe announced ``V,crc16``)."""
        self.latch_crc = False
        """The controller's end: a message with a right CRC-16 sets :attr:`require_crc` (only a shoe that
        speaks CRC sends one, so a lost ``V,crc16`` does not leave its later messages unchecked)."""
        self.crc_on_encode = False
        """Append ``*XXXX`` (CRC-16) to every message encoded (a shoe that announced ``crc16``)."""
        self.acks = True
        """The controller's end answers each message (``ack=1``; always when the framing :attr:`always_acks`)."""

    @classmethod
    def from_settings(cls, settings: FramerSettings) -> Self:
        """A framer of this framing made from ``settings``."""
        framer = cls()
        framer.acks = settings.acks or cls.always_acks
        return framer

    def _reject(self, reason: str, raw: bytes, count: bool = True, hint: str = "") -> None:
        self.rejected = Rejection(reason, raw, hint)
        self.garbage_bytes += len(raw)
        if not count:
            return
        if reason == "bad_checksum":
            self.bad_checksums += 1
        elif reason == "overlong":
            self.overlong += 1
        elif reason == "bad_message":
            self.bad_messages += 1

    def _own_echo(self, checked: bool, body: str) -> Frame | None:
        """On the controller's end, the controller's own message when ``body`` (whose framing check, ``*XX`` or the
        BCC, is right: ``checked``) carries no CRC-16 and is one: a line that echoes is not refused and NAKed for the
        CRC its own messages never carry (the NAK would come back, and be NAKed in turn)."""
        if not (checked and self.latch_crc):
            return None
        frame = parse_body(body)
        return frame if frame is not None and frame.kind in OWN_KINDS else None

    def _crc_refused(self, crc_ok: bool | None, raw: bytes) -> bool:
        """Refuse (as a bad checksum: answered NAK, so the shoe sends it again) a message whose CRC-16 is wrong,
        or missing where one is required; True when refused."""
        if crc_ok is False:
            self._reject("bad_checksum", raw)
            return True
        if crc_ok is None and self.require_crc:
            self._reject("bad_checksum", raw, hint=MISSING_CRC_HINT)
            return True
        if crc_ok and self.latch_crc:
            self.require_crc = True
        return False

    def line_failed(self) -> None:
        """The line failed and the receive buffer was dropped: forget any frame in progress (the new line starts
        clean). Nothing to forget in the base framing."""

    def decode(self, buffer: bytes) -> tuple[int, Frame | None]:  # pragma: no cover - abstract
        """Decode from the start of ``buffer``: ``(bytes consumed, frame or None)``."""
        raise NotImplementedError

    def encode(self, frame: Frame) -> bytes:  # pragma: no cover - abstract
        """The bytes of ``frame``."""
        raise NotImplementedError

    def decode_all(self, buffer: bytes) -> tuple[int, list[Frame]]:
        """Decode every complete frame in ``buffer``: ``(bytes consumed, frames)``."""
        frames: list[Frame] = []
        position = 0
        view = bytes(buffer)
        while position < len(view):
            used, frame = self.decode(view[position:])
            if used == 0:
                break
            position += used
            if frame is not None:
                frames.append(frame)
        return position, frames

    # -- the controller's end --------------------------------------------------
    def hello(self) -> bytes:
        """The controller's hello, written on every open: ``R,A`` (it acknowledges) or ``R``."""
        return self.encode(Frame(READY, None, "A" if self.acks else ""))

    def ack(self, frame: Frame) -> bytes | None:
        """The acknowledgement of ``frame``: ``A,<seq>``, or None when the controller does not answer."""
        return self.encode(Frame(ACKNOWLEDGE, frame.seq)) if self.acks else None

    def nak(self) -> bytes | None:
        """The answer to a message with a bad checksum: ``N``, or None when the controller does not answer."""
        return self.encode(Frame(NEGATIVE)) if self.acks else None

    def bad_message_answer(self) -> bytes | None:
        """The answer to a well-framed message that is no message of the protocol: none."""
        return None

    def indication(self, what: Indication, after: int | None = None) -> bytes:
        """``I,<what>``, framed; ``I,<after>,new_shoe`` names the shoe's last message the table took before it
        closed its shoe, so that a shoe told again (after a controller restart) knows it is a repeat."""
        return self.encode(Frame(INDICATE, after if what is Indication.NEW_SHOE else None, what.value))

    # -- the shoe's end ----------------------------------------------------------
    def is_hello(self, frame: Frame) -> bool:
        """Is ``frame`` the controller's hello?"""
        return frame.kind == READY

    def hello_wants_acks(self, frame: Frame) -> bool:
        """Does the controller that sent hello ``frame`` acknowledge messages (``R,A``)?"""
        return self.always_acks or frame.data == "A"

    @classmethod
    def greets_in(cls, data: bytes) -> bool:
        """Do ``data`` hold this framing's hello? (A shoe of another framing says so instead of waiting in
        silence.) The base framing cannot tell."""
        return False

    def sent(self, frame: Frame, in_flight: deque[int | None]) -> None:
        """The shoe sent ``frame``; a framing whose answers name no message notes it in ``in_flight``."""

    def answer_of(self, frame: Frame, in_flight: deque[int | None]) -> Answer | None:
        """The answer ``frame`` is, if it is one: ``A,<seq>`` confirms message ``seq``, ``N`` asks again for the
        message outstanding."""
        if frame.kind == ACKNOWLEDGE:
            return Answer(True, frame.seq)
        if frame.kind == NEGATIVE:
            return Answer(False, None, outstanding=True)
        return None

    def encode_corrupted(self, frame: Frame) -> bytes:
        """``frame``'s bytes with a checksum that does not match (the emulator's ``--bad-checksum``): a wrong
        CRC-16 when it carries one; unchanged when it carries no checksum."""
        data = self.encode(frame)
        return _wrong_crc(data) if self.crc_on_encode else data

    def noise(self, junk: bytes) -> bytes:
        """``junk`` (random bytes) as line noise in this framing, that is no message (the emulator's ``--garbage``)."""
        return junk

    def expected(self) -> str:
        """What this framing reads, as a warning about bytes that are none of it says it."""
        return f"messages of the {self.name or 'registered'} framing, of at most {MAX_FRAME} bytes"


def _wrong_crc(data: bytes) -> bytes:
    """``data`` with the CRC-16 after its last ``*`` changed."""
    star = data.rindex(b"*")
    wrong = int(data[star + 1:star + 5], 16) ^ 0x5A5A
    return data[:star + 1] + b"%04X" % wrong + data[star + 5:]


F = TypeVar("F", bound=type[Framer])

FRAMERS: dict[str, type[Framer]] = {}
"""The registered framings: name -> class (see :func:`register_framer`)."""

FRAMING_OPTIONS: Final = ("pattern", "terminator", "checksum", "ack")
"""URL options that only some framings take (see :attr:`Framer.url_options`)."""


def register_framer(name: str) -> Callable[[F], F]:
    """Register a :class:`Framer` subclass as framing ``name`` (``framing=name``); a class decorator.

    A name is taken once: registering another class under it raises :class:`ValueError`.
    """
    def register(cls: F) -> F:
        taken = FRAMERS.get(name)
        if taken is not None and taken is not cls:
            raise ValueError(f"framing {name!r} is taken by {taken.__name__}")
        cls.name = name
        FRAMERS[name] = cls
        return cls
    return register


def framing_names() -> tuple[str, ...]:
    """The registered framings' names, the built-in ones (``line``, ``stx``) first."""
    return tuple(FRAMERS)


def framer_class(framing: str) -> type[Framer]:
    """The class of framing ``framing``; :class:`ValueError` naming the registered ones."""
    cls = FRAMERS.get(framing)
    if cls is None:
        raise ValueError(f"unknown framing {framing!r}; expected {one_of(framing_names())}")
    return cls


def framings_taking(options: list[str]) -> str:
    """The registered framings that take any of URL ``options`` (:data:`FRAMING_OPTIONS`): ``line``, ``line or ...``."""
    return one_of([name for name, cls in FRAMERS.items() if cls.url_options & set(options)] or ["none"])


def framing_greeting_in(data: bytes, besides: str) -> str | None:
    """The name of a framing other than ``besides`` whose hello ``data`` hold, if any."""
    return next((name for name, cls in FRAMERS.items() if name != besides and cls.greets_in(data)), None)


@register_framer("line")
class LineFramer(Framer):
    """ASCII lines: ``K[,seq][,data][*XX]`` ended by the terminator (or a bare ``\\n``).

    ``pattern``, a regular expression with a named group ``card`` (and optionally
    ``seq``), reads vendor card lines: a line it matches in full is a card.
    ``require_checksum`` rejects reference-format lines without ``*XX``;
    ``checksum_on_encode`` writes ``*XX`` after each message. The link is the base's:
    hello ``R,A`` (``R`` with ``ack=0``), answers ``A,<seq>`` and ``N`` (none with ``ack=0``).
    """

    url_options: ClassVar[frozenset[str]] = frozenset(FRAMING_OPTIONS)

    def __init__(self, terminator: bytes = b"\r\n", pattern: str | re.Pattern[str] | None = None,
                 require_checksum: bool = False, checksum_on_encode: bool = True) -> None:
        super().__init__()
        if not terminator:
            raise ValueError("the line terminator must not be empty")
        self.terminator = terminator
        self.pattern = re.compile(pattern) if isinstance(pattern, str) else pattern
        if self.pattern is not None and "card" not in self.pattern.groupindex:
            raise ValueError(f"pattern {self.pattern.pattern!r} has no named group 'card': (?P<card>...)")
        self.require_checksum = require_checksum
        self.checksum_on_encode = checksum_on_encode
        self._ends = sorted({terminator[-1:], b"\n"})
        self._skipping = False  # inside an overlong line: drop bytes up to its end

    @classmethod
    def from_settings(cls, settings: FramerSettings) -> Self:
        framer = cls(settings.terminator, settings.pattern, settings.require_checksum, settings.checksum_on_encode)
        framer.acks = settings.acks
        return framer

    @classmethod
    def greets_in(cls, data: bytes) -> bool:
        return b"R\r" in data or b"R\n" in data or b"R,A" in data

    def encode_corrupted(self, frame: Frame) -> bytes:
        """``frame`` with a wrong CRC-16, else a wrong ``*XX``; unchanged when it carries no checksum."""
        if self.crc_on_encode or not self.checksum_on_encode:
            return super().encode_corrupted(frame)
        data = self.encode(frame)
        star = data.rindex(b"*")
        wrong = int(data[star + 1:star + 3], 16) ^ 0x5A
        return data[:star + 1] + b"%02X" % wrong + data[star + 3:]

    def noise(self, junk: bytes) -> bytes:
        """A line of ``junk`` starting ``~``: noise such as ``U`` or `` X`` alone would be a real message."""
        return b"~" + junk + self.terminator

    def expected(self) -> str:
        """Lines of the protocol's text and their terminator, as the URL names it."""
        name = next((name for name, ends in TERMINATORS.items() if ends == self.terminator), repr(self.terminator))
        return (f"lines K[,seq][,data][*checksum] of at most {MAX_FRAME} bytes, each ended by its terminator "
                f"({name})")

    def encode(self, frame: Frame) -> bytes:
        body = frame.body().encode("ascii")
        if self.crc_on_encode:
            body = with_crc(body)
        elif self.checksum_on_encode:
            body += b"*%02X" % xor_checksum(body)
        return body + self.terminator

    def line_failed(self) -> None:
        """The rest of an overlong line cut by the failure is not on the new line: its first line is read."""
        self._skipping = False

    def _line_end(self, buffer: bytes) -> int:
        """Index of the byte that ends the first line (the terminator's last byte or a \\n), or -1."""
        best = -1
        for end in self._ends:
            index = buffer.find(end)
            if index >= 0 and (best < 0 or index < best):
                best = index
        return best

    def decode(self, buffer: bytes) -> tuple[int, Frame | None]:
        self.rejected = None
        if not buffer:
            return 0, None
        index = self._line_end(buffer)
        if self._skipping:  # the rest of an overlong line, already counted once
            consumed = len(buffer) if index < 0 else index + 1
            self._skipping = index < 0
            raw = bytes(buffer[:consumed])
            self._reject("overlong", raw, count=False, hint=self._overlong_hint(raw))
            return consumed, None
        if index < 0:
            if len(buffer) > MAX_FRAME + len(self.terminator):
                self._skipping = True
                self._reject("overlong", bytes(buffer), hint=self._overlong_hint(bytes(buffer)))
                return len(buffer), None
            return 0, None
        consumed = index + 1
        raw = bytes(buffer[:consumed])
        text = self._line_text(bytes(buffer[:index]), raw)
        return consumed, None if text is None else self._frame_of_line(text, raw)

    def _overlong_hint(self, raw: bytes) -> str:
        """:data:`BARE_CR_HINT` when overlong bytes are lines ended by a CR alone, which end no line here."""
        if b"\r" in self._ends or not (_BARE_CR.search(raw) or raw.endswith(b"\r")):
            return ""
        return BARE_CR_HINT

    def _line_text(self, line: bytes, raw: bytes) -> str | None:
        """The text of a line; None for an empty line or one rejected (overlong, not ASCII)."""
        line = line.strip(b"\r\n\t ")
        if not line:
            return None  # an empty line (e.g. the \n of a \r\n split oddly): ignore
        if len(line) > MAX_FRAME:
            self._reject("overlong", raw)
            return None
        try:
            return line.decode("ascii")
        except UnicodeDecodeError:
            self._reject("garbage", raw)
            return None

    def _frame_of_line(self, text: str, raw: bytes) -> Frame | None:
        if self.pattern is not None and not self.every_line_checked:
            card = self._vendor_card(self.pattern, text)
            if card is not None:
                return card  # a vendor's card line as it comes: nothing asks it for a checksum
        body, crc_ok = split_crc(text)
        if crc_ok is None:
            unchecked = self._xor_checked(text, raw)
            if unchecked is None:
                return None
            body = unchecked
        frame = self._message_of(body)
        if frame is None:
            self._reject("garbage", raw)
            return None
        if crc_ok is None and self._own_echo("*" in text, body) is not None:
            return frame
        return None if self._crc_refused(crc_ok, raw) else frame

    @property
    def every_line_checked(self) -> bool:
        """Must every line carry its checksum (``checksum=required``, or a shoe held to its CRC-16)?"""
        return self.require_checksum or self.require_crc

    def _message_of(self, body: str) -> Frame | None:
        """The message of a line's text without its checksum: a vendor's card line, else a reference message."""
        if self.pattern is not None:
            card = self._vendor_card(self.pattern, body)
            if card is not None:
                return card
        return parse_body(body)

    @staticmethod
    def _vendor_card(pattern: re.Pattern[str], text: str) -> Frame | None:
        """A card from a vendor's line that ``pattern`` matches in full."""
        match = pattern.fullmatch(text)
        if match is None or not match.group("card"):
            return None
        seq_text = match.groupdict().get("seq")
        seq = int(seq_text) if seq_text and seq_text.isdecimal() else None
        return Frame(CARD, seq, match.group("card"))

    def _xor_checked(self, text: str, raw: bytes) -> str | None:
        """The body of ``body[*XX]`` when its XOR checksum is right (or absent and not required)."""
        body, star, check = text.partition("*")
        if star:
            if len(check) != 2 or not set(check) <= _HEX:
                self._reject("garbage", raw)
                return None
            if int(check, 16) != xor_checksum(body.encode("ascii")):
                self._reject("bad_checksum" if self._message_of(body) is not None else "garbage", raw)
                return None
        elif self.require_checksum:
            self._reject("garbage", raw, hint=MISSING_CHECKSUM_HINT if self._message_of(body) is not None else "")
            return None
        return body


@register_framer("stx")
class StxFramer(Framer):
    """``STX payload ETX BCC`` frames; BCC is the XOR of the payload bytes and ETX.

    With ``controls=True`` (the shoe side), lone ACK, NAK and ENQ bytes between
    frames are decoded as frames of kind :data:`CONTROL_ACK`, :data:`CONTROL_NAK`
    and :data:`CONTROL_ENQ`; otherwise they are garbage.

    The link uses single control bytes: the hello is ENQ, and the controller answers
    every frame, ACK (also a well-framed message it does not understand, so the shoe
    moves on) or NAK (a bad checksum). Answers name no message: the shoe pairs them
    with its frames in order.
    """

    always_acks: ClassVar[bool] = True

    def __init__(self, controls: bool = False) -> None:
        super().__init__()
        self.controls = controls

    @classmethod
    def from_settings(cls, settings: FramerSettings) -> Self:
        return cls(controls=settings.shoe_end)

    # -- the controller's end ----------------------------------------------------
    def hello(self) -> bytes:
        """ENQ."""
        return bytes([ENQ])

    def ack(self, frame: Frame) -> bytes | None:
        """ACK."""
        return bytes([ACK])

    def nak(self) -> bytes | None:
        """NAK."""
        return bytes([NAK])

    def bad_message_answer(self) -> bytes | None:
        """ACK, so that the shoe moves on (the message is logged and dropped)."""
        return bytes([ACK])

    # -- the shoe's end ------------------------------------------------------------
    def is_hello(self, frame: Frame) -> bool:
        return frame.kind == CONTROL_ENQ

    @classmethod
    def greets_in(cls, data: bytes) -> bool:
        return bytes([ENQ]) in data

    def sent(self, frame: Frame, in_flight: deque[int | None]) -> None:
        in_flight.append(frame.seq)

    def answer_of(self, frame: Frame, in_flight: deque[int | None]) -> Answer | None:
        """ACK or NAK, answering the oldest frame sent and not answered yet."""
        if frame.kind not in (CONTROL_ACK, CONTROL_NAK):
            return None
        seq = in_flight.popleft() if in_flight else None
        return Answer(frame.kind == CONTROL_ACK, seq)

    def encode_corrupted(self, frame: Frame) -> bytes:
        """``frame`` with a wrong CRC-16 under a right BCC (only the CRC catches it), else a wrong BCC."""
        data = self.encode(frame)
        if self.crc_on_encode:
            data = _wrong_crc(data)
            return data[:-1] + bytes([xor_checksum(data[1:-2]) ^ ETX])
        return data[:-1] + bytes([data[-1] ^ 0x5A])

    def expected(self) -> str:
        """Frames STX, payload, ETX, BCC."""
        return f"frames STX, a payload of at most {MAX_FRAME} bytes, ETX and the BCC"

    def encode(self, frame: Frame) -> bytes:
        if frame.kind in (CONTROL_ACK, CONTROL_NAK, CONTROL_ENQ):
            return frame.kind.encode("ascii")
        payload = frame.body().encode("ascii")
        if self.crc_on_encode:
            payload = with_crc(payload)
        return bytes([STX]) + payload + bytes([ETX, xor_checksum(payload) ^ ETX])

    def decode(self, buffer: bytes) -> tuple[int, Frame | None]:
        self.rejected = None
        if not buffer:
            return 0, None
        if buffer[0] != STX:
            return self._between_frames(buffer)
        # buffer[0] is STX: look for ETX before another STX
        limit = min(len(buffer), MAX_FRAME + 2)
        for index in range(1, limit):
            byte = buffer[index]
            if byte == STX:
                self._reject("garbage", bytes(buffer[:index]))  # a frame cut short
                return index, None
            if byte == ETX:
                if index + 1 >= len(buffer):
                    return 0, None  # BCC not here yet
                return index + 2, self._frame_up_to(buffer, index)
        if len(buffer) >= MAX_FRAME + 2:
            # no ETX within the longest frame: drop this STX and what follows up to the next STX
            index = 1
            while index < len(buffer) and buffer[index] != STX:
                index += 1
            self._reject("overlong", bytes(buffer[:index]))
            return index, None
        return 0, None

    def _between_frames(self, buffer: bytes) -> tuple[int, Frame | None]:
        """Bytes before an STX: a control byte (shoe side), else garbage up to the next STX."""
        first = buffer[0]
        if self.controls and first in (ACK, NAK, ENQ):
            return 1, Frame(chr(first))
        index = 1
        while index < len(buffer):
            byte = buffer[index]
            if byte == STX or (self.controls and byte in (ACK, NAK, ENQ)):
                break
            index += 1
        self._reject("garbage", bytes(buffer[:index]))
        return index, None

    def _frame_up_to(self, buffer: bytes, etx: int) -> Frame | None:
        """The frame from the STX at 0 to the ETX at ``etx`` and its BCC; None when rejected."""
        payload = bytes(buffer[1:etx])
        raw = bytes(buffer[:etx + 2])
        if buffer[etx + 1] != xor_checksum(payload) ^ ETX:
            self._reject("bad_checksum", raw)
            return None
        try:
            text = payload.decode("ascii")
        except UnicodeDecodeError:
            text = ""
        body, crc_ok = split_crc(text)
        echo = self._own_echo(True, body) if crc_ok is None else None
        if echo is not None:
            return echo
        if self._crc_refused(crc_ok, raw):
            return None  # checked before the text: a damaged message is NAKed, never ACKed as one not understood
        frame = parse_body(body) if body and "*" not in body else None
        if frame is None:
            self._reject("bad_message", raw)
            return None
        return frame


def make_framer(framing: str, *, terminator: bytes = b"\r\n", pattern: str | re.Pattern[str] | None = None,
                require_checksum: bool = False, controls: bool = False) -> Framer:
    """A framer of the registered framing ``framing`` (``line``, ``stx`` ...); :class:`ValueError` for another name."""
    compiled = re.compile(pattern) if isinstance(pattern, str) else pattern
    settings = FramerSettings(terminator=terminator, pattern=compiled, require_checksum=require_checksum,
                              shoe_end=controls)
    return framer_class(framing).from_settings(settings)

"""The ``serial://`` card-shoe driver, also serving ``socket://`` and ``loop://``.

Built on :func:`serial.serial_for_url`::

    serial:///dev/ttyUSB0?baudrate=9600&framing=stx
    serial:///dev/serial/by-id/usb-Shoe-if00?framing=line&heartbeat=3&indicator=1
    serial:///dev/ttyUSB0?profile=example-card-lines
    socket://192.168.1.50:4001?framing=line
    loop://

The wire protocol (framings, messages, handshake, acknowledgements) is in
``docs/serial-protocol.md``; the framers, one class per framing with its link
behaviour, are in :mod:`drivers.serial.framing`, and the vendor profiles (a
shoe's options as a data file) in :mod:`drivers.serial.profiles`.

Line problems never raise out of :meth:`SerialShoe.recv`: garbage, overlong
frames, bad checksums and duplicates are logged on the ``croupier.serial``
logger and counted (:attr:`SerialShoe.garbage_bytes`, :attr:`~SerialShoe.bad_checksums`,
:attr:`~SerialShoe.duplicates` ...); an unplugged line or a silent reader gives one
``OFFLINE`` input, and the driver reopens the port with backoff and gives
``ONLINE`` when it is back. Retransmitted messages are dropped by sequence number.
"""

from __future__ import annotations

import logging
import re
import time
from collections import deque
from collections.abc import Mapping
from typing import Any, ClassVar
from urllib.parse import urlsplit

from controller.core.exceptions import DriverError, DriverURLError
from controller.core.inputs import Input, InputKind
from controller.i18n.message import message
from drivers.base import Indication, Option, Resumable, one_of
from drivers.serial import framing as fr
from drivers.serial.inbox import Inbox
from drivers.serial.port import LINE_ERRORS, OPEN_ERRORS, Port
from drivers.serial.profiles import Profile, load_profile
from drivers.serial.url import SCHEMES

LOG = logging.getLogger("croupier.serial")

READ_SLICE = 0.25
"""Longest single wait on the port, so heartbeat and reconnect timers are looked at."""


class SerialShoe(Resumable):
    """A card-reading shoe on a serial line (or a TCP serial server, or pyserial's loop).

    Counters, for monitoring: :attr:`garbage_bytes`, :attr:`bad_checksums`,
    :attr:`overlong`, :attr:`bad_messages`, :attr:`duplicates`,
    :attr:`offline_count`, :attr:`reconnects`. :attr:`status` is the last
    status text the shoe sent (``S`` message).

    ``profile=NAME`` takes the options of a vendor profile (:mod:`drivers.serial.profiles`); the options
    given in the URL override it. ``framing`` names a registered framing
    (:func:`~drivers.serial.framing.register_framer`).
    """

    schemes = SCHEMES
    options: ClassVar[Mapping[str, Option]] = {
        "baudrate": Option("bits per second, default 9600", int, 9600, (50, 4_000_000)),
        "framing": Option("line (default) or stx", str, "line"),  # a registered framing: checked by _framer
        "heartbeat": Option("seconds of silence after which the reader counts as offline; 0 = never (default)",
                            float, 0.0, (0, 3600), unit="seconds"),
        "timeout": Option("same as heartbeat", float, 0.0, (0, 3600), unit="seconds"),
        "pattern": Option("regular expression with a named group 'card' that reads a vendor's card lines"),
        "checksum": Option("line framing: optional (default) or required", str, "optional",
                           choices=("optional", "required")),
        "terminator": Option("line framing: crlf (default; a bare lf is accepted too), lf or cr", str, "crlf",
                             choices=tuple(fr.TERMINATORS)),
        "ack": Option("line framing: 1 = answer each message A,<seq> (default), 0 = never write acks", bool, True),
        "indicator": Option("1 = write the next slot to the shoe (I,player ...); 0 = do not (default)", bool, False),
        "reconnect": Option("1 = reopen a failed line with backoff (default); 0 = stay offline", bool, True),
        "profile": Option("a vendor profile: a shipped one's name (reference, example-card-lines) or a .toml file's "
                          "path; options given in the URL override the profile's"),
    }

    @classmethod
    def expected_form(cls) -> str:
        opts = "&".join(f"{name}=..." for name in cls.options)
        return f"serial:///dev/ttyUSB0?{opts} (or socket://host:port?... or loop://?...)"

    def __init__(self, url: str) -> None:
        super().__init__(url)
        location, values = self.parse_query(url)
        self.port_name, local = port_name_of(url, location)
        self.profile: Profile | None = load_profile(url, values["profile"], self.options) if "profile" in values \
            else None
        """The vendor profile the URL names, if any."""
        self.baudrate: int = self._setting(url, values, "baudrate")
        self.port = Port(url, self.port_name, self.baudrate, local)
        self.framing: str = self._setting(url, values, "framing")
        refuse_heartbeat_with_timeout(url, values)
        self.heartbeat: float = self._setting(url, values, "timeout" if "timeout" in values else "heartbeat")
        self.indicator: bool = self._setting(url, values, "indicator")
        self.reconnect: bool = self.option_value(url, values, "reconnect")
        self.framer: fr.Framer = self._framer(url, values)
        self.framer.latch_crc = True
        self.ack: bool = self.framer.acks
        """The controller answers each message (``ack=1``, and always in a framing that always acknowledges)."""
        self.offline_count = 0
        """How many times the reader went offline."""
        self.inbox = Inbox(url, self.framer, self._write)
        self._pending: deque[Input] = deque()
        self._online = True
        self._last_rx = time.monotonic()
        self._last_hello = self._last_rx
        self._unsent_indication: Indication | None = None
        self._failed = False
        self._resuming = False
        try:
            self.port.open()
        except OPEN_ERRORS as error:
            raise DriverError(message(
                "serial.cannot_open", "{url}: cannot open {port} ({error}); check the cable, the device path and its "
                "permissions, and that no other program holds the port", url=url, port=self.port_name,
                error=str(error))) from None
        LOG.info("%s: opened %s (%s framing)", self.url, self.port_name, self.framing)
        if self.profile is not None:
            LOG.info("%s: profile %s (%s): %s", self.url, self.profile.name, self.profile.path,
                     self.profile.description)
        self._hello()

    # -- options ------------------------------------------------------------------
    def _setting(self, url: str, values: Mapping[str, str], name: str) -> Any:
        """Option ``name``: as the URL gives it, else as the profile does, else its default."""
        if name not in values and self.profile is not None and name in self.profile.settings:
            return self.profile.settings[name]
        return self.option_value(url, values, name)

    @classmethod
    def check_url(cls, url: str) -> None:
        """Refuse what the constructor refuses of the URL itself: a serial URL without a device path, a socket
        URL without HOST:PORT, an unknown option, a bad value, heartbeat with timeout, a framing that is not
        registered or options of another framing, a pattern without its ``card`` group. Neither the device nor a
        profile file is looked at (the profile may set the framing: then the framing's options are checked when
        the shoe opens)."""
        location, values = cls.parse_query(url)
        port_name_of(url, location)
        for name in values:
            if name not in ("framing", "pattern", "profile"):
                cls.option_value(url, values, name)
        refuse_heartbeat_with_timeout(url, values)
        if "pattern" in values:
            card_pattern(url, values["pattern"])
        if "framing" in values or "profile" not in values:
            framing = framing_class(url, cls.option_value(url, values, "framing"))
            refuse_url_options_of_other_framings(url, values, framing)

    def _framer(self, url: str, values: Mapping[str, str]) -> fr.Framer:
        """The framer of the framing the options name, made from their settings."""
        framing = framing_class(url, self.framing)
        self._refuse_options_of_other_framings(url, values, framing)
        checksum: str = self._setting(url, values, "checksum")  # URL: optional|required; profile: none|xor|required
        pattern = card_pattern(url, values["pattern"]) if "pattern" in values else \
            self.profile.settings.get("pattern") if self.profile is not None else None
        return framing.from_settings(fr.FramerSettings(
            terminator=fr.TERMINATORS[self._setting(url, values, "terminator")], pattern=pattern,
            require_checksum=checksum == "required", checksum_on_encode=checksum != "none",
            acks=self._setting(url, values, "ack")))

    def _refuse_options_of_other_framings(self, url: str, values: Mapping[str, str], framing: type[fr.Framer]) -> None:
        """Refuse options (given in the URL, or by the profile) that ``framing`` does not take."""
        refuse_url_options_of_other_framings(url, values, framing)
        others = [name for name in fr.FRAMING_OPTIONS if name not in framing.url_options]
        from_profile = [name for name in self.profile.settings if name in others] if self.profile else []
        if self.profile is not None and from_profile:
            raise DriverURLError(message(
                "serial.profile_not_for_framing", "{url}: profile {profile} sets {options}, which apply to "
                "framing={framings} only; choose a profile for framing={framing} or leave framing out of the URL",
                url=url, profile=self.profile.name, options=", ".join(from_profile),
                framings=fr.framings_taking(from_profile), framing=framing.name))

    # -- counters -----------------------------------------------------------------
    @property
    def garbage_bytes(self) -> int:
        """Bytes discarded because they were not part of a good frame."""
        return self.framer.garbage_bytes

    @property
    def bad_checksums(self) -> int:
        """Frames dropped (and, in stx framing, NAKed) because their checksum was wrong."""
        return self.framer.bad_checksums

    @property
    def overlong(self) -> int:
        """Frames dropped because they were longer than the protocol allows."""
        return self.framer.overlong

    @property
    def bad_messages(self) -> int:
        """Well-framed stx messages whose text is not a protocol message."""
        return self.framer.bad_messages

    @property
    def duplicates(self) -> int:
        """Messages dropped because they repeated the previous sequence number."""
        return self.inbox.duplicates

    @property
    def status(self) -> str | None:
        """The last status text the shoe sent, if any."""
        return self.inbox.status

    @property
    def features(self) -> frozenset[str]:
        """What the shoe announced after the hello (``V,crc16``): empty for a shoe from before CRC."""
        return self.inbox.features

    @property
    def reconnects(self) -> int:
        """How many times the port was reopened after a failure."""
        return self.port.reconnects

    @property
    def online(self) -> bool:
        """False between an OFFLINE input and the next ONLINE input."""
        return self._online

    @property
    def exhausted(self) -> bool:
        """True only when the line failed and ``reconnect=0``: nothing more will come."""
        return not self.port.is_open and not self.reconnect

    # -- port ---------------------------------------------------------------------
    def _hello(self) -> None:
        """Tell the shoe the controller is ready (its input was flushed on open)."""
        self._last_hello = time.monotonic()
        self.framer.require_crc = False  # until this shoe (perhaps another one) announces crc16 again
        self._write(self.framer.hello())

    def _write(self, data: bytes) -> bool:
        try:
            return self.port.write(data)
        except LINE_ERRORS as error:
            self._line_failed(error)
            return False

    def _line_failed(self, error: BaseException) -> None:
        """The line died: close it, give one OFFLINE, schedule a reconnect."""
        self.port.failed(error, self.reconnect)
        self._failed = True  # reported (OFFLINE) once the frames already received are out
        self.inbox.forget_ack()  # the shoe resends it on the new line

    def _go_offline(self) -> None:
        if self._online:
            self._online = False
            self.offline_count += 1
            self._pending.append(Input(InputKind.OFFLINE))

    def _go_online(self) -> None:
        if not self._online:
            self._online = True
            self._pending.append(Input(InputKind.ONLINE))

    def _try_reconnect(self) -> None:
        if not self.port.reopen():
            return
        self._last_rx = time.monotonic()
        self._hello()
        if not self.port.is_open:
            return  # the hello write failed: _line_failed already rescheduled
        self._go_online()
        if self._unsent_indication is not None:
            self._indicate(self._unsent_indication)

    # -- the template method ------------------------------------------------------
    def _recv(self, timeout: float | None) -> Input | None:
        self.inbox.release_ack()  # the controller is back for more: it has taken the last input
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            item = self._received()
            if item is not None:
                return item
            if self._failed:
                self._report_failure()
                continue
            now = time.monotonic()
            remaining = READ_SLICE if deadline is None else max(0.0, deadline - now)
            if not self.port.is_open:
                if self._wait_for_reconnect(now, remaining):
                    continue
                return None
            wait = self._watch_heartbeat(now, remaining)
            if wait is None or self._read_into_buffer(min(READ_SLICE, max(0.0, wait))):
                continue
            if deadline is not None and time.monotonic() >= deadline:
                return None

    def _received(self) -> Input | None:
        """The next input already received: pending news, a deferred frame, or the receive buffer's."""
        while True:
            if self._pending:
                return self._pending.popleft()
            return self.inbox.next_input()

    def _report_failure(self) -> None:
        """The frames received before the line failed are out: give its OFFLINE."""
        self._failed = False
        self.inbox.drop_unfinished()
        self._go_offline()

    def _wait_for_reconnect(self, now: float, remaining: float) -> bool:
        """With the line down: reconnect when due, or wait for it; False when the caller's time is up."""
        if not self.reconnect:
            return False
        if now >= self.port.reopen_at:
            self._try_reconnect()
            return True
        pause = min(remaining, self.port.reopen_at - now)
        if pause <= 0:
            return False
        time.sleep(pause)
        return True

    def _watch_heartbeat(self, now: float, remaining: float) -> float | None:
        """Go offline after ``heartbeat`` seconds of silence and greet again while offline.

        None when it acted (look at the news first); else how long the next read may wait.
        """
        if not self.heartbeat:
            return remaining
        silent = now - self._last_rx
        if self._online and silent >= self.heartbeat:
            LOG.warning("%s: nothing from the shoe for %.1fs (heartbeat %.1fs); reader offline",
                        self.url, silent, self.heartbeat)
            self._go_offline()
            self._hello()
            return None
        if not self._online and now - self._last_hello >= self.heartbeat:
            self._hello()  # a shoe that restarted waits for this
            return None
        return min(remaining, max(0.0, self.heartbeat - silent) if self._online
                   else self._last_hello + self.heartbeat - now)

    def _read_into_buffer(self, wait: float) -> bool:
        """Read what the port has within ``wait`` seconds; True when something happened."""
        try:
            data = self.port.read(wait)
        except LINE_ERRORS as error:
            self._line_failed(error)
            return True
        if not data:
            return False
        self._last_rx = time.monotonic()
        self.inbox.feed(data)
        if not self._online:
            LOG.warning("%s: the shoe is talking again; reader online", self.url)
            self._go_online()
        return True

    def journaled(self, item: Input) -> None:
        """``item`` is durable (the journal committed it); its acknowledgement still waits for :meth:`recv`.

        The shoe is answered only when the controller next calls :meth:`recv`, that
        is once it has journaled the input, applied it to the table and told the shoe
        what comes next (``I,new_shoe`` after the shoe's last round). Answering
        earlier would let the shoe send its next card while the table is still
        closing the shoe, and that card would be taken for the new shoe's. A
        controller that dies holding an input has not acknowledged it, and the
        shoe sends it again.
        """

    def settle(self) -> None:
        """The controller took its last input for good (it journaled and applied it) and stops: answer it now,
        so the shoe does not send it again to the next controller."""
        if not self._closed:
            self.inbox.release_ack()

    @property
    def position(self) -> tuple[int, int]:
        """``(1, last sequence number)``, -1 for none: where a restarted controller resumes (after the news of a
        sequence gap or a restarted shoe, the number before the message that follows it)."""
        last = self.inbox.last_seq
        return (1, -1 if last is None else last)

    def seek(self, shoe: int, offset: int) -> None:
        """Resume after a restart: drop a retransmission of the last journaled message.

        The shoe keeps its own place (it resends what was not acknowledged), so the
        ``new_shoe`` indications a resume replays are not sent again: the shoe had them.
        """
        self.inbox.last_seq = None if offset < 0 else offset
        self.inbox.last_frame = None  # its content is the journal's: a retransmission is known by its number
        self._resuming = True
        LOG.info("%s: resuming after sequence number %s", self.url, offset if offset >= 0 else "(none)")

    def resumed_offline(self) -> None:
        """The journal ends with the reader offline: the line this controller opened is the reader back.

        So ``ONLINE`` comes first, now if the line is open, else when it reopens, before any message from the
        shoe; without it the resumed table refused the next round and halted on the shoe's next card.
        """
        self._online = False
        if self.port.is_open:
            self._go_online()

    # -- write-back ---------------------------------------------------------------
    def _indicate(self, what: Indication) -> None:
        """Tell the shoe what the table expects next (``I,<what>``).

        ``new_shoe`` is always written, as ``I,<seq>,new_shoe`` with the sequence number of the
        shoe's last message taken: it is the shoe's cue that the table has closed the shoe (the
        emulator then deals its next seeded shoe), and a shoe told again with the same number (by a
        controller that restarted before it could know the shoe had it) ignores the repeat. The slot
        indications (player, banker, burn, hold) are written only with ``indicator=1``, for shoes with
        lamps.
        """
        if self._closed:
            return
        if self._resuming:
            if what is Indication.NEW_SHOE:
                LOG.info("%s: resuming: the shoe had the new_shoe indication already; not sent again",
                         self.url)
                return
            self._resuming = False  # the resume is over, whether or not this indication is written
        if not self.indicator and what is not Indication.NEW_SHOE:
            return
        if self._write(self.framer.indication(what, self.inbox.last_seq)):
            self._unsent_indication = None
        else:
            LOG.info("%s: indication %r not delivered; will send it when the line is back", self.url, what.value)
            self._unsent_indication = what

    def _close(self) -> None:
        self.port.close()
        LOG.info("%s: closed", self.url)


def refuse_heartbeat_with_timeout(url: str, values: Mapping[str, str]) -> None:
    """``heartbeat`` and ``timeout`` are the same option: give one."""
    if "heartbeat" in values and "timeout" in values:
        raise DriverURLError(message("serial.heartbeat_and_timeout", "{url}: give heartbeat or timeout, not both "
                                     "(they are the same option)", url=url))


def framing_class(url: str, name: str) -> type[fr.Framer]:
    """The framer class of option ``framing=name``; :class:`DriverURLError` naming the registered framings."""
    try:
        return fr.framer_class(name)
    except ValueError:
        raise DriverURLError(message("driver.unknown_choice", "{url}: option {name}={value} is unknown; "
                                     "expected {choices}", url=url, name="framing", value=repr(name),
                                     choices=one_of(fr.framing_names()))) from None


def refuse_url_options_of_other_framings(url: str, values: Mapping[str, str], framing: type[fr.Framer]) -> None:
    """Refuse options given in the URL that ``framing`` does not take."""
    others = [name for name in fr.FRAMING_OPTIONS if name not in framing.url_options]
    given = sorted(set(others) & values.keys())
    if given:
        framings = fr.framings_taking(given)
        raise DriverURLError(message("serial.options_of_other_framing", "{url}: option(s) {options} apply to "
                                     "framing={framings} only: add framing={framings} to the URL, or leave them "
                                     "out", url=url, options=", ".join(given), framings=framings))


def port_name_of(url: str, location: str) -> tuple[str, bool]:
    """The name pyserial opens, and whether it is a local device."""
    scheme = urlsplit(url).scheme
    if scheme not in SCHEMES:
        raise DriverURLError(message("serial.not_serial", "{url}: not a serial URL; expected {form}", url=url,
                                     form=SerialShoe.expected_form()))
    if scheme == "serial":
        if not location:
            raise DriverURLError(message("serial.no_device", "{url}: no device path; expected {form}", url=url,
                                         form=SerialShoe.expected_form()))
        return location, True
    if scheme == "socket":
        host, _, port = location.rpartition(":")
        if not host or not port.isdecimal() or not 0 < int(port) < 65536:
            raise DriverURLError(message("serial.bad_socket", "{url}: expected socket://HOST:PORT with a port from 1 "
                                         "to 65535, e.g. socket://127.0.0.1:4001", url=url))
    return f"{scheme}://{location}", False


PATTERN_EXAMPLE = "pattern=CARD%20(%3FP<card>%5Cw%2B)"
"""A card pattern as a URL gives it: ``CARD (?P<card>\\w+)``."""


def card_pattern(url: str, text: str) -> re.Pattern[str]:
    """Option ``pattern``: a regular expression with a named group ``card``."""
    try:
        pattern = re.compile(text)
    except re.error as error:
        raise DriverURLError(message("serial.pattern_not_regex", "{url}: option pattern is not a regular "
                                     "expression ({error}); give one with a named group 'card', e.g. {example}",
                                     url=url, error=str(error), example=PATTERN_EXAMPLE)) from None
    if "card" not in pattern.groupindex:
        raise DriverURLError(message("serial.pattern_no_card", "{url}: option pattern={pattern} has no named group "
                                     "'card'; expected e.g. {example}", url=url, pattern=repr(text),
                                     example=PATTERN_EXAMPLE))
    return pattern

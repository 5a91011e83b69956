"""The shoe side of the serial protocol, for tests, demos and benchmarks.

:class:`ShoeEmulator` plays a card-reading shoe on a pseudo-terminal
(:class:`PtyEndpoint`) or a TCP port (:class:`TcpEndpoint`). It deals a seeded
shoe (:func:`controller.core.shoe.shoe_with_cut_card`, the same cards as ``mock://``
for the same seed) or a script of reader tokens, paced by an interval, by the
controller's acknowledgements, or by Enter presses; and it can inject faults:
garbage, bad checksums and unplugs. The protocol is in ``docs/serial-protocol.md``.

The emulator sends nothing until the controller's hello (``R`` line or ENQ):
pyserial flushes the input when it opens a port, so anything sent earlier is lost.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import random
import select
import socket
import struct
import termios
import time
import tty
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from config.schema import DEFAULT_CUT_FROM_END
from controller.core.exceptions import ScriptError
from controller.core.inputs import Input, InputKind
from controller.core.shoe import shoe_with_cut_card
from drivers.serial import framing as fr
from drivers.serial.link import INPUT_KINDS, frame_of

LOG = logging.getLogger("croupier.emulator")

MAX_EMULATOR_SEQ = 9999
NO_INDICATION_WARNING = 5.0
"""Seconds --follow-table waits for a first indication before it warns that none may come."""


def check_script(inputs: list[Input], source: str) -> list[Input]:
    """Keep only inputs a shoe can send; raise :class:`ScriptError` naming any other."""
    for index, item in enumerate(inputs):
        if item.kind is InputKind.CARD or item.kind in INPUT_KINDS or item.kind in (
                InputKind.OFFLINE, InputKind.ONLINE):
            continue
        raise ScriptError(
            f"{source} token {index + 1} {item.token()!r} is a dealer input, not something a shoe sends; "
            "expected card codes, ??, @cut, @double, @next (shoe button), @offline (unplug) or @online"
        )
    return inputs


class Endpoint:
    """Where the emulator talks to the controller: a pty or a TCP connection."""

    def __init__(self, announce: Callable[[str], None]) -> None:
        self.announce = announce

    def read_fds(self) -> list[int]:
        """File descriptors to wait on for reading."""
        raise NotImplementedError

    def on_readable(self, fd: int) -> bytes | None:
        """Handle ``fd`` being readable: bytes from the controller, b"" for none, None on hang-up."""
        raise NotImplementedError

    def write(self, data: bytes) -> bool:
        """Write to the controller; False when it is not connected or not reading."""
        raise NotImplementedError

    @property
    def connected(self) -> bool:
        raise NotImplementedError

    def unplug(self) -> None:
        """Break the line as pulling the cable would."""
        raise NotImplementedError

    def replug(self) -> None:
        """Make the line available again."""
        raise NotImplementedError

    def pending_output(self) -> int:
        """Bytes written but not yet read by the controller (0 when unknown)."""
        return 0

    def close(self) -> None:
        raise NotImplementedError


class PtyEndpoint(Endpoint):
    """A pseudo-terminal: the controller opens the slave path (or ``link``, a symlink to it).

    An unplug closes the master (the controller's reads fail) and removes the link;
    a replug opens a new pty, points the link at it and announces ``PTY <path>`` again.
    """

    def __init__(self, announce: Callable[[str], None], link: str | None = None) -> None:
        super().__init__(announce)
        self.link = link
        self.master = -1
        self.slave = -1
        self.path = ""
        self.replug()

    def replug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        self.master, self.slave = master, slave
        self.path = os.ttyname(slave)
        shown = self.path
        if self.link:
            temporary = f"{self.link}.{os.getpid()}.tmp"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            os.symlink(self.path, temporary)
            os.replace(temporary, self.link)
            shown = self.link
        self.announce(f"PTY {shown}")

    def read_fds(self) -> list[int]:
        return [self.master] if self.master >= 0 else []

    def on_readable(self, fd: int) -> bytes | None:
        try:
            return os.read(self.master, 4096)
        except OSError as error:
            if error.errno == errno.EIO:  # no slave open: nothing to read
                return b""
            raise

    @property
    def connected(self) -> bool:
        return self.master >= 0

    def write(self, data: bytes) -> bool:
        if self.master < 0:
            return False
        view = memoryview(data)
        deadline = time.monotonic() + 1.0
        while view:
            _, ready, _ = select.select([], [self.master], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                LOG.warning("the controller is not reading; dropped %d byte(s)", len(view))
                return False
            written = os.write(self.master, view)
            view = view[written:]
        return True

    def pending_output(self) -> int:
        if self.slave < 0:
            return 0
        raw = fcntl.ioctl(self.slave, termios.FIONREAD, b"\0\0\0\0")
        count: int = struct.unpack("i", raw)[0]
        return count

    def unplug(self) -> None:
        if self.link:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.link)
        for fd in (self.master, self.slave):
            if fd >= 0:
                os.close(fd)
        self.master = self.slave = -1

    def close(self) -> None:
        self.unplug()


class TcpEndpoint(Endpoint):
    """A TCP server for ``socket://host:port``: one controller connection at a time.

    An unplug closes the connection and the listening socket; a replug listens again.
    """

    def __init__(self, announce: Callable[[str], None], host: str, port: int) -> None:
        super().__init__(announce)
        self.host = host
        self.port = port
        self.listener: socket.socket | None = None
        self.client: socket.socket | None = None
        self.replug()

    def replug(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.host, self.port))
        listener.listen(1)
        self.port = listener.getsockname()[1]
        self.listener = listener
        self.announce(f"TCP {self.host}:{self.port}")

    def read_fds(self) -> list[int]:
        if self.client is not None:
            return [self.client.fileno()]
        return [self.listener.fileno()] if self.listener is not None else []

    def on_readable(self, fd: int) -> bytes | None:
        if self.client is None:
            if self.listener is None:
                return b""
            self.client, address = self.listener.accept()
            self.client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            LOG.info("controller connected from %s:%s", *address[:2])
            return b""
        try:
            data = self.client.recv(4096)
        except OSError:
            data = b""
        if not data:
            LOG.info("controller disconnected")
            self.client.close()
            self.client = None
            return None
        return data

    @property
    def connected(self) -> bool:
        return self.client is not None

    def write(self, data: bytes) -> bool:
        if self.client is None:
            return False
        try:
            self.client.sendall(data)
        except OSError as error:
            LOG.warning("write to the controller failed: %s", error)
            return False
        return True

    def unplug(self) -> None:
        for sock in (self.client, self.listener):
            if sock is not None:
                sock.close()
        self.client = self.listener = None

    def close(self) -> None:
        self.unplug()


@dataclass
class EmulatorOptions:
    """How the emulator behaves; see ``croupier shoe-emulator --help``."""

    framing: str = "line"
    terminator: bytes = b"\r\n"
    checksum: bool = True
    crc: bool = True
    """Announce ``V,crc16`` after each hello and protect every message with a CRC-16 (False: an older shoe,
    XOR checksums only)."""
    interval: float = 0.0
    key: bool = False
    follow_table: bool = False
    """Deal like a dealer who watches the table: no card while the controller indicates ``hold``
    (needs the controller's ``indicator=1``)."""
    heartbeat: float = 1.0
    ack_timeout: float = 1.0
    garbage: float = 0.0
    bad_checksum: float = 0.0
    unplug_after: int = 0
    replug_after: float = 1.0
    linger: float = 0.0
    fault_seed: int = 0


class LineFaults:
    """The line faults an emulator injects on purpose, seeded: noise before a message, a wrong checksum."""

    def __init__(self, options: EmulatorOptions, framer: fr.Framer) -> None:
        self.options = options
        self.framer = framer
        self.random = random.Random(f"croupier-faults:{options.fault_seed}")

    def encode(self, frame: fr.Frame) -> bytes:
        """``frame``'s bytes, perhaps after noise and perhaps with a wrong checksum, as the options' odds say."""
        data = b""
        if self.options.garbage and self.random.random() < self.options.garbage:
            data += self.noise()
        corrupt = bool(self.options.bad_checksum) and self.random.random() < self.options.bad_checksum
        return data + (self.framer.encode_corrupted(frame) if corrupt else self.framer.encode(frame))

    def noise(self) -> bytes:
        """A few random bytes that are no message, as the framing sends noise (a line of them, in line framing)."""
        size = self.random.randint(1, 24)
        forbidden = {fr.STX, 0x0A, 0x0D, ord("*")}
        return self.framer.noise(bytes(b for b in self.random.randbytes(size * 2) if b not in forbidden)[:size] or b"?")


@dataclass
class _Session:
    """Per-connection state: whether the controller said hello and acknowledges."""

    ready: bool = False
    acked: bool = False
    in_flight: deque[int | None] = field(default_factory=deque)
    """The seq of each transmission not yet answered, oldest first, for a framing whose answers name no message
    (stx: ACK/NAK); see :meth:`~drivers.serial.framing.Framer.sent`."""


class ShoeEmulator:
    """Deal reader tokens to a controller over an :class:`Endpoint`, speaking the shoe protocol.

    ``shoes(index)`` gives the tokens of shoe number ``index``; the emulator starts
    at ``shoe_index`` and moves to the next shoe when the controller indicates
    ``new_shoe``. ``None`` from ``shoes`` means there is no such shoe.
    """

    def __init__(self, endpoint: Endpoint, shoes: Callable[[int], list[Input] | None],
                 options: EmulatorOptions, shoe_index: int = 0, keys: TextIO | None = None) -> None:
        self.endpoint = endpoint
        self.shoes = shoes
        self.options = options
        self.shoe_index = shoe_index
        self.keys = keys
        self.tokens: deque[Input] = deque(shoes(shoe_index) or [])
        settings = fr.FramerSettings(terminator=options.terminator, checksum_on_encode=options.checksum,
                                     shoe_end=True)
        self.framer = fr.framer_class(options.framing).from_settings(settings)
        self.uses_crc = options.crc and options.checksum
        self.faults = LineFaults(options, self.framer)
        self.session = _Session()
        self.seq = 0
        self.outstanding: fr.Frame | None = None
        self.sent_at = 0.0
        self.last_token_at = -1e9
        self.last_tx = 0.0
        self.presses = 0
        self.cards_sent = 0
        self.unplugged_at: float | None = None
        self.out_since: float | None = None
        self.indications: list[str] = []
        self.new_shoe_after: int | None = None
        """The message number of the last ``I,<seq>,new_shoe`` acted on: the same one again is a repeat."""
        self.table_holds = options.follow_table
        """With ``follow_table``: the controller's last indication was ``hold`` (a new table holds too)."""
        self.stopped = False
        self._ready_at: float | None = None
        self._told_no_indications = False
        self.transmissions = 0
        self.retransmissions = 0
        self._rx = b""
        self._mismatch_warned = False

    # -- sending ------------------------------------------------------------------
    def _next_seq(self) -> int:
        self.seq = self.seq % MAX_EMULATOR_SEQ + 1
        return self.seq

    def _transmit(self, frame: fr.Frame, faults: bool) -> None:
        data = self.faults.encode(frame) if faults else self.framer.encode(frame)
        if self.endpoint.write(data):
            self.transmissions += 1
            self.last_tx = time.monotonic()
            self.framer.sent(frame, self.session.in_flight)
            LOG.debug("sent %r", data)

    def _send_token(self, item: Input) -> None:
        if item.kind is InputKind.OFFLINE:
            LOG.info("script: unplug")
            self._unplug()
            return
        if item.kind is InputKind.ONLINE:
            return  # the replug follows the unplug by itself
        frame = frame_of(item, self._next_seq())
        self.outstanding = frame if self.session.acked else None
        self.sent_at = time.monotonic()
        self.last_token_at = self.sent_at
        self._transmit(frame, faults=True)
        if frame.kind == fr.CARD:
            self.cards_sent += 1
            if self.options.unplug_after and self.cards_sent == self.options.unplug_after:
                LOG.info("fault: unplug after %d cards", self.cards_sent)
                self._unplug()

    def _unplug(self) -> None:
        self.endpoint.unplug()
        self.session = _Session()
        self.unplugged_at = time.monotonic()

    # -- receiving ----------------------------------------------------------------
    def _on_bytes(self, data: bytes) -> None:
        if not self.session.ready:
            self._warn_on_framing_mismatch(data)
        self._rx += data
        used, frames = self.framer.decode_all(self._rx)
        self._rx = self._rx[used:]
        for frame in frames:
            self._on_frame(frame)

    def _warn_on_framing_mismatch(self, data: bytes) -> None:
        """Say so when the controller's hello is the other framing's: otherwise both sides wait in silence."""
        theirs = fr.framing_greeting_in(data, besides=self.framer.name)
        if theirs is not None and not self._mismatch_warned:
            self._mismatch_warned = True
            ours = self.framer.name
            LOG.warning("the controller greets in %s framing but this emulator speaks %s: start it with "
                        "--framing %s, or give the controller ?framing=%s", theirs, ours, theirs, ours)

    def _on_frame(self, frame: fr.Frame) -> None:
        session = self.session
        if self.framer.is_hello(frame):
            session.ready = True
            session.acked = self.framer.hello_wants_acks(frame)
            session.in_flight.clear()
            LOG.info("controller ready (%s)", "acknowledging" if session.acked else "no acks")
            if self.uses_crc:
                self.framer.crc_on_encode = True
                self._transmit(fr.Frame(fr.FEATURES, None, fr.CRC16), faults=False)
            if self.outstanding is not None and session.acked:
                self._retransmit("controller (re)started")
            return
        if frame.kind == fr.INDICATE:
            self._on_indication(frame)
            return
        answer = self.framer.answer_of(frame, session.in_flight)
        if answer is not None:
            self._on_answer(answer)

    def _on_answer(self, answer: fr.Answer) -> None:
        """The controller's ACK or NAK: the message waiting for it is through, or sent again."""
        if self.outstanding is None or not answer.answers(self.outstanding.seq):
            return  # the answer to a heartbeat or an older transmission
        if answer.positive:
            self.outstanding = None
        else:
            self._retransmit("NAK")

    def _on_indication(self, frame: fr.Frame) -> None:
        """``I,<what>`` from the controller; ``I,<seq>,new_shoe`` starts the next shoe once per ``seq``."""
        if frame.data == "new_shoe" and frame.seq is not None and frame.seq == self.new_shoe_after:
            LOG.info("repeated new_shoe after message %d ignored: shoe %d was started for it already",
                     frame.seq, self.shoe_index)
            return
        self.indications.append(frame.data)
        LOG.info("indicator: %s", frame.data)
        self.table_holds = frame.data in ("hold", "new_shoe")
        if frame.data == "new_shoe":
            self.new_shoe_after = frame.seq
            self._new_shoe()

    def _forget_unanswered(self) -> None:
        """Forget the transmissions not answered within the ack timeout (the outstanding message's, and any before
        it): they were lost on the line. Answers that name no message (stx) are paired with the transmissions in
        order, so one kept waiting for an answer that never comes would take each later answer for the one before
        it, and every later message would go unconfirmed and be sent again."""
        if self.session.in_flight:
            LOG.debug("forgot %d unanswered transmission(s)", len(self.session.in_flight))
            self.session.in_flight.clear()

    def _retransmit(self, why: str) -> None:
        if self.outstanding is None:
            return
        LOG.info("retransmit %s (%s)", self.outstanding.body(), why)
        self.retransmissions += 1
        self.sent_at = time.monotonic()
        self._transmit(self.outstanding, faults=True)

    def _new_shoe(self) -> None:
        tokens = self.shoes(self.shoe_index + 1)
        if tokens is None:
            LOG.info("new_shoe indicated, but there is no next shoe (a script); ignored")
            return
        self.shoe_index += 1
        self.tokens = deque(tokens)
        self.out_since = None
        LOG.info("new shoe %d: %d tokens", self.shoe_index, len(tokens))

    # -- the loop -----------------------------------------------------------------
    def _holding_for_table(self) -> bool:
        return self.options.follow_table and self.table_holds

    def _warn_when_never_told(self, now: float) -> None:
        """Say so when the controller has sent no indication for a while: it may not write them."""
        if self.indications or self._told_no_indications:
            return
        if self._ready_at is None:
            self._ready_at = now
        elif now - self._ready_at >= NO_INDICATION_WARNING:
            self._told_no_indications = True
            LOG.warning("--follow-table: no indication from the controller in %.0fs, so no card is dealt; "
                        "open the controller with ?indicator=1 (serial://PATH?indicator=1)",
                        NO_INDICATION_WARNING)

    def _may_send_token(self, now: float) -> bool:
        if not self.tokens or not self.session.ready or self.outstanding is not None:
            return False
        if self._holding_for_table():
            return False
        if self.options.key:
            return self.presses > 0
        return now >= self.last_token_at + self.options.interval

    def step(self, timeout: float) -> None:
        """Wait at most ``timeout`` seconds for something to do, and do it."""
        now = time.monotonic()
        timeout = self._replug_when_due(now, timeout)
        if self._may_send_token(now):
            if self.options.key:
                self.presses -= 1
            self._send_token(self.tokens.popleft())
            return
        wait = self._send_what_is_due(now, timeout)
        if wait is not None:
            self._wait_and_read(wait)

    def _replug_when_due(self, now: float, timeout: float) -> float:
        """After an unplug: replug once ``replug_after`` has passed; the time left to wait."""
        if self.unplugged_at is None:
            return timeout
        if now >= self.unplugged_at + self.options.replug_after:
            LOG.info("fault: replug")
            self.unplugged_at = None
            self.endpoint.replug()
            return timeout
        return min(timeout, self.unplugged_at + self.options.replug_after - now)

    def _send_what_is_due(self, now: float, timeout: float) -> float | None:
        """A retransmission or a heartbeat when due (None: sent one); else how long to wait."""
        session = self.session
        if session.ready and self.outstanding is not None:
            due = self.sent_at + self.options.ack_timeout
            if now >= due:
                self._forget_unanswered()
                self._retransmit("no acknowledgement")
                return None
            timeout = min(timeout, due - now)
        elif session.ready and self.tokens and not self.options.key and not self._holding_for_table():
            timeout = min(timeout, max(0.0, self.last_token_at + self.options.interval - now))
        if session.ready and self.tokens and self._holding_for_table():
            self._warn_when_never_told(now)
        if session.ready and self.options.heartbeat:
            due = self.last_tx + self.options.heartbeat
            if now >= due and self.outstanding is None:
                self._transmit(fr.Frame(fr.HEARTBEAT), faults=False)
                return None
            timeout = min(timeout, max(0.0, due - now))
        return timeout

    def _wait_and_read(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the controller (or a key press) and take what came."""
        keys = self.keys.fileno() if self.options.key and self.keys is not None else None
        fds = list(self.endpoint.read_fds())
        if keys is not None:
            fds.append(keys)
        ready, _, _ = select.select(fds, [], [], max(0.0, timeout))
        for fd in ready:
            if fd == keys:
                self._on_key_press(fd)
                continue
            data = self.endpoint.on_readable(fd)
            if data is None:
                self.session = _Session()  # the controller went away; wait for its next hello
            elif data:
                self._on_bytes(data)

    def _on_key_press(self, fd: int) -> None:
        pressed = os.read(fd, 1024)  # not readline: a buffered second line would hide from select
        if not pressed:
            LOG.info("end of key input; stopping")
            self.stopped = True
        self.presses += pressed.count(b"\n")

    @property
    def shoe_out(self) -> bool:
        """True when every token was sent and acknowledged (or sent, without acks)."""
        return not self.tokens and self.outstanding is None and self.unplugged_at is None

    def run(self) -> int:
        """Serve until the shoe is out (plus ``linger`` seconds) or :attr:`stopped`; exit status."""
        while not self.stopped:
            if self.shoe_out:
                now = time.monotonic()
                if self.out_since is None:
                    self.out_since = now
                    LOG.info("shoe %d is out", self.shoe_index)
                if now >= self.out_since + self.options.linger:
                    break
                self.step(self.out_since + self.options.linger - now)
            else:
                self.step(1.0)
        self._drain()
        return 0

    def _drain(self, limit: float = 5.0, quiet: float = 0.2) -> None:
        """Wait (up to ``limit`` seconds) until the controller read what was written.

        A pty moves written bytes to the reader's queue asynchronously, so an empty
        queue must stay empty for ``quiet`` seconds; closing the master earlier would
        flush bytes still on their way (Linux drops them on hang-up).
        """
        deadline = time.monotonic() + limit
        empty_since: float | None = None
        while self.endpoint.connected and time.monotonic() < deadline:
            now = time.monotonic()
            if self.endpoint.pending_output():
                empty_since = None
            elif empty_since is None:
                empty_since = now
            elif now - empty_since >= quiet:
                return
            time.sleep(0.01)

    def close(self) -> None:
        self.endpoint.close()


def seeded_shoes(seed: int, decks: int,
                 cut_from_end: int = DEFAULT_CUT_FROM_END) -> Callable[[int], list[Input] | None]:
    """Shoe number ``index`` (0-based) for ``seed``: the same cards, and cut card, as ``mock://``."""
    def shoe(index: int) -> list[Input] | None:
        tokens = shoe_with_cut_card(seed, decks, index, cut_from_end)
        return [Input(InputKind.CUT) if token == "@cut" else Input(InputKind.CARD, token) for token in tokens]
    return shoe


def scripted_shoe(inputs: list[Input]) -> Callable[[int], list[Input] | None]:
    """A script: shoe 0 is its tokens; there is no next shoe."""
    def shoe(index: int) -> list[Input] | None:
        return list(inputs) if index == 0 else None
    return shoe

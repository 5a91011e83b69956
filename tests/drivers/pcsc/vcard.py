"""A virtual contactless card for vpcd (vsmartcard), written for Croupier's tests.

vpcd, the virtual reader driver of pcscd, listens on 127.0.0.1:35963 (reader
"Virtual PCD 00 00") and 35964 ("Virtual PCD 00 01"). A virtual card *connects*
to it: connecting is inserting the card, closing the socket is removing it.
Every message either way is a 2-byte big-endian length and a payload; a
1-byte payload from vpcd is a control (0 power off, 1 power on, 2 reset, 4 get
ATR, answered with the ATR), anything longer is an APDU, answered with the
response data and status word.

The card answers:

``FF CA 00 00 00``           the UID (PC/SC part 3 GET DATA)
``FF B0 00 pp nn``           READ BINARY of the tag memory, NTAG-style 4-byte
                             pages: pages 0-3 hold the UID, user memory starts
                             at page 4 and holds the playing-card code (ASCII,
                             NUL padded), so ``FF B0 00 04 04`` reads "TH\\0\\0";
                             the cut card's tag holds "@cut"
``00 A4 04 00 Lc AID``       SELECT the badge application (``--aid``)
``00 B0 00 00 Le``           READ BINARY: the badge ID (after SELECT)
``00 CA 01 00 00``           GET DATA: the badge ID (after SELECT)

By hand (pcscd must be running)::

    python -m tests.drivers.pcsc.vcard --uid 04A1B2C3D4E5F6              # a badge (UID only)
    python -m tests.drivers.pcsc.vcard --uid 04A1B2C3D4E5F6 --badge-id EMP-0042
    python -m tests.drivers.pcsc.vcard --uid 04112233445566 --code TH    # a playing card
    python -m tests.drivers.pcsc.vcard --port 35964 ...                  # the second reader

The card stays inserted until Ctrl-C (or ``--seconds``).
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import struct
import sys
import threading
import time
from types import TracebackType

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 35963
"""vpcd's first reader, "Virtual PCD 00 00"; the second one is on 35964."""

CONTACTLESS_ATR = bytes.fromhex("3B8F8001804F0CA0000003060300030000000068")
"""The PC/SC part 3 ATR of a MIFARE Ultralight / NTAG storage card."""

DEFAULT_AID = bytes.fromhex("F043524F55504945")
"""The AID of the badge application: F0 + "CROUPIE"."""

SW_OK = b"\x90\x00"
SW_WRONG_LENGTH = b"\x67\x00"
SW_NOT_ALLOWED = b"\x69\x86"
SW_NOT_FOUND = b"\x6a\x82"
SW_WRONG_P1P2 = b"\x6b\x00"
SW_INS_NOT_SUPPORTED = b"\x6d\x00"
SW_CLA_NOT_SUPPORTED = b"\x6e\x00"
SW_FAILURE = b"\x6f\x00"

CTRL_OFF, CTRL_ON, CTRL_RESET, CTRL_ATR = 0, 1, 2, 4


class VirtualCard:
    """One virtual card; :meth:`insert` connects it to vpcd, :meth:`remove` takes it out.

    ``code`` makes it a playing-card tag (the code sits in user memory from page
    4); ``badge_id`` gives it a badge application selected by ``aid``.
    Fault injection: ``fail_reads`` answers every read with 6F00;
    ``vanish_on_read`` drops the connection when a read APDU arrives (the card
    leaves the field mid-read).
    """

    def __init__(
        self,
        uid: str | bytes = "04A1B2C3D4E5F6",
        *,
        code: str | None = None,
        badge_id: str | bytes | None = None,
        aid: bytes = DEFAULT_AID,
        atr: bytes = CONTACTLESS_ATR,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        fail_reads: bool = False,
        vanish_on_read: bool = False,
    ) -> None:
        self.uid = bytes.fromhex(uid) if isinstance(uid, str) else bytes(uid)
        self.code = code
        self.badge_id = badge_id.encode("ascii") if isinstance(badge_id, str) else badge_id
        self.aid = aid
        self.atr = atr
        self.host = host
        self.port = port
        self.fail_reads = fail_reads
        self.vanish_on_read = vanish_on_read
        self.apdus: list[bytes] = []
        """Every APDU received, in order (for tests)."""
        self.powered = threading.Event()
        """Set when vpcd powers the card on (pcscd noticed the insertion)."""
        self.closed = threading.Event()
        """Set when the connection ends (removed, or vpcd went away)."""
        self.memory_read = threading.Event()
        """Set once the tag memory (``FF B0``, the card code) has been read, or refused."""
        self._selected = False
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # -- memory of the NFC tag ---------------------------------------------
    @property
    def memory(self) -> bytes:
        """The tag's memory: 16 bytes of UID pages, then the code, NUL padded to 16 bytes."""
        head = self.uid.ljust(16, b"\x00")[:16]
        body = (self.code or "").encode("ascii").ljust(16, b"\x00")
        return head + body

    # -- lifecycle ------------------------------------------------------------
    def insert(self, timeout: float = 10.0) -> VirtualCard:
        """Connect to vpcd (retrying while it is not listening yet) and start answering."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                sock = socket.create_connection((self.host, self.port), timeout=1.0)
                break
            except OSError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)
        sock.settimeout(None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.powered.clear()
        self.closed.clear()
        self.memory_read.clear()
        self._selected = False
        self._sock = sock
        self._thread = threading.Thread(target=self._serve, args=(sock,), daemon=True,
                                        name=f"vcard-{self.uid.hex()}")
        self._thread.start()
        return self

    def remove(self) -> None:
        """Take the card out of the field: close the connection."""
        with self._lock:
            sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self.closed.set()

    @property
    def inserted(self) -> bool:
        return self._sock is not None and not self.closed.is_set()

    def __enter__(self) -> VirtualCard:
        return self.insert()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.remove()

    # -- protocol -------------------------------------------------------------
    def _serve(self, sock: socket.socket) -> None:
        try:
            while True:
                header = _recv_exactly(sock, 2)
                if header is None:
                    break
                (length,) = struct.unpack(">H", header)
                payload = _recv_exactly(sock, length)
                if payload is None:
                    break
                if length == 1:
                    control = payload[0]
                    if control == CTRL_ATR:
                        _send(sock, self.atr)
                    elif control in (CTRL_ON, CTRL_RESET):
                        self._selected = False
                        self.powered.set()
                    elif control == CTRL_OFF:
                        self._selected = False
                    continue
                self.apdus.append(payload)
                if self.vanish_on_read and self._is_read(payload):
                    break
                _send(sock, self.answer(payload))
                if payload[:2] == b"\xff\xb0":
                    self.memory_read.set()
        except OSError:
            pass
        finally:
            with self._lock:
                if self._sock is sock:
                    self._sock = None
            with contextlib.suppress(OSError):
                sock.close()
            self.closed.set()

    @staticmethod
    def _is_read(apdu: bytes) -> bool:
        return len(apdu) >= 2 and apdu[1] in (0xB0, 0xCA)

    def answer(self, apdu: bytes) -> bytes:
        """The response (data + SW) to one command APDU."""
        if len(apdu) < 4:
            return SW_WRONG_LENGTH
        cla, ins = apdu[0], apdu[1]
        if self.fail_reads and ins in (0xB0, 0xCA):
            return SW_FAILURE
        if cla == 0xFF:
            return self._answer_reader_command(apdu)
        if cla != 0x00:
            return SW_CLA_NOT_SUPPORTED
        return self._answer_application(apdu)

    def _answer_reader_command(self, apdu: bytes) -> bytes:
        """The PC/SC pseudo-APDUs (CLA FF): GET DATA of the UID, READ BINARY of the tag's memory."""
        ins, p1, p2 = apdu[1], apdu[2], apdu[3]
        if ins == 0xCA:
            return self.uid + SW_OK if (p1, p2) == (0x00, 0x00) else SW_WRONG_P1P2
        if ins != 0xB0:
            return SW_INS_NOT_SUPPORTED
        length = apdu[4] if len(apdu) > 4 else 16
        start = p2 * 4
        if start + length > len(self.memory):
            return SW_WRONG_P1P2
        return self.memory[start:start + length] + SW_OK

    def _answer_application(self, apdu: bytes) -> bytes:
        """The badge application (CLA 00): SELECT by AID, then read the badge ID."""
        ins, p1, p2 = apdu[1], apdu[2], apdu[3]
        if ins == 0xA4 and p1 == 0x04:
            lc = apdu[4] if len(apdu) > 4 else 0
            self._selected = self.badge_id is not None and apdu[5:5 + lc] == self.aid
            return SW_OK if self._selected else SW_NOT_FOUND
        if ins not in (0xB0, 0xCA):
            return SW_INS_NOT_SUPPORTED
        if not self._selected or self.badge_id is None:
            return SW_NOT_ALLOWED
        if ins == 0xCA and (p1, p2) != (0x01, 0x00):
            return SW_WRONG_P1P2
        return self.badge_id + SW_OK


def _recv_exactly(sock: socket.socket, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        # Without QUICKACK every APDU waits ~40 ms for the delayed ACK.
        with contextlib.suppress(OSError, AttributeError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        chunk = sock.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _send(sock: socket.socket, payload: bytes) -> None:
    sock.sendall(struct.pack(">H", len(payload)) + payload)


def main(argv: list[str] | None = None) -> int:
    """Insert one virtual card and keep it inserted until Ctrl-C or ``--seconds``."""
    parser = argparse.ArgumentParser(prog="python -m tests.drivers.pcsc.vcard", description=__doc__.split("\n")[0])
    parser.add_argument("--uid", default="04A1B2C3D4E5F6", help="UID as hex (default %(default)s)")
    parser.add_argument("--code", help="make it a playing-card tag storing this code, e.g. TH")
    parser.add_argument("--badge-id", help="give it a badge application answering this ID")
    parser.add_argument("--aid", default=DEFAULT_AID.hex().upper(), help="badge application AID (hex)")
    parser.add_argument("--host", default=DEFAULT_HOST)
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help="35963 = 'Virtual PCD 00 00', 35964 = 'Virtual PCD 00 01'")
    parser.add_argument("--seconds", type=float, help="remove the card after this many seconds")
    args = parser.parse_args(argv)
    card = VirtualCard(args.uid, code=args.code, badge_id=args.badge_id, aid=bytes.fromhex(args.aid),
                       host=args.host, port=args.port)
    try:
        card.insert()
    except OSError as error:
        print(f"vcard: cannot reach vpcd on {args.host}:{args.port} ({error}); is pcscd running?",
              file=sys.stderr)
        return 1
    print(f"vcard: card {card.uid.hex().upper()} inserted on {args.host}:{args.port}; Ctrl-C removes it",
          file=sys.stderr)
    with contextlib.suppress(KeyboardInterrupt):
        card.closed.wait(args.seconds)
    card.remove()
    print("vcard: card removed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

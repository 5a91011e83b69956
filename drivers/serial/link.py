"""The link layer of the serial shoe protocol, written once for both ends of the line.

The driver (:mod:`drivers.serial.driver`, the controller's end) and the
emulator (:mod:`drivers.serial.emulator`, the shoe's end) share it: the
hello, the acknowledgement and the negative acknowledgement of each framing,
and the table from message kinds to reader inputs. The bytes are in
``docs/serial-protocol.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from controller.core.inputs import Input, InputKind
from drivers.base import Indication
from drivers.serial import framing as fr

FRAMINGS: Final = ("line", "stx")

KIND_INPUTS: Final[Mapping[str, InputKind]] = {
    fr.UNREADABLE: InputKind.UNREADABLE,
    fr.CUT: InputKind.CUT,
    fr.BUTTON: InputKind.NEXT,
    fr.DOUBLE: InputKind.DOUBLE,
}
"""Shoe message kinds that carry no data, and the reader input each one is (``C`` is a card)."""

INPUT_KINDS: Final[Mapping[InputKind, str]] = {kind: letter for letter, kind in KIND_INPUTS.items()}
"""The message kind a shoe sends for each reader input other than a card."""

CONTROLLER_KINDS: Final = frozenset({fr.READY, fr.ACKNOWLEDGE, fr.NEGATIVE, fr.INDICATE})
"""Kinds only the controller sends: on the controller's end they are an echo, never shoe news."""


def input_of(frame: fr.Frame) -> Input | None:
    """The reader input a shoe's message is, or None (a heartbeat, status or feature message)."""
    if frame.kind == fr.CARD:
        return Input(InputKind.CARD, frame.data)
    kind = KIND_INPUTS.get(frame.kind)
    return None if kind is None else Input(kind)


def frame_of(item: Input, seq: int) -> fr.Frame:
    """The message a shoe sends for reader input ``item`` (a card or one of :data:`INPUT_KINDS`)."""
    if item.kind is InputKind.CARD:
        return fr.Frame(fr.CARD, seq, str(item.card))
    return fr.Frame(INPUT_KINDS[item.kind], seq)


class Link:
    """The link procedures of one framing over ``framer``.

    ``acks`` (line framing only; stx always acknowledges) says whether the
    controller answers each message.
    """

    def __init__(self, framing: str, framer: fr.Framer, acks: bool = True) -> None:
        if framing not in FRAMINGS:
            raise ValueError(f"unknown framing {framing!r}; expected line or stx")
        self.framing = framing
        self.framer = framer
        self.stx = framing == "stx"
        self.acks = acks or self.stx

    # -- the controller's end ----------------------------------------------------
    def hello(self) -> bytes:
        """The controller's hello: ENQ (stx) or ``R`` / ``R,A`` (line, ``A`` when it acknowledges)."""
        if self.stx:
            return bytes([fr.ENQ])
        return self.framer.encode(fr.Frame(fr.READY, None, "A" if self.acks else ""))

    def ack(self, frame: fr.Frame) -> bytes | None:
        """The acknowledgement of ``frame``: ACK (stx), ``A,<seq>`` (line with acks) or None."""
        if self.stx:
            return bytes([fr.ACK])
        return self.framer.encode(fr.Frame(fr.ACKNOWLEDGE, frame.seq)) if self.acks else None

    def nak(self) -> bytes | None:
        """The answer to a bad checksum: NAK (stx), ``N`` (line with acks) or None."""
        if self.stx:
            return bytes([fr.NAK])
        return self.framer.encode(fr.Frame(fr.NEGATIVE)) if self.acks else None

    def bad_message_answer(self) -> bytes | None:
        """The answer to a well-framed unknown message: ACK in stx (so the shoe moves on), none in line."""
        return bytes([fr.ACK]) if self.stx else None

    def indication(self, what: Indication, after: int | None = None) -> bytes:
        """``I,<what>``, framed; ``I,<after>,new_shoe`` names the shoe's last message the table took before it
        closed its shoe, so that a shoe told again (after a controller restart) knows it is a repeat."""
        return self.framer.encode(fr.Frame(fr.INDICATE, after if what is Indication.NEW_SHOE else None, what.value))

    # -- the shoe's end --------------------------------------------------------
    @staticmethod
    def is_hello(frame: fr.Frame) -> bool:
        """Is ``frame`` the controller's hello (``R`` line, or ENQ on a shoe-side stx framer)?"""
        return frame.kind in (fr.READY, fr.CONTROL_ENQ)

    def hello_wants_acks(self, frame: fr.Frame) -> bool:
        """Does the controller that sent hello ``frame`` acknowledge messages?"""
        return self.stx or frame.data == "A"

    def other_framing_hello(self, data: bytes) -> bool:
        """Do ``data`` hold the hello of the framing this link does not speak?"""
        if self.stx:
            return b"R\r" in data or b"R\n" in data or b"R,A" in data
        return bytes([fr.ENQ]) in data

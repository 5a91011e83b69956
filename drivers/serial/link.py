"""The serial shoe protocol's messages as reader inputs, written once for both ends of the line.

The driver (:mod:`drivers.serial.driver`, the controller's end) and the
emulator (:mod:`drivers.serial.emulator`, the shoe's end) share the table from
message kinds to reader inputs. The link procedures of each framing (hello,
acknowledgements, indications) are its framer's methods
(:class:`drivers.serial.framing.Framer`). The bytes are in
``docs/serial-protocol.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from controller.core.inputs import Input, InputKind
from drivers.serial import framing as fr

KIND_INPUTS: Final[Mapping[str, InputKind]] = {
    fr.UNREADABLE: InputKind.UNREADABLE,
    fr.CUT: InputKind.CUT,
    fr.BUTTON: InputKind.NEXT,
    fr.DOUBLE: InputKind.DOUBLE,
}
"""Shoe message kinds that carry no data, and the reader input each one is (``C`` is a card)."""

INPUT_KINDS: Final[Mapping[InputKind, str]] = {kind: letter for letter, kind in KIND_INPUTS.items()}
"""The message kind a shoe sends for each reader input other than a card."""

CONTROLLER_KINDS: Final = fr.OWN_KINDS
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

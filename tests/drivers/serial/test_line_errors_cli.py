"""Issue 25's contract for line errors, through ``croupier run`` over a real pty, with the checksum negotiated:
a card frame with two bits flipped so that it reads as a status frame, a cut-card frame that reads as a
heartbeat, a heartbeat that reads as a cut card, and a missing sequence number each end in a misdeal (halt) or
in a refused frame that the shoe resends; never a round settled on other cards, never a ``cut_card`` event the
shoe did not send, never a cut card acknowledged as a heartbeat.

The test plays a stop-and-wait shoe that announced ``V,crc16``: one message at a time, each waiting for its
answer (``A,<seq>`` / ``N`` in line framing, ``ACK`` / ``NAK`` in stx framing).
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from drivers.serial.framing import ACK, ENQ, NAK, Frame, make_framer
from tests.drivers.conftest import RawShoe
from tests.inprocess import CROUPIER, ROOT

pytestmark = pytest.mark.slow  # a controller process each, over a real pty, waiting on the shoe's timers

Events = list[dict[str, Any]]


class Controller:
    """``croupier run`` on the raw shoe's pty; its JSON events are collected as they come."""

    def __init__(self, path: str, framing: str, rounds: int) -> None:
        self.process = subprocess.Popen(
            [*CROUPIER, "run", "--driver", f"serial://{path}?framing={framing}",
             "--json", "--auto-next", "--no-keyboard", "--no-burn", "--decks", "1", "--rounds", str(rounds)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.events: Events = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._changed:
                self.events.append(json.loads(line))
                self._changed.notify_all()

    def wait_for(self, what: Callable[[dict[str, Any]], bool], timeout: float = 60) -> dict[str, Any]:
        with self._changed:
            found = self._changed.wait_for(lambda: any(what(event) for event in self.events), timeout)
            assert found, f"no such event in {timeout}s; events: {self.events[-8:]}"
            return next(event for event in self.events if what(event))

    def of(self, kind: str) -> Events:
        with self._changed:
            return [event for event in self.events if event["event"] == kind]

    def finish(self, timeout: float = 60) -> int:
        code = self.process.wait(timeout)
        self._reader.join(10)
        return code

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)


class CrcShoe:
    """A stop-and-wait shoe that speaks CRC-16, played byte by byte over :class:`RawShoe`."""

    def __init__(self, raw: RawShoe, framing: str) -> None:
        self.raw = raw
        self.framing = framing
        self.framer = make_framer(framing)
        self.framer.crc_on_encode = True

    def bytes_of(self, frame: Frame) -> bytes:
        return self.framer.encode(frame)

    def greet(self) -> None:
        """Wait for the controller's hello and announce crc16."""
        assert self.raw.read_until(bytes([ENQ]) if self.framing == "stx" else b"\n", 60) is not None
        self.raw.write(self.bytes_of(Frame("V", None, "crc16")))
        answer = self.answer()
        assert answer in ("ack", "ack-noseq"), answer

    def answer(self, timeout: float = 30.0) -> str | None:
        """The controller's answer to the last message: ``ack`` (with the seq in line framing), ``nak``, or None."""
        if self.framing == "stx":
            return self._stx_answer(timeout)
        line = self.raw.read_until(b"\n", timeout)
        if line is None:
            return None
        text = line.decode().strip()
        if text.startswith("A,"):
            return "ack"
        if text.startswith("A*"):
            return "ack-noseq"
        if text.startswith("N"):
            return "nak"
        return self.answer(timeout)  # an indication: not an answer

    def _stx_answer(self, timeout: float) -> str | None:
        """The next ACK or NAK byte (indication frames before it are skipped)."""
        waited = 0.0
        while waited < timeout:
            data = self.raw.read_until(bytes([ACK]), 0.2)
            if data is not None:
                return "nak" if bytes([NAK]) in data else "ack"
            if self.raw.read_until(bytes([NAK]), 0.01) is not None:
                return "nak"
            waited += 0.21
        return None

    def send(self, frame: Frame, as_sent: bytes | None = None, timeout: float = 30.0) -> str | None:
        """Send ``frame`` (or the damaged bytes ``as_sent`` in its place) and return the controller's answer."""
        self.raw.write(as_sent if as_sent is not None else self.bytes_of(frame))
        return self.answer(timeout)

    def deliver(self, frame: Frame) -> None:
        """Send ``frame`` until it is acknowledged, as a shoe does."""
        for _ in range(5):
            if self.send(frame) == "ack":
                return
        raise AssertionError(f"{frame} was never acknowledged")


@pytest.fixture
def shoe_and_table(raw_shoe: Callable[..., RawShoe]) -> Iterator[Callable[[str, int], tuple[CrcShoe, Controller]]]:
    controllers: list[Controller] = []

    def start(framing: str, rounds: int) -> tuple[CrcShoe, Controller]:
        raw = raw_shoe()
        controller = Controller(raw.path, framing, rounds)
        controllers.append(controller)
        shoe = CrcShoe(raw, framing)
        shoe.greet()
        return shoe, controller

    yield start
    for controller in controllers:
        controller.stop()


def flip(data: bytes, old: bytes, new: bytes) -> bytes:
    """``data`` with the first ``old`` byte replaced by ``new`` (a bit error of the line)."""
    index = data.index(old)
    return data[:index] + new + data[index + 1:]


@pytest.mark.parametrize("framing", ["line", "stx"])
def test_a_card_frame_read_as_a_status_frame_is_refused_and_resent(
        shoe_and_table: Callable[[str, int], tuple[CrcShoe, Controller]], framing: str) -> None:
    """The shoe dealt 9S 8H KD 2C, a player natural: the table must settle exactly that round."""
    shoe, table = shoe_and_table(framing, 1)
    shoe.deliver(Frame("C", 1, "9S"))
    shoe.deliver(Frame("C", 2, "8H"))
    card = shoe.bytes_of(Frame("C", 3, "KD"))
    as_status = flip(flip(card, b"C", b"S"), b"*", b"+" if framing == "line" else b":")
    assert shoe.send(Frame("C", 3, "KD"), as_status) != "ack", "a damaged card was acknowledged"
    shoe.deliver(Frame("C", 3, "KD"))  # resent
    shoe.deliver(Frame("C", 4, "2C"))
    assert table.finish() == 0
    assert [e["card"] for e in table.of("card")] == ["9S", "8H", "KD", "2C"]
    result = table.of("result")
    assert len(result) == 1 and result[0]["winner"] == "player" and result[0]["player"]["total"] == 9
    assert not table.of("misdeal")


@pytest.mark.parametrize("framing", ["line", "stx"])
def test_a_cut_card_read_as_a_heartbeat_is_refused_and_resent_and_a_heartbeat_read_as_a_cut_card_is_dropped(
        shoe_and_table: Callable[[str, int], tuple[CrcShoe, Controller]], framing: str) -> None:
    shoe, table = shoe_and_table(framing, 2)
    for seq, code in enumerate(("9S", "8H", "KD", "2C"), start=1):
        shoe.deliver(Frame("C", seq, code))
    table.wait_for(lambda e: e["event"] == "result")
    heartbeat = shoe.bytes_of(Frame("H"))
    as_cut = flip(heartbeat, b"H", b"X")  # bit 4
    assert shoe.send(Frame("H"), as_cut, timeout=3) == "nak"  # a bad CRC: refused
    plain = Frame("H")  # a heartbeat without CRC with bit 4 flipped: no marker, refused
    bare_cut = b"X\r\n" if framing == "line" else b"\x02X\x03" + bytes([ord("X") ^ 0x03])
    assert shoe.send(plain, bare_cut, timeout=3) == "nak"
    cut = shoe.bytes_of(Frame("X", 5))
    as_heartbeat = flip(flip(cut, b"X", b"H"), b"*", b":")  # both bit 4: the stx BCC still matches
    assert shoe.send(Frame("X", 5), as_heartbeat, timeout=3) != "ack", "a damaged cut card was acknowledged"
    assert not table.of("cut_card"), "a cut_card the shoe did not send"
    shoe.deliver(Frame("X", 5))  # resent
    table.wait_for(lambda e: e["event"] == "cut_card")
    for seq, code in enumerate(("3C", "4D", "5H", "6S"), start=6):
        shoe.deliver(Frame("C", seq, code))
    assert table.finish() == 0
    assert len(table.of("cut_card")) == 1
    assert not table.of("misdeal")
    assert [e["card"] for e in table.of("card")] == ["9S", "8H", "KD", "2C", "3C", "4D", "5H", "6S"]


@pytest.mark.parametrize("framing", ["line", "stx"])
def test_a_missing_sequence_number_halts_the_table(
        shoe_and_table: Callable[[str, int], tuple[CrcShoe, Controller]], framing: str) -> None:
    shoe, table = shoe_and_table(framing, 1)
    shoe.deliver(Frame("C", 1, "9S"))
    shoe.deliver(Frame("C", 2, "8H"))
    shoe.deliver(Frame("C", 4, "2C"))  # message 3 (KD) never arrived
    misdeal = table.wait_for(lambda e: e["event"] == "misdeal")
    assert misdeal["kind"] == "sequence_gap" and misdeal["resolutions"] == ["void"]
    assert [e["card"] for e in table.of("card")] == ["9S", "8H"]
    assert not table.of("result")


@pytest.mark.parametrize("framing", ["line", "stx"])
def test_an_overlong_line_is_one_warning_and_the_cards_after_it_are_dealt(
        shoe_and_table: Callable[[str, int], tuple[CrcShoe, Controller]], framing: str) -> None:
    """A 5,000-byte line (an stx frame with no ETX) reaches the controller in many pieces: its stderr says so once,
    and the round dealt after it is settled on its cards."""
    shoe, table = shoe_and_table(framing, 1)
    shoe.raw.write(b"C,1," + b"9" * 4994 + b"\r\n" if framing == "line" else b"\x02C,1," + b"9" * 4995)
    for seq, code in enumerate(("9S", "8H", "KD", "2C"), start=1):
        shoe.deliver(Frame("C", seq, code))
    assert table.finish() == 0
    assert [e["card"] for e in table.of("card")] == ["9S", "8H", "KD", "2C"]
    assert table.process.stderr is not None
    warnings = [line for line in table.process.stderr.read().splitlines() if line.startswith("serial://")]
    assert len(warnings) == 1 and "overlong frame discarded" in warnings[0], warnings

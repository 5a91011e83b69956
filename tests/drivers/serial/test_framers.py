"""The framer registry (issue 26 item 7): one class per framing, registered by name, carrying its link behaviour,
so that a new framing is one new class plus its registration, and the driver, its inbox and the emulator take it
without a change. ``BracketFramer`` is such a framing, defined here only."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from controller.core.exceptions import DriverURLError
from controller.core.inputs import Input, InputKind
from drivers.base import Indication
from drivers.serial import framing as fr
from drivers.serial.driver import SerialShoe
from drivers.serial.emulator import EmulatorOptions, PtyEndpoint, ShoeEmulator, scripted_shoe
from tests.drivers.conftest import RawShoe


class BracketFramer(fr.Framer):
    """``[K,seq,data]`` frames with no checksum; the reference messages and answers (``[R,A]``, ``[A,1]``)."""

    def encode(self, frame: fr.Frame) -> bytes:
        return b"[" + frame.body().encode("ascii") + b"]"

    def decode(self, buffer: bytes) -> tuple[int, fr.Frame | None]:
        self.rejected = None
        if not buffer:
            return 0, None
        if buffer[:1] != b"[":
            start = buffer.find(b"[")
            used = len(buffer) if start < 0 else start
            self._reject("garbage", bytes(buffer[:used]))
            return used, None
        end = buffer.find(b"]")
        if end < 0:
            return 0, None
        frame = fr.parse_body(bytes(buffer[1:end]).decode("ascii", "replace"))
        if frame is None:
            self._reject("garbage", bytes(buffer[:end + 1]))
        return end + 1, frame

    @classmethod
    def greets_in(cls, data: bytes) -> bool:
        return b"[R" in data


@pytest.fixture
def bracket(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The ``bracket`` framing, registered for one test (the registry is restored after it)."""
    monkeypatch.setattr(fr, "FRAMERS", dict(fr.FRAMERS))
    fr.register_framer("bracket")(BracketFramer)
    yield "bracket"


def test_the_built_in_framings_are_registered_by_name() -> None:
    assert fr.framing_names() == ("line", "stx")
    assert fr.framer_class("line") is fr.LineFramer and fr.framer_class("stx") is fr.StxFramer
    with pytest.raises(ValueError, match="unknown framing 'morse'; expected line or stx"):
        fr.framer_class("morse")


def test_a_name_is_registered_once(bracket: str) -> None:
    with pytest.raises(ValueError, match="framing 'line' is taken by LineFramer"):
        fr.register_framer("line")(BracketFramer)
    assert fr.framer_class("line") is fr.LineFramer


def test_a_registered_framing_is_made_by_name_and_named_in_the_choices(bracket: str) -> None:
    framer = fr.make_framer(bracket)
    assert isinstance(framer, BracketFramer) and framer.name == "bracket"
    assert fr.framing_names() == ("line", "stx", "bracket")
    with pytest.raises(ValueError, match="expected line, stx or bracket"):
        fr.make_framer("morse")
    assert fr.framing_greeting_in(b"[R,A]", besides="line") == "bracket"
    assert fr.framing_greeting_in(b"R,A*3F\r\n", besides="bracket") == "line"
    assert fr.framing_greeting_in(b"\x05", besides="bracket") == "stx"
    assert fr.framing_greeting_in(b"[R]", besides="bracket") is None


def test_each_built_in_framing_carries_its_link_behaviour() -> None:
    line, stx = fr.make_framer("line"), fr.make_framer("stx")
    assert (line.hello(), stx.hello()) == (b"R,A*3F\r\n", b"\x05")
    assert (line.ack(fr.Frame("C", 17, "TH")), stx.ack(fr.Frame("C", 17, "TH"))) == (b"A,17*6B\r\n", b"\x06")
    assert (line.nak(), stx.nak()) == (b"N*4E\r\n", b"\x15")
    assert (line.bad_message_answer(), stx.bad_message_answer()) == (None, b"\x06")
    assert line.indication(Indication.NEW_SHOE, 17) == b"I,17,new_shoe*7D\r\n"
    assert stx.indication(Indication.PLAYER, 17) == bytes.fromhex("02 49 2C 70 6C 61 79 65 72 03 75")
    assert (line.always_acks, stx.always_acks) == (False, True)
    quiet = fr.LineFramer.from_settings(fr.FramerSettings(acks=False))
    assert (quiet.hello(), quiet.ack(fr.Frame("C", 1, "AS")), quiet.nak()) == (b"R*52\r\n", None, None)
    assert fr.StxFramer.from_settings(fr.FramerSettings(acks=False)).acks  # stx always acknowledges


def test_the_driver_speaks_a_registered_framing(bracket: str, raw_shoe: Callable[..., RawShoe]) -> None:
    shoe = raw_shoe()
    with SerialShoe(f"serial://{shoe.path}?framing={bracket}&indicator=1") as source:
        assert shoe.read_until(b"]", 10) == b"[R,A]"
        shoe.write(b"[C,1,AS]noise[C,2,KD]")
        assert source.recv(10) == Input(InputKind.CARD, "AS")
        assert source.recv(10) == Input(InputKind.CARD, "KD")  # the answer to message 1 goes out now
        source.indicate("banker")
        assert shoe.read_until(b"[I,banker]", 10) == b"[A,1][I,banker]"
        assert source.garbage_bytes == len(b"noise")


def test_a_framing_refuses_the_options_of_another(bracket: str) -> None:
    with pytest.raises(DriverURLError, match=r"option\(s\) ack, terminator apply to framing=line only: add "
                       r"framing=line to the URL, or leave them out"):
        SerialShoe(f"loop://?framing={bracket}&terminator=lf&ack=0")
    with pytest.raises(DriverURLError, match="option framing='morse' is unknown; expected line, stx or bracket"):
        SerialShoe("loop://?framing=morse")


@contextlib.contextmanager
def emulating(script: list[Input], framing: str) -> Iterator[tuple[ShoeEmulator, PtyEndpoint]]:
    """``ShoeEmulator`` dealing ``script`` in ``framing`` on a new pty, served by a thread until it ends."""
    endpoint = PtyEndpoint(lambda _: None)
    options = EmulatorOptions(framing=framing, crc=False, heartbeat=0, ack_timeout=30)
    emulator = ShoeEmulator(endpoint, scripted_shoe(script), options)
    serving = threading.Thread(target=emulator.run, daemon=True)
    serving.start()
    try:
        yield emulator, endpoint
    finally:
        emulator.stopped = True
        serving.join(30)
        emulator.close()
    assert not serving.is_alive()


def test_the_emulator_deals_in_a_registered_framing(bracket: str) -> None:
    """The shoe's end too: its framer reads the hello and pairs the answers with its messages."""
    script = [Input(InputKind.CARD, "AS"), Input(InputKind.CUT), Input(InputKind.CARD, "10H")]
    with emulating(script, bracket) as (emulator, endpoint), \
            SerialShoe(f"serial://{endpoint.path}?framing={bracket}") as source:
        got = [source.recv(10) for _ in script]
        source.settle()  # the answer to the last message
        deadline = time.monotonic() + 30
        while not emulator.shoe_out and time.monotonic() < deadline:
            time.sleep(0.05)
        assert emulator.shoe_out
    assert got == script
    assert emulator.retransmissions == 0


def test_the_emulator_names_the_framing_the_controller_greets_in(bracket: str,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, "croupier.emulator")
    warning = ("the controller greets in line framing but this emulator speaks bracket: start it with --framing "
               "line, or give the controller ?framing=bracket")
    with emulating([Input(InputKind.CARD, "AS")], bracket) as (_, endpoint), \
            SerialShoe(f"serial://{endpoint.path}"):
        deadline = time.monotonic() + 30
        while warning not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.05)
    assert warning in caplog.text

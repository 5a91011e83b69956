"""Line errors once a shoe announced ``V,crc16`` (issue 25 item 1): every 1- and 2-bit error, and a large sample
of 3-bit errors, of every message a shoe sends, in both framings, decodes to a refusal or to the same message,
never to another valid message; and a refused message is never one the driver acknowledges (so the shoe sends
it again). The quick loop flips every bit pair of one message of each kind; the slow run flips them all.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pytest

from drivers.serial.framing import Frame, Framer, make_framer

SEQS = (1, 7, 17, 999, 9999, 999_999)
CARDS = ("TH", "10H", "QS", "JH", "AC", "9S", "8H", "KD", "2C", "7D")


def shoe_messages() -> list[Frame]:
    """One of every kind of message a shoe sends, with sequence numbers of every length and many cards."""
    frames = [Frame("C", seq, card) for seq in SEQS for card in CARDS]
    frames += [Frame(kind, seq) for seq in SEQS for kind in "UXBDH"]
    frames += [Frame("S", seq, "LID OPEN") for seq in SEQS]
    frames += [Frame("H"), Frame("V", None, "crc16"), Frame("S", None, "OK"), Frame("C", None, "AS")]
    return frames


def one_of_each_kind() -> list[Frame]:
    return [Frame("C", 17, "TH"), Frame("C", 2, "8H"), Frame("U", 19), Frame("X", 20), Frame("B", 21),
            Frame("D", 22), Frame("H"), Frame("S", 24, "LID OPEN"), Frame("V", None, "crc16")]


@dataclass
class Decoded:
    frames: list[Frame]
    reasons: list[str]


def shoe_encoder(framing: str) -> Framer:
    framer = make_framer(framing)
    framer.crc_on_encode = True  # the shoe announced crc16
    return framer


def decode(framing: str, data: bytes) -> Decoded:
    """What the controller's decoder makes of ``data`` once the shoe announced crc16."""
    framer = make_framer(framing)
    framer.require_crc = True
    frames: list[Frame] = []
    reasons: list[str] = []
    while data:
        used, frame = framer.decode(data)
        if used == 0:
            break
        data = data[used:]
        if framer.rejected is not None:
            reasons.append(framer.rejected.reason)
        if frame is not None:
            frames.append(frame)
    return Decoded(frames, reasons)


def flipped(data: bytes, bits: Iterable[int]) -> bytes:
    out = bytearray(data)
    for bit in bits:
        out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


def is_in_order(got: list[Frame], sent: list[Frame]) -> bool:
    """Is every decoded message one of those sent, in the order sent (some may be missing)?"""
    remaining = iter(sent)
    return all(any(frame == candidate for candidate in remaining) for frame in got)


def errors_of(size: int, count: int, sample: int | None, seed: int) -> Iterator[tuple[int, ...]]:
    combos = itertools.combinations(range(size * 8), count)
    if sample is None:
        yield from combos
        return
    everything = list(combos)
    yield from random.Random(seed).sample(everything, min(sample, len(everything)))


def wrong_decodings(framing: str, frames: list[Frame], count: int, sample: int | None = None) -> list[str]:
    """Each bit error of ``count`` bits in a message (between two intact ones) that decodes to another message,
    or that is refused in a way the driver acknowledges (an stx ``bad_message`` is ACKed: the shoe moves on)."""
    encoder = shoe_encoder(framing)
    before, after = Frame("H"), Frame("C", 5, "KD")
    head, tail = encoder.encode(before), encoder.encode(after)
    wrong: list[str] = []
    for index, frame in enumerate(frames):
        data = encoder.encode(frame)
        for bits in errors_of(len(data), count, sample, index):
            corrupted = flipped(data, bits)
            result = decode(framing, head + corrupted + tail)
            sent = [before, frame, after]
            if not is_in_order(result.frames, sent):
                wrong.append(f"{corrupted!r} -> {result.frames}")
            elif frame not in result.frames and "bad_message" in result.reasons:
                wrong.append(f"{corrupted!r} refused but acknowledged as a bad message")
    return wrong


@pytest.mark.parametrize("framing", ["line", "stx"])
def test_every_single_bit_error_of_every_message_is_refused_or_harmless(framing: str) -> None:
    assert wrong_decodings(framing, shoe_messages(), 1) == []


@pytest.mark.parametrize("framing", ["line", "stx"])
def test_every_two_bit_error_of_one_message_of_each_kind_is_refused_or_harmless(framing: str) -> None:
    assert wrong_decodings(framing, one_of_each_kind(), 2) == []


@pytest.mark.slow  # about a million decodes
@pytest.mark.parametrize("framing", ["line", "stx"])
def test_every_two_bit_error_of_every_message_is_refused_or_harmless(framing: str) -> None:
    assert wrong_decodings(framing, shoe_messages(), 2) == []


@pytest.mark.slow  # a large sample of three-bit errors
@pytest.mark.parametrize("framing", ["line", "stx"])
def test_a_large_sample_of_three_bit_errors_is_refused_or_harmless(framing: str) -> None:
    assert wrong_decodings(framing, shoe_messages(), 3, sample=3_000) == []


def test_the_issues_two_bit_errors_are_refused() -> None:
    """The adversarial pass's cases: a card read as a status, a cut card as a heartbeat and back."""
    line, stx = shoe_encoder("line"), shoe_encoder("stx")
    card = line.encode(Frame("C", 2, "8H"))
    as_status = card.replace(b"C", b"S", 1).replace(b"*", b"+")  # C->S and *->+
    assert decode("line", as_status).frames == []
    stx_card = stx.encode(Frame("C", 2, "8H"))
    stx_status = stx_card.replace(b"C", b"S", 1).replace(b"*", b":")  # both bit 4: the BCC still matches
    assert stx_status[-1] == stx_card[-1]
    refused = decode("stx", stx_status)
    assert refused.frames == [] and refused.reasons == ["bad_checksum"]  # NAKed: the shoe sends it again
    cut = line.encode(Frame("X", 20))
    assert decode("line", cut.replace(b"X", b"H", 1)).frames == []
    heartbeat = line.encode(Frame("H"))
    assert decode("line", heartbeat.replace(b"H", b"X", 1)).frames == []
    assert decode("line", b"X\r\n").frames == []  # a plain heartbeat "H" with bit 4 flipped: no marker, refused
    assert decode("line", b"S,3,8H\r\n").frames == []  # a message without its CRC marker is never read


@pytest.mark.slow  # 4 MB through each decoder
@pytest.mark.parametrize("framing", ["line", "stx"])
def test_random_noise_decodes_to_nothing(framing: str) -> None:
    """4 MB of seeded random bytes between the messages of a session give no message at all."""
    rng = random.Random(f"noise:{framing}")
    noise = rng.randbytes(4 * 1024 * 1024)
    result = decode(framing, noise)
    assert result.frames == []
    assert "bad_message" not in result.reasons

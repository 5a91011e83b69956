"""Byte-vector tests of the line and stx framers, and decoder fuzzing."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.serial.framing import (
    ACK,
    ENQ,
    ETX,
    MAX_FRAME,
    NAK,
    STX,
    Frame,
    Framer,
    LineFramer,
    StxFramer,
    make_framer,
    parse_body,
    xor_checksum,
)


def decode_stream(framer: Framer, chunks: list[bytes]) -> list[Frame]:
    """Feed ``chunks`` one at a time, decoding as a driver does; all frames out."""
    buffer = b""
    frames: list[Frame] = []
    for chunk in chunks:
        buffer += chunk
        while True:
            used, frame = framer.decode(buffer)
            assert 0 <= used <= len(buffer)
            if used == 0:
                assert frame is None
                break
            buffer = buffer[used:]
            if frame is not None:
                frames.append(frame)
    return frames


# -- line framing: vectors -------------------------------------------------------------
def test_reference_checksum_is_xor_of_the_bytes_before_the_star() -> None:
    assert xor_checksum(b"C,17,TH") == 0x59
    assert LineFramer().encode(Frame("C", 17, "TH")) == b"C,17,TH*59\r\n"


@pytest.mark.parametrize(
    ("frame", "wire"),
    [
        (Frame("C", 17, "TH"), b"C,17,TH*59\r\n"),
        (Frame("C", None, "10H"), b"C,10H*%02X\r\n" % xor_checksum(b"C,10H")),
        (Frame("U", 3), b"U,3*%02X\r\n" % xor_checksum(b"U,3")),
        (Frame("X", 4), b"X,4*%02X\r\n" % xor_checksum(b"X,4")),
        (Frame("B", 5), b"B,5*%02X\r\n" % xor_checksum(b"B,5")),
        (Frame("D", 6), b"D,6*%02X\r\n" % xor_checksum(b"D,6")),
        (Frame("H"), b"H*48\r\n"),
        (Frame("S", 8, "LID OPEN"), b"S,8,LID OPEN*%02X\r\n" % xor_checksum(b"S,8,LID OPEN")),
        (Frame("S", None, "12"), b"S,,12*%02X\r\n" % xor_checksum(b"S,,12")),
        (Frame("R", None, "A"), b"R,A*%02X\r\n" % xor_checksum(b"R,A")),
        (Frame("A", 17), b"A,17*%02X\r\n" % xor_checksum(b"A,17")),
        (Frame("N"), b"N*4E\r\n"),
        (Frame("I", None, "player"), b"I,player*%02X\r\n" % xor_checksum(b"I,player")),
    ],
)
def test_line_vectors_round_trip(frame: Frame, wire: bytes) -> None:
    framer = LineFramer()
    assert framer.encode(frame) == wire
    assert framer.decode(wire) == (len(wire), frame)
    assert framer.rejected is None


@pytest.mark.parametrize(
    ("wire", "frame"),
    [
        (b"C,17,TH\r\n", Frame("C", 17, "TH")),  # no checksum: optional
        (b"C,17,TH\n", Frame("C", 17, "TH")),  # a bare \n ends a line too
        (b"C,17,TH*59\n", Frame("C", 17, "TH")),
        (b"C,17,th*59\r\n", Frame("C", 17, "th")),  # card codes are not validated or normalised
        (b"C,17,TH*59\r\n", Frame("C", 17, "TH")),
        (b"  C,17,ZZ  \r\n", Frame("C", 17, "ZZ")),  # a bad code is passed on: the core's misdeal
        (b"U\r\n", Frame("U")),
        (b"S,2,SHOE EMPTY, LID CLOSED\r\n", Frame("S", 2, "SHOE EMPTY, LID CLOSED")),
    ],
)
def test_line_decodes(wire: bytes, frame: Frame) -> None:
    framer = LineFramer()
    assert framer.decode(wire) == (len(wire), frame)


def test_line_checksum_hex_is_case_insensitive() -> None:
    wire = b"S,1,ok*%02x\r\n" % xor_checksum(b"S,1,ok")
    assert LineFramer().decode(wire)[1] == Frame("S", 1, "ok")


def test_line_partial_waits_for_more() -> None:
    framer = LineFramer()
    assert framer.decode(b"C,17,T") == (0, None)
    assert framer.decode(b"") == (0, None)
    assert framer.decode(b"C,17,TH*59\r") == (0, None)
    assert framer.decode(b"C,17,TH*59\r\n") == (12, Frame("C", 17, "TH"))


@pytest.mark.parametrize(
    "wire",
    [
        b"C,17,TH*00\r\n",  # checksum wrong
        b"C,17,TX*59\r\n",  # a byte changed in transit
    ],
)
def test_line_bad_checksum_never_yields_a_card(wire: bytes) -> None:
    framer = LineFramer()
    assert framer.decode(wire) == (len(wire), None)
    assert framer.rejected is not None and framer.rejected.reason == "bad_checksum"
    assert framer.bad_checksums == 1
    assert framer.garbage_bytes == len(wire)


@pytest.mark.parametrize(
    "wire",
    [
        b"hello world\r\n",
        b"C\r\n",  # a card without a code
        b"C,17\r\n",
        b"C,17,\r\n",
        b"C,1,AS,KD\r\n",  # two codes
        b"C,1,A S\r\n",
        b"Q,1\r\n",  # unknown kind
        b"U,1,extra\r\n",
        b"I,sideways\r\n",
        b"C,17,TH*5\r\n",  # one hex digit
        b"C,17,TH*5Z\r\n",
        b"C,1,\xffS\r\n",  # not ASCII
        b"C,1234567,AS\r\n",  # seq too long: not a seq, and "1234567,AS" is not a code
    ],
)
def test_line_garbage_is_consumed_and_reported(wire: bytes) -> None:
    framer = LineFramer()
    assert framer.decode(wire) == (len(wire), None)
    assert framer.rejected is not None and framer.rejected.reason == "garbage"
    assert framer.garbage_bytes == len(wire)


def test_line_empty_lines_are_ignored_silently() -> None:
    framer = LineFramer()
    assert decode_stream(framer, [b"\r\n\n\r\nU\r\n"]) == [Frame("U")]
    assert framer.garbage_bytes == 0


def test_line_overlong_is_discarded_up_to_its_end() -> None:
    framer = LineFramer()
    long_line = b"S,1," + b"x" * (MAX_FRAME * 3)
    frames = decode_stream(framer, [long_line[:100], long_line[100:200], long_line[200:], b"C,2,AS\r\nU\r\n"])
    # the tail "...xxxC,2,AS" belongs to the overlong line and is dropped with it
    assert frames == [Frame("U")]
    assert framer.overlong == 1
    assert framer.garbage_bytes == len(long_line) + len(b"C,2,AS\r\n")


def test_line_overlong_with_terminator_in_one_piece() -> None:
    framer = LineFramer()
    wire = b"S,1," + b"x" * MAX_FRAME + b"\r\n"
    assert framer.decode(wire) == (len(wire), None)
    assert framer.rejected is not None and framer.rejected.reason == "overlong"


def test_line_required_checksum_rejects_plain_lines() -> None:
    framer = LineFramer(require_checksum=True)
    assert framer.decode(b"C,1,AS\r\n") == (8, None)
    assert framer.decode(b"C,1,AS*%02X\r\n" % xor_checksum(b"C,1,AS"))[1] == Frame("C", 1, "AS")


def test_line_other_terminators() -> None:
    framer = LineFramer(terminator=b"\r")
    assert framer.encode(Frame("U", 1)).endswith(b"*%02X\r" % xor_checksum(b"U,1"))
    assert decode_stream(framer, [b"U,1\rX,2\r\nB,3\n"]) == [Frame("U", 1), Frame("X", 2), Frame("B", 3)]
    assert LineFramer(checksum_on_encode=False).encode(Frame("C", 3, "AS")) == b"C,3,AS\r\n"


def test_line_vendor_pattern_reads_cards_without_code() -> None:
    framer = LineFramer(pattern=r"CARD:(?P<seq>\d+):(?P<card>\w+)")
    assert framer.decode(b"CARD:12:QH\r\n") == (12, Frame("C", 12, "QH"))
    assert framer.decode(b"CARD:xx:QH\r\n")[1] is None  # not a full match: garbage
    assert framer.decode(b"U,4\r\n")[1] == Frame("U", 4)  # the reference messages still work
    no_seq = LineFramer(pattern=r"#(?P<card>[0-9TJQKA][SHDC])")
    assert no_seq.decode(b"#7D\n")[1] == Frame("C", None, "7D")


def test_line_pattern_needs_a_card_group() -> None:
    with pytest.raises(ValueError, match="named group 'card'"):
        LineFramer(pattern=r"CARD (\w+)")


def test_parse_body_edge_cases() -> None:
    assert parse_body("") is None
    assert parse_body("C,,") is None
    assert parse_body("S,") is None
    assert parse_body("S,5") == Frame("S", 5, "")
    assert parse_body("R") == Frame("R")
    assert parse_body("C,00017,AS") == Frame("C", 17, "AS")


# -- stx framing: vectors --------------------------------------------------------------
def stx(payload: bytes) -> bytes:
    return bytes([STX]) + payload + bytes([ETX, xor_checksum(payload) ^ ETX])


def test_stx_vector() -> None:
    framer = StxFramer()
    wire = b"\x02C,17,TH\x03\x5a"
    assert wire == stx(b"C,17,TH")
    assert framer.encode(Frame("C", 17, "TH")) == wire
    assert framer.decode(wire) == (10, Frame("C", 17, "TH"))
    assert framer.encode(Frame("H")) == b"\x02H\x03\x4b"


@pytest.mark.parametrize(
    "frame",
    [Frame("U", 1), Frame("X", 2), Frame("B", 3), Frame("D", 4), Frame("S", 5, "LID OPEN"),
     Frame("C", None, "ZZ"), Frame("I", None, "new_shoe")],
)
def test_stx_round_trip(frame: Frame) -> None:
    framer = StxFramer()
    wire = framer.encode(frame)
    assert framer.decode(wire) == (len(wire), frame)


def test_stx_garbage_before_a_frame_is_skipped() -> None:
    framer = StxFramer()
    wire = b"\x00\xffnoise" + stx(b"C,1,AS")
    assert framer.decode(wire) == (7, None)
    assert framer.rejected is not None and framer.rejected.reason == "garbage"
    assert framer.decode(wire[7:]) == (len(wire) - 7, Frame("C", 1, "AS"))
    assert framer.garbage_bytes == 7


def test_stx_partial_waits() -> None:
    framer = StxFramer()
    wire = stx(b"C,1,AS")
    for cut in range(1, len(wire)):
        assert framer.decode(wire[:cut]) == (0, None)
    assert decode_stream(framer, [wire[:3], wire[3:9], wire[9:]]) == [Frame("C", 1, "AS")]


def test_stx_bad_bcc_is_rejected_as_bad_checksum() -> None:
    framer = StxFramer()
    wire = stx(b"C,1,AS")[:-1] + b"\x00"
    assert framer.decode(wire) == (len(wire), None)
    assert framer.rejected is not None and framer.rejected.reason == "bad_checksum"
    assert framer.bad_checksums == 1


def test_stx_frame_cut_short_by_a_new_stx() -> None:
    framer = StxFramer()
    assert decode_stream(framer, [b"\x02C,1,A" + stx(b"C,2,KD")]) == [Frame("C", 2, "KD")]
    assert framer.garbage_bytes == 6


def test_stx_overlong_is_discarded() -> None:
    framer = StxFramer()
    wire = b"\x02" + b"x" * (MAX_FRAME + 10) + stx(b"U,9")
    assert decode_stream(framer, [wire]) == [Frame("U", 9)]
    assert framer.overlong == 1


def test_stx_good_bcc_but_unknown_message() -> None:
    framer = StxFramer()
    wire = stx(b"Z,1,?")
    assert framer.decode(wire) == (len(wire), None)
    assert framer.rejected is not None and framer.rejected.reason == "bad_message"
    assert framer.decode(stx(b"C,1,AS*00")) == (12, None)  # no line checksums inside stx


def test_stx_controls_on_the_shoe_side() -> None:
    shoe_side = StxFramer(controls=True)
    assert decode_stream(shoe_side, [bytes([ENQ, ACK, NAK]) + stx(b"I,player")]) == [
        Frame("\x05"), Frame("\x06"), Frame("\x15"), Frame("I", None, "player")]
    assert shoe_side.encode(Frame("\x06")) == b"\x06"
    controller_side = StxFramer()
    assert decode_stream(controller_side, [bytes([ACK])]) == []
    assert controller_side.garbage_bytes == 1


def test_make_framer() -> None:
    assert isinstance(make_framer("line"), LineFramer)
    assert isinstance(make_framer("stx"), StxFramer)
    with pytest.raises(ValueError, match="expected line or stx"):
        make_framer("morse")


# -- fuzzing ---------------------------------------------------------------------------
# Hypothesis draws the noise bytes; a seeded random arranges frames, noise and read chunks.
# (Drawing every frame through hypothesis costs ~4 ms an example; this keeps 10,000 fast.)
FUZZ = settings(max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CODE_ALPHABET = "A23456789TJQKXZ10SHDC"


def _random_frame(rng: random.Random) -> Frame:
    seq = rng.choice([None, rng.randrange(10_000)])
    kind = rng.choice("CCCCUXBDHS")
    if kind == "C":
        return Frame("C", seq, "".join(rng.choice(CODE_ALPHABET) for _ in range(rng.randint(1, 4))))
    if kind == "S":
        return Frame("S", seq, "".join(rng.choice("ABC ,:") for _ in range(rng.randint(0, 10))).strip())
    return Frame(kind, seq)


def _arrange(noise: bytes, seed: int) -> tuple[list[Frame | bytes], list[int]]:
    rng = random.Random(seed)
    items: list[Frame | bytes] = [_random_frame(rng) for _ in range(rng.randint(0, 10))]
    position = 0
    while position < len(noise):  # cut the noise into pieces between the frames
        size = rng.randint(1, 40)
        items.insert(rng.randint(0, len(items)), noise[position:position + size])
        position += size
    cuts = [rng.randrange(1000) for _ in range(rng.randint(0, 6))]
    return items, cuts


def _chunks(stream: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(stream) + 1) for c in cuts})
    return [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)], strict=True)]


def _fuzz(framer: Framer, items: list[Frame | bytes], cuts: list[int]) -> None:
    stream = b"".join(item if isinstance(item, bytes) else framer.encode(item) for item in items)
    inserted = {item for item in items if isinstance(item, Frame)}
    decoded = decode_stream(framer, _chunks(stream, cuts))
    for frame in decoded:
        if frame.kind == "C":
            assert frame in inserted, f"decoded a card that was never sent: {frame}"
    if not any(isinstance(item, bytes) and item for item in items):
        assert decoded == [item for item in items if isinstance(item, Frame)]


@pytest.mark.slow
@FUZZ
@given(st.binary(max_size=160), st.integers(0, 2**32 - 1))
def test_fuzz_stx_decoder(noise: bytes, seed: int) -> None:
    """Noise mixed with frames: never raises, never a card that was not sent in a good frame."""
    _fuzz(StxFramer(), *_arrange(noise, seed))


@pytest.mark.slow
@FUZZ
@given(st.binary(max_size=160), st.integers(0, 2**32 - 1))
def test_fuzz_line_decoder_with_required_checksums(noise: bytes, seed: int) -> None:
    """As for stx, with noise that may hold line ends, glued to frames or alone."""
    _fuzz(LineFramer(require_checksum=True), *_arrange(noise, seed))


@settings(max_examples=3_000, deadline=None)
@given(st.binary(max_size=160).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b"")),
       st.integers(0, 2**32 - 1))
def test_fuzz_line_decoder_without_checksums(noise: bytes, seed: int) -> None:
    """Plain lines carry no check: noise with no line end can change only the message it is glued to the
    front of (``C,`` + ``U`` reads ``C,U``; that is what checksums and the CRC are for). Any card that was
    never sent must come from such a line, never from a line the noise did not touch."""
    framer = LineFramer(checksum_on_encode=False)
    items, cuts = _arrange(noise, seed)
    stream = b"".join(item if isinstance(item, bytes) else framer.encode(item) for item in items)
    inserted = {item for item in items if isinstance(item, Frame)}
    glued: list[bytes] = []
    pending = b""
    for item in items:
        if isinstance(item, bytes):
            pending += item
        elif pending:
            glued.append(pending + framer.encode(item).split(b"\r\n")[0])
            pending = b""
    if pending:
        glued.append(pending)
    for frame in decode_stream(framer, _chunks(stream, cuts)):
        if frame.kind == "C" and frame not in inserted:
            assert any(frame.data.encode() in line for line in glued), f"a card from nowhere: {frame}"


def test_noise_glued_to_the_front_of_a_plain_line_changes_that_message_only() -> None:
    framer = LineFramer(checksum_on_encode=False)
    stream = b"C," + framer.encode(Frame("U", None)) + framer.encode(Frame("C", 7, "QS"))
    assert decode_stream(framer, [stream]) == [Frame("C", None, "U"), Frame("C", 7, "QS")]


@settings(max_examples=3_000, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_raw_bytes_never_raise(data: bytes) -> None:
    for framer in (LineFramer(), LineFramer(pattern=r"(?P<seq>\d*)#(?P<card>.+)"), StxFramer(),
                   StxFramer(controls=True)):
        decode_stream(framer, [data[:7], data[7:]])


# -- CRC-16/CCITT-FALSE (issue 10 item 4) ----------------------------------------------
def test_crc16_ccitt_false_check_value() -> None:
    from drivers.serial.framing import crc16_ccitt_false

    assert crc16_ccitt_false(b"123456789") == 0x29B1
    assert crc16_ccitt_false(b"") == 0xFFFF


def test_crc_byte_vectors() -> None:
    from drivers.serial.framing import LineFramer as Line
    from drivers.serial.framing import StxFramer as Stx

    line_framer, stx_framer = Line(), Stx()
    line_framer.crc_on_encode = stx_framer.crc_on_encode = True
    assert line_framer.encode(Frame("C", 17, "TH")) == b"C,17,TH*E920\r\n"
    assert line_framer.encode(Frame("V", None, "crc16")) == b"V,crc16*7E8E\r\n"
    assert stx_framer.encode(Frame("C", 17, "TH")) == bytes.fromhex("02 43 2C 31 37 2C 54 48 2A 45 39 32 30 03 0E")
    assert Line().decode(b"C,7,QS*F004\r\n") == (13, Frame("C", 7, "QS"))
    assert Stx().decode(bytes.fromhex("02 43 2C 31 37 2C 54 48 2A 45 39 32 30 03 0E")) == (15, Frame("C", 17, "TH"))


def test_two_flipped_bits_pass_the_xor_but_not_the_crc() -> None:
    """``C,7,QS*76`` with bit 4 flipped in Q and S reads ``C,7,AC`` with the same XOR."""
    from drivers.serial.framing import LineFramer as Line
    from drivers.serial.framing import StxFramer as Stx

    flipped_xor = b"C,7,AC*76\r\n"
    assert Line(require_checksum=True).decode(flipped_xor)[1] == Frame("C", 7, "AC")  # the XOR's blind spot
    crc_shoe = Line(require_checksum=True)
    crc_shoe.require_crc = True  # the shoe announced V,crc16: a card without CRC is refused
    assert crc_shoe.decode(flipped_xor) == (len(flipped_xor), None)
    assert crc_shoe.rejected is not None and crc_shoe.rejected.reason == "bad_checksum"
    flipped_crc = b"C,7,AC*F004\r\n"  # the CRC of C,7,QS over the flipped text
    plain = Line()
    assert plain.decode(flipped_crc) == (len(flipped_crc), None) and plain.bad_checksums == 1
    stx = Stx()
    payload = b"C,7,AC*F004"
    assert stx.decode(b"\x02" + payload + bytes([0x03, xor_checksum(payload) ^ 0x03]))[1] is None
    assert stx.bad_checksums == 1

"""The serial:// driver over real pseudo-terminals, the shoe side in another process."""

from __future__ import annotations

import logging
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.core.exceptions import DriverError, DriverURLError
from controller.core.inputs import Input, InputKind
from controller.core.shoe import shoe_with_cut_card
from drivers import driver_class
from drivers.base import CardSource
from drivers.serial.driver import SerialShoe
from drivers.serial.framing import ACK, ENQ, NAK, Frame, LineFramer, StxFramer, xor_checksum
from drivers.serial.inbox import SEQ_WRAP_GAP_MAX
from tests.drivers.conftest import EmulatorProcess, RawShoe
from tests.drivers.contract import CardSourceContract

LINE = LineFramer()
STX = StxFramer()
HELLO_ACKED = b"R,A*%02X\r\n" % xor_checksum(b"R,A")

Shoes = Callable[..., RawShoe]


def line(body: bytes) -> bytes:
    return body + b"*%02X\r\n" % xor_checksum(body)


def stx(body: bytes) -> bytes:
    return STX.encode(Frame(body.decode()[0])) if len(body) == 1 else b"\x02" + body + bytes(
        [0x03, xor_checksum(body) ^ 0x03])


def card(code: str) -> Input:
    return Input(InputKind.CARD, code)


OFFLINE = Input(InputKind.OFFLINE)
ONLINE = Input(InputKind.ONLINE)


@pytest.fixture
def opened() -> Iterator[Callable[[str], SerialShoe]]:
    sources: list[SerialShoe] = []

    def open_url(url: str) -> SerialShoe:
        source = SerialShoe(url)
        sources.append(source)
        return source

    yield open_url
    for source in sources:
        source.close()


def connect(raw_shoe: Shoes, opened: Callable[[str], SerialShoe], query: str = "",
            link: str | None = None) -> tuple[RawShoe, SerialShoe]:
    """A raw pty shoe and a driver on it, past the hello."""
    shoe = raw_shoe(link)
    source = opened(f"serial://{shoe.path}{'?' + query if query else ''}")
    hello = shoe.read_until(bytes([ENQ]) if "framing=stx" in query else b"\n")
    assert hello is not None, "the driver sent no hello"
    return shoe, source


# -- URLs ------------------------------------------------------------------------------
def test_registry_maps_serial_socket_and_loop() -> None:
    for url in ("serial:///dev/ttyUSB0", "socket://localhost:4001", "loop://"):
        assert driver_class(url) is SerialShoe


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("serial:///dev/ttyUSB0?parity=E", "unknown option 'parity'"),
        ("serial:///dev/ttyUSB0?framing=morse", "expected line or stx"),
        ("serial:///dev/ttyUSB0?baudrate=fast", "not a whole number"),
        ("serial:///dev/ttyUSB0?heartbeat=-1", "out of range"),
        ("serial:///dev/ttyUSB0?heartbeat=1&timeout=2", "not both"),
        ("serial:///dev/ttyUSB0?indicator=yes", "expected 0 or 1"),
        ("serial:///dev/ttyUSB0?pattern=CARD%20(%5Cw%2B)", "no named group 'card'"),
        ("serial:///dev/ttyUSB0?pattern=(", "not a regular expression (missing ), unterminated subpattern at "
                                            "position 0); give one with a named group 'card', e.g. "
                                            "pattern=CARD%20(%3FP<card>%5Cw%2B)"),
        ("serial:///dev/ttyUSB0?framing=stx&ack=0", "framing=line only"),
        ("serial:///dev/ttyUSB0?terminator=crcr", "expected crlf, lf or cr"),
        ("serial:///dev/ttyUSB0?checksum=maybe", "expected optional or required"),
        ("serial://", "no device path"),
    ],
)
def test_bad_urls_are_refused_with_the_expected_form(url: str, message: str) -> None:
    with pytest.raises(DriverURLError, match=re.escape(message)):
        SerialShoe(url)


def test_unknown_option_names_the_expected_form() -> None:
    with pytest.raises(DriverURLError) as error:
        SerialShoe("serial:///dev/ttyUSB0?speed=9600")
    assert "serial:///dev/ttyUSB0?baudrate=...&framing=..." in str(error.value)
    assert "baudrate (bits per second" in str(error.value)


@pytest.mark.parametrize("scheme", ["serial", "socket", "loop"])
def test_an_unknown_option_names_the_scheme_the_url_gave(scheme: str) -> None:
    """``loop://?bogus=1`` said 'unknown option 'bogus' for serial://', a scheme the user never wrote."""
    location = {"serial": "/dev/ttyUSB0", "socket": "127.0.0.1:4001", "loop": ""}[scheme]
    with pytest.raises(DriverURLError) as error:
        SerialShoe.check_url(f"{scheme}://{location}?bogus=1")
    assert f"unknown option 'bogus' for {scheme}://;" in str(error.value), error.value


def test_a_missing_device_is_a_clear_driver_error(tmp_path: Path) -> None:
    with pytest.raises(DriverError, match=r"cannot open .*no-such-tty.*check the cable"):
        SerialShoe(f"serial://{tmp_path}/no-such-tty")


def test_loop_url_ignores_its_own_echo() -> None:
    with SerialShoe("loop://?framing=line&indicator=1") as source:
        assert source.port_name == "loop://"
        source.indicate("banker")
        assert source.recv(0.2) is None  # the echoed hello and indicator are not shoe messages
        assert source.garbage_bytes == 0


def test_serial_url_strips_scheme_and_options(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe = raw_shoe()
    source = opened(f"serial://{shoe.path}?baudrate=19200&framing=line")
    assert source.port_name == shoe.path
    assert source.baudrate == 19200


# -- handshake, messages, acks ---------------------------------------------------------
def test_line_hello_and_acks(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe = raw_shoe()
    source = opened(f"serial://{shoe.path}")
    assert shoe.read_until(b"\n") == HELLO_ACKED
    shoe.write(line(b"C,17,TH"))
    assert source.recv(5) == card("TH")
    assert shoe.read_until(b"\n", 0.2) is None  # not acknowledged while the controller holds it
    assert source.recv(0) is None  # back for more: it has taken the card
    assert shoe.read_until(b"\n") == line(b"A,17")
    shoe.write(line(b"H,18"))  # a heartbeat gives no input: acknowledged at once
    assert source.recv(0.2) is None
    assert shoe.read_until(b"\n") == line(b"A,18")


def test_journaled_input_is_answered_after_the_tables_indication(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    """Issue 10 item 2: the answer to the shoe's last card comes after ``I,new_shoe``, never before.

    Answered at ``journaled()``, the shoe sent its next (old-shoe) card while the table was still
    closing the shoe, and that card was dealt into the new shoe.
    """
    shoe, source = connect(raw_shoe, opened, "framing=stx")
    shoe.write(stx(b"C,1,AS"))
    item = source.recv(5)
    assert item is not None and item == card("AS")
    source.journaled(item)
    assert shoe.read_until(bytes([ACK]), 0.3) is None  # durable, but the table has not applied it yet
    source.indicate("new_shoe")
    assert source.recv(0) is None  # the controller is back for more
    assert shoe.read_until(bytes([ACK])) == stx(b"I,1,new_shoe") + bytes([ACK])  # after message 1 (revision 2)


def test_position_and_seek_drop_a_retransmission_after_a_restart(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened, "framing=stx&indicator=1")
    assert source.position == (1, -1)
    shoe.write(stx(b"C,41,AS"))
    assert source.recv(5) == card("AS")
    assert source.position == (1, 41)
    source.close()  # the controller dies before acknowledging; a new one resumes from the journal
    again = opened(f"serial://{shoe.path}?framing=stx&indicator=1")
    assert shoe.read_until(bytes([ENQ])) is not None
    again.seek(1, 41)
    again.indicate("new_shoe")  # replayed by the resume: the shoe had it, not sent again
    again.indicate("player")
    shoe.write(stx(b"C,41,AS") + stx(b"C,42,KD"))
    assert [again.recv(5), again.recv(0.2)] == [card("KD"), None]
    assert shoe.read_until(b"\x03") == b"\x02I,player\x03"


def test_line_without_acks(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe = raw_shoe()
    source = opened(f"serial://{shoe.path}?ack=0")
    assert shoe.read_until(b"\n") == line(b"R")
    shoe.write(b"C,1,AS\r\nC,2,KD\n")
    assert [source.recv(5), source.recv(5)] == [card("AS"), card("KD")]
    assert shoe.drain() == b""


def test_every_shoe_message(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened)
    shoe.write(line(b"C,1,AS") + line(b"U,2") + line(b"X,3") + line(b"B,4") + line(b"D,5")
               + line(b"H,6") + line(b"S,7,LID OPEN") + line(b"C,8,10h") + line(b"C,9,ZZ"))
    got = [source.recv(5) for _ in range(7)]
    assert got == [card("AS"), Input(InputKind.UNREADABLE), Input(InputKind.CUT), Input(InputKind.NEXT),
                   Input(InputKind.DOUBLE), card("10h"), card("ZZ")]  # codes are passed on raw
    assert source.status == "LID OPEN"
    assert source.recv(0.1) is None


def test_stx_hello_ack(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe = raw_shoe()
    source = opened(f"serial://{shoe.path}?framing=stx")
    assert shoe.read_until(bytes([ENQ])) == bytes([ENQ])
    shoe.write(b"\x02C,17,TH\x03\x5a")
    assert source.recv(5) == card("TH")
    assert source.recv(0) is None
    assert shoe.read_until(bytes([ACK])) == bytes([ACK])


def test_vendor_pattern(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened, r"pattern=%5ECARD%20(%3FP%3Cseq%3E%5Cd%2B)%20(%3FP%3Ccard%3E%5Cw%2B)")
    shoe.write(b"CARD 1 QH\r\nCARD 1 QH\r\nCARD 2 7D\r\n")
    assert [source.recv(5), source.recv(5)] == [card("QH"), card("7D")]
    assert source.duplicates == 1


# -- line problems ---------------------------------------------------------------------
def test_garbage_is_skipped_counted_and_logged(raw_shoe: Shoes, opened: Callable[[str], SerialShoe],
                                               caplog: pytest.LogCaptureFixture) -> None:
    shoe, source = connect(raw_shoe, opened)
    with caplog.at_level(logging.WARNING, logger="croupier.serial"):
        shoe.write(b"\x00\xff!!noise\r\n" + line(b"C,1,AS"))
        assert source.recv(5) == card("AS")
    assert source.garbage_bytes == 11
    assert any("garbage skipped" in record.getMessage() for record in caplog.records)


def test_stx_garbage_between_frames(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened, "framing=stx")
    shoe.write(b"zz\x03\x03" + stx(b"C,1,AS") + b"\xfe" + stx(b"C,2,KD"))
    assert [source.recv(5), source.recv(5)] == [card("AS"), card("KD")]
    assert source.garbage_bytes == 5


def test_partial_frames_wait_for_the_rest(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened, "framing=stx")
    frame = stx(b"C,1,9C")
    shoe.write(frame[:4])
    assert source.recv(0.2) is None
    shoe.write(frame[4:])
    assert source.recv(5) == card("9C")


def test_overlong_frames_are_discarded(raw_shoe: Shoes, opened: Callable[[str], SerialShoe],
                                       caplog: pytest.LogCaptureFixture) -> None:
    shoe, source = connect(raw_shoe, opened)
    with caplog.at_level(logging.WARNING, logger="croupier.serial"):
        shoe.write(b"C,1," + b"9" * 500)
        assert source.recv(0.3) is None
        shoe.write(b"H\r\n" + line(b"C,2,QS"))
        assert source.recv(5) == card("QS")
    assert source.overlong == 1
    assert any("overlong" in record.getMessage() for record in caplog.records)


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]


def send_in_pieces(shoe: RawShoe, source: SerialShoe, data: bytes, piece: int = 500) -> None:
    """Write ``data`` a piece at a time, the driver reading each piece before the next one comes."""
    for start in range(0, len(data), piece):
        shoe.write(data[start:start + piece])
        assert source.recv(0.3) is None


@pytest.mark.parametrize("query", ["", "framing=stx"])
def test_an_overlong_line_is_warned_about_once_and_the_card_after_it_is_read(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe], caplog: pytest.LogCaptureFixture, query: str) -> None:
    """A 5,000-byte line (or stx frame) read in ten pieces is one overlong frame: one warning that says what came,
    what was expected and what to do, not one per piece; the card after it is read."""
    shoe, source = connect(raw_shoe, opened, query)
    long_line = b"C,1," + b"9" * 4994 + b"\r\n" if not query else b"\x02C,1," + b"9" * 4995
    with caplog.at_level(logging.WARNING, logger="croupier.serial"):
        send_in_pieces(shoe, source, long_line)
        shoe.write(stx(b"C,2,QS") if query else line(b"C,2,QS"))
        assert source.recv(5) == card("QS")
    warnings = warnings_of(caplog)
    assert len(warnings) == 1, warnings
    assert "overlong" in warnings[0] and "at most 128" in warnings[0], warnings
    assert "check" in warnings[0] and "without another warning" in warnings[0], warnings
    assert source.overlong == 1
    assert source.garbage_bytes == len(long_line)


@pytest.mark.parametrize("query", ["", "framing=stx"])
def test_a_run_of_noise_is_warned_about_once_and_the_card_after_it_is_read(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe], caplog: pytest.LogCaptureFixture, query: str) -> None:
    """3,000 noise bytes (no STX; lines of noise in line framing) read in pieces: one warning for the run, the card
    after it is read, and the next run of noise, after that card, is warned about again."""
    shoe, source = connect(raw_shoe, opened, query)
    noise = bytes(byte for byte in range(256) if byte not in (0x02, 0x0A, 0x0D)) * 12
    if not query:
        noise = b"".join(noise[start:start + 60] + b"\r\n" for start in range(0, len(noise), 60))
    framed = stx if query else line
    with caplog.at_level(logging.WARNING, logger="croupier.serial"):
        send_in_pieces(shoe, source, noise)
        shoe.write(framed(b"C,1,AS"))
        assert source.recv(5) == card("AS")
        assert len(warnings_of(caplog)) == 1, warnings_of(caplog)
        send_in_pieces(shoe, source, noise[:62 * 11])  # whole lines
        shoe.write(framed(b"C,2,KD"))
        assert source.recv(5) == card("KD")
    warnings = warnings_of(caplog)
    assert len(warnings) == 2, warnings
    assert all("garbage skipped" in text and "expected" in text and "check" in text for text in warnings), warnings


@pytest.mark.parametrize("query", ["", "terminator=lf"])
def test_lines_ended_by_a_bare_cr_are_named_as_such(raw_shoe: Shoes, opened: Callable[[str], SerialShoe],
                                                    caplog: pytest.LogCaptureFixture, query: str) -> None:
    """A shoe that ends its lines with CR alone, on a driver whose lines end with LF: nothing is read, and every
    warning about those lines says what they are and what to do (not only 'overlong' for a 12-byte line)."""
    shoe, source = connect(raw_shoe, opened, query)
    with caplog.at_level(logging.WARNING, logger="croupier.serial"):
        for seq in range(1, 13):
            shoe.write(line(b"C,%d,9S" % seq)[:-2] + b"\r")
        for seq in range(13, 16):  # the shoe goes on: each line is dropped on its own
            shoe.write(line(b"C,%d,9S" % seq)[:-2] + b"\r")
            assert source.recv(0.3) is None
    warnings = [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]
    assert warnings
    assert all("end with a bare CR" in text and "give terminator=cr" in text for text in warnings), warnings


def test_a_message_without_the_checksum_required_says_so(raw_shoe: Shoes, opened: Callable[[str], SerialShoe],
                                                         caplog: pytest.LogCaptureFixture) -> None:
    """``checksum=required`` refuses a good message sent without ``*XX``; the warning says why, not only 'garbage'."""
    shoe, source = connect(raw_shoe, opened, "checksum=required")
    with caplog.at_level(logging.WARNING, logger="croupier.serial"):
        shoe.write(b"C,1,9S\r\n")
        assert source.recv(0.5) is None
        shoe.write(line(b"C,1,9S"))
        assert source.recv(5) == card("9S")
    warnings = [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "b'C,1,9S\\r\\n'; no *XX checksum, which checksum=required asks for" in warnings[0], \
        warnings


@pytest.mark.parametrize("query", ["indicator=1", "framing=stx&indicator=1"])
def test_a_line_that_echoes_the_controller_does_not_set_off_a_storm_of_naks(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe], query: str) -> None:
    """A half-duplex line (RS-485) hands the controller its own writes back. They are no shoe news and carry no
    CRC-16: once the shoe announced crc16 they were refused as bad checksums and NAKed, the NAK came back and was
    NAKed in turn, for ever."""
    framer = StxFramer() if "stx" in query else LineFramer()
    framer.crc_on_encode = True
    shoe, source = connect(raw_shoe, opened, query)
    shoe.write(framer.encode(Frame("V", None, "crc16")) + framer.encode(Frame("C", 1, "9S")))
    assert source.recv(5) == card("9S")
    source.indicate("banker")
    echoed = b""
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        data = shoe.drain(0.05)
        echoed += data
        if data:
            shoe.write(data)
        source.recv(0.05)
    shoe.write(framer.encode(Frame("C", 2, "8H")))
    assert source.recv(5) == card("8H")
    assert source.bad_checksums == 0
    assert echoed.count(bytes([NAK]) if "stx" in query else b"N*4E") == 0, echoed[:200]


def test_stx_bad_checksum_is_naked_and_gives_no_card(raw_shoe: Shoes,
                                                     opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened, "framing=stx")
    shoe.write(stx(b"C,1,AS")[:-1] + b"\x00")
    assert source.recv(0.3) is None
    assert shoe.read_until(bytes([NAK])) == bytes([NAK])
    assert source.bad_checksums == 1
    shoe.write(stx(b"C,1,AS"))  # the shoe retransmits
    assert source.recv(5) == card("AS")
    assert source.recv(0) is None
    assert shoe.read_until(bytes([ACK])) == bytes([ACK])


def test_line_bad_checksum_is_naked_and_gives_no_card(raw_shoe: Shoes,
                                                      opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened)
    shoe.write(b"C,1,AS*00\r\n")
    assert source.recv(0.3) is None
    assert shoe.read_until(b"\n") == line(b"N")
    assert source.bad_checksums == 1


def test_repeated_seq_is_dropped_but_acknowledged(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened, "framing=stx")
    shoe.write(stx(b"C,5,AS") + stx(b"C,5,AS") + stx(b"C,6,AS"))
    assert [source.recv(5), source.recv(5), source.recv(0.2)] == [card("AS"), card("AS"), None]
    assert source.duplicates == 1
    assert shoe.read_until(bytes([ACK, ACK, ACK])) is not None  # each copy answered: the shoe stops


def test_indicator_write_back(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened, "indicator=1")
    for what in ("player", "banker", "hold", "burn", "new_shoe"):
        source.indicate(what)
        assert shoe.read_until(b"\n") == line(b"I," + what.encode())
    source.indicate("sideways")  # unknown: logged, not sent
    assert shoe.drain() == b""


def test_indicator_stx(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened, "framing=stx&indicator=1")
    source.indicate("player")
    assert shoe.read_until(b"\x03") == b"\x02I,player\x03"


def test_no_indicator_without_the_option(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened)
    source.indicate("player")
    assert shoe.drain() == b""


# -- offline and back ------------------------------------------------------------------
def test_silent_reader_goes_offline_then_online(raw_shoe: Shoes, opened: Callable[[str], SerialShoe],
                                                caplog: pytest.LogCaptureFixture) -> None:
    shoe, source = connect(raw_shoe, opened, "heartbeat=0.3")
    shoe.write(line(b"H"))
    assert source.recv(0.1) is None
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="croupier.serial"):
        assert source.recv(5) == OFFLINE
    assert 0.15 <= time.monotonic() - started < 2
    assert any("heartbeat" in record.getMessage() for record in caplog.records)
    assert shoe.read_until(HELLO_ACKED, 5) == line(b"A") + HELLO_ACKED  # ack of H, then hello again
    assert source.recv(0.1) is None  # offline once, not again
    shoe.write(line(b"H,1") + line(b"C,2,4D"))
    assert [source.recv(5), source.recv(5)] == [ONLINE, card("4D")]
    assert source.offline_count == 1


def test_unplug_gives_offline_and_replug_online(raw_shoe: Shoes, opened: Callable[[str], SerialShoe],
                                                tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    link = str(tmp_path / "shoe")
    shoe, source = connect(raw_shoe, opened, "framing=stx", link=link)
    shoe.write(stx(b"C,7,AS"))
    assert source.recv(5) == card("AS")
    with caplog.at_level(logging.WARNING, logger="croupier.serial"):
        shoe.unplug()
        assert source.recv(5) == OFFLINE
        assert source.recv(0.3) is None  # no device yet: reconnecting with backoff, quietly
        shoe.replug()
        assert source.recv(5) == ONLINE
    assert any("failed" in record.getMessage() for record in caplog.records)
    assert shoe.read_until(bytes([ENQ])) == bytes([ENQ])
    shoe.write(stx(b"C,7,AS") + stx(b"C,8,KD"))  # the shoe missed our ACK and repeats 7
    assert [source.recv(5), source.recv(0.2)] == [card("KD"), None]
    assert source.duplicates == 1
    assert source.reconnects == 1


def test_the_rest_of_an_overlong_line_cut_by_an_unplug_does_not_eat_the_first_line_after_the_replug(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe], tmp_path: Path) -> None:
    """Noise with no line end fills more than a line, and the cable is pulled in the middle of it: the new line
    starts clean, its first message is read (it was taken for the rest of the overlong line, and lost)."""
    link = str(tmp_path / "shoe")
    shoe, source = connect(raw_shoe, opened, "ack=0", link=link)
    shoe.write(b"~" * 300)
    assert source.recv(0.5) is None
    assert source.overlong == 1
    shoe.unplug()
    assert source.recv(5) == OFFLINE
    shoe.replug()
    assert source.recv(5) == ONLINE
    assert shoe.read_until(b"\n") is not None
    shoe.write(line(b"C,1,AS"))
    assert source.recv(5) == card("AS")


def test_unplug_with_reconnect_off_exhausts(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened, "reconnect=0")
    shoe.write(line(b"C,1,2S"))
    assert source.recv(5) == card("2S")
    shoe.unplug()  # on Linux, bytes still in the pty when the master closes are flushed: lost
    assert source.recv(5) == OFFLINE
    assert source.exhausted
    started = time.monotonic()
    assert source.recv(5) is None
    assert time.monotonic() - started < 1


def test_indication_sent_while_offline_is_delivered_on_reconnect(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe], tmp_path: Path) -> None:
    link = str(tmp_path / "shoe")
    shoe, source = connect(raw_shoe, opened, "indicator=1", link=link)
    shoe.unplug()
    assert source.recv(5) == OFFLINE
    source.indicate("new_shoe")
    shoe.replug()
    assert source.recv(5) == ONLINE
    assert shoe.read_until(line(b"I,new_shoe")) == HELLO_ACKED + line(b"I,new_shoe")


# -- against the emulator --------------------------------------------------------------
def reader_tokens(seed: int, decks: int, shoe: int = 0) -> list[Input]:
    return [Input(InputKind.CUT) if token == "@cut" else card(token)
            for token in shoe_with_cut_card(seed, decks, shoe)]


def collect(source: SerialShoe, count: int, timeout: float = 30) -> list[Input]:
    """Inputs until ``count`` reader tokens (not OFFLINE/ONLINE) arrived."""
    got: list[Input] = []
    deadline = time.monotonic() + timeout
    while sum(item.kind not in (InputKind.OFFLINE, InputKind.ONLINE) for item in got) < count:
        item = source.recv(max(0.0, deadline - time.monotonic()))
        assert item is not None, f"only {len(got)} inputs in {timeout}s: {got[-5:]}"
        got.append(item)
    return got


@pytest.mark.parametrize("framing", ["line", "stx"])
def test_whole_shoe_with_faults_and_an_unplug_loses_and_doubles_nothing(
        framing: str, emulator: Callable[..., EmulatorProcess], opened: Callable[[str], SerialShoe],
        tmp_path: Path) -> None:
    link = str(tmp_path / "shoe")
    shoe = emulator("--seed", "11", "--decks", "2", "--framing", framing, "--link", link,
                    "--garbage", "0.2", "--bad-checksum", "0.2", "--unplug-after", "40",
                    "--replug-after", "0.3", "--ack-timeout", "0.5", "--linger", "60")
    assert shoe.path == link
    source = opened(f"serial://{link}?framing={framing}")
    expected = reader_tokens(11, 2)
    got = collect(source, len(expected))
    assert [item for item in got if item.kind not in (InputKind.OFFLINE, InputKind.ONLINE)] == expected
    assert [item for item in got if item.kind in (InputKind.OFFLINE, InputKind.ONLINE)] == [OFFLINE, ONLINE]
    assert source.garbage_bytes > 0 and source.bad_checksums > 0
    assert shoe.next_line() == f"PTY {link}\n"  # announced again on replug


def test_emulator_over_tcp(emulator: Callable[..., EmulatorProcess], opened: Callable[[str], SerialShoe]) -> None:
    shoe = emulator("--seed", "4", "--decks", "1", "--tcp", "127.0.0.1:0", "--framing", "stx")
    assert shoe.kind == "TCP"
    source = opened(f"socket://{shoe.where}?framing=stx")
    assert source.port_name == f"socket://{shoe.where}"
    expected = reader_tokens(4, 1)
    assert collect(source, len(expected)) == expected


def test_new_shoe_indication_moves_the_emulator_to_the_next_shoe(
        emulator: Callable[..., EmulatorProcess], opened: Callable[[str], SerialShoe]) -> None:
    shoe = emulator("--seed", "9", "--decks", "1")
    source = opened(f"serial://{shoe.path}?indicator=1")
    assert collect(source, 5) == reader_tokens(9, 1)[:5]
    source.indicate("new_shoe")
    # the card in flight when the indication went out may still come from shoe 1
    got = collect(source, 6)
    first, second = reader_tokens(9, 1), reader_tokens(9, 1, 1)
    assert got in ([first[5], *second[:5]], second[:6])


# -- the driver contract, over a pty with the emulator playing a script ---------------
class TestSerialShoeContract(CardSourceContract):
    """SerialShoe keeps the CardSource contract (line framing, acknowledged)."""

    framing = "line"

    @pytest.fixture
    def make_source(self, emulator: Callable[..., EmulatorProcess],
                    tmp_path: Path) -> Iterator[Callable[[list[str]], CardSource]]:
        opened: list[CardSource] = []

        def make(tokens: list[str]) -> CardSource:
            script = tmp_path / f"script{len(opened)}.txt"
            script.write_text(" ".join(tokens) + "\n", encoding="utf-8")
            shoe = emulator("--script", str(script), "--framing", self.framing, "--linger", "600")
            source = SerialShoe(f"serial://{shoe.path}?framing={self.framing}")
            opened.append(source)
            return source

        yield make
        for source in opened:
            source.close()


class TestSerialShoeStxContract(TestSerialShoeContract):
    """SerialShoe keeps the CardSource contract (stx framing)."""

    framing = "stx"


def test_tcp_unplug_and_reconnect_lose_nothing(emulator: Callable[..., EmulatorProcess],
                                               opened: Callable[[str], SerialShoe]) -> None:
    shoe = emulator("--seed", "12", "--decks", "1", "--tcp", "127.0.0.1:0", "--framing", "stx",
                    "--unplug-after", "7", "--replug-after", "0.3", "--ack-timeout", "0.3", "--linger", "60")
    source = opened(f"socket://{shoe.where}?framing=stx")
    expected = reader_tokens(12, 1)
    got = collect(source, len(expected))
    assert [item for item in got if item.kind not in (InputKind.OFFLINE, InputKind.ONLINE)] == expected
    assert [item for item in got if item.kind in (InputKind.OFFLINE, InputKind.ONLINE)] == [OFFLINE, ONLINE]
    assert shoe.next_line() == f"TCP {shoe.where}\n"


def test_script_offline_token_unplugs_and_nothing_is_lost(emulator: Callable[..., EmulatorProcess],
                                                          opened: Callable[[str], SerialShoe],
                                                          tmp_path: Path) -> None:
    script = tmp_path / "shoe.txt"
    script.write_text("AS 10H @offline KD @next\n")
    link = str(tmp_path / "shoe")
    shoe = emulator("--script", str(script), "--link", link, "--replug-after", "0.2", "--linger", "60")
    source = opened(f"serial://{link}")
    assert collect(source, 4) == [card("AS"), card("10H"), OFFLINE, ONLINE, card("KD"), Input(InputKind.NEXT)]
    assert shoe.next_line() == f"PTY {link}\n"


@pytest.mark.slow
def test_emulator_heartbeats_keep_the_reader_online(emulator: Callable[..., EmulatorProcess],
                                                    opened: Callable[[str], SerialShoe]) -> None:
    shoe = emulator("--seed", "1", "--decks", "1", "--key", "--heartbeat", "0.1", stdin=subprocess.PIPE)
    source = opened(f"serial://{shoe.path}?heartbeat=0.5")
    assert source.recv(1.5) is None  # idle, but alive: no OFFLINE
    assert source.online and source.offline_count == 0


def test_line_options_terminator_and_required_checksum(raw_shoe: Shoes,
                                                       opened: Callable[[str], SerialShoe]) -> None:
    shoe = raw_shoe()
    source = opened(f"serial://{shoe.path}?terminator=cr&checksum=required")
    assert shoe.read_until(b"\r") == b"R,A*3F\r"
    shoe.write(b"C,1,AS\r" + b"C,2,KD*%02X\r" % xor_checksum(b"C,2,KD"))
    assert [source.recv(5), source.recv(0.2)] == [card("KD"), None]  # the plain line is refused
    assert source.garbage_bytes == 7
    assert shoe.read_until(b"\r") == b"A,2*%02X\r" % xor_checksum(b"A,2")


def test_a_second_controller_on_the_same_port_is_refused(raw_shoe: Shoes,
                                                         opened: Callable[[str], SerialShoe]) -> None:
    shoe, _ = connect(raw_shoe, opened)
    with pytest.raises(DriverError, match="no other program holds the port"):
        SerialShoe(f"serial://{shoe.path}")


# -- CRC-16 negotiated after the hello (issue 10 item 4) ------------------------------------
def test_a_shoe_that_announces_crc_has_a_two_bit_error_refused(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    """Two flips in one bit column keep the XOR; after ``V,crc16`` the driver wants the CRC."""
    shoe, source = connect(raw_shoe, opened, "checksum=required")
    shoe.write(b"V,crc16*7E8E\r\n")
    assert source.recv(0.3) is None
    assert source.features == frozenset({"crc16"})
    assert shoe.read_until(b"\n") == line(b"A")
    shoe.write(b"C,7,AC*76\r\n")  # C,7,QS*76 with bit 4 flipped in Q and S: the XOR still matches
    assert source.recv(0.3) is None
    assert source.bad_checksums == 1
    assert shoe.read_until(b"\n") == line(b"N")
    shoe.write(b"C,7,AC*F004\r\n")  # the same flips under the CRC of C,7,QS
    assert source.recv(0.3) is None
    assert source.bad_checksums == 2
    shoe.write(b"C,7,QS*F004\r\n")
    assert source.recv(5) == card("QS")


@pytest.mark.parametrize("query", ["", "framing=stx"])
def test_a_message_refused_for_want_of_its_crc_says_so(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe], caplog: pytest.LogCaptureFixture, query: str) -> None:
    """After V,crc16 a message with a right XOR (or BCC) but no CRC-16 is refused: the warning said only "bad
    checksum", which sends whoever reads it to the line and the cable, where the shoe leaves its CRC out."""
    shoe, source = connect(raw_shoe, opened, query)
    frame = stx if "stx" in query else line
    shoe.write(stx(b"V,crc16*7E8E") if "stx" in query else b"V,crc16*7E8E\r\n")
    assert source.recv(0.3) is None
    assert source.features == frozenset({"crc16"})
    with caplog.at_level(logging.WARNING, logger="croupier.serial"):
        shoe.write(frame(b"C,7,QS"))
        assert source.recv(0.3) is None
    assert source.bad_checksums == 1
    warnings = [record.getMessage() for record in caplog.records]
    assert len(warnings) == 1 and "no CRC-16" in warnings[0] and "V,crc16" in warnings[0], warnings


def test_a_shoe_from_before_crc_keeps_its_xor(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened, "checksum=required")
    shoe.write(line(b"C,7,QS"))
    assert source.recv(5) == card("QS")
    assert source.features == frozenset()


def test_a_replugged_line_forgets_the_crc_announcement(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe], tmp_path: Path) -> None:
    """The shoe behind a line that came back may be an older one: it announces again, or it keeps its XOR."""
    shoe, source = connect(raw_shoe, opened, "framing=stx", link=str(tmp_path / "shoe"))
    shoe.write(stx(b"V,crc16*7E8E"))
    assert source.recv(0.3) is None and source.framer.require_crc
    shoe.write(stx(b"C,1,AS"))  # a card without CRC from a shoe that announced it
    assert source.recv(0.3) is None and source.bad_checksums == 1
    shoe.unplug()
    assert source.recv(5) == OFFLINE
    shoe.replug()
    assert source.recv(5) == ONLINE
    assert shoe.read_until(bytes([ENQ])) == bytes([ENQ])
    shoe.write(stx(b"C,1,AS"))
    assert source.recv(5) == card("AS")


def test_emulator_announces_crc_and_no_crc_behaves_like_an_older_shoe(
        emulator: Callable[..., EmulatorProcess]) -> None:
    for options, crc in (((), True), (("--no-crc",), False)):
        process = emulator("--seed", "4", "--decks", "1", *options)
        client = SerialShoe(f"serial://{process.path}?checksum=required")
        try:
            first = client.recv(10)
            assert first is not None and first.kind in (InputKind.CARD, InputKind.CUT)
            assert client.features == (frozenset({"crc16"}) if crc else frozenset())
            assert client.framer.require_crc is crc
        finally:
            client.close()


# -- a shoe that restarts from its first message (issue 10 item 5) --------------------------
def test_a_sequence_number_that_falls_back_reports_a_restarted_shoe(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened, "framing=stx")
    shoe.write(stx(b"C,57,AS"))
    assert source.recv(5) == card("AS")
    shoe.write(stx(b"C,1,KD"))  # a new shoe process numbering from 1 again
    assert source.recv(5) == Input(InputKind.OFFLINE, "shoe_restarted")
    assert shoe.read_until(bytes([ACK]), 0.3) == bytes([ACK])  # the answer to 57, once the table has it
    assert source.recv(5) == card("KD")  # the restarted shoe's card follows: the table is halted by then
    assert source.position == (1, 1)
    shoe.write(stx(b"C,2,QH"))
    assert source.recv(5) == card("QH")


@pytest.mark.parametrize("query", ["framing=stx", "ack=0", ""])
def test_a_shoe_that_restarts_at_the_number_it_had_reached_is_no_retransmission(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe], query: str) -> None:
    """The table took the shoe's message 1 (AS); the shoe restarts and its new message 1 is another card (KD): a
    repeat of the number with other content is no retransmission, and dropping it as one lost the card silently."""
    shoe, source = connect(raw_shoe, opened, query)
    frame = stx if "stx" in query else line
    shoe.write(frame(b"C,1,AS"))
    assert source.recv(5) == card("AS")
    shoe.write(frame(b"C,1,AS"))  # a true retransmission: dropped
    shoe.write(frame(b"C,1,KD"))
    assert source.recv(5) == Input(InputKind.OFFLINE, "shoe_restarted")
    assert source.recv(5) == card("KD")
    assert source.duplicates == 1
    shoe.write(frame(b"C,2,QH"))
    assert source.recv(5) == card("QH")


# -- a gap in the shoe's sequence numbers (issue 25 item 2) ---------------------------------
@pytest.mark.parametrize("query", ["framing=stx", "ack=0", ""])
def test_a_gap_in_the_sequence_numbers_is_reported_before_the_message_after_it(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe], query: str) -> None:
    """Message 3 never arrives: the driver says so (the table halts) before it delivers message 4, which then
    cannot take the lost message's place unnoticed; with or without acknowledgements."""
    shoe, source = connect(raw_shoe, opened, query)
    frame = stx if "stx" in query else line
    shoe.write(frame(b"C,1,AS") + frame(b"C,2,KD"))
    assert source.recv(5) == card("AS")
    assert source.recv(5) == card("KD")
    shoe.write(frame(b"C,4,QH"))
    assert source.recv(5) == Input(InputKind.OFFLINE, "sequence_gap 2 4")
    assert source.recv(5) == card("QH")
    assert source.position == (1, 4)
    shoe.write(frame(b"C,5,JS"))
    assert source.recv(5) == card("JS")


@pytest.mark.parametrize(("after", "news"), [
    (1, None),  # the wrap
    (2, "sequence_gap 9999 2"),  # message 1 lost
    (3, "sequence_gap 9999 3"),  # 1 and 2
    (SEQ_WRAP_GAP_MAX, f"sequence_gap 9999 {SEQ_WRAP_GAP_MAX}"),
    (SEQ_WRAP_GAP_MAX + 1, "shoe_restarted"),  # past the wrap window: a fall back
])
def test_after_9999_the_next_number_is_a_wrap_a_gap_or_a_restart(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe], after: int, news: str | None) -> None:
    """After 9999 the shoe numbers from 1 again: a 2 (a 3...) means message 1 (1 and 2...) never arrived, as a skip
    anywhere else does, and no restart (which numbers from 1); past :data:`SEQ_WRAP_GAP_MAX` it fell back."""
    shoe, source = connect(raw_shoe, opened, "framing=stx")
    shoe.write(stx(b"C,9999,AS"))
    assert source.recv(5) == card("AS")
    shoe.write(stx(b"C,%d,KD" % after))
    if news is not None:
        assert source.recv(5) == Input(InputKind.OFFLINE, news)
    assert source.recv(5) == card("KD")
    shoe.write(stx(b"C,%d,QH" % (after + 1)))
    assert source.recv(5) == card("QH")


def test_consecutive_numbers_a_retransmission_and_a_wrap_are_no_gap(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened, "framing=stx")
    shoe.write(stx(b"C,9998,AS") + stx(b"C,9998,AS") + stx(b"C,9999,KD") + stx(b"C,1,QH") + stx(b"H") + stx(b"C,2,JS"))
    assert [source.recv(5) for _ in range(4)] == [card("AS"), card("KD"), card("QH"), card("JS")]


def test_a_gap_after_a_resume_is_reported(raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    """Resumed after message 7 (the journal's last), the shoe's next is 8: a 9 means 8 was lost."""
    shoe, source = connect(raw_shoe, opened, "framing=stx")
    source.seek(1, 7)
    shoe.write(stx(b"C,9,AS"))
    assert source.recv(5) == Input(InputKind.OFFLINE, "sequence_gap 7 9")
    assert source.recv(5) == card("AS")


@pytest.mark.parametrize(("broken", "news"), [(b"C,4,QH", "sequence_gap 2 4"), (b"C,1,QH", "shoe_restarted")])
def test_a_controller_killed_as_it_journals_a_broken_sequence_still_checks_the_sequence_on_resume(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe], broken: bytes, news: str) -> None:
    """The journal stores the driver's position with the gap's (or the restart's) OFFLINE; a controller killed
    right after it resumes from that position. It must still know where the sequence stands: with ack=0 the
    shoe sent on while no controller listened, and those messages are lost; a resume from position -1 took the
    shoe's next message as if nothing were missing."""
    shoe, source = connect(raw_shoe, opened, "ack=0")
    shoe.write(line(b"C,1,AS") + line(b"C,2,KD"))
    assert [source.recv(5), source.recv(5)] == [card("AS"), card("KD")]
    shoe.write(line(broken))
    assert source.recv(5) == Input(InputKind.OFFLINE, news)
    journaled = source.position  # journaled with the OFFLINE; then kill -9
    source.close()
    seq = int(broken.split(b",")[1])
    resumed = opened(f"serial://{shoe.path}?ack=0")
    assert shoe.read_until(b"\n") is not None
    resumed.seek(*journaled)
    shoe.write(line(b"C,%d,JS" % (seq + 3)))  # the message itself and the next two were lost with the controller
    assert resumed.recv(5) == Input(InputKind.OFFLINE, f"sequence_gap {seq - 1} {seq + 3}")
    assert resumed.recv(5) == card("JS")


# -- new_shoe names the shoe's last message taken (issue 25 item 3) ---------------------------
def test_new_shoe_names_the_last_message_taken_and_a_resumed_driver_names_the_same(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    shoe, source = connect(raw_shoe, opened, "framing=stx")
    shoe.write(stx(b"C,7,AS"))
    assert source.recv(5) == card("AS")
    source.indicate("new_shoe")
    assert shoe.read_until(b"\x03") == b"\x02I,7,new_shoe\x03"
    source.close()  # the controller died; a new one resumes from the journal
    resumed = opened(f"serial://{shoe.path}?framing=stx")
    assert shoe.read_until(bytes([ENQ])) is not None
    resumed.seek(1, 7)  # the journal's last message from the shoe
    resumed.indicate("new_shoe")  # the replay's: the shoe had it, not written
    resumed.indicate("hold")  # the resume is over
    resumed.indicate("new_shoe")  # the table, still closed, tells the shoe again: the same number
    assert shoe.read_until(b"\x03") == b"\x02I,7,new_shoe\x03"


def test_settle_answers_the_last_input_when_the_controller_stops(
        raw_shoe: Shoes, opened: Callable[[str], SerialShoe]) -> None:
    """Issue 28 item 18: a clean exit after --rounds N left the last card unanswered; the shoe sent it again to
    the next controller, which called it a card not due."""
    shoe, source = connect(raw_shoe, opened, "framing=stx")
    shoe.write(stx(b"C,1,AS"))
    assert source.recv(5) == card("AS")
    assert shoe.read_until(bytes([ACK]), 0.3) is None  # held until the controller has it for good
    source.settle()
    assert shoe.read_until(bytes([ACK])) == bytes([ACK])

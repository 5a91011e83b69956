"""Vendor profiles (issue 26 item 7): a shoe's wire settings as a TOML data file, chosen by
``serial://PATH?profile=NAME``, so that a new shoe's ASCII output is supported by a profile, not a code change.
Options given in the URL override the profile's; a bad profile is a one-line error naming the file and the key."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.core.exceptions import DriverURLError
from controller.core.inputs import Input, InputKind
from drivers.serial import framing as fr
from drivers.serial.driver import SerialShoe
from drivers.serial.profiles import PROFILE_DIRECTORY, profile_names
from tests.drivers.conftest import REPO, RawShoe


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


def wire(source: SerialShoe) -> tuple[object, ...]:
    """Everything a driver's options decide about the line."""
    framer = source.framer
    line = framer if isinstance(framer, fr.LineFramer) else None
    return (source.framing, type(framer), source.baudrate, source.heartbeat, source.indicator, source.reconnect,
            source.ack, framer.hello(), line and line.terminator, line and line.pattern,
            line and line.require_checksum, line and line.checksum_on_encode)


def test_the_shipped_profiles() -> None:
    assert {"reference", "example-card-lines"} <= set(profile_names())
    assert all((PROFILE_DIRECTORY / f"{name}.toml").is_file() for name in profile_names())


def test_the_reference_profile_is_todays_defaults(opened: Callable[[str], SerialShoe]) -> None:
    assert wire(opened("loop://?profile=reference")) == wire(opened("loop://"))


def test_the_example_profile_reads_card_lines_and_writes_only_a_plain_hello(
        opened: Callable[[str], SerialShoe]) -> None:
    source = opened("loop://?profile=example-card-lines")
    assert (source.framing, source.ack, source.framer.hello()) == ("line", False, b"R\r\n")
    assert source.framer.decode(b"CARD 12 QH\r\n") == (12, fr.Frame("C", 12, "QH"))


def test_options_in_the_url_override_the_profiles(opened: Callable[[str], SerialShoe]) -> None:
    source = opened("loop://?profile=example-card-lines&ack=1&checksum=optional&terminator=lf")
    assert (source.ack, source.framer.hello()) == (True, b"R,A*3F\n")
    assert source.framer.decode(b"CARD 3 AS\n") == (10, fr.Frame("C", 3, "AS"))  # its pattern stays
    own = opened("loop://?profile=example-card-lines&pattern=%23(%3FP<card>%5Cw%2B)")
    assert own.framer.decode(b"#KD\r\n")[1] == fr.Frame("C", None, "KD")
    assert own.framer.decode(b"CARD 3 AS\r\n")[1] is None


def test_an_unknown_profile_names_the_known_ones() -> None:
    with pytest.raises(DriverURLError) as error:
        SerialShoe("loop://?profile=nope")
    text = str(error.value)
    assert text == ("loop://?profile=nope: option profile='nope' is unknown; expected example-card-lines or reference, "
                    "or the path of a .toml profile file")
    assert "\n" not in text


def test_a_profile_file_of_ones_own(raw_shoe: Callable[..., RawShoe], opened: Callable[[str], SerialShoe],
                                    tmp_path: Path) -> None:
    """A shoe nobody shipped a profile for: ``<12>QH`` ended by CR, no checksum, reading nothing but the hello."""
    profile = tmp_path / "angle.toml"
    profile.write_text('description = "angle-bracket cards"\nterminator = "cr"\nchecksum = "none"\nack = false\n'
                       "pattern = '<(?P<seq>\\d+)>(?P<card>[0-9TJQKA]+[SHDC])'\n")
    shoe = raw_shoe()
    source = opened(f"serial://{shoe.path}?profile={profile}")
    assert shoe.read_until(b"\r", 10) == b"R\r"
    shoe.write(b"<1>9S\r<2>8H\r<3>KD\rgarbage\r<4>2C\r")
    assert [source.recv(10) for _ in range(4)] == [Input(InputKind.CARD, code) for code in ("9S", "8H", "KD", "2C")]
    assert source.garbage_bytes == len(b"garbage\r")
    source.indicate("new_shoe")
    assert shoe.read_until(b"\r", 10) == b"I,4,new_shoe\r"
    assert shoe.drain(0.3) == b""  # no answers: the shoe reads only what it must


BAD_PROFILES = [
    ('framing = "morse"\n', "key framing = 'morse'; expected line or stx"),
    ("ack = 1\n", "key ack = 1; expected true or false"),
    ('checksum = "optional"\n', "key checksum = 'optional'; expected none, xor or required"),
    ("baudrate = 10\n", "key baudrate = 10; expected 50-4000000"),
    ('baudrate = "9600"\n', "key baudrate = '9600'; expected 50-4000000"),
    ("heartbeat = -1\n", "key heartbeat = -1; expected 0-3600"),
    ('terminator = "crcr"\n', "key terminator = 'crcr'; expected crlf, lf or cr"),
    ("description = 3\n", "key description = 3; expected a string"),
    ("speed = 9600\n", "unknown key speed; expected description, framing, baudrate, terminator, pattern, "
                       "checksum, ack, heartbeat or indicator"),
    ("pattern = 'CARD (\\w+)'\n", "key pattern = 'CARD (\\\\w+)' has no named group 'card'"),
    ("pattern = 'CARD ('\n", "key pattern = 'CARD (' is not a regular expression"),
    ('framing = "stx"\nack = false\n', "key ack applies to framing=line only"),
    ("framing = \n", "is not a readable TOML file"),
]


@pytest.mark.parametrize(("text", "problem"), BAD_PROFILES)
def test_a_bad_profile_file_is_one_line_naming_the_file_and_the_key(tmp_path: Path, text: str,
                                                                    problem: str) -> None:
    profile = tmp_path / "bad.toml"
    profile.write_text(text)
    with pytest.raises(DriverURLError) as error:
        SerialShoe(f"loop://?profile={profile}")
    message = str(error.value)
    assert message.startswith(f"loop://?profile={profile}: profile {profile}"), message
    assert problem in message and "\n" not in message


def test_a_missing_profile_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DriverURLError, match=r"profile .*nowhere.toml is not a readable TOML file \(.*No such file"):
        SerialShoe(f"loop://?profile={tmp_path}/nowhere.toml")


def test_a_url_framing_the_profiles_settings_do_not_apply_to_is_refused() -> None:
    with pytest.raises(DriverURLError, match="profile example-card-lines sets terminator, pattern, checksum, ack, "
                                             "which apply to framing=line only; choose a profile for framing=stx"):
        SerialShoe("loop://?profile=example-card-lines&framing=stx")


def test_the_example_profile_alone_makes_a_vendor_shoe_deal_a_table(raw_shoe: Callable[..., RawShoe]) -> None:
    """``croupier run`` over a real pty on a shoe that writes ``CARD <seq> <card>`` lines and reads nothing."""
    shoe = raw_shoe()
    run = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", "--driver", f"serial://{shoe.path}?profile=example-card-lines",
         "--json", "--auto-next", "--no-keyboard", "--no-burn", "--decks", "1", "--rounds", "1"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert shoe.read_until(b"\n", 60) == b"R\r\n"  # the hello, as the shoe can read it: no checksum
        shoe.write(b"CARD 1 9S\r\nCARD 2 8H\r\nCARD 3 KD\r\nCARD 4 2C\r\n")
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait(10)
    assert run.returncode == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    assert [event["card"] for event in events if event["event"] == "card"] == ["9S", "8H", "KD", "2C"]
    results = [event for event in events if event["event"] == "result"]
    assert len(results) == 1 and results[0]["winner"] == "player" and results[0]["player"]["total"] == 9
    assert not [event for event in events if event["event"] == "misdeal"]
    assert shoe.drain(0.3) == b""  # no answers, no checksums: nothing the shoe cannot read


CARD_LINES = "pattern=CARD%20(%3FP<seq>%5Cd%2B)%20(%3FP<card>%5Cw%2B)&ack=0"
"""URL options of a shoe that writes ``CARD <seq> <card>`` lines and reads no answers."""


def run_a_round(shoe: RawShoe, url: str, lines: list[bytes]) -> tuple[int, list[dict[str, object]], str]:
    """``croupier run`` over the raw shoe's pty for one round: the shoe writes ``lines`` after the hello."""
    run = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", "--driver", url, "--json", "--auto-next", "--no-keyboard",
         "--no-burn", "--decks", "1", "--rounds", "1"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert shoe.read_until(b"\n", 60) is not None, "no hello"
        shoe.write(b"".join(lines))
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait(10)
    return run.returncode, [json.loads(line) for line in out.splitlines()], err


def xor_line(text: str) -> bytes:
    return b"%s*%02X\r\n" % (text.encode("ascii"), fr.xor_checksum(text.encode("ascii")))


def crc_line(text: str) -> bytes:
    return fr.with_crc(text.encode("ascii")) + b"\r\n"


DEALT = ["9S", "8H", "KD", "2C"]
"""The cards the shoe sends with a checksum; each follows a line of an ace with the same seq and none."""


def test_checksum_required_refuses_vendor_card_lines_without_one(raw_shoe: Callable[..., RawShoe]) -> None:
    """``checksum=required`` refuses every line without ``*XX``, a vendor's card lines too; a card line that
    carries a right one is checked, taken off and read with the pattern."""
    shoe = raw_shoe()
    lines = [line for seq, (ace, card) in enumerate(zip(["AS", "AH", "AD", "AC"], DEALT, strict=True), start=1)
             for line in (f"CARD {seq} {ace}\r\n".encode(), xor_line(f"CARD {seq} {card}"))]
    code, events, err = run_a_round(shoe, f"serial://{shoe.path}?{CARD_LINES}&checksum=required", lines)
    assert [event["card"] for event in events if event["event"] == "card"] == DEALT, err
    assert code == 0, err
    assert "garbage skipped: garbage: 11 byte(s) b'CARD 1 AS\\r\\n'" in err


def test_a_shoe_held_to_its_crc_has_its_vendor_card_lines_checked(raw_shoe: Callable[..., RawShoe]) -> None:
    """Once the shoe announced ``V,crc16`` every message of it needs a right CRC-16, its card lines too."""
    shoe = raw_shoe()
    lines = [crc_line("V,crc16")]
    lines += [line for seq, (ace, card) in enumerate(zip(["AS", "AH", "AD", "AC"], DEALT, strict=True), start=1)
              for line in (f"CARD {seq} {ace}\r\n".encode(), crc_line(f"CARD {seq} {card}"))]
    code, events, err = run_a_round(shoe, f"serial://{shoe.path}?{CARD_LINES}", lines)
    assert [event["card"] for event in events if event["event"] == "card"] == DEALT, err
    assert code == 0, err
    assert "bad checksum, message dropped: bad_checksum: 11 byte(s) b'CARD 1 AS\\r\\n'" in err


def test_a_vendor_card_line_with_a_wrong_checksum_is_refused_as_one(raw_shoe: Callable[..., RawShoe]) -> None:
    """A ``*XX`` that does come is checked on a vendor's card line as on any line (``checksum=optional``)."""
    shoe = raw_shoe()
    wrong = b"CARD 1 AS*%02X\r\n" % (fr.xor_checksum(b"CARD 1 AS") ^ 0xFF)
    lines = [wrong, *(xor_line(f"CARD {seq} {card}") for seq, card in enumerate(DEALT, start=1))]
    code, events, err = run_a_round(shoe, f"serial://{shoe.path}?{CARD_LINES}", lines)
    assert [event["card"] for event in events if event["event"] == "card"] == DEALT, err
    assert code == 0, err
    assert "bad checksum, message dropped" in err

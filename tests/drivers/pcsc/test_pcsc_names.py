"""The PC/SC driver reads its own names: an APDU's bytes and the reader of a ``pcsc://`` URL (no pcscd needed)."""

from __future__ import annotations

import pytest

from drivers.pcsc.badges import reader_from_url
from drivers.pcsc.source import parse_apdu


def test_an_apdu_given_as_hex_is_its_bytes() -> None:
    assert parse_apdu("FF CA 00 00 00") == bytes([0xFF, 0xCA, 0, 0, 0])
    assert parse_apdu("00:a4:04:00") == bytes([0x00, 0xA4, 0x04, 0x00])
    with pytest.raises(ValueError, match="'zz' is not hex"):
        parse_apdu("zz")
    with pytest.raises(ValueError, match=r"'00CA' is 2 bytes; an APDU has at least 4 \(CLA INS P1 P2\)"):
        parse_apdu("00CA")


def test_the_reader_of_a_pcsc_url() -> None:
    assert reader_from_url("pcsc://?reader=Virtual PCD 00 01") == "Virtual PCD 00 01"
    assert reader_from_url("pcsc://?reader=R&apdu=FFB0000404") == "R"
    assert reader_from_url("pcsc://") is None

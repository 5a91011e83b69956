"""The PC/SC driver reads its own names: an APDU's bytes and the reader of a ``pcsc://`` URL (no pcscd needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.exceptions import DriverURLError
from drivers.pcsc.badges import reader_from_url
from drivers.pcsc.source import load_card_map, parse_apdu
from tests.inprocess import croupier_in_process


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


@pytest.mark.parametrize("name", ["cards.txt", "cards.toml"])
def test_a_card_map_not_in_utf8_is_one_line_not_a_traceback(tmp_path: Path, name: str) -> None:
    """pcsc://?map=FILE of bytes that are not UTF-8 raised the codec's UnicodeDecodeError out of croupier run."""
    path = tmp_path / name
    path.write_bytes(b"04AA TH\n04BB \xff\xfe\n")
    with pytest.raises(DriverURLError) as info:
        load_card_map(str(path), label=f"pcsc://?map={path}")
    said = str(info.value)
    assert said.startswith(f"pcsc://?map={path}: ") and str(path) in said and "byte 13 is 0xff" in said, said
    assert "codec" not in said, said
    done = croupier_in_process("run", "--driver", f"pcsc://?map={path}")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done
    assert done.stderr.splitlines() == [f"croupier run: {said}"]


def test_a_card_map_saved_with_a_byte_order_mark_maps_its_first_tag(tmp_path: Path) -> None:
    path = tmp_path / "cards.txt"
    path.write_bytes(b"\xef\xbb\xbf04AA TH\n")
    assert load_card_map(str(path)) == {"04AA": "TH"}

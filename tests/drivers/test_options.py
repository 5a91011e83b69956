"""URL options are declared once per driver and validated by :class:`drivers.base.Option`; the docs agree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.core.exceptions import DriverURLError
from drivers.base import CardSource, Option
from drivers.mock import MockShoe
from drivers.pcsc.source import PcscCardSource
from drivers.serial.driver import SerialShoe

DOCS = Path(__file__).resolve().parents[2] / "docs"
URL = "x://"


@pytest.mark.parametrize(("option", "text", "value"), [
    (Option("n", int, 1, (1, 8)), "8", 8),
    (Option("s", float, 0.0, (0, 3600), unit="seconds"), "2.5", 2.5),
    (Option("f", bool, False), "1", True),
    (Option("f", bool, True), "0", False),
    (Option("c", str, "a", choices=("a", "b")), "b", "b"),
    (Option("t"), "any text", "any text"),
])
def test_an_option_parses_its_type(option: Option, text: str, value: object) -> None:
    parsed = option.parse(URL, "name", text)
    assert parsed == value and type(parsed) is type(value)


@pytest.mark.parametrize(("option", "text", "message"), [
    (Option("n", int, 1, (1, 8)), "x", "x://: option name='x' is not a whole number; expected 1-8"),
    (Option("n", int, 1, (1, 8)), "9", "x://: option name=9 is out of range; expected 1-8"),
    (Option("s", float, 0.0, (0, 3600), unit="seconds"), "soon",
     "x://: option name='soon' is not a number of seconds; expected e.g. 3"),
    (Option("s", float, 0.0, (0, 3600), unit="seconds"), "-1",
     "x://: option name=-1.0 is out of range; expected 0-3600 seconds"),
    (Option("s", float, 0.0, (0, 3600), unit="seconds"), "nan",
     "x://: option name='nan' is not a number of seconds; expected e.g. 3"),
    (Option("s", float, 0.0, (0, 3600), unit="seconds"), "NaN",
     "x://: option name='NaN' is not a number of seconds; expected e.g. 3"),
    (Option("s", float, 0.0, unit="seconds"), "inf",
     "x://: option name='inf' is not a number of seconds; expected e.g. 3"),
    (Option("s", float, 0.0, unit="seconds"), "-Infinity",
     "x://: option name='-Infinity' is not a number of seconds; expected e.g. 3"),
    (Option("f", bool, False), "yes", "x://: option name='yes' is not a flag; expected 0 or 1"),
    (Option("c", str, "a", choices=("a", "b", "c")), "d", "x://: option name='d' is unknown; expected a, b or c"),
])
def test_a_bad_value_names_the_url_the_option_and_what_was_expected(option: Option, text: str,
                                                                     message: str) -> None:
    with pytest.raises(DriverURLError) as error:
        option.parse(URL, "name", text)
    assert str(error.value) == message


def test_a_bound_from_another_option_lowers_the_declared_one() -> None:
    assert MockShoe("mock://?decks=8&cut=100").cut_from_end == 100
    with pytest.raises(DriverURLError, match=r"cut=27 is out of range; expected 12-26"):
        MockShoe("mock://?decks=1&cut=27")


def test_defaults_come_from_the_declaration() -> None:
    shoe = MockShoe("mock://")
    assert (shoe.seed, shoe.decks, shoe.cut_from_end, shoe.shoe_index) == (0, 8, 16, 0)
    with SerialShoe("loop://") as serial:
        declared = SerialShoe.options
        assert serial.baudrate == declared["baudrate"].default == 9600
        assert serial.framing == declared["framing"].default == "line"
        assert serial.heartbeat == declared["heartbeat"].default == 0
        assert (serial.indicator, serial.reconnect, serial.ack) == (False, True, True)


def documented_rows(page: str) -> dict[str, str]:
    """The option table rows of a docs page: option name -> the row."""
    rows: dict[str, str] = {}
    for line in (DOCS / page).read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| `(\w+)`", line)
        if match:
            rows.setdefault(match.group(1), line)
    return rows


@pytest.mark.parametrize(("cls", "page"), [(SerialShoe, "serial-protocol.md"), (PcscCardSource, "pcsc.md")])
def test_every_declared_option_is_documented_with_its_range_and_choices(cls: type[CardSource], page: str) -> None:
    rows = documented_rows(page)
    for name, option in cls.options.items():
        if name == "timeout":
            assert "`heartbeat` (or `timeout`)" in rows["heartbeat"]
            continue
        assert name in rows, f"{page} does not document option {name}"
        row = rows[name]
        if option.range is not None:
            assert f"{option.range[0]}-{option.range[1]}" in row, f"{name}: range {option.range} not in {row!r}"
        for choice in option.choices:
            assert f"`{choice}`" in row, f"{name}: choice {choice} not in {row!r}"
        if option.default is not None and option.type is not bool:
            default = option.default if option.type is not float else int(option.default)
            assert str(default) in row, f"{name}: default {option.default} not in {row!r}"


@pytest.mark.parametrize(("text", "refused"), [("nan", "heartbeat='nan' is not a number of seconds"),
                                               ("inf", "heartbeat=inf is out of range; expected 0-3600 seconds")])
def test_a_serial_heartbeat_that_is_no_number_is_refused_not_taken_as_no_heartbeat(text: str, refused: str) -> None:
    with pytest.raises(DriverURLError, match=refused):
        SerialShoe(f"loop://?heartbeat={text}")

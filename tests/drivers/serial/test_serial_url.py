"""A serial driver URL takes the ``[serial]`` section's defaults for the options it leaves out."""

from __future__ import annotations

from pathlib import Path

from config.loader import load_config
from drivers.serial.url import serial_url


def test_serial_defaults_fill_only_what_the_url_leaves_out(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text("[serial]\nbaudrate = 19200\nframing = \"stx\"\n", encoding="utf-8")
    serial = load_config(path, environ={}).serial
    assert serial_url("serial:///dev/ttyUSB0", serial) == "serial:///dev/ttyUSB0?baudrate=19200&framing=stx"
    assert serial_url("serial:///dev/ttyUSB0?baudrate=9600&indicator=1", serial) == \
        "serial:///dev/ttyUSB0?baudrate=9600&indicator=1&framing=stx"
    assert serial_url("socket://10.0.0.5:4001#x", serial) == "socket://10.0.0.5:4001?baudrate=19200&framing=stx#x"
    assert serial_url("mock://?seed=1", serial) == "mock://?seed=1"
    assert serial_url("serial:///dev/ttyUSB0", load_config(environ={}).serial) == "serial:///dev/ttyUSB0"


def test_a_url_that_names_a_profile_gets_no_serial_defaults() -> None:
    """The profile says what the shoe speaks: the [serial] section's defaults do not override it."""
    from config.schema import SerialSettings
    from drivers.serial.url import serial_url

    settings = SerialSettings(framing="stx", baudrate=19200)
    assert serial_url("serial:///dev/ttyUSB0?profile=reference", settings) == "serial:///dev/ttyUSB0?profile=reference"
    assert serial_url("serial:///dev/ttyUSB0", settings) == "serial:///dev/ttyUSB0?baudrate=19200&framing=stx"

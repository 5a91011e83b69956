"""A serial driver URL completed with the ``[serial]`` section's defaults (``croupier run``).

Kept apart from :mod:`drivers.serial.driver` so that completing a URL imports no serial port library.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

from config.schema import SerialSettings

SCHEMES = ("serial", "socket", "loop")
"""The schemes of :class:`drivers.serial.driver.SerialShoe`."""


def serial_url(url: str, serial: SerialSettings) -> str:
    """``url`` with the ``[serial]`` defaults for the options it leaves out (other schemes: unchanged).

    Only options whose configured value differs from the driver's own default are added, and none to a URL that
    names a vendor profile (``profile=``): the profile says what the shoe speaks.
    """
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL: opening it says so
        return url
    if parts.scheme not in SCHEMES:
        return url
    given = parse_qs(parts.query, keep_blank_values=True)
    if "profile" in given:
        return url
    defaults = SerialSettings()
    missing = {key: getattr(serial, key) for key in ("baudrate", "framing")
               if key not in given and getattr(serial, key) != getattr(defaults, key)}
    if not missing:
        return url
    base, hash_, fragment = url.partition("#")
    joiner = "" if base.endswith(("?", "&")) else "&" if "?" in base else "?"
    return f"{base}{joiner}{urlencode(missing)}{hash_}{fragment}"


__all__ = ["SCHEMES", "serial_url"]

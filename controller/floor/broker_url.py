"""The addresses the archive is given: a broker (``mqtt://``, ``mqtts://``) and a database (``postgresql://``).

Each is checked before anything connects; a bad one raises :class:`FloorAddressError` with a one-line
message that names the option, says what was expected and what to do. Passwords never appear in a
message (:func:`redacted`).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit, urlunsplit

from controller.core.exceptions import CroupierError

BROKER_FORM = "mqtt://[USER:PASSWORD@]HOST:PORT (or mqtts:// for TLS)"
DATABASE_FORM = "postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE"
DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}


class FloorAddressError(CroupierError):
    """A broker or database URL is malformed."""


@dataclass(frozen=True)
class BrokerAddress:
    """Where an MQTT broker is and how to sign in to it."""

    host: str
    port: int
    tls: bool
    username: str | None = None
    password: str | None = None

    def __str__(self) -> str:
        user = f"{self.username}@" if self.username else ""
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}{self.host}:{self.port}"


def redacted(url: str) -> str:
    """``url`` with any password replaced by ``***`` (for messages)."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        netloc = f"{parts.username}:***@{host}{port}"
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    except ValueError:
        return "the URL given"


def parse_broker_url(url: str, option: str = "--broker") -> BrokerAddress:
    """The broker at ``url``: ``mqtt://[USER:PASSWORD@]HOST:PORT`` or ``mqtts://...`` (TLS)."""
    shown = redacted(url)

    def bad(why: str) -> FloorAddressError:
        return FloorAddressError(f"{option} {shown!r}: {why}; expected {BROKER_FORM}")

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise bad(f"not a valid URL ({error})") from None
    if parts.scheme not in DEFAULT_PORTS:
        raise bad(f"unknown scheme {parts.scheme + '://' if parts.scheme else '(none)'}")
    if not parts.hostname:
        raise bad("no host")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise bad("the broker's address takes no path or query")
    if parts.username is not None and parts.password is None:
        raise bad("a user needs a password (USER:PASSWORD@)")
    return BrokerAddress(
        host=parts.hostname, port=port or DEFAULT_PORTS[parts.scheme], tls=parts.scheme == "mqtts",
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password is not None else None,
    )


def check_database_url(url: str, option: str = "--db") -> str:
    """``url`` if it is a PostgreSQL URL (``postgresql://`` or ``postgres://`` with a host)."""
    shown = redacted(url)
    try:
        parts = urlsplit(url)
        _ = parts.port
    except ValueError as error:
        raise FloorAddressError(f"{option} {shown!r}: not a valid URL ({error}); expected {DATABASE_FORM}") from None
    if parts.scheme not in ("postgresql", "postgres"):
        scheme = parts.scheme + "://" if parts.scheme else "(none)"
        raise FloorAddressError(f"{option} {shown!r}: unknown scheme {scheme}; expected {DATABASE_FORM}")
    if not parts.hostname:
        raise FloorAddressError(f"{option} {shown!r}: no host; expected {DATABASE_FORM}")
    return url

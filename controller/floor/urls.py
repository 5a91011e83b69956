"""Broker URLs and topics: ``mqtt://[USER:PASSWORD@]HOST:PORT[/SITE/TABLE]`` (``mqtts://`` for TLS).

A table publishes under ``croupier/SITE/TABLE/`` (:data:`TOPIC_ROOT`); see docs/floor.md.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

from controller.core.exceptions import FeedError, FloorError

TOPIC_ROOT = "croupier"
SCHEMES = {"mqtt": 1883, "mqtts": 8883}
"""Each scheme and its port when the URL gives none."""
NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
"""A site or table name: one topic level, without MQTT's wildcards or separator."""
FEED_FORM = "mqtt://[USER:PASSWORD@]HOST:PORT/SITE/TABLE (or mqtts:// for TLS)"


@dataclass(frozen=True)
class Broker:
    """Where an MQTT broker listens, and how to sign in to it."""

    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None
    ca_file: str | None = None
    """mqtts://: a PEM file of the CAs to trust (None: the system's)."""

    @property
    def address(self) -> str:
        """The broker as a URL without credentials, for messages."""
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"

    def __str__(self) -> str:
        return self.address


@dataclass(frozen=True)
class FeedTarget:
    """A table's place on the floor: its broker, site and table."""

    broker: Broker
    site: str
    table: str

    def topic(self, name: str) -> str:
        """The topic ``croupier/SITE/TABLE/name``."""
        return f"{TOPIC_ROOT}/{self.site}/{self.table}/{name}"

    @property
    def client_id(self) -> str:
        """The MQTT client id of the table (one connection per table)."""
        return f"croupier-table-{self.site}-{self.table}"


BROKER_FORM = "mqtt://[USER:PASSWORD@]HOST:PORT (or mqtts:// for TLS)"
DATABASE_FORM = "postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE"


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


def _bad(label: str, url: str, form: str, problem: str) -> FeedError:
    return FeedError(f"{label} {redacted(url)!r}: {problem}; expected {form}")


def _port(parts: SplitResult, label: str, url: str, form: str) -> int:
    try:
        port = parts.port
    except ValueError:
        raise _bad(label, url, form, "the port is not a number from 1 to 65535") from None
    if port == 0:
        raise _bad(label, url, form, "the port is not a number from 1 to 65535")
    return port if port is not None else SCHEMES[parts.scheme]


def parse_broker(url: str, label: str = "--broker", form: str = "mqtt://[USER:PASSWORD@]HOST:PORT (or mqtts://)",
                 ca_file: str = "") -> tuple[Broker, list[str]]:
    """The broker of ``url`` and the path's levels after it (``["SITE", "TABLE"]`` for a feed URL).

    Raises :class:`FeedError` naming ``label`` and ``url`` for anything that is not such a URL.
    """
    text = url.strip()
    if not text:
        raise _bad(label, url, form, "it is empty")
    parts = urlsplit(text)
    if parts.scheme not in SCHEMES:
        scheme = f"scheme {parts.scheme + '://'!r}" if parts.scheme else "no scheme"
        raise _bad(label, url, form, f"{scheme} is not mqtt:// or mqtts://")
    if parts.query or parts.fragment:
        raise _bad(label, url, form, "it takes no ?query or #fragment")
    if not parts.hostname:
        raise _bad(label, url, form, "it names no HOST")
    port = _port(parts, label, url, form)
    if ca_file and parts.scheme != "mqtts":
        raise FeedError(f"{label} {redacted(url)!r}: a CA file ([feed] ca_file) is for mqtts:// only; use mqtts:// or "
                        "leave ca_file empty")
    if ca_file and not os.path.isfile(ca_file):
        raise FeedError(f"[feed] ca_file {ca_file!r}: no such file; give the path of a PEM CA file")
    levels = [level for level in parts.path.split("/")[1:]] if parts.path not in ("", "/") else []
    broker = Broker(parts.hostname, port, parts.scheme == "mqtts",
                    unquote(parts.username) if parts.username is not None else None,
                    unquote(parts.password) if parts.password is not None else None,
                    ca_file or None)
    return broker, levels


def parse_feed(url: str, site: str = "", table: str = "", ca_file: str = "", label: str = "--feed") -> FeedTarget:
    """A table's feed from ``url`` (``/SITE/TABLE`` in its path, or else ``site`` and ``table``).

    Raises :class:`FeedError` naming ``label`` and ``url`` when the URL or a name is not valid.
    """
    broker, levels = parse_broker(url, label, FEED_FORM, ca_file)
    if levels:
        if len(levels) != 2:
            raise _bad(label, url, FEED_FORM, f"the path {'/' + '/'.join(levels)!r} is not /SITE/TABLE")
        site, table = levels
    elif not (site and table):
        raise _bad(label, url, FEED_FORM, "it names no /SITE/TABLE (and [feed] site and table are not both set)")
    for what, name in (("SITE", site), ("TABLE", table)):
        if not NAME.fullmatch(name):
            raise _bad(label, url, FEED_FORM, f"{what} {name!r} is not 1-64 letters, digits, '-', '_' or '.'")
    return FeedTarget(broker, site, table)


def parse_broker_url(url: str, option: str = "--broker", ca_file: str = "") -> Broker:
    """A broker's own address (no /SITE/TABLE): ``mqtt://[USER:PASSWORD@]HOST:PORT`` or ``mqtts://...``."""
    broker, levels = parse_broker(url, option, BROKER_FORM, ca_file)
    if levels:
        raise _bad(option, url, BROKER_FORM, "the broker's address takes no path or query")
    if broker.username is not None and broker.password is None:
        raise _bad(option, url, BROKER_FORM, "a user needs a password (USER:PASSWORD@)")
    return broker


def check_database_url(url: str, option: str = "--db") -> str:
    """``url`` if it is a PostgreSQL URL (``postgresql://`` or ``postgres://`` with a host)."""
    shown = redacted(url)
    try:
        parts = urlsplit(url)
        _ = parts.port
    except ValueError as error:
        raise FloorError(f"{option} {shown!r}: not a valid URL ({error}); expected {DATABASE_FORM}") from None
    if parts.scheme not in ("postgresql", "postgres"):
        scheme = parts.scheme + "://" if parts.scheme else "(none)"
        raise FloorError(f"{option} {shown!r}: unknown scheme {scheme}; expected {DATABASE_FORM}")
    if not parts.hostname:
        raise FloorError(f"{option} {shown!r}: no host; expected {DATABASE_FORM}")
    return url

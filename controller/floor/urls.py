"""Broker URLs and topics: ``mqtt://[USER:PASSWORD@]HOST:PORT[/SITE/TABLE]`` (``mqtts://`` for TLS).

A table publishes under ``croupier/SITE/TABLE/`` (:data:`TOPIC_ROOT`); see docs/floor.md.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

from config.schema import FLOOR_NAME
from controller.core.exceptions import FeedError, FloorError
from controller.core.undecodable import undecodable
from controller.i18n.message import Message, message

TOPIC_ROOT = "croupier"
SCHEMES = {"mqtt": 1883, "mqtts": 8883}
"""Each scheme and its port when the URL gives none."""
NAME = FLOOR_NAME
"""A site or table name: one topic level, without MQTT's wildcards or separator (defined with the config's
``[feed]`` keys)."""
FEED_FORM = message("url.feed_form", "mqtt://[USER:PASSWORD@]HOST:PORT/SITE/TABLE (or mqtts:// for TLS)")


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


BROKER_FORM = message("url.broker_form", "mqtt://[USER:PASSWORD@]HOST:PORT (or mqtts:// for TLS)")
DATABASE_FORM = "postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE"


PASSWORD_ENV = "CROUPIER_MQTT_PASSWORD"
"""The environment variable that gives the MQTT password of a URL with a user and no password."""
PASSWORD_FILE_ENV = "CROUPIER_MQTT_PASSWORD_FILE"
"""... or the file whose first line is that password."""
QUERY_SECRET = re.compile(r"((?:^|[?&;\s])(?:password|passwd|sslpassword)=)[^&;#\s]*", re.IGNORECASE)


def redacted(url: str) -> str:
    """``url`` with any password replaced by ``***`` (for messages): the password of its user part, however
    the URL is written (without a scheme, with a path or a port that does not parse), and any
    ``password=`` parameter; "the URL given" for one that cannot be parsed at all."""
    try:
        parts = urlsplit(url)
        if parts.password is not None:
            host = parts.hostname or ""
            port = f":{parts.port}" if parts.port else ""
            netloc = f"{parts.username}:***@{host}{port}"
            return QUERY_SECRET.sub(r"\1***", urlunsplit((parts.scheme, netloc, parts.path, parts.query,
                                                          parts.fragment)))
    except ValueError:
        return "the URL given"
    return QUERY_SECRET.sub(r"\1***", _masked_user_part(url))


def _masked_user_part(text: str) -> str:
    """``text`` with what lies between the first ``:`` of its user part and the last ``@`` masked (a URL
    written without ``//``, which ``urlsplit`` reads as a path)."""
    scheme, separator, rest = text.partition("://")
    if not separator:
        scheme, rest = "", text
    at = rest.rfind("@")
    if at < 0 or ":" not in rest[:at]:
        return text
    user = rest[:at].split(":", 1)[0]
    return f"{scheme}{separator}{user}:***@{rest[at + 1:]}"


def secrets_in(text: str) -> list[str]:
    """The passwords a URL ``text`` holds (as written and decoded), to keep them out of any output."""
    found: list[str] = []
    try:
        password = urlsplit(text).password
    except ValueError:
        password = None
    if password is None:
        rest = text.partition("://")[2] or text
        at = rest.rfind("@")
        if at >= 0 and ":" in rest[:at]:
            password = rest[:at].split(":", 1)[1]
    if password:
        found += [password, unquote(password)]
    found += [match.group(0).split("=", 1)[1] for match in QUERY_SECRET.finditer(text)]
    return [secret for secret in dict.fromkeys(found) if len(secret) >= 3]


LINE_LIMIT = 4096
"""The most characters a password file's first line is read for."""


class LongLine(ValueError):
    """A file's first line goes on past :data:`LINE_LIMIT` characters: it is no password file."""


def first_line(path: str) -> str:
    """The first line of the UTF-8 text file ``path``, without its end (nor a byte order mark). Raises
    :class:`OSError`, :class:`UnicodeDecodeError`, or :class:`LongLine` for a line longer than :data:`LINE_LIMIT`
    characters: a path that is no password file may hold one endless line (``/dev/zero``)."""
    with open(path, encoding="utf-8-sig") as handle:  # -sig: a BOM is no password
        line = handle.readline(LINE_LIMIT + 2)  # the line's end, \r\n, may follow the longest line taken
    line = line.rstrip("\r\n")
    if len(line) > LINE_LIMIT:
        raise LongLine()
    return line


def unread_reason(error: OSError | UnicodeDecodeError | LongLine) -> Message | str:
    """Why :func:`first_line` could not read a file, for a message's ``{reason}``."""
    if isinstance(error, LongLine):
        return message("password.line_too_long", "its first line is longer than {limit} characters",
                       limit=LINE_LIMIT)
    return getattr(error, "strerror", None) or type(error).__name__


def password_from_environment(label: str, password_file: str | None = None) -> str | None:
    """The MQTT password for a URL with a user and none of its own: ``password_file``'s first line (a command's
    ``--password-file``), else :data:`PASSWORD_ENV`, else :data:`PASSWORD_FILE_ENV`'s file; None: none given."""
    path = password_file if password_file is not None else None
    if path is None and PASSWORD_ENV in os.environ:
        password = os.environ[PASSWORD_ENV]
        if undecodable(password) is not None:  # never shown, not even as bytes
            raise FeedError(message("url.password_not_utf8", "{label}: the password in {variable} is not UTF-8 text; "
                                    "set it again as UTF-8 text", label=label, variable=PASSWORD_ENV))
        return password
    path = path if path is not None else os.environ.get(PASSWORD_FILE_ENV) or None
    if path is None:
        return None
    where = "--password-file" if password_file is not None else PASSWORD_FILE_ENV
    try:
        line = first_line(path)
    except (OSError, UnicodeDecodeError, LongLine) as error:
        raise FeedError(message("url.password_file", "{label}: the password file {path} ({where}) cannot be read "
                                "({reason}); give a readable file whose first line is the password", label=label,
                                path=repr(path), where=where, reason=unread_reason(error))) from None
    if not line:
        raise FeedError(message("url.password_file_empty", "{label}: the password file {path} ({where}) is empty; "
                                "its first line is the password", label=label, path=repr(path), where=where))
    return line


UNPARSABLE_URL = message("url.unparsable", "'the URL given'")
"""How an error shows a URL that cannot be parsed (so its password cannot be hidden)."""


def shown_url(url: str) -> Message | str:
    """``url`` as an error quotes it, its password hidden (:func:`redacted`); one that cannot be parsed is
    :data:`UNPARSABLE_URL`, worded."""
    shown = redacted(url)
    return UNPARSABLE_URL if shown == "the URL given" else repr(shown)


def _legibly_shown(legible: str) -> Message | str:
    """A URL that was not UTF-8 text, its bytes already written as ``\\xNN`` (:func:`undecodable`), as an error
    quotes it: its password hidden, its backslashes not doubled as :func:`repr` would."""
    shown = redacted(legible)
    return UNPARSABLE_URL if shown == "the URL given" else f"'{shown}'"


def _bad(label: str, url: str, form: Message, problem: Message, shown: Message | str | None = None) -> FeedError:
    return FeedError(message("url.bad", "{label} {url}: {problem}; expected {form}", label=label,
                             url=shown_url(url) if shown is None else shown, problem=problem, form=form))


BAD_PORT = message("url.bad_port", "the port is not a number from 1 to 65535")


NOT_UTF8 = message("url.not_utf8", "it holds bytes that are not UTF-8 text (shown as \\xNN)")


def _port(parts: SplitResult, label: str, url: str, form: Message) -> int:
    try:
        port = parts.port
    except ValueError:
        raise _bad(label, url, form, BAD_PORT) from None
    if port == 0:
        raise _bad(label, url, form, BAD_PORT)
    return port if port is not None else SCHEMES[parts.scheme]


def parse_broker(url: str, label: str = "--broker", form: Message | None = None,
                 ca_file: str = "", password_file: str | None = None,
                 need_password: bool = True) -> tuple[Broker, list[str]]:
    """The broker of ``url`` and the path's levels after it (``["SITE", "TABLE"]`` for a feed URL).

    Raises :class:`FeedError` naming ``label`` and ``url`` for anything that is not such a URL (a user with no
    password of its own and none from the environment too, unless not ``need_password``: a URL only checked).
    """
    form = form or message("url.any_broker_form", "mqtt://[USER:PASSWORD@]HOST:PORT (or mqtts://)")
    text = url.strip()
    if not text:
        raise _bad(label, url, form, message("url.empty", "it is empty"))
    legible = undecodable(text)
    if legible is not None:
        raise _bad(label, url, form, NOT_UTF8, _legibly_shown(legible))
    try:
        parts = urlsplit(text)
        _ = parts.hostname
    except ValueError:
        raise _bad(label, url, form, message("url.unparsable_host", "its HOST cannot be read (an IPv6 address is "
                                             "written [ADDRESS])")) from None
    if parts.scheme not in SCHEMES:
        raise _bad(label, url, form, message("url.not_mqtt", "scheme {scheme} is not mqtt:// or mqtts://",
                                             scheme=repr(parts.scheme + "://")) if parts.scheme else
                   message("url.no_scheme", "it has no scheme (mqtt:// or mqtts://)"))
    if parts.query or parts.fragment:
        raise _bad(label, url, form, message("url.no_query", "it takes no ?query or #fragment"))
    if not parts.hostname:
        raise _bad(label, url, form, message("url.no_host", "it names no HOST"))
    _refuse_unprintable_host(text, label, url, form)
    port = _port(parts, label, url, form)
    if ca_file and parts.scheme != "mqtts":
        raise FeedError(message("url.ca_needs_tls", "{label} {url}: a CA file ([feed] ca_file) is for mqtts:// only; "
                                "use mqtts:// or leave ca_file empty", label=label, url=shown_url(url)))
    if ca_file and not os.path.isfile(ca_file):
        raise FeedError(message("url.no_ca_file", "[feed] ca_file {path}: no such file; give the path of a PEM CA "
                                "file", path=repr(ca_file)))
    levels = [level for level in parts.path.split("/")[1:]] if parts.path not in ("", "/") else []
    user = unquote(parts.username) if parts.username is not None else None
    password = unquote(parts.password) if parts.password is not None else None
    if user is not None and password is None and need_password:
        password = password_from_environment(label, password_file)
        if password is None:
            raise _bad(label, url, form, message("url.needs_password_given", "a user needs a password: in the URL "
                                                 "(USER:PASSWORD@), or from {variable}, {file_variable} or "
                                                 "--password-file", variable=PASSWORD_ENV,
                                                 file_variable=PASSWORD_FILE_ENV))
    return Broker(parts.hostname, port, parts.scheme == "mqtts", user, password, ca_file or None), levels


def _refuse_unprintable_host(text: str, label: str, url: str, form: Message) -> None:
    """Refuse a HOST with a space or a control character, which no host name or address holds (read from the URL
    as written: ``urlsplit`` drops a tab or a new line, so that the host it gives is one never written)."""
    address = text.partition("://")[2].split("/", 1)[0].rpartition("@")[2]
    host = address[1:].partition("]")[0] if address.startswith("[") else address.rpartition(":")[0] or address
    if any(character.isspace() or not character.isprintable() for character in host):
        raise _bad(label, url, form, message("url.unprintable_host", "its HOST {host} is not a host name or address "
                                             "(no spaces or control characters)", host=repr(host)))


def parse_feed(url: str, site: str = "", table: str = "", ca_file: str = "", label: str = "--feed") -> FeedTarget:
    """A table's feed from ``url`` (``/SITE/TABLE`` in its path, or else ``site`` and ``table``).

    Raises :class:`FeedError` naming ``label`` and ``url`` when the URL or a name is not valid.
    """
    broker, levels = parse_broker(url, label, FEED_FORM, ca_file)
    if levels:
        site, table = _site_table(label, url, levels)
    elif not (site and table):
        raise _bad(label, url, FEED_FORM, message("url.no_site_table", "it names no /SITE/TABLE (and [feed] site "
                                                  "and table are not both set)"))
    _check_names(label, url, site, table)
    return FeedTarget(broker, site, table)


def check_feed_form(url: str, label: str = "--feed") -> None:
    """Refuse ``url`` unless it has a feed URL's form (raises :class:`FeedError` naming ``label`` and ``url``): a
    config layer's ``[feed] url`` that another overrides. Only the form: the site and table may come from ``[feed]
    site`` and ``table``, a user's password from the environment where the URL is used."""
    _, levels = parse_broker(url, label, FEED_FORM, need_password=False)
    if levels:
        _check_names(label, url, *_site_table(label, url, levels))


def _site_table(label: str, url: str, levels: list[str]) -> tuple[str, str]:
    if len(levels) != 2:
        raise _bad(label, url, FEED_FORM, message("url.not_site_table", "the path {path} is not /SITE/TABLE",
                                                  path=repr("/" + "/".join(levels))))
    return levels[0], levels[1]


def _check_names(label: str, url: str, site: str, table: str) -> None:
    for what, name in (("SITE", site), ("TABLE", table)):
        if not NAME.fullmatch(name):
            raise _bad(label, url, FEED_FORM, message("url.bad_name", "{what} {name} is not 1-64 letters, digits, "
                                                      "'-', '_' or '.'", what=what, name=repr(name)))


def parse_broker_url(url: str, option: str = "--broker", ca_file: str = "",
                     password_file: str | None = None) -> Broker:
    """A broker's own address (no /SITE/TABLE): ``mqtt://[USER[:PASSWORD]@]HOST:PORT`` or ``mqtts://...`` (a user
    without a password in the URL takes it from ``password_file`` or the environment)."""
    broker, levels = parse_broker(url, option, BROKER_FORM, ca_file, password_file)
    if levels:
        raise _bad(option, url, BROKER_FORM, message("url.broker_path", "the broker's address takes no path or query"))
    return broker


def refuse_undecodable_database_url(url: str, option: str = "--db") -> None:
    """Refuse a database URL that is not UTF-8 text (raises :class:`FloorError` naming ``option`` and the URL, its
    bytes shown as ``\\xNN`` and its password hidden): libpq takes UTF-8 only."""
    legible = undecodable(url)
    if legible is not None:
        raise FloorError(message("url.db_not_utf8", "{option} {url}: {problem}; expected {form}", option=option,
                                 url=_legibly_shown(legible), problem=NOT_UTF8, form=DATABASE_FORM))


def check_database_url(url: str, option: str = "--db") -> str:
    """``url`` if it is a PostgreSQL URL (``postgresql://`` or ``postgres://`` with a host)."""
    refuse_undecodable_database_url(url, option)
    shown = shown_url(url)
    try:
        parts = urlsplit(url)
        _ = parts.port
    except ValueError as error:
        raise FloorError(message("url.db_invalid", "{option} {url}: not a valid URL ({reason}); expected {form}",
                                 option=option, url=shown, reason=str(error), form=DATABASE_FORM)) from None
    if parts.scheme not in ("postgresql", "postgres"):
        raise FloorError(message("url.db_scheme", "{option} {url}: unknown scheme {scheme}; expected {form}",
                                 option=option, url=shown, scheme=parts.scheme + "://", form=DATABASE_FORM)
                         if parts.scheme else
                         message("url.db_no_scheme", "{option} {url}: unknown scheme (none); expected {form}",
                                 option=option, url=shown, form=DATABASE_FORM))
    if not parts.hostname:
        raise FloorError(message("url.db_no_host", "{option} {url}: no host; expected {form}", option=option,
                                 url=shown, form=DATABASE_FORM))
    return url

"""The floor's broker accounts: a Mosquitto password file and ACL, one account per table (``croupier floor acl``).

Each table gets its own user, allowed to publish only its own ``croupier/SITE/TABLE/`` journal, events,
state and status (and its Last Will there) and to read only its own ``archived`` head; each archive user
reads every table's journal and state and publishes only the tables' ``archived`` heads and its own health;
the pit dashboard users read every table's topics and the archives' health and publish nothing. The broker
settings bound a message's size and say how to bind each client id to its account
(``use_username_as_clientid`` under each listener: no account takes another's session or disconnects it).
Passwords are generated (``secrets.token_urlsafe``) or kept from the credentials file of an earlier run (or
one written by hand), so adding a table changes no other table's password. See docs/floor.md, "Security".

The password file holds Mosquitto's own PBKDF2-SHA512 hashes (``USER:$7$ITERATIONS$SALT$HASH``, what
``mosquitto_passwd`` writes), so no Mosquitto is needed where the files are made.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import secrets
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.core.exceptions import FloorError
from controller.floor.urls import NAME, TOPIC_ROOT

HEALTH_ROOT = "croupier-archive"
"""Where each archive process publishes its health: ``croupier-archive/USER/health``."""
TABLE_WRITES = ("journal", "events", "state", "status")
"""A table's own topics it publishes (``archived`` is the archive's word to it: it only reads that)."""
BIND_CLIENT_IDS = "use_username_as_clientid true"
"""Each client's id is its account's user. Mosquitto 2.0 takes it per listener: under each ``listener`` line."""
LISTENER_NOTE = ("# Each client's id must be its account's user, so that no account can take another's\n"
                 "# session (wiping what the broker keeps for it) or disconnect it by connecting with its id.\n"
                 "# Mosquitto takes this per listener: put the next line under each `listener` line of\n"
                 "# mosquitto.conf (in a file of include_dir it would open a second listener, on port 1883):\n"
                 f"#   {BIND_CLIENT_IDS}\n")
MESSAGE_SIZE_LIMIT = 1 << 20
"""The broker's message_size_limit: a journal's largest records, its checkpoints, are tens of KB."""

ROLES = ("table", "archive", "floor")
"""A table publishes its own topics; the archive and the pit dashboard (``floor``) only read."""
PASSWORD_FILE, ACL_FILE, CREDENTIALS_FILE, BROKER_CONFIG = "passwd", "acl", "credentials", "mosquitto-floor.conf"
ITERATIONS = 101
"""Mosquitto's own default: the generated passwords are random (192 bits), so no iteration count slows a guess."""
MAX_QUEUED = 1_000_000
"""The broker's max_queued_messages for the floor: an archive briefly away or behind loses nothing (docs/floor.md)."""
PLACE_FORM = "SITE/TABLE or SITE/TABLE=USER (SITE and TABLE: 1-64 letters, digits, '-', '_' or '.')"
USER = re.compile(r"[A-Za-z0-9_.-]{1,129}")
"""A broker user: safe in a URL, the password file and the ACL (``SITE-TABLE`` is at most 129 characters)."""
READ_EVERY_TABLE = f"{TOPIC_ROOT}/+/+/#"


@dataclass(frozen=True)
class Account:
    """One broker user: its name, password, role and, for a table, its place ``SITE/TABLE``."""

    user: str
    password: str
    role: str
    place: str | None = None

    def acl_lines(self) -> list[str]:
        """This account's section of the Mosquitto ACL file."""
        if self.role == "table":
            why = (f"# table {self.place}: publishes (and sets its Last Will) under its own topics only; reads only "
                   "the archive's word on it")
            return [why, f"user {self.user}", *(f"topic write {TOPIC_ROOT}/{self.place}/{name}" for name in
                                                TABLE_WRITES), f"topic read {TOPIC_ROOT}/{self.place}/archived"]
        if self.role == "archive":
            return ["# archive: reads every table's journal (its $share/GROUP/... subscription too) and state; "
                    "publishes only each table's archived head and its own health", f"user {self.user}",
                    f"topic read {TOPIC_ROOT}/+/+/journal", f"topic read {TOPIC_ROOT}/+/+/state",
                    f"topic write {TOPIC_ROOT}/+/+/archived", f"topic write {HEALTH_ROOT}/{self.user}/health"]
        return [f"# {self.role}: reads every table's topics and the archives' health; publishes nothing",
                f"user {self.user}", f"topic read {READ_EVERY_TABLE}", f"topic read {HEALTH_ROOT}/+/health"]


def _name(text: str, what: str, where: str) -> str:
    if what == "USER":
        if not USER.fullmatch(text):
            raise FloorError(f"{where}: USER {text!r} is not 1-129 letters, digits, '-', '_' or '.'; give a user "
                             "name of those")
    elif not NAME.fullmatch(text):
        raise FloorError(f"{where}: {what} {text!r} is not 1-64 letters, digits, '-', '_' or '.' (a topic level has "
                         f"no '/', '+' or '#'); expected {PLACE_FORM}")
    return text


def parse_place(text: str, where: str) -> tuple[str, str | None]:
    """``("SITE/TABLE", USER or None)`` from ``SITE/TABLE[=USER]``; ``where`` names the input in errors."""
    place, equals, user = text.strip().partition("=")
    levels = place.split("/")
    if len(levels) != 2:
        raise FloorError(f"{where}: {text.strip()!r} is not SITE/TABLE; expected {PLACE_FORM}")
    site, table = (_name(level, what, where) for level, what in zip(levels, ("SITE", "TABLE"), strict=True))
    return f"{site}/{table}", (_name(user, "USER", where) if equals else None)  # "=" and no user: refused


def read_tables_file(path: str) -> list[tuple[str, str | None]]:
    """The tables of ``path``: one ``SITE/TABLE[=USER]`` a line; blank lines and ``#`` comments are skipped."""
    try:
        lines = Path(path).read_text(encoding="utf-8-sig").splitlines()  # -sig: a BOM an editor wrote is no site
    except FileNotFoundError:
        raise FloorError(f"--tables {path!r}: no such file; give a file with one SITE/TABLE a line") from None
    except (OSError, UnicodeDecodeError) as error:
        raise FloorError(f"--tables {path!r}: cannot be read ({error}); give a text file with one SITE/TABLE "
                         "a line") from None
    places = []
    for number, line in enumerate(lines, start=1):
        text = line.split("#", 1)[0].strip()
        if text:
            places.append(parse_place(text, f"--tables {path!r} line {number}"))
    return places


def read_credentials(path: Path) -> dict[str, str]:
    """The passwords of an existing credentials file (``USER PASSWORD ...`` a line); none when it is missing."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        raise FloorError(f"--credentials {str(path)!r}: cannot be read ({error}); give the credentials file of an "
                         "earlier run, or a path where none is yet") from None
    passwords = {}
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) < 2:
            raise FloorError(f"--credentials {str(path)!r} line {number}: expected USER PASSWORD [ROLE [SITE/TABLE]], "
                             f"got {len(fields)} field; give each user's password on its line")
        passwords[_name(fields[0], "USER", f"--credentials {str(path)!r} line {number}")] = fields[1]
    return passwords


def plan_accounts(tables: Iterable[tuple[str, str | None]], archive_users: Sequence[str], floor_users: Sequence[str],
                  passwords: dict[str, str]) -> list[Account]:
    """Every account: the tables (user ``SITE-TABLE`` unless given), then the archive's and the dashboard's.

    A password in ``passwords`` is kept; the others are generated. Raises :class:`FloorError` when two
    accounts would share a user, or a table is listed twice.
    """
    wanted: list[tuple[str, str, str | None]] = []
    places: set[str] = set()
    for place, user in tables:
        if place in places:
            raise FloorError(f"table {place} is listed twice; list each table once")
        places.add(place)
        wanted.append((user or place.replace("/", "-"), "table", place))
    for role, users in (("archive", archive_users), ("floor", floor_users)):
        wanted.extend((_name(user, "USER", f"--{role}"), role, None) for user in users)
    owners: dict[str, str] = {}
    for user, role, table_place in wanted:
        owner = f"table {table_place}" if table_place else f"the {role} user"
        if user in owners:
            raise FloorError(f"{owners[user]} and {owner} would both be broker user {user!r}; give one of them "
                             "a user of its own (SITE/TABLE=USER, or another --archive/--floor name)")
        owners[user] = owner
    if not places:
        raise FloorError("no tables: give them with --table SITE/TABLE or --tables FILE")
    return [Account(user, passwords.get(user) or secrets.token_urlsafe(24), role, place)
            for user, role, place in wanted]


def password_hash(password: str, salt: bytes | None = None, iterations: int = ITERATIONS) -> str:
    """Mosquitto's hash of ``password``: ``$7$ITERATIONS$SALT$HASH``, PBKDF2-SHA512, base64 (as mosquitto_passwd)."""
    salt = salt if salt is not None else secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations)
    return f"$7${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def password_file_text(accounts: Sequence[Account]) -> str:
    """The Mosquitto ``password_file``: ``USER:HASH`` a line."""
    return "".join(f"{account.user}:{password_hash(account.password)}\n" for account in accounts)


def acl_file_text(accounts: Sequence[Account]) -> str:
    """The Mosquitto ``acl_file``: nothing for anonymous clients, then each account's section."""
    lines = ["# Written by croupier floor acl. Each user may use only the topics listed under it; anonymous",
             "# clients nothing. Mosquitto checks read access on every message it delivers, so a subscription",
             "# beyond these (croupier/#, another table's topics) is granted but receives nothing.", ""]
    for account in accounts:
        lines.extend([*account.acl_lines(), ""])
    return "\n".join(lines)


def credentials_text(accounts: Sequence[Account]) -> str:
    """The credentials the installer hands out: ``USER PASSWORD ROLE [SITE/TABLE]`` a line."""
    lines = ["# croupier floor acl: the broker's accounts, USER PASSWORD ROLE [SITE/TABLE] a line. Keep it secret",
             "# (mode 0600); hand each table its own line: --feed mqtt://USER:PASSWORD@HOST:PORT/SITE/TABLE"]
    lines += [" ".join(filter(None, (account.user, account.password, account.role, account.place)))
              for account in accounts]
    return "\n".join(lines) + "\n"


def broker_config_text(directory: Path) -> str:
    """The lines that make a Mosquitto use the files (``include_dir`` it, or paste them into mosquitto.conf)."""
    return (f"# Written by croupier floor acl: the floor's accounts\nallow_anonymous false\n"
            f"password_file {directory.resolve() / PASSWORD_FILE}\nacl_file {directory.resolve() / ACL_FILE}\n"
            f"{LISTENER_NOTE}"
            "# The largest message the broker takes (bytes); a larger one is refused to its sender\n"
            f"message_size_limit {MESSAGE_SIZE_LIMIT}\n"
            "# QoS 1 messages queued for a subscriber (the archive) before the broker drops them; Mosquitto's\n"
            "# default, 1000, is a few seconds of a busy floor (docs/floor.md)\n"
            f"max_queued_messages {MAX_QUEUED}\n")


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, readable by its owner only (0600), whatever the umask."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(handle, 0o600)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_floor_files(directory: Path, accounts: Sequence[Account], credentials: Path) -> list[Path]:
    """Write the password file, the ACL, the broker's config lines and the credentials; returns their paths."""
    files = {directory / PASSWORD_FILE: password_file_text(accounts), directory / ACL_FILE: acl_file_text(accounts),
             directory / BROKER_CONFIG: broker_config_text(directory), credentials: credentials_text(accounts)}
    for path, text in files.items():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_private(path, text)
        except OSError as error:
            raise FloorError(f"{str(path)!r}: cannot be written ({error.strerror or error}); give --out (and "
                             "--credentials) a directory you may write to") from None
    return list(files)

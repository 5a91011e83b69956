"""Typed settings: one frozen pydantic model per config section, the only config module the core imports.

The loader (:mod:`config.loader`) reads the file, the environment and the command line into
:class:`Settings`. Values are checked strictly (a TOML file gives them typed); a validator that
refuses a value raises :class:`Refused`, and :func:`expected` says what a key takes, so that the
loader's one-line errors name the key, what was expected and what was given.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar, Literal, get_args, get_origin
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from controller.i18n.languages import LANGUAGES, language_problem

DEFAULT_CUT_FROM_END = 16
MIN_CUT_FROM_END = 12
"""Enough cards below the cut card to finish a round and play one more (at most 11 cards)."""


def max_cut_from_end(decks: int) -> int:
    """The deepest cut card allowed: in the back half of the shoe, and at most 100 cards from the bottom."""
    return min(100, 26 * decks)


class Refused(ValueError):
    """A value a validator refuses.

    ``message`` is what to say after the key (``expected ..., got ...``); ``below`` continues the
    key's path (``[1]``, ``.04A1.role``); ``key`` names the key when a whole section is checked, and
    ``blame`` the key whose value made it wrong (``enabled`` for a missing ``reader``).
    """

    def __init__(self, message: str, below: str = "", key: str | None = None, blame: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.below = below
        self.key = key
        self.blame = blame


class Section(BaseModel):
    """A config section: frozen, unknown keys refused, every value of exactly its type."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)
    FILE_ONLY: ClassVar[frozenset[str]] = frozenset()
    """Keys that only the config file can set (not the environment)."""


class TableSettings(Section):
    """``[table]``: the game."""

    decks: int = Field(default=8, ge=1, le=8)
    variant: Literal["commission", "no_commission", "ez"] = "commission"
    dealing: Literal["face_up", "face_down"] = "face_up"
    reveal_confirm: Literal["none", "total"] = "none"
    language: str = Field(default="en", description=f"the dealer's language: one of {', '.join(LANGUAGES)}")
    messages_dir: str = Field(default="", description='a directory of the house\'s own <language>.po files '
                                                      '(docs/languages.md); "" = none')

    @field_validator("language")
    @classmethod
    def _known_language(cls, language: str) -> str:
        problem = language_problem(language)
        if problem is not None:
            raise Refused(f"expected one of {', '.join(LANGUAGES)}, got {language!r}")
        return language


BET_PAY_CLASSES: dict[str, tuple[str, ...]] = {
    "player": ("win",),
    "banker": ("win",),
    "banker_no_commission": ("win", "win_with_6"),
    "banker_ez": ("win",),
    "tie": ("win",),
    "player_pair": ("pair",),
    "banker_pair": ("pair",),
    "either_pair": ("pair",),
    "perfect_pair": ("pair",),
    "dragon_7": ("banker_three_card_7",),
    "panda_8": ("player_three_card_8",),
    "dragon_bonus_player": ("natural_win", "win_by_9", "win_by_8", "win_by_7", "win_by_6", "win_by_5", "win_by_4"),
    "dragon_bonus_banker": ("natural_win", "win_by_9", "win_by_8", "win_by_7", "win_by_6", "win_by_5", "win_by_4"),
    "big": ("big",),
    "small": ("small",),
    "lucky_6": ("two_cards", "three_cards"),
}
"""Each bet of the catalogue (controller/core/bets/catalogue.py, checked against this by a test) and
the pay classes ``[bets.pays]`` may set for it."""

BANKER_VARIANT_BETS = ("banker_no_commission", "banker_ez")
"""Bets settled as ``banker`` when ``[table] variant`` picks them; not listed in ``[bets] offered``."""

STANDARD_BETS = ("player", "banker", "tie", "player_pair", "banker_pair")
OFFERABLE_BETS = tuple(name for name in BET_PAY_CLASSES if name not in BANKER_VARIANT_BETS)


class BetsSettings(Section):
    """``[bets]``: the bets the house offers, their pay tables, and the live edge of every bet."""

    FILE_ONLY: ClassVar[frozenset[str]] = frozenset({"pays"})

    offered: list[str] = Field(default_factory=lambda: list(STANDARD_BETS),
                               description='a list of bet names, e.g. ["player", "banker", "tie", "dragon_7"]')
    pays: dict[str, dict[str, int | float | str]] = Field(
        default_factory=dict, description='a table of pay tables keyed by bet, e.g. {tie = {win = 9}}')
    live_edge: bool = Field(default=True, description="true or false")
    alert_above: float = Field(default=0.0, description="a number from -1 to 1 (expected net win per unit)")

    @field_validator("offered", mode="before")
    @classmethod
    def _bet_names(cls, names: Any) -> Any:
        allowed = OFFERABLE_BETS
        if isinstance(names, list):
            for index, name in enumerate(names):
                if name in BANKER_VARIANT_BETS:
                    raise Refused(f"expected one of {', '.join(allowed)}, got {name!r} "
                                  f"(the banker bet's variant is [table] variant)", f"[{index}]")
                if not isinstance(name, str) or name not in allowed:
                    raise Refused(f"expected one of {', '.join(allowed)}, got {name!r}", f"[{index}]")
        return names

    @field_validator("pays", mode="before")
    @classmethod
    def _pay_tables(cls, raw: Any) -> Any:
        if not isinstance(raw, dict):
            raise Refused(f"expected {expected(cls, 'pays')}, got {raw!r}")
        for bet, table in raw.items():
            classes = BET_PAY_CLASSES.get(bet)
            if classes is None:
                raise Refused(f"expected a bet, one of {', '.join(BET_PAY_CLASSES)}, got {bet!r}", f".{bet}")
            if not isinstance(table, dict):
                raise Refused(f"expected a table of pay classes ({', '.join(classes)}), got {table!r}", f".{bet}")
            for pay_class, value in table.items():
                if pay_class not in classes:
                    raise Refused(f"expected one of {', '.join(classes)}, got {pay_class!r}", f".{bet}")
                _check_pay(value, f".{bet}.{pay_class}")
        return raw

    @field_validator("alert_above")
    @classmethod
    def _edge_range(cls, value: float) -> float:
        if not -1 <= value <= 1:
            raise Refused(f"expected {expected(cls, 'alert_above')}, got {value!r}")
        return value


def _check_pay(value: Any, below: str) -> None:
    """A pay is a number of units won net, above 0 (``0.95``, ``"0.54"``, ``40``)."""
    words = 'a number of units won above 0, e.g. 40, 0.95 or "0.54"'
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise Refused(f"expected {words}, got {value!r}", below)
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise Refused(f"expected {words}, got {value!r}", below) from None
    if not amount.is_finite() or amount <= 0:
        raise Refused(f"expected {words}, got {value!r}", below)
    if amount != amount.quantize(Decimal("0.000001")):
        raise Refused(f"expected {words}, with at most six decimal places, got {value!r}", below)


class DriverSettings(Section):
    """``[driver]``: where cards come from."""

    url: str = "mock://"


class ShoeSettings(Section):
    """``[shoe]``: burn and cut-card procedure."""

    burn: Literal["first_card", "fixed", "none"] = "first_card"
    burn_cards: int = Field(default=3, ge=1, le=8)
    cut_card: Literal["one_more", "this_round"] = "one_more"
    cut_card_from_end: int = Field(default=DEFAULT_CUT_FROM_END, ge=MIN_CUT_FROM_END, le=100)


class ProcedureSettings(Section):
    """``[procedures]``: how the house resolves dealing errors."""

    extra_card: Literal["burn", "void"] = "burn"
    exposed_card: Literal["burn", "use"] = "burn"


class SimulationSettings(Section):
    """``[simulation]``: the simulated table."""

    rounds: int = Field(default=0, ge=0, le=10_000_000)
    auto_next: bool = True


class JournalSettings(Section):
    """``[journal]``: where ``croupier run`` journals by default ("" = no journal), and how often a
    journal keeps a checkpoint of the table's state."""

    path: str = ""
    checkpoint_every: int = Field(default=250, ge=0, le=1_000_000)
    """Inputs between two checkpoints within a shoe (0: only at shoe boundaries); a resume replays at most
    this many inputs."""


class SerialSettings(Section):
    """``[serial]``: defaults for the options a ``serial://``, ``socket://`` or ``loop://`` URL leaves out."""

    baudrate: int = Field(default=9600, ge=50, le=4_000_000)
    framing: Literal["line", "stx"] = "line"


def parse_host_port(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6; port 0 = any free port) as (host, port).

    Raises :class:`ValueError` saying what is wrong.
    """
    host, sep, port_text = text.rpartition(":")
    if not sep or not host:
        raise ValueError("expected HOST:PORT, e.g. 127.0.0.1:8080")
    try:
        port = int(port_text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise ValueError("the port must be a number 0-65535")
    return host.strip("[]"), port


class ScoreboardSettings(Section):
    """``[scoreboard]``: where ``croupier run``/``simulate`` serve the web scoreboard without ``--scoreboard``."""

    address: str = Field(default="", description='HOST:PORT, e.g. "127.0.0.1:8080" ("" = no scoreboard)')
    table_name: str = Field(default="", description='the table\'s name on the board, up to 40 characters, '
                                                    'e.g. "Baccarat 3" ("" = none)')
    limits: str = Field(default="", description='the table limits on the board, up to 80 characters, '
                                                'e.g. "Min 100 - Max 10,000" ("" = none)')

    @field_validator("table_name", "limits")
    @classmethod
    def _board_text(cls, text: str, info: ValidationInfo) -> str:
        longest = 40 if info.field_name == "table_name" else 80
        if len(text) > longest:
            raise Refused(f"at most {longest} characters, got {len(text)}")
        if any(not character.isprintable() for character in text):
            raise Refused(f"printable text on one line (no control characters), got {text!r}")
        return text

    languages: list[str] = Field(default_factory=lambda: ["en"], min_length=1, max_length=2,
                                 description="the board's languages, the first on top (e.g. [\"zh_Hant\", \"en\"])")

    @field_validator("languages")
    @classmethod
    def _known_languages(cls, languages: list[str]) -> list[str]:
        for index, language in enumerate(languages):
            if language_problem(language) is not None:
                raise Refused(f"expected one of {', '.join(LANGUAGES)}, got {language!r}", below=f"[{index}]")
        if len(set(languages)) != len(languages):
            raise Refused(f"expected different languages, got {languages!r}")
        return languages

    @field_validator("address")
    @classmethod
    def _host_port(cls, address: str) -> str:
        if address:
            try:
                parse_host_port(address)
            except ValueError as error:
                raise Refused(f"{error}, got {address!r}") from None
        return address


class FeedSettings(Section):
    """``[feed]``: where ``croupier run``/``simulate`` publish the journal without ``--feed`` (docs/floor.md)."""

    url: str = Field(default="", description='an MQTT URL, mqtt://[USER:PASSWORD@]HOST:PORT[/SITE/TABLE] '
                                              'or mqtts://..., "" = no feed')
    site: str = Field(default="", description="a name of letters, digits, '-', '_' or '.' (used when the url "
                                              "gives no /SITE/TABLE)")
    table: str = Field(default="", description="a name of letters, digits, '-', '_' or '.' (used when the url "
                                               "gives no /SITE/TABLE)")
    ca_file: str = Field(default="", description='the path of a PEM CA file for mqtts:// ("" = the system CAs)')
    will_delay: int = Field(default=10, ge=0, le=86_400)
    drain_timeout: float = Field(default=10.0, ge=0, le=3600,
                                 description="a number of seconds from 0 to 3600")


# -- [auth] ---------------------------------------------------------------------------

Role = Literal["dealer", "supervisor"]
ROLES: tuple[Role, ...] = ("dealer", "supervisor")
Identify = Literal["uid", "apdu"]
IDENTIFY_MODES: tuple[Identify, ...] = ("uid", "apdu")

DEFAULT_SUPERVISOR_ONLY: tuple[str, ...] = ("void", "manual", "foreign_card", "close_shoe")
"""Actions only a supervisor badge may approve, unless ``supervisor_only`` says otherwise."""
APPROVAL_ACTIONS: tuple[str, ...] = ("burn", "void", "use", "manual", "online", "foreign_card", "close_shoe")
"""Every action an approval can be asked for: a misdeal's resolutions, voiding for a foreign card
(``foreign_card``) and closing the shoe early (``close_shoe``); the misdeal policy is checked against it."""

DEFAULT_IDLE_SIGNOUT_SECONDS = 900.0
DEFAULT_READ_APDU = "00CA010000"
"""GET DATA of the badge ID, used with ``identify = "apdu"`` when no ``read_apdu`` is given."""

_HEX_SEPARATORS = re.compile(r"[\s:\-]")
_BADGE_KEYS = {"name": "a non-empty string", "role": '"dealer" or "supervisor"', "uid": "the badge UID in hex"}


def normalise_uid(text: str) -> str:
    """A badge UID/ID as upper-case hex without separators (``04:a1:b2`` -> ``04A1B2``).

    Raises :class:`ValueError` when ``text`` is not an even number of hex digits.
    """
    compact = _HEX_SEPARATORS.sub("", text).upper()
    if not compact or len(compact) % 2 or any(char not in "0123456789ABCDEF" for char in compact):
        raise ValueError(f"{text!r} is not a hex UID")
    return compact


def parse_apdu(text: str) -> bytes:
    """An APDU given as hex (spaces and colons allowed) as bytes; at least 4 bytes (CLA INS P1 P2).

    Raises :class:`ValueError` naming the text.
    """
    compact = _HEX_SEPARATORS.sub("", text)
    try:
        data = bytes.fromhex(compact)
    except ValueError:
        raise ValueError(f"{text!r} is not hex") from None
    if len(data) < 4:
        raise ValueError(f"{text!r} is {len(data)} bytes; an APDU has at least 4 (CLA INS P1 P2)")
    return data


def reader_from_url(url: str) -> str | None:
    """The reader name in ``pcsc://?reader=NAME`` (None when the URL names none)."""
    values = parse_qs(urlsplit(url).query, keep_blank_values=True).get("reader")
    return values[0] if values else None


@dataclass(frozen=True, slots=True)
class Badge:
    """One enrolled badge: its UID (or application ID, as hex), who holds it and their role."""

    uid: str
    name: str
    role: Role

    def can_approve(self, action: str, supervisor_only: Collection[str]) -> bool:
        """True when this badge's role may approve ``action``."""
        return self.role == "supervisor" or action not in supervisor_only


def _badge_entries(raw: Any) -> list[tuple[str, Any, Any]]:
    """(path below ``auth.badges``, UID text, entry) of each badge, from either form."""
    if isinstance(raw, Mapping):
        return [(f".{uid_text}", str(uid_text), entry) for uid_text, entry in raw.items()]
    if not isinstance(raw, list):
        raise Refused(f"expected a table of badges keyed by UID, each with name and role, got {raw!r}")
    entries: list[tuple[str, Any, Any]] = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, Mapping) or "uid" not in entry:
            raise Refused(f"expected a table with uid, name and role, got {entry!r}", f"[{index}]")
        entries.append((f"[{index}]", entry["uid"], entry))
    return entries


def _badge_from(below: str, uid_text: Any, entry: Any) -> Badge:
    """One badge entry, checked: its keys, a hex UID, a name and a role."""
    if not isinstance(entry, Mapping):
        raise Refused(f"expected a table with name and role, got {entry!r}", below)
    for key in entry:
        if key not in _BADGE_KEYS:
            raise Refused("unknown key; expected name and role", f"{below}.{key}")
    try:
        uid = normalise_uid(uid_text) if isinstance(uid_text, str) else ""
    except ValueError:
        uid = ""
    if not uid:
        raise Refused(f"expected the badge UID in hex (e.g. 04A1B2C3D4E5F6), got {uid_text!r}", below)
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise Refused(f"expected {_BADGE_KEYS['name']}, got {name!r}", f"{below}.name")
    role = entry.get("role")
    if role not in ROLES:
        raise Refused(f"expected {_BADGE_KEYS['role']}, got {role!r}", f"{below}.role")
    return Badge(uid, name.strip(), role)


def _badges_from(raw: Any) -> dict[str, Badge]:
    """``[auth.badges.UID]`` tables, or ``[[auth.badges]]`` entries each with a ``uid``."""
    badges: dict[str, Badge] = {}
    for below, uid_text, entry in _badge_entries(raw):
        badge = entry if isinstance(entry, Badge) else _badge_from(below, uid_text, entry)
        if badge.uid in badges and not isinstance(entry, Badge):
            raise Refused(f"badge {badge.uid} is enrolled twice (also as {badges[badge.uid].name!r})", below)
        badges[badge.uid] = badge
    return badges


class AuthSettings(Section):
    """``[auth]``: the badge reader, how badges are identified, and who may approve what.

    ``reader`` is the ``pcsc://?reader=NAME`` URL of the badge reader;
    ``select_apdu``/``read_apdu`` are normalised upper-case hex (used when
    ``identify == "apdu"``); ``badges`` maps the normalised UID to the badge.
    """

    FILE_ONLY: ClassVar[frozenset[str]] = frozenset({"badges"})

    enabled: bool = Field(default=False, description="true or false")
    reader: str | None = Field(default=None, description="a PC/SC reader URL, pcsc://?reader=NAME")
    identify: Identify = Field(default="uid", description='"uid" or "apdu"')
    select_apdu: str | None = Field(default=None, description='an APDU in hex, e.g. "00A4040008F043524F55504945"')
    read_apdu: str | None = Field(default=None, description='an APDU in hex, e.g. "00CA010000"')
    idle_signout_seconds: float = Field(default=DEFAULT_IDLE_SIGNOUT_SECONDS,
                                        description="a number of seconds >= 0 (0 = never)")
    supervisor_only: list[str] = Field(default_factory=lambda: list(DEFAULT_SUPERVISOR_ONLY),
                                       description='a list of action names, e.g. ["void", "manual"]')
    two_person: bool = Field(default=True, description="true or false (true: the dealer signed in cannot "
                                                       "approve their own input)")
    badges: dict[str, Badge] = Field(default_factory=dict,
                                     description="a table of badges keyed by UID, each with name and role")

    @field_validator("reader")
    @classmethod
    def _pcsc_url(cls, reader: str | None) -> str | None:
        if reader is not None and (urlsplit(reader).scheme != "pcsc" or not reader_from_url(reader)):
            raise Refused(f"expected {expected(cls, 'reader')}, got {reader!r}")
        return reader

    @field_validator("select_apdu", "read_apdu")
    @classmethod
    def _apdu_hex(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        try:
            return parse_apdu(value).hex().upper()
        except ValueError as error:
            raise Refused(f"expected {expected(cls, str(info.field_name))}, got {value!r} ({error})") from None

    @field_validator("idle_signout_seconds")
    @classmethod
    def _not_negative(cls, idle: float) -> float:
        if idle < 0 or idle != idle:
            raise Refused(f"expected {expected(cls, 'idle_signout_seconds')}, got {idle!r}")
        return idle

    @field_validator("supervisor_only")
    @classmethod
    def _action_names(cls, actions: list[str]) -> list[str]:
        for index, action in enumerate(actions):
            if action not in APPROVAL_ACTIONS:
                raise Refused(f"expected one of {', '.join(APPROVAL_ACTIONS)}, got {action!r}", f"[{index}]")
        return actions

    @field_validator("supervisor_only", mode="before")
    @classmethod
    def _action_list(cls, actions: Any) -> Any:
        if isinstance(actions, list):
            for index, action in enumerate(actions):
                if not isinstance(action, str):
                    raise Refused(f"expected one of {', '.join(APPROVAL_ACTIONS)}, got {action!r}", f"[{index}]")
        return actions

    @field_validator("badges", mode="before")
    @classmethod
    def _enrolled(cls, raw: Any) -> dict[str, Badge]:
        return _badges_from(raw)

    @model_validator(mode="before")
    @classmethod
    def _apdu_read_default(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("identify") == "apdu" and data.get("read_apdu") is None:
            return {**data, "read_apdu": DEFAULT_READ_APDU}
        return data

    @model_validator(mode="after")
    def _reader_when_enabled(self) -> AuthSettings:
        if self.enabled and self.reader is None:
            raise Refused(f"expected {expected(AuthSettings, 'reader')} when auth.enabled = true, got nothing",
                          key="reader", blame="enabled")
        return self

    @property
    def reader_name(self) -> str | None:
        """The PC/SC reader name from :attr:`reader` (None: not configured)."""
        return None if self.reader is None else reader_from_url(self.reader)

    def badge(self, uid: str) -> Badge | None:
        """The enrolled badge with this UID (any case or separators), or None."""
        try:
            return self.badges.get(normalise_uid(uid))
        except ValueError:
            return None


# -- all of it --------------------------------------------------------------------------


class ProtectionSettings(Section):
    """``[protection]``: game protection beyond the rules (docs/game-protection.md)."""

    sequence_check: bool = Field(default=True, description="true or false")
    """Compare each shoe's order, as it is dealt, with the earlier shoes' (the ``sequence_repeat`` alert)."""


class Settings(BaseModel):
    """All configuration, validated; ``source`` names where it came from (``environment > table.toml``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    table: TableSettings = Field(default_factory=TableSettings)
    driver: DriverSettings = Field(default_factory=DriverSettings)
    shoe: ShoeSettings = Field(default_factory=ShoeSettings)
    procedures: ProcedureSettings = Field(default_factory=ProcedureSettings)
    simulation: SimulationSettings = Field(default_factory=SimulationSettings)
    journal: JournalSettings = Field(default_factory=JournalSettings)
    serial: SerialSettings = Field(default_factory=SerialSettings)
    scoreboard: ScoreboardSettings = Field(default_factory=ScoreboardSettings)
    feed: FeedSettings = Field(default_factory=FeedSettings)
    auth: AuthSettings = Field(default_factory=AuthSettings)
    """``[auth]``: badges and approvals (documented in docs/pcsc.md)."""
    bets: BetsSettings = Field(default_factory=BetsSettings)
    protection: ProtectionSettings = Field(default_factory=ProtectionSettings)
    source: str = "built-in defaults"


def settings_data(settings: BaseModel) -> dict[str, Any]:
    """:class:`Settings` or one section as JSON-compatible data, keys in the order of the schema (what a
    journal stores)."""
    return settings.model_dump(mode="json")


SECTIONS: dict[str, type[Section]] = {
    "table": TableSettings,
    "driver": DriverSettings,
    "shoe": ShoeSettings,
    "procedures": ProcedureSettings,
    "simulation": SimulationSettings,
    "journal": JournalSettings,
    "serial": SerialSettings,
    "scoreboard": ScoreboardSettings,
    "feed": FeedSettings,
    "auth": AuthSettings,
    "bets": BetsSettings,
    "protection": ProtectionSettings,
}
"""Every config section, in the order of docs/config.md."""


def expected(section: type[Section], key: str) -> str:
    """What ``key`` of ``section`` takes, in words (``a whole number from 1 to 8``)."""
    field = section.model_fields[key]
    if field.description:
        return field.description
    if get_origin(field.annotation) is Literal:
        return "one of " + ", ".join(f'"{choice}"' for choice in get_args(field.annotation))
    bounds = {name: getattr(rule, name) for rule in field.metadata for name in ("ge", "le") if hasattr(rule, name)}
    if field.annotation is int and len(bounds) == 2:
        return f"a whole number from {bounds['ge']} to {bounds['le']}"
    words: dict[Any, str] = {int: "a whole number", bool: "true or false", str: "a string"}
    return words.get(field.annotation, "a value")


@dataclass(frozen=True)
class Problem:
    """The first thing wrong in a :class:`~pydantic.ValidationError`, in the words of a config error.

    ``key`` is the section's key (None: the whole section), ``below`` the path under it, ``message``
    what to say (``expected ..., got ...``), ``given_type`` the type of a value of the wrong type, and
    ``blame`` the key whose value made ``key`` wrong, when that is another key.
    """

    section: str | None
    key: str | None
    below: str
    message: str
    given_type: str | None = None
    blame: str | None = None


def first_problem(error: ValidationError, model: type[BaseModel]) -> Problem:
    """The first error of validating ``model`` (:class:`Settings` or one section), as a :class:`Problem`."""
    details = error.errors()[0]
    loc = list(details["loc"])
    section: str | None = None
    cls: type[BaseModel] = model
    if model is Settings and loc and isinstance(loc[0], str) and loc[0] in SECTIONS:
        section = str(loc.pop(0))
        cls = SECTIONS[section]
    elif issubclass(model, Section):
        section = next((name for name, kind in SECTIONS.items() if kind is model), None)
    key = str(loc.pop(0)) if loc else None
    below = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
    refused = details.get("ctx", {}).get("error")
    if isinstance(refused, Refused):
        return Problem(section, key or refused.key, refused.below + below, refused.message, blame=refused.blame)
    if details["type"] == "extra_forbidden":
        known = ", ".join(cls.model_fields)
        return Problem(section, key, below, f"unknown key; expected one of {known}")
    given = details["input"]
    wrong_type = details["type"].endswith("_type") or (details["type"] == "literal_error"
                                                       and not isinstance(given, str))
    wanted = expected(cls, key) if key in cls.model_fields and issubclass(cls, Section) else "a valid value"
    return Problem(section, key, below, f"expected {wanted}, got {given!r}",
                   type(given).__name__ if wrong_type else None)


__all__ = [
    "APPROVAL_ACTIONS",
    "DEFAULT_CUT_FROM_END",
    "DEFAULT_IDLE_SIGNOUT_SECONDS",
    "DEFAULT_READ_APDU",
    "DEFAULT_SUPERVISOR_ONLY",
    "IDENTIFY_MODES",
    "MIN_CUT_FROM_END",
    "ROLES",
    "SECTIONS",
    "AuthSettings",
    "Badge",
    "DriverSettings",
    "Identify",
    "JournalSettings",
    "Problem",
    "ProcedureSettings",
    "Refused",
    "Role",
    "ScoreboardSettings",
    "Section",
    "SerialSettings",
    "Settings",
    "ShoeSettings",
    "SimulationSettings",
    "TableSettings",
    "expected",
    "first_problem",
    "max_cut_from_end",
    "normalise_uid",
    "parse_apdu",
    "parse_host_port",
    "reader_from_url",
    "settings_data",
]

"""Typed settings: one frozen section (a ``msgspec.Struct``, see :mod:`config.typed`) per config section,
the only config module the core imports.

The loader (:mod:`config.loader`) reads the file, the environment and the command line into
:class:`Settings` (:func:`settings_from`). Values are checked strictly (a TOML file gives them typed): each
key's type and bounds by msgspec, its own check by the function its section's ``CHECKS`` names, which
returns the value or raises :class:`Refused`; ``expects`` says what a key takes, so that the loader's
one-line errors name the key, what was expected and what was given. The bet names and approval actions are
:mod:`controller.terms`', shared with the core.
"""

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, ClassVar, Literal
from urllib.parse import parse_qs, urlsplit

import msgspec
from msgspec import Meta, field

from config.typed import (
    Check,
    Invalid,
    Problem,
    Refused,
    Section,
    Worded,
    convert_section,
    expected_got,
    expected_words,
    expects,
    keys_of,
    worded_problem,
)
from controller.i18n.languages import LANGUAGES, language_problem
from controller.i18n.message import Message, message
from controller.terms import (
    APPROVAL_ACTIONS,
    BANKER_VARIANT_BETS,
    BET_PAY_CLASSES,
    OFFERABLE_BETS,
    STANDARD_BETS,
    ApprovalAction,
    BetName,
    Variant,
)

DEFAULT_CUT_FROM_END = 16
MIN_CUT_FROM_END = 12
"""Enough cards below the cut card to finish a round and play one more (at most 11 cards)."""


def one_of(names: Collection[str]) -> Message:
    """``one of a, b, c`` (names the config takes, shown as they are written)."""
    return message("config.expected.one_of_names", "one of {names}", names=", ".join(names))


def max_cut_from_end(decks: int) -> int:
    """The deepest cut card allowed: in the back half of the shoe, and at most 100 cards from the bottom."""
    return min(100, 26 * decks)


def _known_language(language: str) -> str:
    if language_problem(language) is not None:
        raise Refused(expected_got(one_of(LANGUAGES), language))
    return language


DEVICE_ID = re.compile(r"[A-Za-z0-9._/-]{1,64}")
"""A table's id (``[table] id``)."""


def _device_id(name: str) -> str:
    if name and not DEVICE_ID.fullmatch(name):
        raise Refused.expected(name)
    return name


class TableSettings(Section, frozen=True):
    """``[table]``: the game."""

    decks: Annotated[int, Meta(ge=1, le=8)] = 8
    variant: Variant = "commission"
    dealing: Literal["face_up", "face_down"] = "face_up"
    reveal_confirm: Literal["none", "total"] = "none"
    language: Annotated[str, Meta(extra=expects(message(
        "config.expected.table.language", "the dealer's language: one of {languages}",
        languages=", ".join(LANGUAGES))))] = "en"
    messages_dir: Annotated[str, Meta(extra=expects(message(
        "config.expected.table.messages_dir", 'a directory of the house\'s own <language>.po files '
                                                  '(docs/languages.md); "" = none')))] = ""
    id: Annotated[str, Meta(extra=expects(message(
        "config.expected.table.id", "the table's id in its journal's records: 1-64 letters, digits, '-', '_', '.' "
                                    "or '/' (\"\" = the feed's SITE/TABLE, else the host's name)")))] = ""

    CHECKS: ClassVar[Mapping[str, Check]] = {"language": _known_language, "id": _device_id}


def _offered_names(names: Any) -> Any:
    """Each bet of ``[bets] offered`` is one the house may offer (the banker's variant is ``[table] variant``)."""
    if isinstance(names, list):
        for index, name in enumerate(names):
            if name in BANKER_VARIANT_BETS:
                raise Refused(message("config.refused.banker_variant", "expected one of {names}, got {given} "
                                      "(the banker bet's variant is [table] variant)", names=", ".join(OFFERABLE_BETS),
                                      given=repr(name)), f"[{index}]")
            if not isinstance(name, str) or name not in OFFERABLE_BETS:
                raise Refused(expected_got(one_of(OFFERABLE_BETS), name), f"[{index}]")
        if len(set(names)) != len(names):  # a settlement is keyed by the bet's name: the second would be dropped
            raise Refused(expected_got(message("config.expected.different_bets", "different bets, each once"), names))
    return names

DEFAULT_ALERT_ABOVE: dict[str, float] = {
    "player": 0.002,
    "banker": 0.002,
    "banker_no_commission": 0.003,
    "banker_ez": 0.006,
    "tie": 0.019,
    "player_pair": 0.376,
    "banker_pair": 0.376,
    "either_pair": 0.302,
    "perfect_pair": 0.865,
    "dragon_7": 0.437,
    "panda_8": 0.326,
    "dragon_bonus_player": 0.145,
    "dragon_bonus_banker": 0.123,
    "big": 0.179,
    "small": 0.284,
    "lucky_6": 0.369,
}
"""Each bet's default ``[bets] alert_above``: the lowest live edge (in steps of 0.1%) at which an honest 8-deck
shoe raises at most 0.05 advantage alerts per bet, from ``croupier study --shoes 10000 --seed 1 --bets all``
(docs/bets.md, "Alert thresholds"; docs/data/study.json, which a test holds these to)."""


def _pay_tables(raw: Any) -> Any:
    """``[bets.pays]``: a table of pay classes for each bet, each pay a number of units won (:func:`_check_pay`)."""
    if not isinstance(raw, dict):
        raise Refused.expected(raw)
    for bet, table in raw.items():
        classes = BET_PAY_CLASSES.get(bet)
        if classes is None:
            raise Refused(expected_got(message("config.expected.bet", "a bet, one of {names}",
                                               names=", ".join(BET_PAY_CLASSES)), bet), f".{bet}")
        if not isinstance(table, dict):
            raise Refused(expected_got(message("config.expected.pay_classes", "a table of pay classes ({classes})",
                                               classes=", ".join(classes)), table), f".{bet}")
        for pay_class, value in table.items():
            if pay_class not in classes:
                raise Refused(expected_got(one_of(classes), pay_class), f".{bet}")
            _check_pay(value, f".{bet}.{pay_class}")
    return raw


MAX_PAY = 1_000_000_000
"""The largest pay (units won net per unit staked) ``[bets.pays]`` takes: far above any pay table, and small enough
for every figure made of it (a pay with its six decimal places, a counter's win in cents) to stay exact."""


def _check_pay(value: Any, below: str) -> None:
    """A pay is a number of units won net, above 0 and at most :data:`MAX_PAY` (``0.95``, ``"0.54"``, ``40``)."""
    pay = message("config.expected.pay", 'a number of units won above 0, e.g. 40, 0.95 or "0.54"')
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise Refused(expected_got(pay, value), below)
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise Refused(expected_got(pay, value), below) from None
    if not amount.is_finite() or amount <= 0:
        raise Refused(expected_got(pay, value), below)
    if amount > MAX_PAY:
        raise Refused(message("config.refused.pay_too_large", "expected {what}, at most {most}, got {given}",
                              what=pay, most=MAX_PAY, given=repr(value)), below)
    if amount != amount.quantize(Decimal("0.000001")):
        raise Refused(message("config.refused.pay_decimals", "expected {what}, with at most six decimal places, got "
                              "{given}", what=pay, given=repr(value)), below)


def _edge_range(value: Any) -> Any:
    """``[bets] alert_above``: one edge for every bet, or a table of edges keyed by bet (the others keep their
    default), each a number from -1 to 1; also asked of the value as given, so that an entry of the table that is
    no number is refused under its own key (``alert_above.tie``)."""
    if isinstance(value, dict):
        for bet, above in value.items():
            if bet not in BET_PAY_CLASSES:
                raise Refused(expected_got(message("config.expected.bet", "a bet, one of {names}",
                                                   names=", ".join(BET_PAY_CLASSES)), bet), f".{bet}")
            if isinstance(above, bool) or not isinstance(above, int | float) or not -1 <= above <= 1:
                raise Refused.expected(above, f".{bet}")
    elif isinstance(value, int | float) and not isinstance(value, bool) and not -1 <= value <= 1:
        raise Refused.expected(value)
    return value


class BetsSettings(Section, frozen=True):
    """``[bets]``: the bets the house offers, their pay tables, and the live edge of every bet."""

    FILE_ONLY: ClassVar[frozenset[str]] = frozenset({"pays"})

    offered: Annotated[list[BetName], Meta(extra=expects(message(
        "config.expected.bets.offered", 'a list of bet names, e.g. ["player", "banker", "tie", "dragon_7"]')))] = \
        field(default_factory=lambda: list(STANDARD_BETS))
    pays: Annotated[dict[str, dict[str, int | float | str]], Meta(extra=expects(message(
        "config.expected.bets.pays", "a table of pay tables keyed by bet, e.g. {example}",
        example="{tie = {win = 9}}")))] = \
        field(default_factory=dict)
    live_edge: Annotated[bool, Meta(extra=expects(message(
        "config.expected.bets.live_edge", "true or false")))] = True
    alert_above: Annotated[float | dict[str, float], Meta(extra=expects(message(
        "config.expected.bets.alert_above", "a number from -1 to 1 (expected net win per unit)")))] = \
        field(default_factory=lambda: dict(DEFAULT_ALERT_ABOVE))

    def alert_threshold(self, bet: str) -> float:
        """The live edge of ``bet`` above which it raises an advantage alert: ``alert_above`` (a number: every
        bet's), or its entry in the table (``[bets.alert_above]``), else the bet's default."""
        if isinstance(self.alert_above, dict):
            return self.alert_above.get(bet, DEFAULT_ALERT_ABOVE.get(bet, 0.0))
        return self.alert_above

    CHECKS: ClassVar[Mapping[str, Check]] = {"offered": _offered_names, "pays": _pay_tables,
                                             "alert_above": _edge_range}
    AS_GIVEN: ClassVar[Mapping[str, Check]] = {"offered": _offered_names, "pays": _pay_tables,
                                               "alert_above": _edge_range}


class DriverSettings(Section, frozen=True):
    """``[driver]``: where cards come from."""

    url: str = "mock://"


class ShoeSettings(Section, frozen=True):
    """``[shoe]``: burn and cut-card procedure."""

    burn: Literal["first_card", "fixed", "none"] = "first_card"
    burn_cards: Annotated[int, Meta(ge=1, le=8)] = 3
    cut_card: Literal["one_more", "this_round"] = "one_more"
    cut_card_from_end: Annotated[int, Meta(ge=MIN_CUT_FROM_END, le=100)] = DEFAULT_CUT_FROM_END


MAX_COUNT_EVERY = 100
"""The most rounds ``[procedures] count_every`` may leave between two stub counts (a shoe has fewer)."""


class ProcedureSettings(Section, frozen=True):
    """``[procedures]``: how the house resolves dealing errors, and how often the stub is counted."""

    extra_card: Literal["burn", "void"] = "burn"
    exposed_card: Literal["burn", "use"] = "burn"
    count_every: Annotated[int, Meta(ge=0, le=MAX_COUNT_EVERY, extra=expects(message(
        "config.expected.procedures.count_every", "a whole number of rounds from 0 to {most} (0: the stub is never "
        "counted)", most=MAX_COUNT_EVERY)))] = 0
    """Every this many rounds the dealer counts the stub before the next round starts (0: never; N.J.A.C.
    13:69F-35.9(e) asks for at least every five rounds with an automated dealing shoe)."""


class SimulationSettings(Section, frozen=True):
    """``[simulation]``: the simulated table."""

    rounds: Annotated[int, Meta(ge=0, le=10_000_000)] = 0
    auto_next: bool = True


class JournalSettings(Section, frozen=True):
    """``[journal]``: where ``croupier run`` journals by default ("" = no journal), and how often a
    journal keeps a checkpoint of the table's state."""

    path: str = ""
    checkpoint_every: Annotated[int, Meta(ge=0, le=1_000_000)] = 250
    """Inputs between two checkpoints within a shoe (0: only at shoe boundaries); a resume replays at most
    this many inputs."""
    clock_every: Annotated[int, Meta(ge=0, le=86_400)] = 3600
    """Seconds between two readings of the host clock's synchronisation that ``croupier run`` journals (0: only at
    start); a jump of the clock is journaled when it is noticed."""
    clock_limit: Annotated[float, Meta(gt=0, le=3600, extra=expects(message(
        "config.expected.journal.clock_limit", "a number of seconds above 0, up to 3600")))] = 1.0
    """Seconds: a clock that jumps by more (or backwards at all), or is this far off its time source, raises a
    ``clock`` alert."""


class SerialSettings(Section, frozen=True):
    """``[serial]``: defaults for the options a ``serial://``, ``socket://`` or ``loop://`` URL leaves out."""

    baudrate: Annotated[int, Meta(ge=50, le=4_000_000)] = 9600
    framing: Literal["line", "stx"] = "line"


ADDRESS_FORM = message("board.address_form", "expected HOST:PORT, e.g. 127.0.0.1:8080")
ADDRESS_PORT = message("board.address_port", "the port must be a number 0-65535")


def parse_host_port(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6; port 0 = any free port) as (host, port).

    Raises :class:`ValueError` (:class:`~config.typed.Worded`) saying what is wrong.
    """
    host, sep, port_text = text.rpartition(":")
    bracketed = host.startswith("[") and host.endswith("]")
    if bracketed:
        host = host[1:-1]
    # an IPv6 host only in brackets; no bracket left open, no blank in it, no empty host (every interface), nothing
    # unprintable (a control character, a byte that is not UTF-8: no socket can listen there)
    if (not sep or not host or any(mark in host for mark in "[] \t") or (":" in host) != bracketed
            or not host.isprintable()):
        raise Worded(ADDRESS_FORM)
    digits = port_text.isascii() and port_text.isdigit()  # int() also reads ' 80', '+80', '8_0' and other scripts
    if not digits or int(port_text) > 65535:
        raise Worded(ADDRESS_PORT)
    return host, int(port_text)


def _host_port(address: str) -> str:
    if address:
        try:
            parse_host_port(address)
        except ValueError as error:
            raise Refused(message("config.refused.address", "{problem}, got {given}",
                                  problem=worded_problem(error), given=repr(address))) from None
    return address


def _board_text(longest: int) -> Check:
    """Text for the board's header: one printable line of at most ``longest`` characters."""
    def check(text: str) -> str:
        if len(text) > longest:
            raise Refused(message("config.refused.too_long", "at most {longest} characters, got {length}",
                                  longest=longest, length=len(text)))
        if any(not character.isprintable() for character in text):
            raise Refused(message("config.refused.not_printable", "printable text on one line (no control "
                                  "characters), got {given}", given=repr(text)))
        return text
    return check


def _known_languages(languages: list[str]) -> list[str]:
    for index, language in enumerate(languages):
        if language_problem(language) is not None:
            raise Refused(expected_got(one_of(LANGUAGES), language), below=f"[{index}]")
    if len(set(languages)) != len(languages):
        raise Refused(expected_got(message("config.expected.different_languages", "different languages"), languages))
    return languages


class ScoreboardSettings(Section, frozen=True):
    """``[scoreboard]``: where ``croupier run``/``simulate`` serve the web scoreboard without ``--scoreboard``."""

    address: Annotated[str, Meta(extra=expects(message(
        "config.expected.scoreboard.address", 'HOST:PORT, e.g. "127.0.0.1:8080" ("" = no scoreboard)')))] = ""
    table_name: Annotated[str, Meta(extra=expects(message(
        "config.expected.scoreboard.table_name", 'the table\'s name on the board, up to 40 characters, '
                                                'e.g. "Baccarat 3" ("" = none)')))] = ""
    limits: Annotated[str, Meta(extra=expects(message(
        "config.expected.scoreboard.limits", 'the table limits on the board, up to 80 characters, '
                                            'e.g. "Min 100 - Max 10,000" ("" = none)')))] = ""
    languages: Annotated[list[str], Meta(min_length=1, max_length=2, extra=expects(message(
        "config.expected.scoreboard.languages", "the board's languages, the "
                                         "first on top (e.g. [\"zh_Hant\", \"en\"])")))] = field(
        default_factory=list)
    """Not set (empty): the board speaks ``[table] language``; set, it must name one or two languages."""

    CHECKS: ClassVar[Mapping[str, Check]] = {"address": _host_port, "table_name": _board_text(40),
                                             "limits": _board_text(80), "languages": _known_languages}


FLOOR_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
"""A site or table name on the floor: one MQTT topic level, without MQTT's wildcards or separator (the
``[feed]`` keys, and the ``/SITE/TABLE`` of a feed URL, :mod:`controller.floor.urls`)."""


def _floor_name(name: str) -> str:
    if name and not FLOOR_NAME.fullmatch(name):
        raise Refused.expected(name)
    return name


class FeedSettings(Section, frozen=True):
    """``[feed]``: where ``croupier run``/``simulate`` publish the journal without ``--feed`` (docs/floor.md)."""

    url: Annotated[str, Meta(extra=expects(message(
        "config.expected.feed.url", 'an MQTT URL, mqtt://[USER:PASSWORD@]HOST:PORT[/SITE/TABLE] '
                                         'or mqtts://..., "" = no feed')))] = ""
    site: Annotated[str, Meta(extra=expects(message(
        "config.expected.feed.site", "a name of 1-64 letters, digits, '-', '_' or '.' (used when the url "
                                          "gives no /SITE/TABLE; \"\" = none)")))] = ""
    table: Annotated[str, Meta(extra=expects(message(
        "config.expected.feed.table", "a name of 1-64 letters, digits, '-', '_' or '.' (used when the url "
                                           "gives no /SITE/TABLE; \"\" = none)")))] = ""
    ca_file: Annotated[str, Meta(extra=expects(message(
        "config.expected.feed.ca_file", 'the path of a PEM CA file for mqtts:// ("" = the system CAs)')))] = ""
    will_delay: Annotated[int, Meta(ge=0, le=86_400)] = 10
    drain_timeout: Annotated[float, Meta(ge=0, le=3600, extra=expects(message(
        "config.expected.feed.drain_timeout", "a number of seconds from 0 to 3600")))] = 10.0

    CHECKS: ClassVar[Mapping[str, Check]] = {"site": _floor_name, "table": _floor_name}


# -- [auth] ---------------------------------------------------------------------------

Role = Literal["dealer", "supervisor"]
ROLES: tuple[Role, ...] = ("dealer", "supervisor")
Identify = Literal["uid", "apdu"]
IDENTIFY_MODES: tuple[Identify, ...] = ("uid", "apdu")

DEFAULT_SUPERVISOR_ONLY: tuple[ApprovalAction, ...] = ("void", "manual", "foreign_card", "close_shoe")
"""Actions only a supervisor badge may approve, unless ``supervisor_only`` says otherwise."""
DEFAULT_IDLE_SIGNOUT_SECONDS = 900.0
DEFAULT_LOCKOUT_AFTER = 5
"""Refused badges within the window that lock the badge reader's approvals (S2: at most five failed log-ins)."""
DEFAULT_LOCKOUT_WINDOW_SECONDS = 600.0
DEFAULT_READ_APDU = "00CA010000"
"""GET DATA of the badge ID, used with ``identify = "apdu"`` when no ``read_apdu`` is given."""

_HEX_SEPARATORS = re.compile(r"[\s:\-]")
_BADGE_KEYS = {"name", "role", "uid"}


def normalise_uid(text: str) -> str:
    """A badge UID/ID as upper-case hex without separators (``04:a1:b2`` -> ``04A1B2``).

    Raises :class:`ValueError` when ``text`` is not an even number of hex digits.
    """
    compact = _HEX_SEPARATORS.sub("", text).upper()
    if not compact or len(compact) % 2 or any(char not in "0123456789ABCDEF" for char in compact):
        raise ValueError(f"{text!r} is not a hex UID")
    return compact


def apdu_hex(text: str) -> str:
    """An APDU given as hex (spaces, colons and dashes allowed) as upper-case hex; at least 4 bytes (CLA INS P1 P2).

    Raises :class:`ValueError` (:class:`~config.typed.Worded`) naming the text.
    """
    compact = _HEX_SEPARATORS.sub("", text)
    try:
        data = bytes.fromhex(compact)
    except ValueError:
        raise Worded(message("config.apdu.not_hex", "{given} is not hex", given=repr(text))) from None
    if len(data) < 4:
        raise Worded(message("config.apdu.short", "{given} is {count} bytes; an APDU has at least 4 (CLA INS P1 P2)",
                             given=repr(text), count=len(data)))
    return data.hex().upper()


@dataclass(frozen=True, slots=True)
class Badge:
    """One enrolled badge: its UID (or application ID, as hex), who holds it and their role."""

    uid: str
    name: str
    role: Role


def _badge_entries(raw: Any) -> list[tuple[str, Any, Any]]:
    """(path below ``auth.badges``, UID text, entry) of each badge, from either form."""
    if isinstance(raw, Mapping):
        return [(f".{uid_text}", str(uid_text), entry) for uid_text, entry in raw.items()]
    if not isinstance(raw, list):
        raise Refused.expected(raw)
    entries: list[tuple[str, Any, Any]] = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, Mapping) or "uid" not in entry:
            raise Refused(expected_got(message("config.expected.badge_entry_uid", "a table with uid, name and role"),
                                       entry), f"[{index}]")
        entries.append((f"[{index}]", entry["uid"], entry))
    return entries


def _badge_from(below: str, uid_text: Any, entry: Any) -> Badge:
    """One badge entry, checked: its keys, a hex UID, a name and a role."""
    if not isinstance(entry, Mapping):
        raise Refused(expected_got(message("config.expected.badge_entry", "a table with name and role"), entry), below)
    for key in entry:
        if key not in _BADGE_KEYS:
            raise Refused(message("config.refused.badge_key", "unknown key; expected name and role"), f"{below}.{key}")
    try:
        uid = normalise_uid(uid_text) if isinstance(uid_text, str) else ""
    except ValueError:
        uid = ""
    if not uid:
        raise Refused(expected_got(message("config.expected.badge_uid", "the badge UID in hex (e.g. 04A1B2C3D4E5F6)"),
                                   uid_text), below)
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise Refused(expected_got(message("config.expected.badge_name", "a non-empty string"), name), f"{below}.name")
    role = entry.get("role")
    if role not in ROLES:
        raise Refused(expected_got(message("config.expected.badge_role", '"dealer" or "supervisor"'), role),
                      f"{below}.role")
    return Badge(uid, name.strip(), role)


def _badges_from(raw: Any) -> dict[str, Badge]:
    """``[auth.badges.UID]`` tables, or ``[[auth.badges]]`` entries each with a ``uid``, keyed by normalised UID."""
    badges: dict[str, Badge] = {}
    for below, uid_text, entry in _badge_entries(raw):
        badge = entry if isinstance(entry, Badge) else _badge_from(below, uid_text, entry)
        if badge.uid in badges and not isinstance(entry, Badge):
            raise Refused(message("config.refused.badge_twice", "badge {uid} is enrolled twice (also as {name})",
                                  uid=badge.uid, name=repr(badges[badge.uid].name)), below)
        badges[badge.uid] = badge
    return badges


def _pcsc_url(reader: str | None) -> str | None:
    if reader is None:
        return None
    try:
        parts = urlsplit(reader)
    except ValueError:  # an unclosed [IPv6] host
        raise Refused.expected(reader) from None
    query = parse_qs(parts.query, keep_blank_values=True)
    # Only the reader's name: any other option, a second reader or a host would be ignored unseen.
    names = query.get("reader", [])
    if (parts.scheme != "pcsc" or parts.netloc or parts.path or set(query) != {"reader"} or len(names) != 1
            or not names[0].strip()):
        raise Refused.expected(reader)
    return reader


_SELECT_APDU = message("config.expected.auth.select_apdu", 'an APDU in hex, e.g. "00A4040008F043524F55504945"')
_READ_APDU = message("config.expected.auth.read_apdu", 'an APDU in hex, e.g. "00CA010000"')


def _apdu(what: Message) -> Check:
    """An APDU in hex, kept normalised (:func:`apdu_hex`); ``what`` says what the key takes."""
    def check(value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return apdu_hex(value)
        except ValueError as error:
            raise Refused(message("config.refused.apdu", "expected {what}, got {given} ({error})", what=what,
                                  given=repr(value), error=worded_problem(error))) from None
    return check


def _not_negative(idle: float) -> float:
    if idle < 0 or idle != idle:
        raise Refused.expected(idle)
    return idle


def _database_url(url: str) -> str:
    if url and not url.startswith(("postgresql://", "postgres://")):
        raise Refused(message("config.refused.archive_url", 'expected a postgresql:// URL or "" (the value is not '
                              'shown: it may hold a password)'))
    return url


def _action_names(actions: Any) -> Any:
    if isinstance(actions, list):
        for index, action in enumerate(actions):
            if action not in APPROVAL_ACTIONS:
                raise Refused(expected_got(one_of(APPROVAL_ACTIONS), action), f"[{index}]")
    return actions


class AuthSettings(Section, frozen=True):
    """``[auth]``: the badge reader, how badges are identified, and who may approve what.

    ``reader`` is the ``pcsc://?reader=NAME`` URL of the badge reader;
    ``select_apdu``/``read_apdu`` are normalised upper-case hex (used when
    ``identify == "apdu"``); ``badges`` maps the normalised UID to the badge.
    """

    FILE_ONLY: ClassVar[frozenset[str]] = frozenset({"badges"})

    enabled: Annotated[bool, Meta(extra=expects(message(
        "config.expected.auth.enabled", "true or false")))] = False
    reader: Annotated[str | None, Meta(extra=expects(message(
        "config.expected.auth.reader", "a PC/SC reader URL, pcsc://?reader=NAME")))] = None
    identify: Annotated[Identify, Meta(extra=expects(message(
        "config.expected.auth.identify", '"uid" or "apdu"')))] = "uid"
    select_apdu: Annotated[str | None, Meta(extra=expects(_SELECT_APDU))] = None
    read_apdu: Annotated[str | None, Meta(extra=expects(_READ_APDU))] = None
    idle_signout_seconds: Annotated[float, Meta(extra=expects(message(
        "config.expected.auth.idle_signout_seconds", "a number of seconds >= 0 (0 = never)")))] = \
        DEFAULT_IDLE_SIGNOUT_SECONDS
    supervisor_only: Annotated[list[ApprovalAction], Meta(extra=expects(message(
        "config.expected.auth.supervisor_only", 'a list of action names, e.g. ["void", "manual"]')))] = \
        field(default_factory=lambda: list(DEFAULT_SUPERVISOR_ONLY))
    two_person: Annotated[bool, Meta(extra=expects(message(
        "config.expected.auth.two_person", "true or false (true: the dealer signed in cannot "
                                                 "approve their own input)")))] = True
    lockout_after: Annotated[int, Meta(ge=0, le=1000)] = DEFAULT_LOCKOUT_AFTER
    """Refused badges within ``lockout_window_seconds`` that lock the reader until a supervisor's badge (0: never;
    a journal written before this key replays with 0)."""
    lockout_window_seconds: Annotated[float, Meta(gt=0, le=86_400, extra=expects(message(
        "config.expected.auth.lockout_window_seconds", "a number of seconds above 0, at most 86400")))] = \
        DEFAULT_LOCKOUT_WINDOW_SECONDS
    badges: Annotated[dict[str, Badge], Meta(extra=expects(message(
        "config.expected.auth.badges", "a table of badges keyed by UID, each with name and "
                                                         "role")))] = field(default_factory=dict)

    CHECKS: ClassVar[Mapping[str, Check]] = {"reader": _pcsc_url, "select_apdu": _apdu(_SELECT_APDU),
                                             "read_apdu": _apdu(_READ_APDU), "idle_signout_seconds": _not_negative}
    AS_GIVEN: ClassVar[Mapping[str, Check]] = {"supervisor_only": _action_names}

    @classmethod
    def prepare(cls, data: dict[str, Any]) -> dict[str, Any]:
        """The badges enrolled in either form, keyed by normalised UID; ``identify = "apdu"`` without a
        ``read_apdu`` reads the badge ID with :data:`DEFAULT_READ_APDU`."""
        if "badges" in data:
            try:
                data = {**data, "badges": _badges_from(data["badges"])}
            except Refused as refused:
                refused.key = "badges"
                raise
        if data.get("identify") == "apdu" and data.get("read_apdu") is None:
            return {**data, "read_apdu": DEFAULT_READ_APDU}
        return data

    def check_across(self) -> None:
        """A reader is needed when badges are on."""
        if self.enabled and self.reader is None:
            raise Refused(message("config.refused.reader_missing", "expected {what} when auth.enabled = true, got "
                                  "nothing", what=expected_words(AuthSettings, "reader")),
                          key="reader", blame="enabled")

    def badge(self, uid: str) -> Badge | None:
        """The enrolled badge with this UID (any case or separators), or None."""
        try:
            return self.badges.get(normalise_uid(uid))
        except ValueError:
            return None


# -- all of it --------------------------------------------------------------------------


class ProtectionSettings(Section, frozen=True):
    """``[protection]``: game protection beyond the rules (docs/game-protection.md)."""

    sequence_check: Annotated[bool, Meta(extra=expects(message(
        "config.expected.protection.sequence_check", "true or false")))] = True
    """Compare each shoe's order, as it is dealt, with the earlier shoes' (the ``sequence_repeat`` alert)."""
    archive: Annotated[str, Meta(extra=expects(message(
        "config.expected.protection.archive", 'a PostgreSQL URL, postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DB, '
                                             'or "" = no property check')))] = ""
    """The floor archive whose other tables' shoes each shoe is compared with too (the property check)."""
    property_check: Annotated[bool, Meta(extra=expects(message(
        "config.expected.protection.property_check", "true or false (default: true when archive is set)")))] = False
    """Whether the property check takes half the false-alarm bound (the table's own check keeps the other half).

    Set by ``archive`` (and ``--archive``); the journal keeps it, never the URL, so a replay needs no database.
    """

    CHECKS: ClassVar[Mapping[str, Check]] = {"archive": _database_url}

    @classmethod
    def prepare(cls, data: dict[str, Any]) -> dict[str, Any]:
        """``property_check`` defaults to whether an ``archive`` is set."""
        if "property_check" not in data:
            return {**data, "property_check": bool(data.get("archive"))}
        return data


class IntegritySettings(Section, frozen=True):
    """``[integrity]``: the signed manifest the software is verified against (``croupier verify``,
    docs/integrity.md)."""

    manifest: Annotated[str, Meta(extra=expects(message(
        "config.expected.integrity.manifest", 'a file path, "" (croupier-manifest.json in the install\'s prefix) or '
                                             '"none"')))] = ""
    """The manifest: "" the install's own (checked when it is there), a path (it must be there), "none" (no
    verification; every journal says so)."""
    key: Annotated[str, Meta(extra=expects(message(
        "config.expected.integrity.key", 'a file path, or "" (the manifest\'s path with .key)')))] = ""
    """The file that holds the manifest's HMAC key."""


class Settings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """All configuration, validated; ``source`` names where it came from (``environment > table.toml``)."""

    table: TableSettings = field(default_factory=TableSettings)
    driver: DriverSettings = field(default_factory=DriverSettings)
    shoe: ShoeSettings = field(default_factory=ShoeSettings)
    procedures: ProcedureSettings = field(default_factory=ProcedureSettings)
    simulation: SimulationSettings = field(default_factory=SimulationSettings)
    journal: JournalSettings = field(default_factory=JournalSettings)
    serial: SerialSettings = field(default_factory=SerialSettings)
    scoreboard: ScoreboardSettings = field(default_factory=ScoreboardSettings)
    feed: FeedSettings = field(default_factory=FeedSettings)
    auth: AuthSettings = field(default_factory=AuthSettings)
    """``[auth]``: badges and approvals (documented in docs/pcsc.md)."""
    bets: BetsSettings = field(default_factory=BetsSettings)
    protection: ProtectionSettings = field(default_factory=ProtectionSettings)
    integrity: IntegritySettings = field(default_factory=IntegritySettings)
    source: str = "built-in defaults"


def settings_data(settings: Settings | Section) -> dict[str, Any]:
    """:class:`Settings` or one section as JSON-compatible data, keys in the order of the schema (what a
    journal stores)."""
    data: dict[str, Any] = msgspec.to_builtins(settings)
    return data


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
    "integrity": IntegritySettings,
}
"""Every config section, in the order of docs/config.md."""


def settings_from(data: Mapping[str, Any], source: str) -> Settings:
    """:class:`Settings` from a table of known sections (each a table of keys, as TOML gives them), converted
    section by section in the order of :data:`SECTIONS`; raises :class:`~config.typed.Invalid` at the first problem."""
    sections = {name: convert_section(cls, data[name], name) for name, cls in SECTIONS.items() if name in data}
    return msgspec.structs.replace(Settings(source=source), **sections)


__all__ = [
    "APPROVAL_ACTIONS",
    "BANKER_VARIANT_BETS",
    "BET_PAY_CLASSES",
    "DEFAULT_CUT_FROM_END",
    "DEFAULT_IDLE_SIGNOUT_SECONDS",
    "DEFAULT_LOCKOUT_AFTER",
    "DEFAULT_LOCKOUT_WINDOW_SECONDS",
    "DEFAULT_READ_APDU",
    "DEFAULT_SUPERVISOR_ONLY",
    "FLOOR_NAME",
    "IDENTIFY_MODES",
    "MIN_CUT_FROM_END",
    "OFFERABLE_BETS",
    "ROLES",
    "SECTIONS",
    "STANDARD_BETS",
    "AuthSettings",
    "Badge",
    "DriverSettings",
    "Identify",
    "IntegritySettings",
    "Invalid",
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
    "apdu_hex",
    "convert_section",
    "keys_of",
    "max_cut_from_end",
    "normalise_uid",
    "parse_host_port",
    "settings_data",
    "settings_from",
]

"""The machinery of the typed settings: frozen :mod:`msgspec` sections, checked key by key in schema order.

A section is a :class:`Section` (a frozen ``msgspec.Struct``): each key's type and bounds are its
annotation (``Annotated[int, Meta(ge=1, le=8)]``), what it takes in words is ``Meta(description=...)``
or follows from the type (:func:`expected`), and a key's own check is a function of the class marked
with :func:`check`, which returns the value or raises :class:`Refused`. :func:`convert_section`
checks a section's table the way a config error reports it: the keys in the order the class declares
them (each: its checks marked ``before``, its type, its other checks), then unknown keys, then the
checks across keys (the class's ``__post_init__``); the first problem raises :class:`Invalid`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, ClassVar, Literal, ParamSpec, TypeVar, get_args, get_origin, get_type_hints

import msgspec

from controller.i18n.message import Message, message

_P = ParamSpec("_P")
_R = TypeVar("_R")
_S = TypeVar("_S", bound="Section")
_CHECK = "_checks_keys"
_TYPE_ERROR = re.compile(r"Expected `[^`]*`, got `")
_AT = re.compile(r" - at `\$(.*)`$")
_PATH_PART = re.compile(r"\[(\d+)\]|\.([^.\[]+)")


class Refused(ValueError):
    """A value a check refuses.

    ``message`` is what to say after the key (``expected ..., got ...``); ``below`` continues the
    key's path (``[1]``, ``.04A1.role``); ``key`` names the key when a whole section is checked, and
    ``blame`` the key whose value made it wrong (``enabled`` for a missing ``reader``).
    """

    def __init__(self, message: str | Message, below: str = "", key: str | None = None,
                 blame: str | None = None) -> None:
        english = message.english() if isinstance(message, Message) else message
        super().__init__(english)
        self.message = english
        self.worded = message if isinstance(message, Message) else None
        """The message with its id (None: English only)."""
        self.below = below
        self.key = key
        self.blame = blame


class Worded(ValueError):
    """A value's problem with its message: ``str()`` is the English text, :attr:`problem` the message to word."""

    def __init__(self, problem: Message) -> None:
        super().__init__(problem.english())
        self.problem = problem


def worded_problem(error: ValueError) -> Message | str:
    """``error``'s problem as its message when it has one (:class:`Worded`), else its text as given."""
    return error.problem if isinstance(error, Worded) else str(error)


@dataclass(frozen=True)
class Problem:
    """The first thing wrong in a section or the settings, in the words of a config error.

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
    worded: Message | None = None
    """:attr:`message` with its id, for the catalogue (None: English only)."""


class Invalid(ValueError):
    """Settings refused; :attr:`problem` is the first thing wrong."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


class Section(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A config section: frozen, unknown keys refused, every value of exactly its type."""

    FILE_ONLY: ClassVar[frozenset[str]] = frozenset()
    """Keys that only the config file can set (not the environment)."""

    @classmethod
    def prepare(cls, data: dict[str, Any]) -> dict[str, Any]:
        """The section's table before its keys are checked (a default that depends on another key)."""
        return data


def check(*keys: str, before: bool = False) -> Callable[[Callable[_P, _R]], staticmethod[_P, _R]]:
    """Mark a function ``(value, key) -> value`` of a section as the check of ``keys``; ``before``: it
    runs before the type is checked, on the value as given."""

    def mark(function: Callable[_P, _R]) -> staticmethod[_P, _R]:
        setattr(function, _CHECK, (keys, before))
        return staticmethod(function)

    return mark


def keys_of(section: type[msgspec.Struct]) -> tuple[str, ...]:
    """The keys of a section (or of the settings), in the order of the schema."""
    return section.__struct_fields__


@cache
def _types(section: type[msgspec.Struct]) -> dict[str, Any]:
    hints = get_type_hints(section, include_extras=True)
    return {key: hints[key] for key in keys_of(section)}


@cache
def _checks(section: type[Section]) -> dict[tuple[str, bool], list[Callable[[Any, str], Any]]]:
    found: dict[tuple[str, bool], list[Callable[[Any, str], Any]]] = {}
    for klass in reversed(section.__mro__):
        for attribute in vars(klass).values():
            function = getattr(attribute, "__func__", None)
            keys, before = getattr(function, _CHECK, ((), False))
            for key in keys:
                found.setdefault((key, before), []).append(function)  # type: ignore[arg-type]
    return found


def base_type(section: type[msgspec.Struct], key: str) -> Any:
    """The type ``key`` takes without its bounds and words (``int``, ``list[str]``, ``Literal[...]``)."""
    kind = _types(section)[key]
    return get_args(kind)[0] if get_origin(kind) is Annotated else kind


def _meta(section: type[msgspec.Struct], key: str) -> msgspec.Meta:
    kind = _types(section)[key]
    found = [item for item in get_args(kind)[1:] if isinstance(item, msgspec.Meta)] if get_origin(kind) is Annotated \
        else []
    return found[0] if found else msgspec.Meta()


_DESCRIBED: dict[str, Message] = {}


def described(words: Message) -> str:
    """``words`` as a ``Meta(description=...)`` (its English text), remembered so that :func:`expected_words`
    can word it in another language."""
    _DESCRIBED[words.english()] = words
    return words.english()


def expected_words(section: type[msgspec.Struct], key: str) -> Message:
    """What ``key`` of ``section`` takes, as a message (``a whole number from 1 to 8``)."""
    meta = _meta(section, key)
    if meta.description:
        return _DESCRIBED.get(meta.description) or message("config.expected.described", "{text}",
                                                           text=meta.description)
    kind = base_type(section, key)
    if get_origin(kind) is Literal:
        return message("config.expected.one_of", "one of {choices}",
                       choices=", ".join(f'"{choice}"' for choice in get_args(kind)))
    if kind is int and meta.ge is not None and meta.le is not None:
        return message("config.expected.whole_from_to", "a whole number from {low} to {high}", low=int(meta.ge),
                       high=int(meta.le))
    if kind is int:
        return message("config.expected.whole", "a whole number")
    if kind is bool:
        return message("config.expected.bool", "true or false")
    if kind is str:
        return message("config.expected.string", "a string")
    return message("config.expected.value", "a value")


def expected(section: type[msgspec.Struct], key: str) -> str:
    """What ``key`` of ``section`` takes, in words (``a whole number from 1 to 8``)."""
    return expected_words(section, key).english()


def expected_got(what: Message, given: Any) -> Message:
    """``expected WHAT, got GIVEN`` (``given`` shown as Python writes it)."""
    return message("config.expected_got", "expected {what}, got {given}", what=what, given=repr(given))


def _typed(section: type[Section], name: str, key: str, value: Any) -> Any:
    """``value`` as ``key``'s type, strictly (a whole number for a float is taken), or :class:`Invalid`."""
    try:
        return msgspec.convert(value, _types(section)[key], strict=True)
    except msgspec.ValidationError as error:
        text = str(error)
        at = _AT.search(text)
        below, given = "", value
        if at and "[...]" not in at.group(1):
            for index, attribute in _PATH_PART.findall(at.group(1)):
                below += f"[{index}]" if index else f".{attribute}"
                given = given[int(index)] if index else given[attribute]
        wrong_type = _TYPE_ERROR.match(text) is not None
        worded = expected_got(expected_words(section, key), given)
        raise Invalid(Problem(name, key, below, worded.english(), type(given).__name__ if wrong_type else None,
                              worded=worded)) from None


def _refused(name: str, key: str | None, refused: Refused) -> Invalid:
    return Invalid(Problem(name, key or refused.key, refused.below, refused.message, blame=refused.blame,
                           worded=refused.worded))


def convert_section(section: type[_S], data: Mapping[str, Any], name: str) -> _S:
    """A section from its table (as TOML gives it), checked; raises :class:`Invalid` at the first problem."""
    table = section.prepare(dict(data))
    checks = _checks(section)
    values: dict[str, Any] = {}
    for key in keys_of(section):
        if key not in table:
            continue
        value = table[key]
        try:
            for before in checks.get((key, True), []):
                value = before(value, key)
            value = _typed(section, name, key, value)
            for after in checks.get((key, False), []):
                value = after(value, key)
        except Refused as refused:
            raise _refused(name, key, refused) from None
        values[key] = value
    unknown = [key for key in table if key not in values and key not in keys_of(section)]
    if unknown:
        worded = message("config.unknown_key", "unknown key; expected one of {keys}", keys=", ".join(keys_of(section)))
        raise Invalid(Problem(name, str(unknown[0]), "", worded.english(), worded=worded))
    try:
        return section(**values)
    except Refused as refused:
        raise _refused(name, None, refused) from None


_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})
_WHOLE = re.compile(r"[+-]?[0-9][0-9_]*(\.0*)?")


def _number(text: str, kind: type) -> Any:
    if kind is float:
        return float(text)
    if not _WHOLE.fullmatch(text):
        raise ValueError(text)
    return int(text.split(".")[0])


def from_text(section: type[Section], key: str, text: str) -> Any:
    """An environment value as the type its key takes (a list: comma-separated); text the type refuses stays
    text, for the checks to report."""
    kind = base_type(section, key)
    if get_origin(kind) is list:
        return [item.strip() for item in text.split(",") if item.strip()]
    stripped = text.strip()
    if kind is bool:
        lowered = stripped.lower()
        return True if lowered in _TRUE else False if lowered in _FALSE else text
    if kind in (int, float) or float in get_args(kind):
        try:
            return _number(stripped, int if kind is int else float)
        except ValueError:
            return text
    if get_origin(kind) is Literal and stripped not in get_args(kind):
        return text
    return stripped


__all__ = ["Invalid", "Problem", "Refused", "Section", "base_type", "check", "convert_section", "described",
           "expected", "expected_got", "expected_words", "from_text", "keys_of"]

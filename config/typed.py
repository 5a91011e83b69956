"""Typed settings on msgspec: a section is a frozen ``msgspec.Struct`` that :func:`convert_section` converts whole.

A key's type and bounds are its annotation (``Annotated[int, Meta(ge=1, le=8)]``), what it takes in words is
``Meta(extra=expects(...))`` or follows from the type, and its own check is in :attr:`Section.CHECKS` (run by
``__post_init__``, in the order of the schema); unknown keys are refused next, then the checks across keys run.
Where a value went wrong comes from the schema, never from msgspec's wording: the first key whose value alone does
not have its type; and the keys before a key with a problem are converted alone first, so that the first problem
in the order of the schema is the one reported.
"""

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Annotated, Any, ClassVar, Literal, TypeVar, get_args, get_origin

import msgspec

from controller.i18n.message import Message, message

_S = TypeVar("_S", bound="Section")
_EXPECTS = "expects"

Check = Callable[[Any], Any]
"""A key's own check: the key's value in, the value to keep out (the same, or normalised), or :class:`Refused`."""


class Refused(Exception):
    """A value a check refuses (not a :class:`ValueError`: msgspec lets it through as raised).

    ``problem`` is what to say after the key (``expected ..., got ...``; None: ``expected`` what the key takes,
    ``got`` :attr:`given`); ``below`` continues the key's path (``[1]``, ``.04A1.role``); ``key`` names the key
    when the check is not the key's own, and ``blame`` the key whose value made it wrong (``enabled`` for a
    missing ``reader``).
    """

    def __init__(self, problem: Message | None, below: str = "", key: str | None = None, blame: str | None = None,
                 given: Any = None) -> None:
        super().__init__(problem.english() if problem is not None else repr(given))
        self.problem = problem
        self.below = below
        self.key = key
        self.blame = blame
        self.given = given

    @classmethod
    def expected(cls, given: Any, below: str = "") -> "Refused":
        """``expected`` what the key takes, ``got`` ``given``."""
        return cls(None, below, given=given)


class Worded(ValueError):
    """A value's problem with its message: ``str()`` is the English text, :attr:`problem` the message to word."""

    def __init__(self, problem: Message) -> None:
        super().__init__(problem.english())
        self.problem = problem


def worded_problem(error: ValueError) -> Message | str:
    """``error``'s problem as its message when it has one (:class:`Worded`), else its text as given."""
    return error.problem if isinstance(error, Worded) else str(error)


class Problem(msgspec.Struct, frozen=True):
    """The first thing wrong in a section, in the words of a config error.

    ``key`` is the section's key, ``below`` the path under it, ``worded`` what to say (``expected ..., got
    ...``), ``given_type`` the type of a value of the wrong type, and ``blame`` the key whose value made ``key``
    wrong, when that is another key.
    """

    section: str
    key: str
    below: str
    worded: Message
    given_type: str | None = None
    blame: str | None = None

    @property
    def message(self) -> str:
        """:attr:`worded` in English."""
        return self.worded.english()


class Invalid(ValueError):
    """Settings refused; :attr:`problem` is the first thing wrong."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


class Section(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A config section: frozen, unknown keys refused, every value of exactly its type and passing its key's check."""

    FILE_ONLY: ClassVar[frozenset[str]] = frozenset()
    """Keys that only the config file can set (not the environment)."""
    CHECKS: ClassVar[Mapping[str, Check]] = {}
    """Each key's own check, run once every key has its type, in the order of the schema."""
    AS_GIVEN: ClassVar[Mapping[str, Check]] = {}
    """Checks of a key's value as given, asked to word why when it does not have the key's type (a check that
    finds nothing to say leaves the words to the type)."""

    @classmethod
    def prepare(cls, data: dict[str, Any]) -> dict[str, Any]:
        """The section's table before it is converted (a default that depends on another key)."""
        return data

    def __post_init__(self) -> None:
        for key in self.__struct_fields__:
            check = self.CHECKS.get(key)
            if check is None:
                continue
            value = getattr(self, key)
            try:
                kept = check(value)
            except Refused as refused:
                refused.key = refused.key or key
                raise
            if kept is not value:
                msgspec.structs.force_setattr(self, key, kept)

    def check_across(self) -> None:
        """The checks across keys, once the section has no unknown key (raises :class:`Refused`)."""


def expects(words: Message) -> dict[str, Message]:
    """What a key takes in words, as its ``Meta(extra=...)``."""
    return {_EXPECTS: words}


def keys_of(section: type[msgspec.Struct]) -> tuple[str, ...]:
    """The keys of a section (or of the settings), in the order of the schema."""
    return section.__struct_fields__


@cache
def _annotations(section: type[msgspec.Struct]) -> dict[str, Any]:
    return {field.name: field.type for field in msgspec.structs.fields(section)}


def base_type(section: type[msgspec.Struct], key: str) -> Any:
    """The type ``key`` takes without its bounds and words (``int``, ``list[str]``, ``Literal[...]``)."""
    kind = _annotations(section)[key]
    return get_args(kind)[0] if get_origin(kind) is Annotated else kind


def _meta(section: type[msgspec.Struct], key: str) -> msgspec.Meta:
    kind = _annotations(section)[key]
    found = [item for item in get_args(kind)[1:] if isinstance(item, msgspec.Meta)] if get_origin(kind) is Annotated \
        else []
    return found[0] if found else msgspec.Meta()


def expected_words(section: type[msgspec.Struct], key: str) -> Message:
    """What ``key`` of ``section`` takes, as a message (``a whole number from 1 to 8``): its words, or from its type
    (every key that is not a string, a flag, a choice or a bounded whole number has its words)."""
    meta = _meta(section, key)
    if meta.extra and _EXPECTS in meta.extra:
        words: Message = meta.extra[_EXPECTS]
        return words
    kind = base_type(section, key)
    if get_origin(kind) is Literal:
        return message("config.expected.one_of", "one of {choices}",
                       choices=", ".join(f'"{choice}"' for choice in get_args(kind)))
    if kind is int and meta.ge is not None and meta.le is not None:
        return message("config.expected.whole_from_to", "a whole number from {low} to {high}", low=int(meta.ge),
                       high=int(meta.le))
    if kind is bool:
        return message("config.expected.bool", "true or false")
    return message("config.expected.string", "a string")


def expected_got(what: Message, given: Any) -> Message:
    """``expected WHAT, got GIVEN`` (``given`` shown as Python writes it)."""
    return message("config.expected_got", "expected {what}, got {given}", what=what, given=repr(given))


def _converts(value: Any, kind: Any) -> bool:
    try:
        msgspec.convert(value, kind, strict=True)
    except msgspec.ValidationError:
        return False
    return True


def _value_type(kind: Any) -> Any:
    """The type of the values of ``kind``, without bounds or choices (``Literal["a", "b"]``: ``str``)."""
    return type(get_args(kind)[0]) if get_origin(kind) is Literal else kind


def _refused(section: type[Section], name: str, refused: Refused, key: str | None = None) -> Problem:
    key = refused.key or key or ""
    worded = refused.problem or expected_got(expected_words(section, key), refused.given)
    return Problem(name, key, refused.below, worded, blame=refused.blame)


def _type_problem(section: type[Section], name: str, table: Mapping[str, Any]) -> Problem:
    """The first key of ``table``, in the order of the schema, whose value does not have the key's type."""
    key, value = next((key, value) for key, value in table.items() if not _converts(value, _annotations(section)[key]))
    as_given = section.AS_GIVEN.get(key)
    if as_given is not None:
        try:
            as_given(value)
        except Refused as refused:
            return _refused(section, name, refused, key)
    below, given, kind = "", value, base_type(section, key)
    if get_origin(kind) is list and isinstance(value, list):
        item = get_args(kind)[0]
        wrong = next((index for index, element in enumerate(value) if not _converts(element, item)), None)
        if wrong is not None:
            below, given, kind = f"[{wrong}]", value[wrong], item
    typed = None if _converts(given, _value_type(kind)) else type(given).__name__
    return Problem(name, key, below, expected_got(expected_words(section, key), given), typed)


def _convert(section: type[_S], name: str, table: Mapping[str, Any]) -> _S:
    """``table`` (keys of the section only) as the section, or :class:`Invalid` with its first problem."""
    try:
        return msgspec.convert(table, section, strict=True)
    except msgspec.ValidationError:
        problem = _type_problem(section, name, table)
    except Refused as refused:
        problem = _refused(section, name, refused)
    raise Invalid(_earlier(section, name, table, problem)) from None


def _earlier(section: type[Section], name: str, table: Mapping[str, Any], problem: Problem) -> Problem:
    """``problem``, unless the keys before its key, converted alone, have one: the first in schema order wins."""
    keys = list(table)
    if problem.key not in keys or keys.index(problem.key) == 0:
        return problem
    try:
        _convert(section, name, {key: table[key] for key in keys[:keys.index(problem.key)]})
    except Invalid as earlier:
        return earlier.problem
    return problem


def convert_section(section: type[_S], data: Mapping[str, Any], name: str, across: bool = True) -> _S:
    """A section from its table (as TOML gives it), checked; raises :class:`Invalid` at its first problem.

    ``across``: also the checks across keys (not for one layer of several, whose keys may be set in another).
    """
    try:
        table = section.prepare(dict(data))
    except Refused as refused:
        ordered = {key: data[key] for key in keys_of(section) if key in data}
        raise Invalid(_earlier(section, name, ordered, _refused(section, name, refused))) from None
    converted = _convert(section, name, {key: table[key] for key in keys_of(section) if key in table})
    unknown = [key for key in table if key not in keys_of(section)]
    if unknown:
        worded = message("config.unknown_key", "unknown key; expected one of {keys}", keys=", ".join(keys_of(section)))
        raise Invalid(Problem(name, str(unknown[0]), "", worded))
    if across:
        try:
            converted.check_across()
        except Refused as refused:
            raise Invalid(_refused(section, name, refused)) from None
    return converted


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


__all__ = ["Check", "Invalid", "Problem", "Refused", "Section", "Worded", "base_type", "convert_section",
           "expected_got", "expected_words", "expects", "from_text", "keys_of", "worded_problem"]

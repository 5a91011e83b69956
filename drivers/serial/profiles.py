"""Vendor profiles: a card shoe's wire settings as a data file, chosen by ``serial://PATH?profile=NAME``.

A profile is a TOML file of the driver's options for one model of shoe: its framing, line terminator, a
regular expression that reads its card lines, its checksum and whether it reads acknowledgements::

    description = "a shoe that writes CARD <seq> <card> lines and reads nothing but the hello"
    framing = "line"
    terminator = "crlf"
    pattern = 'CARD (?P<seq>\\d+) (?P<card>\\w+)'
    checksum = "none"
    ack = false

``NAME`` is a profile shipped in ``drivers/serial/profiles/NAME.toml`` (``reference``, the protocol as
``docs/serial-protocol.md`` writes it, and ``example-card-lines``), or the path of a ``.toml`` file of one's
own: a new shoe's ASCII output is a new profile, not a code change. Options given in the URL override the
profile's. ``checksum`` is ``none`` (the shoe sends none and reads none: the driver writes its lines without
``*XX``; a ``*XX`` that does come is checked), ``xor`` (``checksum=optional``: ``*XX`` checked when present)
or ``required`` (``checksum=required``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Final

from controller.core.exceptions import DriverURLError
from controller.i18n.message import Message, message
from drivers.base import Option, one_of
from drivers.serial import framing as fr

PROFILE_DIRECTORY: Final = resources.files("drivers.serial") / "profiles"
"""Where the shipped profiles are: ``NAME.toml``."""

PROFILE_KEYS: Final = ("description", "framing", "baudrate", "terminator", "pattern", "checksum", "ack", "heartbeat",
                       "indicator")
"""What a profile may set: a description, and the driver's options that a model of shoe decides."""

CHECKSUMS: Final = ("none", "xor", "required")
"""A profile's ``checksum``: ``xor`` is the URL's ``checksum=optional``."""

A_STRING: Final = message("serial.profile_a_string", "a string")


@dataclass(frozen=True, slots=True)
class Profile:
    """A profile read and checked: its settings are the driver's option values (``pattern`` compiled)."""

    name: str
    """The name the URL gave: a shipped profile's name, or a file's path."""
    path: str
    """The file it was read from."""
    description: str
    settings: Mapping[str, Any]
    """Option name -> value, in the order of :data:`PROFILE_KEYS`; ``checksum`` is one of :data:`CHECKSUMS`."""


def profile_names() -> list[str]:
    """The shipped profiles' names, sorted."""
    return sorted(entry.name.removesuffix(".toml") for entry in PROFILE_DIRECTORY.iterdir()
                  if entry.name.endswith(".toml"))


def is_profile_path(name: str) -> bool:
    """Does ``profile=name`` give a file's path rather than a shipped profile's name?"""
    return "/" in name or "\\" in name or name.endswith(".toml")


def load_profile(url: str, name: str, options: Mapping[str, Option]) -> Profile:
    """Profile ``name`` (a shipped name or a path), checked against the driver's ``options``.

    Raises :class:`DriverURLError`, one line: an unknown name (naming the shipped ones), a file that cannot be
    read or is no TOML, an unknown key or a value that is not what the key takes (naming the file and the key).
    """
    source: Traversable
    if is_profile_path(name):
        source = Path(name)
    elif name in profile_names():
        source = PROFILE_DIRECTORY / f"{name}.toml"
    else:
        raise DriverURLError(message(
            "serial.unknown_profile", "{url}: option profile={name} is unknown; expected {known}, or the path of "
            "a .toml profile file", url=url, name=repr(name), known=one_of(profile_names())))
    path = str(source)
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8-sig"))  # -sig: a BOM an editor wrote is no key
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise DriverURLError(message(
            "serial.profile_unreadable", "{url}: profile {path} is not a readable TOML file ({error}); fix it or "
            "give another profile", url=url, path=path, error=str(error))) from None
    return ProfileReader(url, path, options).read(name, data)


class ProfileReader:
    """Checks a profile's keys and values, naming the URL, the file and the key of any problem."""

    def __init__(self, url: str, path: str, options: Mapping[str, Option]) -> None:
        self.url = url
        self.path = path
        self.options = options

    def read(self, name: str, data: Mapping[str, Any]) -> Profile:
        """The profile ``data`` holds."""
        for key in data:
            if key not in PROFILE_KEYS:
                raise DriverURLError(message(
                    "serial.profile_unknown_key", "{url}: profile {path}: unknown key {key}; expected {keys}",
                    url=self.url, path=self.path, key=key, keys=one_of(PROFILE_KEYS)))
        settings = {key: self.value(key, data[key]) for key in PROFILE_KEYS if key in data}
        description = settings.pop("description", "")
        self.check_framing(settings)
        return Profile(name, self.path, description, settings)

    def value(self, key: str, value: Any) -> Any:
        """``value`` of ``key``, checked (a pattern compiled)."""
        if key == "description":
            return self.checked(key, value, isinstance(value, str), A_STRING)
        if key == "framing":
            return self.choice(key, value, fr.framing_names())
        if key == "checksum":
            return self.choice(key, value, CHECKSUMS)
        if key == "pattern":
            return self.pattern(value)
        option = self.options[key]
        if option.type is bool:
            return self.checked(key, value, isinstance(value, bool), "true or false")
        if option.type in (int, float):
            return self.number(key, value, option)
        return self.choice(key, value, option.choices)

    def checked(self, key: str, value: Any, good: bool, expected: str | Message) -> Any:
        """``value`` when ``good``; else the error naming what ``key`` expects."""
        if not good:
            raise DriverURLError(message(
                "serial.profile_bad_value", "{url}: profile {path}: key {key} = {value}; expected {expected}",
                url=self.url, path=self.path, key=key, value=repr(value), expected=expected))
        return value

    def choice(self, key: str, value: Any, choices: tuple[str, ...]) -> Any:
        return self.checked(key, value, isinstance(value, str) and value in choices, one_of(choices))

    def number(self, key: str, value: Any, option: Option) -> Any:
        low, high = option.range if option.range is not None else (0, 0)
        kinds = (int,) if option.type is int else (int, float)
        good = isinstance(value, kinds) and not isinstance(value, bool) and low <= value <= high
        return option.type(self.checked(key, value, good, f"{low}-{high}"))

    def pattern(self, value: Any) -> re.Pattern[str]:
        """The compiled card pattern, which must have a named group ``card``."""
        text = self.checked("pattern", value, isinstance(value, str), A_STRING)
        try:
            pattern = re.compile(text)
        except re.error as error:
            raise DriverURLError(message(
                "serial.profile_pattern_not_regex", "{url}: profile {path}: key pattern = {value} is not a regular "
                "expression ({error}); fix the file", url=self.url, path=self.path, value=repr(text),
                error=str(error))) from None
        if "card" not in pattern.groupindex:
            raise DriverURLError(message(
                "serial.profile_pattern_no_card", "{url}: profile {path}: key pattern = {value} has no named group "
                "'card'; expected e.g. CARD (?P<seq>\\d+) (?P<card>\\w+)", url=self.url, path=self.path,
                value=repr(text)))
        return pattern

    def check_framing(self, settings: Mapping[str, Any]) -> None:
        """Refuse a key of another framing than the profile's own (``line`` when it names none)."""
        own = fr.framer_class(settings.get("framing", "line"))
        for key in settings:
            if key in fr.FRAMING_OPTIONS and key not in own.url_options:
                raise DriverURLError(message(
                    "serial.profile_key_not_for_framing", "{url}: profile {path}: key {key} applies to "
                    "framing={framings} only; remove it or set framing to one of those", url=self.url,
                    path=self.path, key=key, framings=fr.framings_taking([key])))

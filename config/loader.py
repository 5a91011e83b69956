"""The one config loader: command line > environment > file > defaults, validated into dataclasses.

The embedded default is ``config/default.toml`` (shipped with the package).
Environment variables are ``CROUPIER_<SECTION>_<KEY>`` (``CROUPIER_TABLE_DECKS=6``), for every
section; any other ``CROUPIER_*`` variable is refused unless it is in :data:`NON_CONFIG_VARIABLES`.
Every problem raises :class:`ConfigError` naming the source, the key, the
expected value and what was given.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from config.schema import (
    EXTRA_SECTIONS,
    SECTIONS,
    SerialSettings,
    Settings,
    max_cut_from_end,
)
from controller.core.auth import AUTH_VALUE_KINDS
from controller.core.exceptions import ConfigError

ENV_PREFIX = "CROUPIER_"
NON_CONFIG_VARIABLES: dict[str, str] = {
    "CROUPIER_PCSCD_PIDFILE": "the PID file of the pcscd that .ci/test started, for the PC/SC tests",
    "CROUPIER_REQUIRE_PCSC": "1: the PC/SC tests fail instead of skipping when PC/SC is missing",
}
"""``CROUPIER_*`` variables that are not config (documented in docs/config.md); every other one must name
a section and key."""
SERIAL_SCHEMES = ("serial", "socket", "loop")


def default_config_text() -> str:
    """The embedded default config file's text."""
    return resources.files("config").joinpath("default.toml").read_text(encoding="utf-8")


def _describe(field_: dataclasses.Field[Any]) -> str:
    meta = field_.metadata
    if "choices" in meta:
        return "one of " + ", ".join(f'"{choice}"' for choice in meta["choices"])
    if "range" in meta:
        low, high = meta["range"]
        return f"a whole number from {low} to {high}"
    kind = field_.type if isinstance(field_.type, str) else field_.type.__name__
    return {"int": "a whole number", "bool": "true or false", "str": "a string"}.get(kind, kind)


def _coerce(where: str, field_: dataclasses.Field[Any], value: Any, from_text: bool) -> Any:
    """Check (and for environment text, convert) one value against its field."""
    kind = field_.type if isinstance(field_.type, str) else field_.type.__name__
    expected = _describe(field_)
    if from_text and isinstance(value, str):
        text = value.strip()
        if kind == "int":
            try:
                value = int(text)
            except ValueError:
                raise ConfigError(f"{where}: expected {expected}, got {value!r}") from None
        elif kind == "bool":
            if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ConfigError(f"{where}: expected true or false, got {value!r}")
            value = text.lower() in ("true", "1", "yes")
    wanted = {"int": int, "bool": bool, "str": str}[kind]
    if not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
        raise ConfigError(f"{where}: expected {expected}, got {value!r} ({type(value).__name__})")
    meta = field_.metadata
    if "choices" in meta and value not in meta["choices"]:
        raise ConfigError(f"{where}: expected {expected}, got {value!r}")
    if "range" in meta:
        low, high = meta["range"]
        if not low <= value <= high:
            raise ConfigError(f"{where}: expected {expected}, got {value}")
    return value


def _merge(layers: list[tuple[str, dict[str, Any], bool]]) -> Settings:
    values: dict[str, dict[str, Any]] = {name: {} for name in SECTIONS}
    origin: dict[tuple[str, str], str] = {}
    extra: dict[str, dict[str, Any]] = {}
    for source, data, from_text in layers:
        for section, table in data.items():
            if section in EXTRA_SECTIONS:
                if not isinstance(table, dict):
                    raise ConfigError(f"{source}: [{section}] must be a table of keys")
                extra.setdefault(section, {}).update(table)
                continue
            cls = SECTIONS.get(section)
            if cls is None and not isinstance(table, dict):
                owner = next((name for name, kind in SECTIONS.items()
                              if section in {f.name for f in dataclasses.fields(kind)}), None)
                hint = f"; it belongs in [{owner}]" if owner else ""
                raise ConfigError(f"{source}: key {section!r} is outside any section{hint}; "
                                  f"write it under a [section] header, see docs/config.md")
            if cls is None:
                known = ", ".join(f"[{name}]" for name in [*SECTIONS, *sorted(EXTRA_SECTIONS)])
                raise ConfigError(f"{source}: unknown section [{section}]; expected one of {known}")
            if not isinstance(table, dict):
                raise ConfigError(f"{source}: [{section}] must be a table of keys, got {table!r}")
            fields = {f.name: f for f in dataclasses.fields(cls)}
            for key, value in table.items():
                where = f"{source}: [{section}] {key}"
                if key not in fields:
                    raise ConfigError(
                        f"{where}: unknown key; expected one of {', '.join(fields)}"
                    )
                values[section][key] = _coerce(where, fields[key], value, from_text)
                origin[section, key] = source
    sections = {name: SECTIONS[name](**given) for name, given in values.items()}
    decks, cut = sections["table"].decks, sections["shoe"].cut_card_from_end
    deepest = max_cut_from_end(decks)
    if cut > deepest:
        cut_from = origin.get(("shoe", "cut_card_from_end"), "built-in defaults")
        decks_from = origin.get(("table", "decks"), "built-in defaults")
        raise ConfigError(
            f"{cut_from}: [shoe] cut_card_from_end: expected at most {deepest} for a {decks}-deck shoe "
            f"(the back half; [table] decks = {decks} from {decks_from}), got {cut}; "
            f"lower it or use more decks")
    source = " > ".join(reversed([source for source, data, _ in layers if data])) or "built-in defaults"
    return Settings(**sections, extra=extra, source=source)


def read_config_file(path: str | os.PathLike[str] | None) -> tuple[str, dict[str, Any]]:
    """Read a TOML config file (None: the embedded default); returns (name, data)."""
    if path is None:
        name, text = "embedded config/default.toml", default_config_text()
    else:
        name = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError(f"{name}: no such config file; give the path of a TOML file") from None
        except OSError as error:
            raise ConfigError(f"{name}: cannot read the config file ({error.strerror})") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{name}: not a UTF-8 text file; expected a TOML config") from None
    try:
        return name, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{name}: not valid TOML ({error}); fix the file or see docs/config.md") from None


def _auth_value(name: str, key: str, text: str) -> Any:
    """An ``[auth]`` value given as environment text, in the type the TOML file would give."""
    kind = AUTH_VALUE_KINDS.get(key)
    where = f"environment: [auth] {key} ({name})"
    if kind is None:
        settable = ", ".join(k for k, v in AUTH_VALUE_KINDS.items() if v != "table")
        raise ConfigError(f"environment: [auth] {key}: unknown key ({name}); expected one of {settable}")
    if kind == "table":
        raise ConfigError(f"{where}: cannot be set from the environment; enrol badges in the config file")
    lowered = text.strip().lower()
    if kind == "bool":
        if lowered not in ("true", "false", "1", "0", "yes", "no"):
            raise ConfigError(f"{where}: expected true or false, got {text!r}")
        return lowered in ("true", "1", "yes")
    if kind == "number":
        try:
            return float(text)
        except ValueError:
            raise ConfigError(f"{where}: expected a number of seconds >= 0, got {text!r}") from None
    if kind == "list":
        return [item.strip() for item in text.split(",") if item.strip()]
    return text


def environment_layer(environ: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """``CROUPIER_<SECTION>_<KEY>`` variables as a config layer, for every section.

    Values stay text except ``[auth]``'s, which are converted here (comma-separated lists). A
    ``CROUPIER_*`` variable that names no section and is not in :data:`NON_CONFIG_VARIABLES` is refused.
    """
    layer: dict[str, dict[str, Any]] = {}
    sections = sorted([*SECTIONS, *EXTRA_SECTIONS], key=len, reverse=True)
    for name, value in sorted(environ.items()):
        if not name.startswith(ENV_PREFIX) or name in NON_CONFIG_VARIABLES:
            continue
        rest = name[len(ENV_PREFIX):].lower()
        section = next((s for s in sections if rest.startswith(s + "_") and len(rest) > len(s) + 1), None)
        if section is None:
            known = ", ".join(sorted([*SECTIONS, *EXTRA_SECTIONS]))
            others = ", ".join(NON_CONFIG_VARIABLES)
            raise ConfigError(
                f"environment: {name}: not a Croupier setting; expected CROUPIER_<SECTION>_<KEY> with a "
                f"section of {known} (or one of {others}); fix its name or unset it, see docs/config.md")
        key = rest[len(section) + 1:]
        layer.setdefault(section, {})[key] = _auth_value(name, key, value) if section == "auth" else value
    return layer


def serial_url(url: str, serial: SerialSettings) -> str:
    """``url`` with the ``[serial]`` defaults for the options it leaves out (other schemes: unchanged).

    Only options whose configured value differs from the driver's own default are added.
    """
    parts = urlsplit(url)
    if parts.scheme not in SERIAL_SCHEMES:
        return url
    given = parse_qs(parts.query, keep_blank_values=True)
    defaults = SerialSettings()
    missing = {key: getattr(serial, key) for key in ("baudrate", "framing")
               if key not in given and getattr(serial, key) != getattr(defaults, key)}
    if not missing:
        return url
    base, hash_, fragment = url.partition("#")
    joiner = "" if base.endswith(("?", "&")) else "&" if "?" in base else "?"
    return f"{base}{joiner}{urlencode(missing)}{hash_}{fragment}"


def load_config(
    path: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> Settings:
    """Load settings: ``overrides`` (command line) > ``environ`` > ``path`` (or the embedded default)."""
    name, data = read_config_file(path)
    env = environment_layer(os.environ if environ is None else environ)
    layers: list[tuple[str, dict[str, Any], bool]] = [
        (name, data, False),
        ("environment", env, True),
        ("command line", {k: dict(v) for k, v in (overrides or {}).items() if v}, False),
    ]
    return _merge(layers)


__all__ = ["NON_CONFIG_VARIABLES", "default_config_text", "environment_layer", "load_config", "read_config_file",
           "serial_url"]

"""The one config loader: command line > environment > file > defaults, validated into dataclasses.

The embedded default is ``config/default.toml`` (shipped with the package).
Environment variables are ``CROUPIER_<SECTION>_<KEY>`` (``CROUPIER_TABLE_DECKS=6``).
Every problem raises :class:`ConfigError` naming the source, the key, the
expected value and what was given.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from controller.exceptions import ConfigError
from controller.shoe import MIN_CUT_FROM_END, max_cut_from_end


def _choice(*options: str) -> dict[str, Any]:
    return {"choices": options}


def _range(low: int, high: int) -> dict[str, Any]:
    return {"range": (low, high)}


@dataclass(frozen=True)
class TableSettings:
    """``[table]``: the game."""

    decks: int = field(default=8, metadata=_range(1, 8))
    variant: str = field(default="commission", metadata=_choice("commission", "no_commission"))


@dataclass(frozen=True)
class DriverSettings:
    """``[driver]``: where cards come from."""

    url: str = "mock://"


@dataclass(frozen=True)
class ShoeSettings:
    """``[shoe]``: burn and cut-card procedure."""

    burn: str = field(default="first_card", metadata=_choice("first_card", "fixed", "none"))
    burn_cards: int = field(default=3, metadata=_range(1, 8))
    cut_card: str = field(default="one_more", metadata=_choice("one_more", "this_round"))
    cut_card_from_end: int = field(default=16, metadata=_range(MIN_CUT_FROM_END, 100))


@dataclass(frozen=True)
class ProcedureSettings:
    """``[procedures]``: how the house resolves dealing errors."""

    extra_card: str = field(default="burn", metadata=_choice("burn", "void"))
    exposed_card: str = field(default="burn", metadata=_choice("burn", "use"))


@dataclass(frozen=True)
class SimulationSettings:
    """``[simulation]``: the simulated table."""

    rounds: int = field(default=0, metadata=_range(0, 10_000_000))
    auto_next: bool = True


@dataclass(frozen=True)
class JournalSettings:
    """``[journal]``: where ``croupier run`` journals by default ("" = no journal)."""

    path: str = ""


@dataclass(frozen=True)
class Settings:
    """All configuration, validated."""

    table: TableSettings = field(default_factory=TableSettings)
    driver: DriverSettings = field(default_factory=DriverSettings)
    shoe: ShoeSettings = field(default_factory=ShoeSettings)
    procedures: ProcedureSettings = field(default_factory=ProcedureSettings)
    simulation: SimulationSettings = field(default_factory=SimulationSettings)
    journal: JournalSettings = field(default_factory=JournalSettings)
    extra: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Sections owned by optional parts (``[auth]``), validated by them."""
    source: str = "built-in defaults"


SECTIONS: dict[str, type[Any]] = {
    "table": TableSettings,
    "driver": DriverSettings,
    "shoe": ShoeSettings,
    "procedures": ProcedureSettings,
    "simulation": SimulationSettings,
    "journal": JournalSettings,
}
EXTRA_SECTIONS = frozenset({"auth", "serial", "scoreboard"})
ENV_PREFIX = "CROUPIER_"


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
    sections = {name: SECTIONS[name](**given) for name, given in values.items()}
    deepest = max_cut_from_end(sections["table"].decks)
    if sections["shoe"].cut_card_from_end > deepest:
        raise ConfigError(
            f"[shoe] cut_card_from_end: expected at most {deepest} for a {sections['table'].decks}-deck shoe "
            f"(the back half), got {sections['shoe'].cut_card_from_end}")
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


def environment_layer(environ: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """``CROUPIER_<SECTION>_<KEY>`` variables as a config layer (values stay text)."""
    layer: dict[str, dict[str, Any]] = {}
    for name, value in environ.items():
        if not name.startswith(ENV_PREFIX):
            continue
        rest = name[len(ENV_PREFIX):].lower()
        section = next((s for s in SECTIONS if rest.startswith(s + "_")), None)
        if section is None:
            continue
        layer.setdefault(section, {})[rest[len(section) + 1:]] = value
    return layer


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


__all__ = [
    "DriverSettings", "JournalSettings", "ProcedureSettings", "Settings", "ShoeSettings",
    "SimulationSettings", "TableSettings", "default_config_text", "load_config",
]

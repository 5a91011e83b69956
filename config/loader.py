"""The one config loader: command line > environment > file > defaults, validated into :class:`~config.schema.Settings`.

The embedded default is ``config/default.toml`` (shipped with the package).
Environment variables are ``CROUPIER_<SECTION>_<KEY>`` (``CROUPIER_TABLE_DECKS=6``), for every
section; any other ``CROUPIER_*`` variable is refused unless it is in :data:`NON_CONFIG_VARIABLES`.
Every problem raises :class:`ConfigError` naming the source, the key, the
expected value and what was given.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from config.default_data import default_data
from config.schema import SECTIONS, SerialSettings, Settings, max_cut_from_end, settings_from
from config.typed import Invalid, Problem, from_text, keys_of
from controller.core.exceptions import ConfigError
from controller.i18n.message import message

ENV_PREFIX = "CROUPIER_"
NON_CONFIG_VARIABLES: dict[str, str] = {
    "CROUPIER_PCSCD_PIDFILE": "the PID file of the pcscd that .ci/test started, for the PC/SC tests",
    "CROUPIER_REQUIRE_PCSC": "1: the PC/SC tests fail instead of skipping when PC/SC is missing",
    "CROUPIER_REQUIRE_CHROMIUM": "1: the scoreboard's browser tests fail instead of skipping without chromium",
    "CROUPIER_TEST_MQTT": "the floor tests: HOST:PORT of the Mosquitto that .ci/test started",
    "CROUPIER_TEST_POSTGRES": "the floor tests: the postgresql:// URL of the PostgreSQL that .ci/test started",
}
"""``CROUPIER_*`` variables that are not config (documented in docs/config.md); every other one must name
a section and key."""
SECRET_VARIABLES: dict[str, str] = {
    "CROUPIER_MQTT_PASSWORD": "the MQTT password of a broker URL with a user and no password (docs/floor.md)",
    "CROUPIER_MQTT_PASSWORD_FILE": "a file whose first line is that password",
    "CROUPIER_FLOOR_WEB_PASSWORD": "the pit dashboard page's password (croupier floor)",
}
"""``CROUPIER_*`` variables that carry a secret, read where it is used and never shown (docs/config.md)."""
SERIAL_SCHEMES = ("serial", "socket", "loop")
DEFAULTS = "built-in defaults"


def default_config_text() -> str:
    """The embedded default config file's text."""
    from importlib import resources

    return resources.files("config").joinpath("default.toml").read_text(encoding="utf-8")


class Layer:
    """One source of settings: its name, its sections, and for each key set from the environment its variable."""

    def __init__(self, source: str, data: Mapping[str, Any],
                 variables: Mapping[tuple[str, str], str] | None = None) -> None:
        self.source = source
        self.data = data
        self.variables = dict(variables or {})


def _label(problem: Problem, variable: str | None) -> str:
    """``[table] decks``, or for ``[auth]`` ``auth.badges.04A1.role`` (from the environment: ``[auth] key (VAR)``)."""
    section, path = problem.section or "", f"{problem.key or ''}{problem.below}"
    if section != "auth":
        return f"[{section}] {path}" if path else f"[{section}]"
    return f"[auth] {path} ({variable})" if variable else f"auth.{path}" if path else "[auth]"


def _merge(layers: list[Layer]) -> Settings:
    merged: dict[str, dict[str, Any]] = {}
    origin: dict[tuple[str, str], tuple[str, str | None]] = {}
    for layer in layers:
        for section, table in layer.data.items():
            cls = SECTIONS.get(section)
            if cls is None and not isinstance(table, dict):
                owner = next((name for name, kind in SECTIONS.items() if section in keys_of(kind)), None)
                if owner:
                    raise ConfigError(message(
                        "config.key_outside_section_of", "{source}: key {key} is outside any section; it belongs "
                        "in [{owner}]; write it under a [section] header, see docs/config.md",
                        source=layer.source, key=repr(section), owner=owner))
                raise ConfigError(message("config.key_outside_section", "{source}: key {key} is outside any "
                                          "section; write it under a [section] header, see docs/config.md",
                                          source=layer.source, key=repr(section)))
            if cls is None:
                known = ", ".join(f"[{name}]" for name in SECTIONS)
                raise ConfigError(message("config.unknown_section", "{source}: unknown section [{section}]; "
                                          "expected one of {known}", source=layer.source, section=section,
                                          known=known))
            if not isinstance(table, dict):
                raise ConfigError(message("config.not_a_table", "{source}: [{section}] must be a table of keys, "
                                          "got {value}", source=layer.source, section=section, value=repr(table)))
            for key, value in table.items():
                merged.setdefault(section, {})[key] = value
                origin[section, key] = (layer.source, layer.variables.get((section, key)))
    source = " > ".join(reversed([layer.source for layer in layers if layer.data])) or DEFAULTS
    try:
        settings = settings_from(merged, source)
    except Invalid as error:
        problem = error.problem
        section = problem.section or ""
        if (section, problem.key or "") in origin:
            given_in, variable = origin[section, problem.key or ""]
        else:
            given_in, variable = origin.get((section, problem.blame or ""), (DEFAULTS, None))[0], None
        typed = problem.given_type and variable is None and section != "auth"
        shown = f" ({problem.given_type})" if typed else ""
        worded = problem.worded or message("config.value_problem.english", "{text}", text=problem.message)
        raise ConfigError(message("config.value_problem", "{source}: {label}: {problem}{shown}", source=given_in,
                                  label=_label(problem, variable), problem=worded, shown=shown)) from None
    decks, cut = settings.table.decks, settings.shoe.cut_card_from_end
    deepest = max_cut_from_end(decks)
    if cut > deepest:
        cut_from = origin.get(("shoe", "cut_card_from_end"), (DEFAULTS, None))[0]
        decks_from = origin.get(("table", "decks"), (DEFAULTS, None))[0]
        raise ConfigError(message(
            "config.cut_too_deep", "{source}: [shoe] cut_card_from_end: expected at most {deepest} for a "
            "{decks}-deck shoe (the back half; [table] decks = {decks} from {decks_from}), got {cut}; lower it or "
            "use more decks", source=cut_from, deepest=deepest, decks=decks, decks_from=decks_from, cut=cut))
    return settings


def read_config_file(path: str | os.PathLike[str] | None) -> tuple[str, dict[str, Any]]:
    """Read a TOML config file (None: the embedded default, shipped parsed as :mod:`config.default_data`);
    returns (name, data)."""
    if path is None:
        return "embedded config/default.toml", default_data()
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(message("config.no_file", "{name}: no such config file; give the path of a TOML file",
                                  name=name)) from None
    except OSError as error:
        raise ConfigError(message("config.unreadable", "{name}: cannot read the config file ({reason})",
                                  name=name, reason=str(error.strerror))) from None
    except UnicodeDecodeError:
        raise ConfigError(message("config.not_utf8", "{name}: not a UTF-8 text file; expected a TOML config",
                                  name=name)) from None
    import tomllib

    try:
        return name, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(message("config.not_toml", "{name}: not valid TOML ({reason}); fix the file or see "
                                  "docs/config.md", name=name, reason=str(error))) from None


def environment_layer(environ: Mapping[str, str]) -> Layer:
    """``CROUPIER_<SECTION>_<KEY>`` variables as a config layer, for every section.

    Each value is converted to the type its key takes (a list is comma-separated). A ``CROUPIER_*``
    variable that names no section and key, or a key only the file may set, and is not in
    :data:`NON_CONFIG_VARIABLES` is refused.
    """
    data: dict[str, dict[str, Any]] = {}
    variables: dict[tuple[str, str], str] = {}
    sections = sorted(SECTIONS, key=len, reverse=True)
    for name, value in sorted(environ.items()):
        if not name.startswith(ENV_PREFIX) or name in NON_CONFIG_VARIABLES or name in SECRET_VARIABLES:
            continue
        rest = name[len(ENV_PREFIX):].lower()
        section = next((s for s in sections if rest.startswith(s + "_") and len(rest) > len(s) + 1), None)
        if section is None:
            known = ", ".join(sorted(SECTIONS))
            others = ", ".join(NON_CONFIG_VARIABLES)
            raise ConfigError(message(
                "config.env_not_setting", "environment: {name}: not a Croupier setting; expected "
                "CROUPIER_<SECTION>_<KEY> with a section of {known} (or one of {others}); fix its name or unset "
                "it, see docs/config.md", name=name, known=known, others=others))
        key = rest[len(section) + 1:]
        cls = SECTIONS[section]
        if key not in keys_of(cls):
            settable = ", ".join(k for k in keys_of(cls) if k not in cls.FILE_ONLY)
            raise ConfigError(message("config.env_unknown_key", "environment: [{section}] {key}: unknown key "
                                      "({name}); expected one of {settable}", section=section, key=key, name=name,
                                      settable=settable))
        if key in cls.FILE_ONLY:
            raise ConfigError(message("config.env_file_only", "environment: [{section}] {key} ({name}): cannot be "
                                      "set from the environment; set it in the config file, see docs/config.md",
                                      section=section, key=key, name=name))
        data.setdefault(section, {})[key] = from_text(cls, key, value)
        variables[section, key] = name
    return Layer("environment", data, variables)


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
    return _merge([
        Layer(name, data),
        environment_layer(os.environ if environ is None else environ),
        Layer("command line", {k: dict(v) for k, v in (overrides or {}).items() if v}),
    ])


__all__ = ["NON_CONFIG_VARIABLES", "SECRET_VARIABLES", "Layer", "default_config_text", "environment_layer",
           "load_config", "read_config_file", "serial_url"]

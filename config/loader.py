"""The one config loader: command line > environment > file > defaults, validated into :class:`~config.schema.Settings`.

The embedded default is ``config/default.toml`` (shipped with the package).
Environment variables are ``CROUPIER_<SECTION>_<KEY>`` (``CROUPIER_TABLE_DECKS=6``), for every
section; any other ``CROUPIER_*`` variable is refused.
Every problem raises :class:`ConfigError` naming the source, the key, the
expected value and what was given.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from config.default_data import default_data
from config.schema import SECTIONS, Settings, max_cut_from_end, settings_from
from config.typed import Invalid, Problem, convert_section, from_text, keys_of
from controller.core.exceptions import ConfigError, CroupierError
from controller.core.undecodable import undecodable
from controller.i18n.message import message

ENV_PREFIX = "CROUPIER_"
SECRET_VARIABLES: dict[str, str] = {
    "CROUPIER_MQTT_PASSWORD": "the MQTT password of a broker URL with a user and no password (docs/floor.md)",
    "CROUPIER_MQTT_PASSWORD_FILE": "a file whose first line is that password",
    "CROUPIER_FLOOR_WEB_PASSWORD": "the pit dashboard page's password (croupier floor)",
}
"""``CROUPIER_*`` variables that carry a secret, read where it is used and never shown (docs/config.md)."""
DEFAULTS = "built-in defaults"
CONFIG_LIMIT = 2**20
"""The most bytes a config file is read for (1 MiB: thousands of enrolled badges fit many times over)."""

def read_text_at_most(path: str | os.PathLike[str], limit: int) -> str | None:
    """The UTF-8 text of the file at ``path`` (a byte-order mark an editor wrote is left out); None when it holds
    more than ``limit`` bytes, read no further (a path that is no such file may never end: /dev/zero, a disk image).
    Raises :class:`OSError` as opening and reading it do (:class:`FileNotFoundError` for an empty path, which would
    be the current directory) and :class:`UnicodeDecodeError` for bytes that are not UTF-8."""
    if not os.fspath(path):
        raise FileNotFoundError(path)
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    return data.decode("utf-8-sig") if len(data) <= limit else None


ValueCheck: TypeAlias = Callable[[Any], object]
"""A check of one key's value that a layer above the config owns (``[driver] url``: the drivers): it raises a
:class:`~controller.core.exceptions.CroupierError` saying what is wrong, and is called on every layer's value."""


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
    section, path = problem.section, f"{problem.key}{problem.below}"
    if section != "auth":
        return f"[{section}] {path}" if path else f"[{section}]"
    return f"[auth] {path} ({variable})" if variable else f"auth.{path}" if path else "[auth]"


def _value_problem(problem: Problem, given_in: str, variable: str | None) -> ConfigError:
    """The one-line error of ``problem``, a value given in ``given_in`` (from the environment: ``variable``)."""
    typed = problem.given_type and variable is None and problem.section != "auth"
    shown = f" ({problem.given_type})" if typed else ""
    return ConfigError(message("config.value_problem", "{source}: {label}: {problem}{shown}", source=given_in,
                               label=_label(problem, variable), problem=problem.worded, shown=shown))


def _check_every_value(layer: Layer) -> None:
    """Refuse a bad value of ``layer`` even where it does not count: a later layer overrides its key (the file's
    ``rounds = -1`` under ``--rounds 2``), or the feature that reads it is off (a ``[feed] site`` with no feed)."""
    for section, table in layer.data.items():
        try:
            convert_section(SECTIONS[section], table, section, across=False)
        except Invalid as error:
            variable = layer.variables.get((section, error.problem.key))
            raise _value_problem(error.problem, layer.source, variable) from None


def _check_owned_values(layer: Layer, checks: Mapping[tuple[str, str], ValueCheck]) -> None:
    """Refuse a value of ``layer`` that the check its owner gives refuses, wherever it is written, as
    :func:`_check_every_value` does for the schema's own checks."""
    for (section, key), check in checks.items():
        table = layer.data.get(section)
        if isinstance(table, dict) and key in table:
            try:
                check(table[key])
            except CroupierError as error:
                worded = error.message if error.message is not None else str(error)
                label = f"[{section}] {key}"
                if str(error).startswith(label):  # the owner's error names the key itself ("[feed] url 'URL': ...")
                    raise ConfigError(message("config.value_problem_named", "{source}: {problem}",
                                              source=layer.source, problem=worded)) from None
                raise ConfigError(message("config.value_problem", "{source}: {label}: {problem}{shown}",
                                          source=layer.source, label=label, problem=worded, shown="")) from None


def _check_layers(layers: list[Layer], checks: Mapping[tuple[str, str], ValueCheck]) -> None:
    """Every layer's values, overridden or not: the schema's checks first, then the owners' ``checks``."""
    for layer in layers:
        _check_every_value(layer)
    for layer in layers:
        _check_owned_values(layer, checks)


def _merge(layers: list[Layer], checks: Mapping[tuple[str, str], ValueCheck]) -> Settings:
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
        if (problem.section, problem.key) in origin:
            given_in, variable = origin[problem.section, problem.key]
        else:
            given_in, variable = origin.get((problem.section, problem.blame or ""), (DEFAULTS, None))[0], None
        raise _value_problem(problem, given_in, variable) from None
    _check_layers(layers, checks)
    decks, cut = settings.table.decks, settings.shoe.cut_card_from_end
    deepest = max_cut_from_end(decks)
    if cut > deepest:
        cut_from = origin.get(("shoe", "cut_card_from_end"), (DEFAULTS, None))[0]
        decks_from = origin.get(("table", "decks"), (DEFAULTS, None))[0]
        raise ConfigError(message(
            "config.cut_too_deep", "{source}: [shoe] cut_card_from_end: expected at most {deepest} for a "
            "{decks}-deck shoe (the back half; [table] decks = {decks} from {decks_from}), got {cut}; lower it or "
            "use more decks", source=cut_from, deepest=deepest, decks=decks, decks_from=decks_from, cut=cut))
    directory = settings.table.messages_dir
    if directory and not os.path.isdir(directory):  # named with its layer, as every other config error is
        from controller.i18n.catalogue import not_a_directory

        given_in = origin.get(("table", "messages_dir"), (DEFAULTS, None))[0]
        raise ConfigError(message("config.value_problem_named", "{source}: {problem}", source=given_in,
                                  problem=not_a_directory(directory)))
    return settings


def read_config_file(path: str | os.PathLike[str] | None) -> tuple[str, dict[str, Any]]:
    """Read a TOML config file (None: the embedded default, shipped parsed as :mod:`config.default_data`);
    returns (name, data)."""
    if path is None:
        return "embedded config/default.toml", default_data()
    name = str(path)
    try:
        text = read_text_at_most(path, CONFIG_LIMIT)
        if text is None:
            raise ConfigError(message("config.too_long", "{name}: longer than {limit} MiB, far more than a config "
                                      "file holds; give the path of a TOML config file", name=name,
                                      limit=CONFIG_LIMIT // 2**20))
    except FileNotFoundError:
        raise ConfigError(message("config.no_file", "{name}: no such config file; give the path of a TOML file",
                                  name=name or "''")) from None
    except OSError as error:
        raise ConfigError(message("config.cannot_read", "{name}: cannot read the config file ({reason}); give the "
                                  "path of a readable TOML file", name=name, reason=str(error.strerror))) from None
    except UnicodeDecodeError:
        raise ConfigError(message("config.not_utf8", "{name}: not a UTF-8 text file; expected a TOML config",
                                  name=name)) from None
    import tomllib

    try:
        return name, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(message("config.not_toml", "{name}: not valid TOML ({reason}); fix the file or see "
                                  "docs/config.md", name=name, reason=str(error))) from None


def _refuse_undecodable(name: str, value: str) -> None:
    """Refuse a variable whose value is not UTF-8 text, showing its bytes legibly: no check below could word it,
    nor a journal keep it."""
    legible = undecodable(value)
    if legible is not None:
        raise ConfigError(message("config.env_not_utf8", "environment: {name}: expected UTF-8 text, got {value}; set "
                                  "it again as UTF-8 text, or unset it, see docs/config.md", name=name,
                                  value=f"'{legible}'"))


def environment_layer(environ: Mapping[str, str]) -> Layer:
    """``CROUPIER_<SECTION>_<KEY>`` variables as a config layer, for every section.

    Each value is converted to the type its key takes (a list is comma-separated). A ``CROUPIER_*``
    variable that names no section and key, or a key only the file may set, is refused.
    """
    data: dict[str, dict[str, Any]] = {}
    variables: dict[tuple[str, str], str] = {}
    sections = sorted(SECTIONS, key=len, reverse=True)
    for name, value in sorted(environ.items()):
        if not name.startswith(ENV_PREFIX) or name in SECRET_VARIABLES:
            continue
        rest = name[len(ENV_PREFIX):].lower()
        section = next((s for s in sections if rest.startswith(s + "_") and len(rest) > len(s) + 1), None)
        if section is None:
            raise ConfigError(message(
                "config.env_not_setting", "environment: {name}: not a Croupier setting; expected "
                "CROUPIER_<SECTION>_<KEY> with a section of {known}; fix its name or unset it, see docs/config.md",
                name=name, known=", ".join(sorted(SECTIONS))))
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
        _refuse_undecodable(name, value)
        data.setdefault(section, {})[key] = from_text(cls, key, value)
        variables[section, key] = name
    return Layer("environment", data, variables)


def load_config(
    path: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    checks: Mapping[tuple[str, str], ValueCheck] | None = None,
) -> Settings:
    """Load settings: ``overrides`` (command line) > ``environ`` > ``path`` (or the embedded default).

    ``checks`` checks the value of a ``(section, key)`` in every layer that sets it, the overridden ones too,
    with what a layer above the config knows (``("driver", "url")``: :func:`drivers.check_url`)."""
    name, data = read_config_file(path)
    return _merge([
        Layer(name, data),
        environment_layer(os.environ if environ is None else environ),
        Layer("command line", {k: dict(v) for k, v in (overrides or {}).items() if v}),
    ], checks or {})


__all__ = ["SECRET_VARIABLES", "Layer", "ValueCheck", "default_config_text", "environment_layer", "load_config",
           "read_config_file"]

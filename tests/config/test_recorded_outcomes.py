"""Every config outcome recorded before the typed settings left pydantic stays what it was.

``fixtures/recorded_outcomes.json`` was written with the pydantic schema (commit e200257): for each bad or
good config file, environment, command line and ``[auth]`` table, the one-line error or the settings as the
journal stores them (``settings_data``, JSON). The schema's library may change; none of these may. A key added
since is added to the recording with its default, and to the lists of keys the errors give, nothing else
(``[table] id``, ``[journal] clock_every`` and ``clock_limit``, ``[procedures] count_every``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from config.default_data import default_data
from config.loader import load_config
from config.schema import SECTIONS, settings_data
from controller.core.auth import settings_from_dict
from controller.core.exceptions import ConfigError

RECORDED = json.loads((Path(__file__).parent / "fixtures" / "recorded_outcomes.json").read_text(encoding="utf-8"))


def outcome(call: Callable[[], Any]) -> str:
    try:
        value = call()
    except ConfigError as error:
        return f"error: {error}"
    return "ok: " + json.dumps(settings_data(value))


def _case_id(case: dict[str, Any]) -> str:
    return json.dumps({key: value for key, value in case.items() if key != "outcome"})


@pytest.mark.parametrize("case", RECORDED, ids=_case_id)
def test_outcome_is_as_recorded(case: dict[str, Any], tmp_path: Path) -> None:
    if "file" in case:
        path = tmp_path / "table.toml"
        path.write_text(case["file"], encoding="utf-8")
        found = outcome(lambda: load_config(path, environ={})).replace(str(tmp_path), "TMP")
    elif "environ" in case:
        found = outcome(lambda: load_config(environ=case["environ"]))
    elif "overrides" in case:
        found = outcome(lambda: load_config(environ={}, overrides=case["overrides"]))
    else:
        found = outcome(lambda: settings_from_dict(case["auth"]))
    assert found == case["outcome"]


def test_the_recording_covers_every_section_and_both_outcomes() -> None:
    outcomes = [case["outcome"] for case in RECORDED]
    assert sum(text.startswith("ok: ") for text in outcomes) >= 40
    assert sum(text.startswith("error: ") for text in outcomes) >= 150
    for section in SECTIONS:
        errors = [text for text in outcomes if text.startswith("error")]
        assert any(f"[{section}]" in text or f"{section}." in text for text in errors), section


@pytest.mark.parametrize("case", [case for case in RECORDED if case["outcome"].startswith("error")], ids=_case_id)
def test_the_outcome_does_not_come_from_msgspec_wording(case: dict[str, Any], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a value went wrong and whether it had the wrong type come from the schema: with msgspec's messages
    emptied, every error stays as recorded."""
    convert = msgspec.convert

    def wordless(*args: Any, **kwargs: Any) -> Any:
        try:
            return convert(*args, **kwargs)
        except msgspec.ValidationError:
            raise msgspec.ValidationError("") from None

    monkeypatch.setattr(msgspec, "convert", wordless)
    test_outcome_is_as_recorded(case, tmp_path)


def test_each_section_is_converted_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """msgspec converts a whole section (its table) in one call, not key by key."""
    convert = msgspec.convert
    targets: list[Any] = []

    def counted(value: Any, kind: Any, **kwargs: Any) -> Any:
        targets.append(kind)
        return convert(value, kind, **kwargs)

    monkeypatch.setattr(msgspec, "convert", counted)
    load_config(environ={"CROUPIER_TABLE_DECKS": "6"}, overrides={"simulation": {"rounds": 3}})
    assert set(targets) <= set(SECTIONS.values())
    in_the_file = len(default_data())
    assert len(targets) == in_the_file + (in_the_file + 1 + 1)  # the merged settings, then each layer's sections

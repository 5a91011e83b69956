"""Every config outcome recorded before the typed settings left pydantic stays what it was.

``fixtures/recorded_outcomes.json`` was written with the pydantic schema (commit e200257): for each bad or
good config file, environment, command line and ``[auth]`` table, the one-line error or the settings as the
journal stores them (``settings_data``, JSON). The schema's library may change; none of these may.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

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

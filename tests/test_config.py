"""The config loader: precedence, validation and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from config import default_config_text, load_config
from controller.exceptions import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_embedded_default_matches_the_issue() -> None:
    settings = load_config(environ={})
    assert settings.driver.url.startswith("mock://")
    assert settings.table.decks == 8
    assert settings.table.variant == "commission"
    assert settings.shoe.burn == "first_card"
    assert settings.shoe.cut_card == "one_more"
    assert "decks = 8" in default_config_text()


def test_precedence_command_line_over_environment_over_file(tmp_path: Path) -> None:
    path = write(tmp_path, "[table]\ndecks = 6\nvariant = \"no_commission\"\n")
    assert load_config(path, environ={}).table.decks == 6
    assert load_config(path, environ={"CROUPIER_TABLE_DECKS": "4"}).table.decks == 4
    settings = load_config(path, environ={"CROUPIER_TABLE_DECKS": "4"}, overrides={"table": {"decks": 2}})
    assert settings.table.decks == 2
    assert settings.table.variant == "no_commission"


@pytest.mark.parametrize("text, fragments", [
    ("[table]\ndeck = 6\n", ["table.toml", "[table] deck", "unknown key", "decks"]),
    ("[table]\ndecks = \"six\"\n", ["[table] decks", "a whole number from 1 to 8", "'six'"]),
    ("[table]\ndecks = 9\n", ["[table] decks", "from 1 to 8", "got 9"]),
    ("[table]\nvariant = \"cheap\"\n", ["[table] variant", '"commission"', "'cheap'"]),
    ("[shoe]\nburn = true\n", ["[shoe] burn", "one of", "True"]),
    ("[tables]\ndecks = 8\n", ["unknown section [tables]", "[table]"]),
    ("[table\n", ["not valid TOML"]),
    ("decks = 8\n", ["key 'decks' is outside any section", "it belongs in [table]"]),
    ("[table]\ndecks = 1\n[shoe]\ncut_card_from_end = 60\n", ["[shoe] cut_card_from_end", "at most 26"]),
])
def test_bad_file_names_file_key_and_expected_value(tmp_path: Path, text: str, fragments: list[str]) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={})
    for fragment in fragments:
        assert fragment in str(caught.value)


def test_bad_environment_value_names_the_variable_source() -> None:
    with pytest.raises(ConfigError, match=r"environment: \[table\] decks: expected a whole number"):
        load_config(environ={"CROUPIER_TABLE_DECKS": "eight"})


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "absent.toml", environ={})

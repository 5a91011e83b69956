"""``croupier history``'s text names the side bets in its language (``dragon_7``: 드래곤 7), the English
names unchanged; ``--json`` keeps the catalogue names."""

from __future__ import annotations

import pytest

from controller.core.bets.catalogue import BETS, STANDARD
from controller.core.bets.names import BET_NAMES
from controller.i18n.catalogue import Catalogue
from controller.i18n.languages import LANGUAGES
from tests.inprocess import croupier_in_process as croupier

SIDE_BETS = ("either_pair", "perfect_pair", "dragon_7", "panda_8", "dragon_bonus_player", "dragon_bonus_banker",
             "big", "small", "lucky_6")


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("bets")
    config = folder / "table.toml"
    offered = ", ".join(f'"{bet}"' for bet in (*STANDARD, *SIDE_BETS))
    config.write_text(f"[bets]\noffered = [{offered}]\n", encoding="utf-8")
    path = str(folder / "table.journal")
    run = croupier("simulate", "--seed", "42", "--rounds", "3", "--quiet", "--config", str(config), "--journal", path)
    assert run.returncode == 0, run.stderr
    return path


def test_every_side_bet_has_a_name_whose_english_is_its_catalogue_name() -> None:
    assert set(BET_NAMES) == set(BETS) - set(STANDARD)
    for bet, name in BET_NAMES.items():
        assert name.id == f"bet.{bet}" and name.english() == bet.replace("_", " ")
        for language in LANGUAGES:
            assert Catalogue(language).text(name)


def test_history_names_the_side_bets_in_korean(journal: str) -> None:
    english = croupier("history", journal)
    korean = croupier("history", journal, "--lang", "ko")
    assert english.returncode == korean.returncode == 0, korean.stderr
    assert "dragon 7 " in english.stdout and "dragon bonus banker " in english.stdout
    for bet in SIDE_BETS:
        assert bet.replace("_", " ") + " " in english.stdout, bet
        assert bet.replace("_", " ") not in korean.stdout, bet
        assert Catalogue("ko").text(BET_NAMES[bet]) + " " in korean.stdout, bet
    assert "드래곤 7 " in korean.stdout


def test_history_json_keeps_the_catalogue_names(journal: str) -> None:
    assert '"dragon_7"' in croupier("history", journal, "--json", "--lang", "ko").stdout

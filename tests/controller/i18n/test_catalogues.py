"""The catalogues against the code: ``pybabel extract`` finds exactly the messages each ``.po`` translates."""

from __future__ import annotations

import string
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from controller.i18n.catalogue import Catalogue, CatalogueError, builtin_po_path
from controller.i18n.languages import LANGUAGES
from controller.i18n.message import message

ROOT = Path(__file__).resolve().parents[3]
LOCALES = ROOT / "controller" / "i18n" / "locales"
Key = tuple[str, str]


def keys(catalog: Catalog) -> set[Key]:
    return {(str(entry.context), str(entry.id)) for entry in catalog if entry.id}


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """What ``pybabel extract`` finds in the code today, with the project's babel.cfg and keywords."""
    pot = tmp_path_factory.mktemp("pot") / "croupier.pot"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg",
                    "-k", "message:1c,2", "-k", "say:1c,2", "--no-default-keywords", "-o", str(pot),
                    "controller", "drivers", "config"],
                   cwd=ROOT, check=True, capture_output=True, timeout=120)
    with pot.open("rb") as handle:
        return read_po(handle)


def test_there_is_one_catalogue_per_language() -> None:
    assert sorted(path.stem for path in LOCALES.glob("*.po")) == sorted(LANGUAGES)


def test_the_extraction_finds_the_messages_of_the_core_and_the_transcript(extracted: Catalog) -> None:
    found = dict(keys(extracted))
    assert found["prompt.player"] == "Card to PLAYER"
    assert found["result.banker"] == "Banker wins {high} to {low}"
    assert "transcript.round" in found
    assert len(found) == len(keys(extracted)), "one id is used for two different English texts"


def test_the_committed_template_is_the_extraction(extracted: Catalog) -> None:
    with (ROOT / "controller" / "i18n" / "croupier.pot").open("rb") as handle:
        assert keys(read_po(handle)) == keys(extracted), "run the pybabel extract line of babel.cfg"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_catalogue_has_every_message_and_no_stale_one(language: str, extracted: Catalog) -> None:
    with builtin_po_path(language).open("rb") as handle:
        catalog = read_po(handle, locale=language)
    have, want = keys(catalog), keys(extracted)
    assert not want - have, f"{language}.po misses {sorted(want - have)}"
    assert not have - want, f"{language}.po has stale messages {sorted(have - want)}"
    untranslated = [entry.context for entry in catalog if entry.id and not entry.string]
    assert not untranslated, f"{language}.po leaves {untranslated} untranslated"
    fuzzy = [entry.context for entry in catalog if entry.id and entry.fuzzy]
    assert not fuzzy, f"{language}.po has fuzzy entries {fuzzy}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_translation_uses_exactly_the_placeholders_of_its_english_text(language: str) -> None:
    with builtin_po_path(language).open("rb") as handle:
        catalog = read_po(handle, locale=language)

    def names(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    wrong = [entry.context for entry in catalog if entry.id and names(str(entry.string)) != names(str(entry.id))]
    assert not wrong, f"{language}.po: {wrong} do not use the placeholders of their English text"


def test_a_language_without_a_message_falls_back_to_english_and_fills_the_parameters() -> None:
    unknown = message("no.such.message", "Shoe {shoe}", shoe=3)
    assert Catalogue("ko").text(unknown) == "Shoe 3"
    assert Catalogue("ko").text(message("result.tie", "Tie {player} to {banker}", player=4, banker=4)) == "타이 4 대 4"


def test_an_unknown_language_is_refused_naming_the_choices() -> None:
    with pytest.raises(CatalogueError, match=r"unknown language 'kr'; expected one of en, ko"):
        Catalogue("kr")

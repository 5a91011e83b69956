"""The data shipped as generated modules is what its source gives today, recomputed here: the live edge's
multiset tables (classified through the rules table), every fresh shoe's odds (enumerated) and the shipped
catalogues' messages (the .po files read with Babel), and the embedded default config (parsed again)."""

from __future__ import annotations

import tomllib

from config.default_data import default_data
from config.loader import default_config_text, read_config_file
from controller.cli import gendata
from controller.core.bets import exact
from controller.core.odds import DECKS, compute_odds, fresh_odds
from controller.i18n.catalogue import ENGLISH, Catalogue, po_source_texts, po_translations, source_texts
from controller.i18n.languages import LANGUAGES

STALE = "the shipped data differs from its source; run: python -m controller.cli.gendata"


def test_the_shipped_multiset_tables_are_the_classification_of_today() -> None:
    assert gendata.TABLES_MODULE.read_text(encoding="utf-8") == gendata.render_tables(), STALE


def test_the_loaded_tables_are_the_classified_ones() -> None:
    parents, factors, positions = exact.build_table_data()
    tables = exact._tables()
    assert tables.parents == parents and tables.factors == factors
    assert [(position, found(list(range(10_000))), orderings) for position, _, found, orderings in tables.positions] \
        == list(positions)


def test_the_shipped_fresh_odds_are_the_enumeration_of_today() -> None:
    assert gendata.FRESH_ODDS_MODULE.read_text(encoding="utf-8") == gendata.render_fresh_odds(), STALE
    for decks in DECKS:
        assert fresh_odds(decks) == compute_odds(decks)


def test_the_shipped_messages_are_the_po_files_of_today() -> None:
    assert gendata.MESSAGES_MODULE.read_text(encoding="utf-8") == gendata.render_messages(), STALE


def test_each_catalogue_has_its_po_files_messages() -> None:
    assert source_texts() == po_source_texts()
    assert ENGLISH.texts == po_translations("en")
    for language in LANGUAGES:
        assert Catalogue(language).texts == po_translations(language)


def test_the_shipped_default_config_is_the_toml_file_of_today() -> None:
    assert gendata.DEFAULT_CONFIG_MODULE.read_text(encoding="utf-8") == gendata.render_default_config(), STALE
    parsed = tomllib.loads(default_config_text())
    assert repr(default_data()) == repr(parsed)
    first, second = default_data(), default_data()
    assert first["bets"]["offered"] is not second["bets"]["offered"]
    assert read_config_file(None) == ("embedded config/default.toml", parsed)

"""Every generated file of the repository is what its source gives today, rendered again here
(``controller/cli/gendata.py`` lists them; ``python -m controller.cli.gendata`` rewrites them): the live edge's
multiset tables (classified through the rules table), the shipped catalogues' messages (the .po files read
with Babel) and the message template, every fresh shoe's odds (enumerated), the embedded default config (parsed
again), and the generated documents."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest

from config.default_data import default_data
from config.loader import default_config_text, read_config_file
from controller.cli import gendata
from controller.core.bets import exact, tables
from controller.core.odds import DECKS, compute_odds, fresh_odds
from controller.i18n.catalogue import ENGLISH, Catalogue, po_source_texts, po_translations, source_texts
from controller.i18n.languages import LANGUAGES

STALE = "the shipped data differs from its source; run: python -m controller.cli.gendata"


@pytest.mark.parametrize("item", gendata.GENERATED, ids=lambda item: str(item.path.relative_to(gendata.ROOT)))
def test_every_generated_file_is_what_its_source_gives_today(item: gendata.Generated) -> None:
    assert item.is_current(), f"{item.path}: {STALE}"


def test_the_generator_lists_every_generated_file() -> None:
    paths = {item.path.relative_to(gendata.ROOT).as_posix() for item in gendata.GENERATED}
    assert {"controller/core/bets/exact_tables.bin", "controller/core/fresh_odds.py", "config/default_data.py",
            "controller/i18n/croupier.pot", "docs/bets.md", "docs/cli.md", "docs/state-machine.md",
            "docs/state-machine.mmd"} <= paths
    assert {f"controller/i18n/builtin/{language}.json" for language in LANGUAGES} <= paths
    shipped = {path.relative_to(gendata.ROOT).as_posix() for path in gendata.MESSAGES_DIR.iterdir()}
    assert shipped <= paths, "a file in controller/i18n/builtin that no generator writes"


def test_check_names_a_stale_file_and_writes_nothing(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    page = gendata.ROOT / "docs" / "bets.md"
    before = page.read_bytes()
    stale = gendata.Generated(page, lambda: "not the page\n")
    monkeypatch.setattr(gendata, "GENERATED", (stale, *gendata.GENERATED[:1]))
    assert gendata.main(["--check"]) == 1
    assert capsys.readouterr().out == "stale: docs/bets.md; run: python -m controller.cli.gendata\n"
    assert page.read_bytes() == before


def test_check_passes_on_the_repository() -> None:
    run = subprocess.run([sys.executable, "-m", "controller.cli.gendata", "--check"], capture_output=True, text=True,
                         timeout=300, cwd=gendata.ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout == f"{len(gendata.GENERATED)} generated files are current\n"


def test_the_shipped_tables_load_as_the_classified_ones() -> None:
    parents, factors, positions = exact.build_table_data()
    assert tables.load() == (parents, factors, positions)
    assert tables.decode(tables.encode((parents, factors, positions))) == (parents, factors, positions)
    assert tables.position_order() == tuple(position for position, _, _ in positions)
    loaded = exact._tables()
    assert loaded.parents == parents and loaded.factors == factors
    assert [(position, found(list(range(10_000))), orderings) for position, _, found, orderings in loaded.positions] \
        == list(positions)


def test_the_tables_file_is_compact() -> None:
    assert gendata.TABLES_FILE.stat().st_size < 150_000
    with pytest.raises(ValueError, match="first bytes"):
        tables.decode(b"not tables" + tables.blob()[10:])
    with pytest.raises(ValueError, match="end too early"):
        tables.decode(tables.blob()[:-1])


def test_the_shipped_fresh_odds_are_the_enumeration_of_today() -> None:
    for decks in DECKS:
        assert fresh_odds(decks) == compute_odds(decks)


def test_each_catalogue_has_its_po_files_messages() -> None:
    assert source_texts() == po_source_texts()
    assert ENGLISH.texts == po_translations("en")
    for language in LANGUAGES:
        assert Catalogue(language).texts == po_translations(language)


def test_the_shipped_default_config_is_the_toml_file_of_today() -> None:
    parsed = tomllib.loads(default_config_text())
    assert repr(default_data()) == repr(parsed)
    first, second = default_data(), default_data()
    assert first["bets"]["offered"] is not second["bets"]["offered"]
    assert read_config_file(None) == ("embedded config/default.toml", parsed)

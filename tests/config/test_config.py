"""The config loader: precedence, validation and clear errors."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from config.loader import default_config_text, environment_layer, load_config
from config.schema import AuthSettings, Badge, Settings, keys_of, max_cut_from_end, settings_data
from controller.core.exceptions import ConfigError
from tests.inprocess import croupier_in_process, croupier_process


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


def test_embedded_default_file_gives_the_built_in_defaults() -> None:
    from_file = load_config(environ={})
    assert from_file.source == "embedded config/default.toml"
    assert {**settings_data(from_file), "source": ""} == {**settings_data(Settings()), "source": ""}


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


def test_every_section_takes_the_environment(tmp_path: Path) -> None:
    environ = {
        "CROUPIER_AUTH_ENABLED": "true", "CROUPIER_AUTH_READER": "pcsc://?reader=Virtual PCD 00 01",
        "CROUPIER_AUTH_SUPERVISOR_ONLY": "void, close_shoe", "CROUPIER_AUTH_IDLE_SIGNOUT_SECONDS": "30",
        "CROUPIER_SERIAL_BAUDRATE": "19200", "CROUPIER_SERIAL_FRAMING": "stx",
        "CROUPIER_SCOREBOARD_ADDRESS": "127.0.0.1:8080", "CROUPIER_JOURNAL_PATH": "t.journal",
        "CROUPIER_PROTECTION_SEQUENCE_CHECK": "false",
    }
    settings = load_config(environ=environ)
    auth = settings.auth
    assert (auth.enabled, auth.reader, auth.supervisor_only, auth.idle_signout_seconds) == (
        True, "pcsc://?reader=Virtual PCD 00 01", ["void", "close_shoe"], 30.0)
    set_keys = {"enabled", "reader", "supervisor_only", "idle_signout_seconds"}
    assert set(environment_layer(environ).data["auth"]) == set_keys
    assert {key for key in keys_of(AuthSettings) if getattr(auth, key) != getattr(AuthSettings(), key)} == set_keys
    assert (settings.serial.baudrate, settings.serial.framing) == (19200, "stx")
    assert settings.scoreboard.address == "127.0.0.1:8080"
    assert settings.journal.path == "t.journal"
    assert settings.protection.sequence_check is False


@pytest.mark.parametrize("environ, fragments", [
    ({"CROUPIER_TABEL_DECKS": "6"}, ["environment: CROUPIER_TABEL_DECKS: not a Croupier setting",
                                     "CROUPIER_<SECTION>_<KEY>", "table"]),
    ({"CROUPIER_DECKS": "6"}, ["CROUPIER_DECKS: not a Croupier setting"]),
    ({"CROUPIER_SERIAL_BAUD": "9600"}, ["environment: [serial] baud: unknown key", "baudrate, framing"]),
    ({"CROUPIER_SERIAL_BAUDRATE": "banana"}, ["environment: [serial] baudrate", "a whole number", "'banana'"]),
    ({"CROUPIER_SCOREBOARD_PORT": "80"}, ["environment: [scoreboard] port: unknown key", "address"]),
    ({"CROUPIER_AUTH_ENABLD": "true"}, ["environment: [auth] enabld: unknown key", "CROUPIER_AUTH_ENABLD"]),
    ({"CROUPIER_AUTH_TWO_PERSON": "maybe"}, ["[auth] two_person (CROUPIER_AUTH_TWO_PERSON)", "true or false",
                                             "'maybe'"]),
    ({"CROUPIER_AUTH_BADGES": "x"}, ["[auth] badges", "config file"]),
    ({"CROUPIER_PROTECTION_SEQUENCE_CHECK": "maybe"}, [
        "environment: [protection] sequence_check", "true or false", "'maybe'"]),
])
def test_bad_environment_is_refused(environ: dict[str, str], fragments: list[str]) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(environ=environ)
    for fragment in fragments:
        assert fragment in str(caught.value)


@pytest.mark.parametrize("name", ["CROUPIER_PCSCD_PIDFILE", "CROUPIER_REQUIRE_PCSC", "CROUPIER_REQUIRE_CHROMIUM",
                                  "CROUPIER_TEST_MQTT", "CROUPIER_TEST_POSTGRES", "CROUPIER_UPDATE_SCREENSHOTS"])
def test_the_loader_knows_no_variable_of_the_test_suite(name: str) -> None:
    """The runtime loader knows settings only: what were the test suite's ``CROUPIER_*`` variables are refused like
    any other name that is not a setting, and the refusal lists none of them."""
    with pytest.raises(ConfigError) as caught:
        load_config(environ={name: "1"})
    assert str(caught.value) == (
        f"environment: {name}: not a Croupier setting; expected CROUPIER_<SECTION>_<KEY> with a section of auth, "
        "bets, driver, feed, integrity, journal, procedures, protection, scoreboard, serial, shoe, simulation, table; "
        "fix its name or unset it, see docs/config.md")


def test_the_test_suite_reads_and_sets_no_croupier_variable_of_its_own() -> None:
    """The suite's own variables (services started by .ci/test, strictness switches) are outside ``CROUPIER_*``, so a
    croupier process started by a test never sees one."""
    root = Path(__file__).resolve().parents[2]
    texts = [(root / ".ci" / "test").read_text(encoding="utf-8")]
    texts += [path.read_text(encoding="utf-8") for path in (root / "tests").rglob("*.py")]
    reads_or_sets = re.compile(r"(?:export |environ\.get\(\"|environ\[\"|setenv\(\"|delenv\(\")(CROUPIER_\w+)")
    used = {name for text in texts for name in reads_or_sets.findall(text)}
    assert used == set()


@pytest.mark.parametrize("text, fragments", [
    ('[serial]\nbaudrate = "banana"\n', ["table.toml: [serial] baudrate", "a whole number from 50 to 4000000",
                                         "'banana'"]),
    ("[serial]\nparity = 1\n", ["table.toml: [serial] parity: unknown key", "baudrate, framing"]),
    ('[scoreboard]\nadress = "x"\n', ["table.toml: [scoreboard] adress: unknown key", "address"]),
    ('[scoreboard]\naddress = "nonsense"\n', ["table.toml: [scoreboard] address", "expected HOST:PORT",
                                              "'nonsense'"]),
    ('[scoreboard]\naddress = "127.0.0.1:99999"\n', ["table.toml: [scoreboard] address", "0-65535"]),
])
def test_serial_and_scoreboard_keys_are_checked(tmp_path: Path, text: str, fragments: list[str]) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text), environ={})
    for fragment in fragments:
        assert fragment in str(caught.value)


@pytest.mark.parametrize("where, fragments", [
    ({"file": "[table]\ndecks = 1\n[shoe]\ncut_card_from_end = 60\n"},
     ["table.toml: [shoe] cut_card_from_end", "at most 26", "table.toml), got 60"]),
    ({"file": "[shoe]\ncut_card_from_end = 60\n", "environ": {"CROUPIER_TABLE_DECKS": "1"}},
     ["table.toml: [shoe] cut_card_from_end", "decks = 1 from environment"]),
    ({"environ": {"CROUPIER_SHOE_CUT_CARD_FROM_END": "60"}, "overrides": {"table": {"decks": 1}}},
     ["environment: [shoe] cut_card_from_end", "decks = 1 from command line"]),
    ({"overrides": {"table": {"decks": 1}, "shoe": {"cut_card_from_end": 60}}},
     ["command line: [shoe] cut_card_from_end"]),
])
def test_cut_card_depth_error_names_where_each_value_came_from(
        tmp_path: Path, where: dict[str, Any], fragments: list[str]) -> None:
    path = write(tmp_path, where["file"]) if "file" in where else None
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ=where.get("environ", {}), overrides=where.get("overrides"))
    for fragment in fragments:
        assert fragment in str(caught.value)


def test_a_mistyped_variable_stops_the_cli_with_one_line() -> None:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}, "CROUPIER_TABEL_DECKS": "6"}
    done = croupier_in_process("simulate", "--rounds", "1", "--quiet", env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith("croupier simulate: environment: CROUPIER_TABEL_DECKS: not a Croupier setting")


@pytest.mark.parametrize("text, environ, message", [
    ("[auth]\ncolour = 1\n", {},
     "table.toml: auth.colour: unknown key; expected one of enabled, reader, identify, select_apdu, read_apdu, "
     "idle_signout_seconds, supervisor_only, two_person, lockout_after, lockout_window_seconds, badges"),
    ('[auth.badges.04A1]\nname = "A"\nrole = "boss"\n', {},
     "table.toml: auth.badges.04A1.role: expected \"dealer\" or \"supervisor\", got 'boss'"),
    ('[auth]\nsupervisor_only = ["void", 3]\n', {},
     "table.toml: auth.supervisor_only[1]: expected one of burn, void, use, manual, online, count, "
     "foreign_card, close_shoe, got 3"),
    ('[auth]\nsupervisor_only = ["void", "bogus"]\n', {},
     "table.toml: auth.supervisor_only[1]: expected one of burn, void, use, manual, online, count, "
     "foreign_card, close_shoe, got 'bogus'"),
    ("[auth]\nenabled = true\n", {},
     "table.toml: auth.reader: expected a PC/SC reader URL, pcsc://?reader=NAME when auth.enabled = true, "
     "got nothing"),
    ("", {"CROUPIER_AUTH_ENABLED": "true"},
     "environment: auth.reader: expected a PC/SC reader URL, pcsc://?reader=NAME when auth.enabled = true, "
     "got nothing"),
    ('[auth]\nreader = "pcsc://?reader=R"\n', {"CROUPIER_AUTH_IDLE_SIGNOUT_SECONDS": "-5"},
     "environment: [auth] idle_signout_seconds (CROUPIER_AUTH_IDLE_SIGNOUT_SECONDS): expected a number of "
     "seconds >= 0 (0 = never), got -5.0"),
])
def test_auth_is_a_section_of_the_one_config(tmp_path: Path, text: str, environ: dict[str, str],
                                             message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text), environ=environ)
    assert str(caught.value).replace(str(tmp_path / "table.toml"), "table.toml") == message


def test_auth_layers_merge_key_by_key_into_the_typed_section(tmp_path: Path) -> None:
    path = write(tmp_path, '[auth]\nenabled = true\nreader = "pcsc://?reader=R"\nidentify = "apdu"\n'
                           '[auth.badges."04:a1:b2"]\nname = " Alice "\nrole = "dealer"\n')
    auth = load_config(path, environ={"CROUPIER_AUTH_TWO_PERSON": "false"},
                       overrides={"auth": {"idle_signout_seconds": 0}}).auth
    assert (auth.enabled, auth.reader, auth.two_person, auth.idle_signout_seconds) == (
        True, "pcsc://?reader=R", False, 0.0)
    assert auth.read_apdu == "00CA010000"
    assert auth.badge("04A1B2") == Badge("04A1B2", "Alice", "dealer")
    assert load_config(environ={}).auth == AuthSettings()


def test_a_section_refuses_assignment_and_the_file_its_types(tmp_path: Path) -> None:
    settings = load_config(environ={})
    with pytest.raises(AttributeError, match="immutable"):
        settings.table.decks = 2  # type: ignore[misc]
    assert settings.table.decks == 8
    with pytest.raises(ConfigError, match=r"\[table\] decks: expected a whole number from 1 to 8, got '6' \(str\)"):
        load_config(write(tmp_path, '[table]\ndecks = "6"\n'), environ={})
    assert load_config(environ={"CROUPIER_TABLE_DECKS": " 6 "}).table.decks == 6


@pytest.mark.parametrize("environ, fragments", [
    ({"CROUPIER_SCOREBOARD_ADDRESS": "nonsense"}, ["environment: [scoreboard] address", "expected HOST:PORT"]),
    ({"CROUPIER_AUTH_SUPERVISOR_ONLY": "void,close_shoe,bogus"},
     ["environment", "supervisor_only", "expected one of burn, void", "'bogus'"]),
])
def test_bad_values_from_the_environment_name_their_source_and_key(environ: dict[str, str],
                                                                    fragments: list[str]) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(None, environ=environ)
    for fragment in fragments:
        assert fragment in str(caught.value)


def test_journal_checkpoint_every_is_a_whole_number_of_inputs(tmp_path: Path) -> None:
    assert load_config(environ={}).journal.checkpoint_every == 250
    assert load_config(environ={"CROUPIER_JOURNAL_CHECKPOINT_EVERY": "0"}).journal.checkpoint_every == 0
    with pytest.raises(ConfigError, match=r"\[journal\] checkpoint_every"):
        load_config(environ={"CROUPIER_JOURNAL_CHECKPOINT_EVERY": "-1"})


@pytest.mark.parametrize("text, environ, argv, error", [
    ("[simulation]\nrounds = -1\n", {}, ["--rounds", "2"],
     "table.toml: [simulation] rounds: expected a whole number from 0 to 10000000, got -1"),
    ("[table]\ndecks = 9\n", {"CROUPIER_TABLE_DECKS": "6"}, [],
     "table.toml: [table] decks: expected a whole number from 1 to 8, got 9"),
    ("", {"CROUPIER_SIMULATION_ROUNDS": "-3"}, ["--rounds", "2"],
     "environment: [simulation] rounds: expected a whole number from 0 to 10000000, got -3"),
    ('[feed]\nsite = "pit 1"\n', {}, [],
     "table.toml: [feed] site: expected a name of 1-64 letters, digits, '-', '_' or '.' (used when the url gives "
     "no /SITE/TABLE; \"\" = none), got 'pit 1'"),
    ('[feed]\nurl = "mqtt://127.0.0.1:1883/pit/t1"\ntable = "a/b"\n', {}, [],
     "table.toml: [feed] table: expected a name of 1-64 letters, digits, '-', '_' or '.' (used when the url gives "
     "no /SITE/TABLE; \"\" = none), got 'a/b'"),
    ("", {"CROUPIER_FEED_SITE": "s" * 65}, [],
     "environment: [feed] site: expected a name of 1-64 letters, digits, '-', '_' or '.' (used when the url gives "
     f"no /SITE/TABLE; \"\" = none), got '{'s' * 65}'"),
], ids=["file overridden by the command line", "file overridden by the environment",
        "environment overridden by the command line", "feed site with no feed url", "feed table the url overrides",
        "feed site too long"])
def test_a_bad_value_is_refused_even_where_it_is_overridden_or_unused(
        tmp_path: Path, text: str, environ: dict[str, str], argv: list[str], error: str) -> None:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}, **environ}
    done = croupier_in_process("simulate", "--config", str(write(tmp_path, text)), "--quiet", *argv, env=env)
    assert done.returncode == 2 and done.stdout == ""
    source = str(tmp_path / "table.toml")
    assert done.stderr.splitlines() == [f"croupier simulate: {error.replace('table.toml', source)}"]


def test_good_values_overridden_stay_allowed(tmp_path: Path) -> None:
    path = write(tmp_path, '[simulation]\nrounds = 5\n[table]\ndecks = 4\n[feed]\nsite = "pit-1"\ntable = "t.1"\n')
    settings = load_config(path, environ={"CROUPIER_TABLE_DECKS": "6"}, overrides={"simulation": {"rounds": 2}})
    assert (settings.simulation.rounds, settings.table.decks, settings.feed.site) == (2, 6, "pit-1")


@pytest.mark.parametrize("argv", [["--rounds", "10", "--quiet"], ["--rounds", "1", "--quiet", "--feed",
                                                                   "mqtt://127.0.0.1:1883/pit/t1"]],
                         ids=["no feed used (fast path)", "--feed given"])
def test_a_bad_feed_url_in_the_file_is_refused_even_where_it_is_not_used(tmp_path: Path, argv: list[str]) -> None:
    path = write(tmp_path, '[feed]\nurl = "http://broker:1883/pit/t1"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
    done = croupier_in_process("simulate", "--config", str(path), *argv, env=env)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("croupier simulate: "), lines
    assert f"{path}: [feed] url 'http://broker:1883/pit/t1': scheme 'http://' is not mqtt://" in lines[0]


@pytest.mark.parametrize(("file_url", "said"), [
    ("http://broker:1883/pit/t1", "[feed] url 'http://broker:1883/pit/t1': scheme 'http://' is not mqtt:// or "
                                  "mqtts://; expected mqtt://"),
    ("mqtt://broker:1883/pit", "[feed] url 'mqtt://broker:1883/pit': the path '/pit' is not /SITE/TABLE"),
    ("mqtt://broker:99999/pit/t1", "[feed] url 'mqtt://broker:99999/pit/t1': the port is not a number from 1 to "
                                   "65535"),
], ids=["not mqtt", "no table in the path", "port out of range"])
def test_a_bad_feed_url_in_the_file_is_refused_though_the_environment_gives_a_good_one(
        tmp_path: Path, file_url: str, said: str) -> None:
    path = write(tmp_path, f'[feed]\nurl = "{file_url}"\n')
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")},
           "CROUPIER_FEED_URL": "mqtt://127.0.0.1:1883/pit/t1"}
    done = croupier_in_process("simulate", "--config", str(path), "--rounds", "1", "--quiet", env=env)
    assert done.returncode == 2 and done.stdout == "", done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"croupier simulate: {path}: {said}"), lines


def test_a_feed_url_with_a_user_and_no_password_overridden_stays_allowed(tmp_path: Path) -> None:
    """Only the URL's form is checked in a layer another overrides: the password a user takes from the environment
    is looked for where the URL is used."""
    path = write(tmp_path, '[feed]\nurl = "mqtt://table7@broker:1883/pit/t7"\n')
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")},
           "CROUPIER_FEED_URL": "mqtt://127.0.0.1:1883/pit/t1"}
    done = croupier_in_process("simulate", "--config", str(path), "--rounds", "1", "--quiet", env=env)
    assert (done.returncode, done.stderr) == (0, "")


def test_config_keeps_data_and_validation_only() -> None:
    """Driver and approval logic lives with its owners (drivers.serial, drivers.pcsc, controller.core.auth)."""
    import config.loader
    import config.schema

    assert not hasattr(config.loader, "serial_url")
    assert not hasattr(config.schema, "parse_apdu") and not hasattr(config.schema, "reader_from_url")
    assert not hasattr(Badge, "can_approve") and not hasattr(AuthSettings, "reader_name")


def test_a_reader_url_python_cannot_split_is_a_one_line_error() -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(environ={"CROUPIER_AUTH_READER": "pcsc://[x?reader=R"})
    assert str(caught.value) == ("environment: [auth] reader (CROUPIER_AUTH_READER): expected a PC/SC reader URL, "
                                 "pcsc://?reader=NAME, got 'pcsc://[x?reader=R'")


def test_every_key_says_what_it_takes() -> None:
    """A key's words are its own, or follow from a type that says it all (no key is called "a string" but a string)."""
    from config.schema import SECTIONS
    from config.typed import base_type, expected_words

    for section in SECTIONS.values():
        for key in keys_of(section):
            assert expected_words(section, key).english() != "a string" or base_type(section, key) is str, key


def test_a_config_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """An editor that saves UTF-8 with a BOM (Windows Notepad) made the file 'not valid TOML (Invalid statement (at
    line 1, column 1))', while the file looks right in any editor."""
    path = tmp_path / "table.toml"
    path.write_bytes(b"\xef\xbb\xbf[table]\ndecks = 6\n")
    assert load_config(str(path), environ={}).table.decks == 6


@pytest.mark.parametrize("where", ["file", "environment"])
def test_a_bet_offered_twice_is_refused(tmp_path: Path, where: str) -> None:
    """Each settlement is keyed by the offered bet's name: a bet listed twice was settled once, the second dropped
    without a word (a typo for another bet went unnoticed)."""
    path = tmp_path / "bets.toml"
    path.write_text('[bets]\noffered = ["player", "banker", "player"]\n' if where == "file" else "", encoding="utf-8")
    environ = {"CROUPIER_BETS_OFFERED": "player,banker,player"} if where == "environment" else {}
    with pytest.raises(ConfigError) as refused:
        load_config(str(path), environ=environ)
    assert str(refused.value) == (f"{path if where == 'file' else 'environment'}: [bets] offered: expected different "
                                  "bets, each once, got ['player', 'banker', 'player']"), str(refused.value)


@pytest.mark.parametrize("reader", [
    "pcsc://?reader=R&poll=50",         # an option the badge reader does not take: it was dropped unseen
    "pcsc://?reader=R&colour=red",      # a typo'd or unknown option
    "pcsc://?reader=R&reader=S",        # two readers: the second was dropped unseen
    "pcsc://front?reader=R",            # a host, which a pcsc:// URL has no place for
    "pcsc://?reader=%20",               # a blank name
])
def test_a_badge_reader_url_with_more_than_the_reader_is_refused(reader: str) -> None:
    """``[auth] reader`` takes ``pcsc://?reader=NAME`` and nothing else: anything more was ignored, so a
    table engineer's option or second reader silently did nothing."""
    with pytest.raises(ConfigError) as caught:
        load_config(environ={"CROUPIER_AUTH_READER": reader})
    assert str(caught.value) == ("environment: [auth] reader (CROUPIER_AUTH_READER): expected a PC/SC reader URL, "
                                 f"pcsc://?reader=NAME, got {reader!r}")


@pytest.mark.parametrize("reader", ["pcsc://?reader=Virtual PCD 00 01", "pcsc://?reader=Virtual%20PCD%2000%2001",
                                    "pcsc://?reader=ACR122"])
def test_a_badge_reader_url_naming_its_reader_is_kept(reader: str) -> None:
    assert load_config(environ={"CROUPIER_AUTH_READER": reader}).auth.reader == reader


@pytest.mark.parametrize(("stored", "replayed"), [
    ("pcsc://?reader=X&poll=50", "pcsc://?reader=X"),
    ("pcsc://front?reader=Virtual PCD 00 01&reader=Y", "pcsc://?reader=Virtual PCD 00 01"),
    ("pcsc://?reader=X", "pcsc://?reader=X"),
])
def test_a_journal_written_with_a_looser_badge_reader_url_still_replays(stored: str, replayed: str) -> None:
    """Journals written before ``[auth] reader`` took the reader's name alone keep replaying (the replay opens no
    reader): ``audit verify`` must not reject them for it."""
    from controller.journal.replay import settings_from_header

    header = {"identity": {"settings": {"table": {}, "shoe": {}, "procedures": {}, "simulation": {}}},
              "extra": {"auth": {"enabled": True, "reader": stored, "two_person": True, "lockout_after": 5}}}
    assert settings_from_header("old.journal", header).auth.reader == replayed


def test_a_journal_written_with_a_bet_offered_twice_still_replays() -> None:
    """``[bets] offered`` took a bet twice before it was refused (the second was dropped): ``audit verify`` called
    such a journal TAMPERED ("the journal's settings are not valid here") and exited 1."""
    from controller.journal.replay import settings_from_header

    header = {"identity": {"settings": {"table": {}, "shoe": {}, "procedures": {}, "simulation": {}}},
              "extra": {"bets": {"offered": ["player", "banker", "tie", "player", "banker"]}}}
    assert settings_from_header("old.journal", header).bets.offered == ["player", "banker", "tie"]


def test_a_journal_with_a_plain_badge_reader_url_replays_it_unchanged() -> None:
    from controller.journal.replay import settings_from_header

    stored = "pcsc://?reader=Virtual%20PCD%2000%2001"
    header = {"identity": {"settings": {"table": {}, "shoe": {}, "procedures": {}, "simulation": {}}},
              "extra": {"auth": {"enabled": True, "reader": stored, "two_person": True, "lockout_after": 5}}}
    assert settings_from_header("old.journal", header).auth.reader == stored


def test_a_cut_too_deep_for_its_shoe_is_refused_only_for_one_to_three_decks() -> None:
    """config.cut_too_deep says 'a {decks}-deck shoe', right for 1-3 decks ('a 8-deck' would not be): from four decks
    on the back half holds the deepest cut any shoe takes (100), so no cut is too deep for them."""
    for decks in range(1, 9):
        refused = decks <= 3
        assert (max_cut_from_end(decks) < 100) is refused, decks
        for cut in (100, max_cut_from_end(decks)):
            try:
                load_config(environ={}, overrides={"table": {"decks": decks}, "shoe": {"cut_card_from_end": cut}})
            except ConfigError as error:
                assert refused and cut == 100 and f"a {decks}-deck shoe" in str(error), (decks, cut, error)
            else:
                assert not (refused and cut == 100), (decks, cut)


@pytest.mark.parametrize("name", ["CROUPIER_TABLE_DECKS", "CROUPIER_BETS_OFFERED", "CROUPIER_DRIVER_URL",
                                  "CROUPIER_SIMULATION_AUTO_NEXT", "CROUPIER_AUTH_SUPERVISOR_ONLY"])
def test_an_environment_value_that_is_not_utf8_is_refused_by_name(name: str) -> None:
    """A value whose bytes are not UTF-8 (Python holds them as surrogate escapes) is refused as every other bad value
    is, naming the variable and showing the bytes legibly, not a traceback of the checks that cannot encode it."""
    with pytest.raises(ConfigError) as caught:
        load_config(environ={name: "6\udcff"})
    worded = str(caught.value)
    assert worded.startswith(f"environment: {name}: expected UTF-8 text, got '6\\xff'"), worded
    worded.encode("utf-8")


def test_a_command_names_an_environment_value_that_is_not_utf8() -> None:
    run = croupier_process("simulate", "--cards", "", without="CROUPIER_", CROUPIER_TABLE_DECKS="\udcff")
    assert run.returncode == 2, run.stderr
    assert run.stderr == ("croupier simulate: environment: CROUPIER_TABLE_DECKS: expected UTF-8 text, got '\\xff'; set "
                          "it again as UTF-8 text, or unset it, see docs/config.md\n")


def test_a_config_file_far_larger_than_any_config_is_refused_before_it_is_read_whole(tmp_path: Path) -> None:
    """A path that is no config (a disk image, ``/dev/zero``) was read whole into memory before TOML refused it:
    ``--config /dev/zero`` never ended. Anything longer than 1 MiB is refused after reading that much."""
    path = tmp_path / "image.bin"
    with path.open("wb") as sparse:
        sparse.truncate(1024 * 1024 + 1)
    with pytest.raises(ConfigError) as refused:
        load_config(path, environ={})
    assert str(refused.value) == (f"{path}: longer than 1 MiB, far more than a config file holds; give the path of "
                                  "a TOML config file")

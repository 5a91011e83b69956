"""``croupier`` imports only the command it runs; its listing of commands is the commands' own."""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from controller.cli import main as cli
from tests.inprocess import CROUPIER, ROOT, croupier_in_process


def listed_help(parser: argparse.ArgumentParser) -> dict[str, str | None]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: choice.help for choice in action._choices_actions}


def test_the_lazy_listing_is_what_each_command_registers() -> None:
    full = listed_help(cli.build_parser())
    assert list(full) == list(cli.COMMANDS)
    for name in cli.COMMANDS:
        assert listed_help(cli.build_parser(only=name)) == full
    assert listed_help(cli.build_parser(only="")) == full


def imported_after(*argv: str) -> set[str]:
    code = ("import sys, contextlib, io\n"
            "from controller.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            f"        main({list(argv)!r})\n"
            "    except SystemExit:\n"
            "        pass\n"
            "print(' '.join(sorted(sys.modules)))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return set(run.stdout.split())


def test_help_imports_no_command_module_nor_pydantic_nor_transitions() -> None:
    modules = imported_after("--help")
    assert not modules & set(cli.COMMAND_MODULES)
    assert "pydantic" not in modules and "transitions" not in modules


def test_a_command_imports_its_own_module_only() -> None:
    modules = imported_after("odds", "--decks", "1", "--json")
    assert "controller.cli.odds" in modules
    assert not modules & (set(cli.COMMAND_MODULES) - {"controller.cli.odds"})


def test_simulate_reads_the_shipped_data_instead_of_computing_it() -> None:
    code = ("import sys, contextlib, io\n"
            "from controller.cli.main import main\n"
            "from controller.core.odds import compute_odds\n"
            "from controller.core.bets import exact\n"
            "def classified(): raise AssertionError('the multiset tables were classified again')\n"
            "exact.build_table_data = classified\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['simulate', '--seed', '3', '--rounds', '1'])\n"
            "from controller.core.bets import tables\n"
            "from controller.i18n import catalogue\n"
            "print(compute_odds.cache_info().misses, tables.blob.cache_info().misses,\n"
            "      catalogue.shipped_messages.cache_info().currsize, ' '.join(sorted(sys.modules)))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    enumerations, tables_read, message_files, *modules = run.stdout.split()
    assert enumerations == "0" and tables_read == "1"
    assert 1 <= int(message_files) <= 2, "read only its own language's messages (and the English texts)"
    assert {"controller.core.bets.tables", "controller.core.fresh_odds", "controller.i18n.catalogue"} <= set(modules)
    assert "controller.core.bets.exact_tables" not in modules and "controller.i18n.builtin" not in modules
    assert not any(module == "babel" or module.startswith("babel.") for module in modules)


def test_simulate_reads_its_typed_config_without_pydantic() -> None:
    modules = imported_after("simulate", "--seed", "3", "--rounds", "1")
    assert "config.schema" in modules and "msgspec" in modules
    assert not any(module == "pydantic" or module.startswith(("pydantic.", "pydantic_")) for module in modules)


def test_the_executable_runs_main_then_exits_without_losing_output(tmp_path: Path) -> None:
    assert tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"] == {
        "croupier": "controller.cli.main:entry"}
    croupier = shutil.which("croupier", path=str(Path(sys.executable).parent))
    assert croupier is not None
    journal = tmp_path / "t.journal"
    argv = ["simulate", "--seed", "3", "--rounds", "3", "--journal", str(journal)]
    run = subprocess.run([croupier, *argv], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    journal.rename(tmp_path / "first.journal")
    assert run.stdout == croupier_in_process(*argv).stdout
    verified = subprocess.run([croupier, "audit", "verify", "--replay", str(tmp_path / "first.journal")],
                              capture_output=True, text=True, timeout=120)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    module = subprocess.run([*CROUPIER, "simulate", "--seed", "3", "--rounds", "3"],
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert module.returncode == 0 and module.stdout == croupier_in_process("simulate", "--seed", "3", "--rounds",
                                                                           "3").stdout


def test_simulate_imports_what_only_other_paths_use_when_they_run() -> None:
    """The diagram's state-machine library, logging (a driver's warning), the floor's URLs (a password to hide) and
    the dealer console's threads are imported by what uses them, not by every simulation."""
    modules = imported_after("simulate", "--seed", "3", "--rounds", "1")
    assert "controller.core.machine" in modules
    elsewhere = {"transitions", "logging", "controller.floor.urls", "traceback", "threading", "drivers.merged"}
    assert not modules & elsewhere, sorted(modules & elsewhere)


def test_a_mock_table_checks_its_driver_urls_without_importing_the_other_drivers() -> None:
    """Every layer's ``[driver] url`` is checked (docs/config.md), by the module of its own driver only: a table on
    the mock shoe imports no serial port library and no PC/SC driver, and a simulation does not look for plugins
    (``importlib.metadata``; ``run`` reads it to verify the software)."""
    others = {"serial", "drivers.serial.driver", "drivers.pcsc.source"}
    for argv, unused in ((["simulate", "--seed", "3", "--rounds", "1"], {*others, "importlib.metadata"}),
                         (["run", "--driver", "mock://?seed=3", "--auto-next", "--rounds", "1", "--no-keyboard",
                           "--json"], others)):
        modules = imported_after(*argv)
        assert "drivers.mock" in modules
        assert not modules & unused, (argv[0], sorted(modules & unused))


def test_the_command_itself_runs_with_the_garbage_collector_on() -> None:
    """The executable holds the collector off while it imports the command, never while the command runs (a live
    table runs for hours)."""
    code = ("import gc, sys\n"
            "import controller.cli.odds as command\n"
            "command.odds = lambda args: print(gc.isenabled(), gc.get_threshold()[0] > 0) or 0\n"
            "from controller.cli.main import entry\n"
            "sys.argv = ['croupier', 'odds']\n"
            "sys.exit(entry())\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert run.stdout.split() == ["True", "True"]


def parsed_or_said(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            found: object = vars(parser.parse_args(argv))
        except SystemExit as exit_:
            found = exit_.code
    return found, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv", [["simulate", "--rounds", "3"], ["simulate", "--help"], ["simulate", "--bogus"],
                                  ["simulate", "--rounds", "x"], ["audit", "verify"], ["odds", "--decks", "9"]])
def test_a_command_line_that_begins_with_its_command_needs_no_listing(argv: list[str]) -> None:
    """Without the other commands' entries (their parsers cost a gettext lookup each) the command parses, helps
    and refuses exactly as with them."""
    with_listing = parsed_or_said(cli.build_parser(only=argv[0]), argv)
    assert parsed_or_said(cli.build_parser(only=argv[0], listing=False), argv) == with_listing

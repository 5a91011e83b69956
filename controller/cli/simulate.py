"""``croupier simulate``: a simulated table on the mock shoe."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from config.loader import ValueCheck, load_config
from config.schema import Settings
from controller.app.builder import TRANSCRIPT_LIMIT, Display, JournalOptions, MockDeal, SessionOptions, build_session
from controller.cli.archiveargs import add_archive_option, property_watch_from_args
from controller.cli.argtypes import add_lang_option, seconds, whole_number
from controller.cli.feedargs import add_feed_option, check_feed_form, check_feed_url, feed_from_args
from controller.cli.language import text as worded
from controller.cli.simulate_fast import add_workers_option, blocking_option, run_fast, workers_error
from controller.cli.terminal import require_console_terminal
from controller.core.exceptions import JournalError
from controller.i18n.message import message
from controller.ui.localise import table_catalogue
from controller.ui.oddsplot import check_plot_path
from drivers import check_url

if TYPE_CHECKING:
    from drivers.mock import MockShoe


OWNED_CHECKS: Mapping[tuple[str, str], ValueCheck] = {("driver", "url"): check_url, ("feed", "url"): check_feed_form}
"""What the config cannot check itself, checked in every layer that sets it: ``[driver] url`` is refused by its
driver, ``[feed] url`` by the floor's URL form, even where another layer's URL, ``run --driver`` or ``--feed`` is
the one used (docs/config.md)."""


def add_table_options(parser: argparse.ArgumentParser,
                      rounds_help: str = "stop after N rounds (default: deal one shoe to the cut card)") -> None:
    """Options shared by ``simulate`` and ``run``."""
    parser.add_argument("--config", metavar="FILE", help="TOML config file (default: the embedded default)")
    parser.add_argument("--decks", type=whole_number(1, 8), metavar="N", help="decks in the shoe (1-8)")
    parser.add_argument("--rounds", type=whole_number(0), metavar="N", help=rounds_help)
    parser.add_argument("--no-burn", action="store_true", help="start dealing at once, with no burn")
    parser.add_argument("--json", action="store_true", help="one JSON event per line on stdout")
    add_lang_option(parser)
    parser.add_argument("--quiet", action="store_true", help="print only the final summary")
    parser.add_argument("--scoreboard", metavar="HOST:PORT",
                        help="serve the live web scoreboard here (e.g. 127.0.0.1:8080; default: [scoreboard] address)")
    add_feed_option(parser)
    add_archive_option(parser)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="run a simulated table on the mock shoe",
        description="Deal a simulated table from a seeded mock shoe or a script, printing every "
                    "instruction a dealer would get. Exit status: 0 the events ended at a round boundary, "
                    "3 they ended mid-round, 4 the table is halted on a misdeal, 2 bad arguments or config. SIGTERM "
                    "and SIGHUP stop it as Ctrl+C does (the journal closed, the feed drained), naming the signal: "
                    "exit 143 and 129 (128 + the signal's number; Ctrl+C on plain lines: 130).",
    )
    add_table_options(parser)
    parser.add_argument("--seed", type=whole_number(0, 2**63 - 1), metavar="N",
                        help="shuffle seed (default: random)")
    parser.add_argument("--cards", metavar="TOKENS",
                        help='deliver exactly these reader events, e.g. "5H 2C ?? @next @burn"')
    parser.add_argument("--script", metavar="FILE", help="deliver the reader events of a shoe script file")
    parser.add_argument("--manual-next", action="store_true",
                        help="wait for @next instead of starting each round automatically")
    parser.add_argument("--journal", metavar="PATH", help="journal every input here, and resume from it")
    parser.add_argument("--interactive", action="store_true",
                        help="show the dealer console (Textual) and take the dealer's keys; implies --manual-next")
    parser.add_argument("--pace", type=seconds, metavar="SECONDS",
                        help="seconds between cards from the mock shoe (default 0; 1 with --interactive)")
    parser.add_argument("--plot", metavar="FILE",
                        help="also draw the summary's comparison with croupier odds to FILE (.png, .svg or .pdf; "
                             "needs the plot extra: matplotlib)")
    add_workers_option(parser)
    parser.set_defaults(handler=simulate)


def settings_from_args(args: argparse.Namespace, rounds_in_settings: bool = True) -> Settings:
    """Settings from ``--config`` and the options; ``rounds_in_settings=False`` keeps ``--rounds`` out of them
    (for ``run``, where it limits one session and is not part of what the table is)."""
    overrides: dict[str, dict[str, Any]] = {"table": {}, "shoe": {}, "simulation": {}}
    if args.decks is not None:
        overrides["table"]["decks"] = args.decks
    if args.no_burn:
        overrides["shoe"]["burn"] = "none"
    if rounds_in_settings and getattr(args, "rounds", None) is not None:
        overrides["simulation"]["rounds"] = args.rounds
    if getattr(args, "lang", None) is not None:
        overrides["table"]["language"] = args.lang
    if getattr(args, "manual_next", False) or getattr(args, "interactive", False):
        overrides["simulation"]["auto_next"] = False
    if getattr(args, "archive", None) is not None:  # the URL itself is checked by the property check
        overrides["protection"] = {"property_check": bool(args.archive)}
    return load_config(args.config, overrides=overrides, checks=OWNED_CHECKS)


def _refused(args: argparse.Namespace, scripted: bool) -> str | None:
    """Why the options cannot run together (one line), or None; notes what is not used, checks --plot."""
    if args.cards is not None and args.script is not None:
        return worded(message("cli.cards_or_script", "give --cards or --script, not both"))
    if scripted and args.seed is not None:
        print("croupier simulate: " + worded(message("cli.seed_unused", "note: --seed is not used when the cards "
                                                     "are given (--cards/--script)")), file=sys.stderr)
    if args.plot is not None:
        check_plot_path(args.plot)
    return None


def journal_option(args: argparse.Namespace) -> str | None:
    """``--journal``, None when not given. An empty path is refused: it would run the table with no journal,
    saying nothing."""
    path: str | None = args.journal
    if path is not None and not path.strip():
        raise JournalError(message("cli.empty_journal", "--journal {given}: expected the path of a journal file, "
                                   "e.g. --journal table.journal", given=repr(path)))
    return path


def simulate(args: argparse.Namespace) -> int:
    journal_option(args)
    if args.interactive:  # before the shoe, the journal or anything else is opened
        require_console_terminal(message(
            "simulate.console_needs_terminal", "--interactive: the dealer console needs a terminal (standard input "
            "and standard error), and this is not one; run it in a terminal, or leave out --interactive"))
    settings = settings_from_args(args)
    check_feed_url(settings)  # the fast path publishes nothing, but a bad URL is refused all the same
    scripted = args.cards is not None or args.script is not None
    refused = _refused(args, scripted)
    if refused:
        print(f"croupier simulate: {refused}", file=sys.stderr)
        return 2
    deal = MockDeal(_seed(args, scripted), args.cards, args.script)
    shoe = deal.open(settings)
    blocking = blocking_option(args, settings, TRANSCRIPT_LIMIT)
    refusal = workers_error(args, blocking)
    if refusal is not None:
        print(f"croupier simulate: {worded(refusal)}", file=sys.stderr)
        return 2
    if blocking is None and run_fast(args, settings, deal.seed, shoe.decks, shoe.cut_from_end,
                                     table_catalogue(settings)):
        return 0
    return _full_path(args, settings, deal, shoe)


def notice(text: str) -> None:
    """One line to the person at the table; on a terminal, wrapped between words to its width (the terminal itself
    broke a long line in the middle of a word)."""
    from controller.ui.transcript import fitted

    print(fitted(f"croupier simulate: {text}", sys.stderr), file=sys.stderr, flush=True)


def _full_path(args: argparse.Namespace, settings: Settings, deal: MockDeal, shoe: MockShoe) -> int:
    """Every event through the controller: the transcript, the JSON stream, the journal, the console..."""
    feed = feed_from_args(args, settings, args.journal, notice)
    watch = property_watch_from_args(args, settings, feed, notice)
    shown = deal.shown(settings)
    session = build_session(SessionOptions(
        settings, shoe, display=_display(args), notice=notice, driver=shown, seed=None if deal.scripted else deal.seed,
        auto_next=settings.simulation.auto_next, rounds=settings.simulation.rounds,
        journal=JournalOptions(args.journal, _journal_key(args, shown)) if args.journal else None, feed=feed,
        scoreboard=args.scoreboard, watch=watch, console=args.interactive, pace=args.pace, plot=args.plot,
        software=_software(args)))
    return session.play()


def _display(args: argparse.Namespace) -> Display:
    if args.json:
        return Display.JSON
    return Display.SUMMARY if args.quiet or args.interactive else Display.TRANSCRIPT


def _software(args: argparse.Namespace) -> Mapping[str, Any] | None:
    """The software a new journal's start record keeps (none without a journal)."""
    if not args.journal:
        return None
    from controller.integrity.check import recorded_software

    return recorded_software(args.config)


def _seed(args: argparse.Namespace, scripted: bool) -> int:
    """``--seed``; or, resuming a journal without it, the journal's seed; or a random one."""
    seed: int | None = args.seed
    if seed is None and args.journal and not scripted:
        from controller.journal.replay import journal_seed

        seed = journal_seed(args.journal)  # resuming without --seed: the journal's seed
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    return seed


def _journal_key(args: argparse.Namespace, url: str) -> dict[str, Any]:
    """What a journal is tied to besides the settings: the card source and its arguments."""
    key: dict[str, Any] = {"command": "simulate", "driver": url, "cards": args.cards, "script": args.script}
    if args.script is not None:
        import hashlib

        key["script_sha256"] = hashlib.sha256(Path(args.script).read_bytes()).hexdigest()
    return key

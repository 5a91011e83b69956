"""``croupier run``: the live table, from a card reader (or any driver URL)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from config.schema import Settings
from controller.app.builder import Display, JournalOptions, SessionOptions, build_session, open_card_source
from controller.cli.archiveargs import property_watch_from_args
from controller.cli.feedargs import feed_from_args
from controller.cli.language import error_text
from controller.cli.simulate import add_table_options, journal_option, settings_from_args
from controller.cli.terminal import console_terminal, is_terminal, require_console_terminal
from controller.core.events import Event, TableEvent
from controller.core.exceptions import DriverURLError, JournalError
from controller.core.table import Table
from controller.i18n.message import message
from controller.integrity.check import Verdict, start_check
from controller.journal.notes import integrity_failure
from controller.journal.replay import journal_fault
from controller.ui.keyboard import HELP
from controller.ui.localise import table_catalogue
from drivers import driver_class
from drivers.base import CardSource

EXIT_NOT_VERIFIED = 5
"""The software did not match its manifest (or a file its distribution records changed): nothing was played."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run", help="run the live table from a card reader",
        description="Read cards from the driver, tell the dealer what to do next, take the dealer's "
                    f"inputs from the keyboard ({HELP}). Before it opens the reader it verifies the software "
                    "(croupier verify) against its manifest when there is one. Exit status: 0 at a round boundary, "
                    "3 mid-round, 4 halted on a misdeal, 5 the software failed its verification (nothing is "
                    "played; journaled), 2 bad arguments or config. SIGTERM and SIGHUP stop it as Ctrl+C does (the "
                    "journal closed, the feed drained), naming the signal: exit 143 and 129 (128 + the signal's "
                    "number; Ctrl+C on plain lines: 130). A seeded mock:// "
                    "without --auto-next deals only while a card is due, one every 0.5 s, and needs the "
                    "keyboard (or the console) for the dealer.",
    )
    add_table_options(parser, rounds_help="exit 0 after N rounds (default: run until stopped)")
    parser.add_argument("--driver", metavar="URL",
                        help="card source, e.g. serial:///dev/ttyUSB0?baudrate=9600 (default: [driver] url)")
    parser.add_argument("--auto-next", action="store_true",
                        help="start each next round and confirm each new shoe without a dealer input")
    parser.add_argument("--journal", metavar="PATH", help="journal here (default: [journal] path)")
    parser.add_argument("--no-keyboard", action="store_true", help="do not read dealer inputs from stdin")
    parser.add_argument("--console", choices=("auto", "textual", "plain"), default="auto",
                        help="dealer display: the Textual console, plain lines, or auto (the console on a "
                             "terminal, plain otherwise)")
    parser.set_defaults(handler=run)


def complain(text: str) -> None:
    """One line to the person at the table; on a terminal, wrapped between words to its width (the terminal itself
    broke a long line in the middle of a word)."""
    from controller.ui.transcript import fitted

    print(fitted(f"croupier run: {text}", sys.stderr), file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, rounds_in_settings=False)
    console = _console_wanted(args)  # before the check, the reader, the journal or anything else is opened
    url = _driver_url(args, settings)
    journal = journal_option(args) or settings.journal.path
    verdict = start_check(settings, args.config)  # before the reader, the feed or anything else is opened
    if not verdict.ok:
        return refuse_to_play(settings, verdict, url, journal)
    feed = feed_from_args(args, settings, journal, complain)
    watch = property_watch_from_args(args, settings, feed, complain)
    session = build_session(SessionOptions(
        settings, _open_driver(args, url, settings), mode="live", display=_display(args, console), notice=complain,
        driver=url, auto_next=args.auto_next, rounds=args.rounds or 0,
        journal=JournalOptions(journal, journal_key(url)) if journal else None, feed=feed,
        scoreboard=args.scoreboard, watch=watch, console=console, keyboard=_keyboard(args, console),
        software=verdict.summary()))
    return session.play()


def journal_key(url: str) -> dict[str, Any]:
    """What a ``run`` journal is tied to besides the settings: the card source."""
    return {"command": "run", "driver": url}


def refuse_to_play(settings: Settings, verdict: Verdict, url: str, journal_path: str | None) -> int:
    """The software failed its verification: say so in one line, journal it (when there is a journal), play
    nothing; exit :data:`EXIT_NOT_VERIFIED`."""
    words = table_catalogue(settings)
    first = verdict.problems[0]
    more = len(verdict.problems) - 1
    complain(words.text(message(
        "run.not_verified", "the software failed its verification ({problem}{more}); play is disabled: install the "
        "approved software (croupier verify names what differs), or approve this one with croupier verify "
        "--write-manifest", problem=words.text(first.why),
        more=words.text(message("run.not_verified.more", " and {count} more", count=more)) if more else "")))
    if journal_path:
        try:
            simulated = driver_class(url).simulated
        except DriverURLError:
            simulated = False
        header: list[Event] = [TableEvent(decks=settings.table.decks, variant=settings.table.variant, driver=url,
                                          seed=None, mode="simulation" if simulated else "live")]
        note = integrity_failure(verdict.summary(), [problem.why.english() for problem in verdict.problems])
        try:
            journal_fault(journal_path, note, Table(settings), journal_key(url), header,
                          {"mode": header[0]["mode"], "software": verdict.summary()})
        except JournalError as error:
            complain(words.text(message("run.fault_not_journaled", "the fault is not journaled: {error}",
                                        error=error_text(error))))
    return EXIT_NOT_VERIFIED


def _driver_url(args: argparse.Namespace, settings: Settings) -> str:
    """``--driver``, else ``[driver] url``; an empty ``--driver`` is refused."""
    if args.driver is not None and not args.driver.strip():
        raise DriverURLError(message("run.empty_driver", "--driver '': expected a driver URL, e.g. "
                                     "serial:///dev/ttyUSB0 or mock://?seed=1"))
    url: str = args.driver or settings.driver.url
    return url


def _open_driver(args: argparse.Namespace, url: str, settings: Settings) -> CardSource:
    """The card source of ``url``; a bad ``[driver] url`` is named with where the settings came from."""
    try:
        return open_card_source(url, settings)
    except DriverURLError as error:
        if args.driver is None:
            raise DriverURLError(message("run.config_driver", "{source}: [driver] url: {error}",
                                         source=settings.source, error=error_text(error))) from None
        raise


def _console_wanted(args: argparse.Namespace) -> bool:
    """The Textual console: asked for, or ``auto`` on a terminal (never with --json or --quiet). Asked for without
    a terminal (its keys on standard input, its screen on standard error), it is refused in one line."""
    if args.json or args.quiet:
        return False
    if args.console == "textual":
        require_console_terminal(message(
            "run.console_needs_terminal", "--console textual: the dealer console needs a terminal (standard input "
            "and standard error), and this is not one; run it in a terminal, or use --console plain"))
        return True
    return bool(args.console == "auto" and is_terminal(sys.stdout) and console_terminal(sys.stdin, sys.stderr))


def _keyboard(args: argparse.Namespace, console: bool) -> TextIO | None:
    """Where the dealer's inputs are typed, one per line: stdin, unless the console takes the keys."""
    if console or args.no_keyboard or sys.stdin is None or sys.stdin.closed:
        return None
    return sys.stdin


def _display(args: argparse.Namespace, console: bool) -> Display:
    if args.json:
        return Display.JSON
    return Display.SUMMARY if args.quiet or console else Display.TRANSCRIPT

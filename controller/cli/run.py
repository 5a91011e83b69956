"""``croupier run``: the live table, from a card reader (or any driver URL)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from config.schema import Settings
from controller.app.runner import Runner
from controller.app.session import Outputs, play, scoreboard_for
from controller.cli.archiveargs import watch_property
from controller.cli.feedargs import feed_from_args
from controller.cli.language import error_text
from controller.cli.simulate import add_table_options, journal_option, settings_from_args
from controller.core.events import Event, TableEvent
from controller.core.exceptions import CroupierError, DriverURLError, JournalError
from controller.core.table import Table
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import message
from controller.integrity.check import Verdict, start_check
from controller.journal.notes import integrity_failure
from controller.journal.replay import journal_fault
from controller.terms import Mode
from controller.ui.bigtext import banner, can_render, render_big
from controller.ui.keyboard import HELP, worded_parser
from controller.ui.localise import Localiser, table_catalogue
from controller.ui.transcript import JsonLines, Summary, Transcript
from drivers import driver_class, open_source
from drivers.merged import MergedSource
from drivers.mock import MockShoe
from drivers.serial.url import serial_url

EXIT_NOT_VERIFIED = 5
"""The software did not match its manifest (or a file its distribution records changed): nothing was played."""
LARGE_COLUMNS = 80
"""The width the large type of a plain dealer display keeps within."""
MOCK_DEALER_PACE = 0.5
"""Seconds between two cards of a seeded mock shoe dealt without --auto-next."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run", help="run the live table from a card reader",
        description="Read cards from the driver, tell the dealer what to do next, take the dealer's "
                    f"inputs from the keyboard ({HELP}). Before it opens the reader it verifies the software "
                    "(croupier verify) against its manifest when there is one. Exit status: 0 at a round boundary, "
                    "3 mid-round, 4 halted on a misdeal, 5 the software failed its verification (nothing is "
                    "played; journaled), 2 bad arguments or config. A seeded mock:// "
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


class DealerDisplay(Transcript):
    """The transcript with the next action in large type on a terminal (block letters, or for text the block
    font cannot draw, such as Korean or Chinese, the text letter-spaced within 80 columns)."""

    def __init__(self, stream: TextIO, large: bool, words: Catalogue = ENGLISH) -> None:
        super().__init__(stream, show_next=True, words=words)
        self.large = large

    def render(self, event: Event) -> None:
        super().render(event)
        if self.large and event["event"] in ("prompt", "instruction", "result"):
            text = event["say"].upper()
            if event["event"] == "prompt":
                side = (self.words.say("side.player", "PLAYER") if event["to"] == "player"
                        else self.words.say("side.banker", "BANKER"))
                text = f"{side} {event['slot']}"
            if can_render(text):
                if len(text) <= 24:
                    self.line("\n".join(render_big(text)))
            else:
                self.line("\n".join(banner(text, LARGE_COLUMNS)))


def driver_url(args: argparse.Namespace, settings: Settings) -> str:
    """``--driver``, else ``[driver] url``; an empty ``--driver`` is refused."""
    if args.driver is not None and not args.driver.strip():
        raise DriverURLError(message("run.empty_driver", "--driver '': expected a driver URL, e.g. "
                                     "serial:///dev/ttyUSB0 or mock://?seed=1"))
    url: str = args.driver or settings.driver.url
    return url


def journal_key(url: str) -> dict[str, Any]:
    """What a ``run`` journal is tied to besides the settings: the card source."""
    return {"command": "run", "driver": url}


def refuse_to_play(settings: Settings, verdict: Verdict, url: str, journal_path: str | None) -> int:
    """The software failed its verification: say so in one line, journal it (when there is a journal), play
    nothing; exit :data:`EXIT_NOT_VERIFIED`."""
    words = table_catalogue(settings)
    first = verdict.problems[0]
    more = len(verdict.problems) - 1
    print("croupier run: " + words.text(message(
        "run.not_verified", "the software failed its verification ({problem}{more}); play is disabled: install the "
        "approved software (croupier verify names what differs), or approve this one with croupier verify "
        "--write-manifest", problem=words.text(first.why),
        more=words.text(message("run.not_verified.more", " and {count} more", count=more)) if more else "")),
        file=sys.stderr, flush=True)
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
            print("croupier run: " + words.text(message("run.fault_not_journaled", "the fault is not journaled: "
                                                        "{error}", error=error_text(error))), file=sys.stderr)
    return EXIT_NOT_VERIFIED


def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, rounds_in_settings=False)
    url = driver_url(args, settings)
    journal_path = journal_option(args) or settings.journal.path
    verdict = start_check(settings, args.config)  # before the reader, the feed or anything else is opened
    if not verdict.ok:
        return refuse_to_play(settings, verdict, url, journal_path)
    feed = feed_from_args(args, settings, journal_path, lambda text: print(f"croupier run: {text}", file=sys.stderr,
                                                                         flush=True))
    try:
        primary = open_source(serial_url(url, settings.serial))
    except DriverURLError as error:
        if args.driver is None:
            raise DriverURLError(message("run.config_driver", "{source}: [driver] url: {error}",
                                         source=settings.source, error=error_text(error))) from None
        raise

    def complain(text: str) -> None:
        print(f"croupier run: {text}", file=sys.stderr, flush=True)

    use_console = not args.json and not args.quiet and (
        args.console == "textual"
        or (args.console == "auto" and sys.stdout.isatty() and sys.stdin is not None and sys.stdin.isatty()))
    keyboard = (None if use_console or args.no_keyboard or sys.stdin is None or sys.stdin.closed
                else sys.stdin)
    dealt_by_hand = isinstance(primary, MockShoe) and not primary.scripted and not args.auto_next
    if dealt_by_hand and keyboard is None and not use_console:
        primary.close()
        raise CroupierError(message(
            "run.no_dealer", "{url}: a seeded mock shoe without --auto-next waits for the dealer to confirm the "
            "shoe and start each round, but --no-keyboard leaves no dealer; give --auto-next, or use "
            "croupier simulate --interactive", url=url))
    # A mock is a shoe with no dealer's hand on it: draw only while a card is due (a seeded one at a dealer's
    # pace; a script's own dealer inputs come as written), like shoe-emulator --follow-table.
    words = table_catalogue(settings)
    source = MergedSource(primary, keyboard, worded_parser(words), complain,
                          pace=MOCK_DEALER_PACE if dealt_by_hand else 0.0,
                          hold_when_idle=isinstance(primary, MockShoe) and not args.auto_next)
    summary = Summary()
    display = JsonLines() if args.json else (None if args.quiet or use_console else
                                             DealerDisplay(sys.stdout, large=sys.stdout.isatty(), words=words))
    outputs = Outputs(notice=complain)
    outputs.add(summary, earlier=summary.restore)
    if display is not None:
        outputs.add(Localiser(words).wrap(display), replayed=False)
    history: list[Event] = []
    if use_console:
        outputs.add(history.extend)
    mode: Mode = "simulation" if primary.simulated else "live"
    if args.scoreboard or settings.scoreboard.address:
        scoreboard_for(outputs, args.scoreboard or settings.scoreboard.address, settings, mode)

    table = Table(settings)
    runner = Runner(table, source, outputs.emit, auto_next=args.auto_next, auto_shoe=args.auto_next,
                    rounds=args.rounds or 0, new_shoes=True)
    watch_property(runner, outputs, args, settings, feed)
    if settings.auth.enabled:
        from controller.app.session import start_badge_feed

        outputs.closers.append(start_badge_feed(settings.auth, source, complain))
        runner.poll = 0.5
        runner.idle_signout = settings.auth.idle_signout_seconds
    header: list[Event] = [TableEvent(decks=settings.table.decks, variant=settings.table.variant, driver=url,
                                      seed=None, mode=mode)]
    status = play(runner, outputs, header, journal_path, journal_key(url), history if use_console else None,
                  feed=feed, live=True, software=verdict.summary())
    if not args.json:
        print(summary.text(words))
    ending = runner.ending_message(words.text)
    if ending:
        complain(ending)
    return status

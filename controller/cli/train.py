"""``croupier train``: a scored drill of the dealer's calls on the mock shoe."""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

from config.loader import load_config
from config.schema import Settings, settings_data
from controller.app.builder import MockDeal, SessionOptions, build_session
from controller.cli.argtypes import add_lang_option, whole_number
from controller.cli.language import of_args
from controller.cli.language import text as worded
from controller.i18n.message import message
from controller.training.deal import dealt_rounds
from controller.training.drill import Drill
from controller.training.frontends import JsonLines, PlainTerminal, run_drill
from controller.training.journal import TrainingJournal

DEFAULT_ROUNDS = 20
EXIT_ENDED_EARLY = 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "train",
        help="drill the dealer's calls (draw, stand, winner, pays) on the mock shoe",
        description="The simulated table deals and keeps its calls to itself; the trainee makes them, one "
                    "per line: the player's call (natural/draw/stand), the banker's (draw/stand), the "
                    "winner (player/banker/tie) and with --payouts the pay of each bet. Each call is scored "
                    "at once; a report ends the drill. Exit status: 0 the drill was finished, 3 the input "
                    "ended first, 2 bad arguments, config or cards. Ctrl+C, SIGTERM and SIGHUP end the drill with "
                    "its report given and kept (the console's too), then the signal named: exit 130, 143 and 129 "
                    "(128 + the signal's number).",
    )
    parser.add_argument("--seed", type=whole_number(0, 2**63 - 1), metavar="N", help="shuffle seed (default: random)")
    parser.add_argument("--rounds", type=whole_number(1), default=DEFAULT_ROUNDS, metavar="N",
                        help=f"rounds to drill (default {DEFAULT_ROUNDS})")
    parser.add_argument("--script", metavar="FILE", help="deal the cards of a shoe script file instead")
    parser.add_argument("--cards", metavar="TOKENS", help='deal exactly these cards instead, e.g. "5H 2C 9D KS"')
    parser.add_argument("--config", metavar="FILE", help="TOML config file (default: the embedded default)")
    parser.add_argument("--decks", type=whole_number(1, 8), metavar="N", help="decks in the shoe (1-8)")
    parser.add_argument("--focus", choices=["banker"],
                        help="banker: drill only rounds where the player drew, to practise the banker's tableau")
    parser.add_argument("--payouts", action="store_true", help="also call the net pay of each bet every round")
    parser.add_argument("--journal", metavar="PATH", help="write the drill and its report to a new training journal")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--json", action="store_true", help="JSON lines: events on stdout, one call per line on stdin")
    mode.add_argument("--console", action="store_true", help="the drill in the dealer console (Textual), by keys")
    add_lang_option(parser)
    parser.set_defaults(handler=train)


def train(args: argparse.Namespace) -> int:
    if args.cards is not None and args.script is not None:
        print("croupier train: " + worded(message("cli.cards_or_script", "give --cards or --script, not both")),
              file=sys.stderr)
        return 2
    if args.console:  # before the shoe or the journal is opened
        from controller.cli.terminal import require_console_terminal

        require_console_terminal(message(
            "train.console_needs_terminal", "--console: the drill's console needs a terminal (standard input and "
            "standard error), and this is not one; run it in a terminal, or leave out --console"))
    overrides: dict[str, dict[str, Any]] = {"table": {}, "shoe": {}}
    if args.decks is not None:
        overrides["table"]["decks"] = args.decks
    if args.cards is not None or args.script is not None:
        overrides["shoe"]["burn"] = "none"
        if args.seed is not None:  # the cards are dealt as given: the seed shuffles nothing (as simulate notes)
            print("croupier train: " + worded(message("cli.seed_unused", "note: --seed is not used when the cards "
                                                      "are given (--cards/--script)")), file=sys.stderr)
    settings = load_config(args.config, overrides=overrides)
    deal = MockDeal(args.seed if args.seed is not None else random.SystemRandom().randrange(2**31), args.cards,
                    args.script)
    session = build_session(SessionOptions(settings, deal))
    drill = Drill(dealt_rounds(session.table, session.source), args.rounds,
                  focus_banker=args.focus == "banker", payouts=args.payouts)
    journal: TrainingJournal | None = None
    try:
        journal = _journal(args, settings, deal.url(settings))
        if args.console:
            from controller.training.console import run_training_console

            run_training_console(drill, journal.write if journal else None, of_args(args))
        else:
            show = _front_end(args)
            run_drill(drill, sys.stdin, show, ask=show.ask if isinstance(show, PlainTerminal) else lambda: None,
                      keep=journal.write if journal else None)
    finally:
        if journal is not None:
            journal.close()
        session.close()
    if drill.stopped is not None:  # the report is given and kept: now the one line that says why (exit 2)
        raise drill.stopped
    return 0 if drill.finished else EXIT_ENDED_EARLY


def _journal(args: argparse.Namespace, settings: Settings, url: str) -> TrainingJournal | None:
    """The training journal of ``--journal`` (None without it)."""
    if not args.journal:
        return None
    from controller.integrity.check import recorded_software

    return TrainingJournal(args.journal, {"arguments": {
        "command": "train", "driver": url, "cards": args.cards, "script": args.script, "rounds": args.rounds,
        "focus": args.focus, "payouts": args.payouts}, "settings": settings_data(settings)},
        recorded_software(args.config))


def _front_end(args: argparse.Namespace) -> JsonLines | PlainTerminal:
    return JsonLines(sys.stdout) if args.json else PlainTerminal(sys.stdout, of_args(args))


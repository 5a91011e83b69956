"""When and how ``croupier simulate`` takes the fast path (:mod:`controller.app.fastsim`).

It applies when no one watches the cards: ``--quiet``, or a summary-only run (more rounds than the
transcript shows, no ``--json``), dealing seeded mock shoes with the simulated dealer and nothing
listening to single events (no journal, feed, scoreboard, console, pace or badges).
"""

from __future__ import annotations

import argparse
import sys
from decimal import Decimal

from config.schema import STANDARD_BETS, Settings
from controller.cli.language import text as worded
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import Message, message
from controller.ui.oddscompare import OddsComparison
from controller.ui.oddsplot import write_plot
from controller.ui.transcript import Progress, Summary

MAX_WORKERS = 64
FULL_PATH_OPTIONS = ("json", "journal", "feed", "scoreboard", "interactive", "pace", "cards", "script",
                     "manual_next", "archive")
"""Options that need every event, so the full controller path."""


def add_workers_option(parser: argparse.ArgumentParser) -> None:
    """``--workers N``."""
    from controller.cli.argtypes import whole_number

    parser.add_argument("--workers", type=whole_number(1, MAX_WORKERS), metavar="N", default=1,
                        help="deal independent shoes in N processes (summary-only runs; the totals do not "
                             f"depend on N; 1-{MAX_WORKERS}, default 1)")


def blocking_option(args: argparse.Namespace, settings: Settings, transcript_limit: int) -> str | None:
    """The option or setting that needs the full path, or None when the fast path applies."""
    for name in FULL_PATH_OPTIONS:
        if getattr(args, name, None) not in (None, False):
            return "--" + name.replace("_", "-")
    if settings.scoreboard.address:
        return "[scoreboard] address"
    if settings.protection.archive:
        return "[protection] archive"
    if settings.auth.enabled:
        return "[auth] enabled"
    if not settings.simulation.auto_next:
        return "[simulation] auto_next = false"
    if not args.quiet and settings.simulation.rounds <= transcript_limit:
        return worded(message("cli.blocking_transcript", "the transcript (no --quiet)"))
    if settings.table.variant != "commission" or not set(settings.bets.offered) <= set(STANDARD_BETS):
        return worded(message("cli.blocking_bets", "[table] variant or [bets] offered (the fast path settles the "
                              "standard bets, commission)"))
    return None


def standard_pays(settings: Settings) -> dict[str, Decimal]:
    """The winning pay of each offered standard bet at this house (commission variant)."""
    from controller.core.bets.settle import bet_for, house_pays

    pays: dict[str, Decimal] = {}
    for name in settings.bets.offered:
        table = house_pays(bet_for(name, "commission"), settings.bets)
        pays[name] = table["pair"] if "pair" in table else table["win"]
    return pays


def workers_error(args: argparse.Namespace, blocking: str | None) -> Message | None:
    """The one-line error when ``--workers`` is given for a run that needs the full path."""
    if getattr(args, "workers", 1) > 1 and blocking is not None:
        return message("cli.workers_full_path", "--workers {workers} deals shoes in parallel only for summary-only "
                       "runs, and {blocking} needs every event; drop --workers or {blocking}",
                       workers=args.workers, blocking=blocking)
    return None


def run_fast(args: argparse.Namespace, settings: Settings, seed: int, decks: int, cut_from_end: int,
             words: Catalogue = ENGLISH) -> bool:
    """Print the summary of the run through the fast engine, and its comparison with the odds (drawn with
    ``--plot``); False when the full path must deal it."""
    from controller.app.fastsim import Procedure, ShoeOverrun, simulate  # its tables are built on import

    shoe = settings.shoe
    procedure = Procedure(seed=seed, decks=decks, cut_from_end=cut_from_end, burn=shoe.burn,
                          burn_cards=shoe.burn_cards, one_more=shoe.cut_card == "one_more")
    rounds = settings.simulation.rounds
    progress = Progress(rounds) if not args.quiet and rounds else None
    try:
        counts = simulate(procedure, rounds, workers=args.workers,
                          progress=progress.show if progress is not None and progress.enabled else None)
    except ShoeOverrun:
        return False
    finally:
        if progress is not None:
            progress.finish()
    summary = Summary()
    summary.counts.update(counts)
    comparison = OddsComparison(decks, settings.table.variant, settings.bets)
    comparison.add_totals(counts, standard_pays(settings))
    print(summary.text(words))
    print(comparison.text(words))
    sys.stdout.flush()
    if args.plot is not None:
        write_plot(comparison, args.plot, words)
    return True

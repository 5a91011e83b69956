"""When and how ``croupier simulate`` takes the fast path (:mod:`controller.app.fastsim`).

It applies when no one watches the cards: ``--quiet``, or a summary-only run (more rounds than the
transcript shows, no ``--json``), dealing seeded mock shoes with the simulated dealer and nothing
listening to single events (no journal, feed, scoreboard, console, pace or badges).
"""

from __future__ import annotations

import argparse
import sys

from config.schema import Settings
from controller.ui.transcript import Progress, Summary

MAX_WORKERS = 64
FULL_PATH_OPTIONS = ("json", "journal", "feed", "scoreboard", "interactive", "pace", "cards", "script",
                     "manual_next")
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
    if settings.auth.enabled:
        return "[auth] enabled"
    if not settings.simulation.auto_next:
        return "[simulation] auto_next = false"
    if not args.quiet and settings.simulation.rounds <= transcript_limit:
        return "the transcript (no --quiet)"
    return None


def workers_error(args: argparse.Namespace, blocking: str | None) -> str | None:
    """The one-line error when ``--workers`` is given for a run that needs the full path."""
    if getattr(args, "workers", 1) > 1 and blocking is not None:
        return (f"--workers {args.workers} deals shoes in parallel only for summary-only runs, and "
                f"{blocking} needs every event; drop --workers or {blocking}")
    return None


def run_fast(args: argparse.Namespace, settings: Settings, seed: int, decks: int, cut_from_end: int) -> bool:
    """Print the summary of the run through the fast engine; False when the full path must deal it."""
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
    print(summary.text())
    sys.stdout.flush()
    return True

"""``croupier report dealers PATH...``: dealers and game pace from table journals or the floor archive."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from controller.cli.argtypes import add_lang_option
from controller.cli.language import of_args
from controller.cli.language import text as language_text
from controller.i18n.catalogue import Catalogue
from controller.i18n.message import Message
from controller.journal.about import mode_word
from controller.reports.dealers import Shift, report, shifts_of
from controller.reports.sources import archive_modes, archive_timelines, journal_mode, journal_timeline
from controller.reports.tables import text_lines, write_csv


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("report", help="reports from journals: dealers and game pace",
                                   description="Reports read from table journals or the floor archive.")
    reports = parser.add_subparsers(dest="report_command", required=True, metavar="REPORT")
    dealers = reports.add_parser(
        "dealers",
        usage="%(prog)s [-h] [--json | --csv] [--plot FILE.png] [--lang CODE] PATH [PATH ...]",
        help="per dealer (badge) and per shift: rounds, pace, misdeals, voids, approvals, seconds per round",
        description="Per dealer (badge) and per shift (a dealer's continuous stretch at a table, sign-in to "
                    "sign-out; a table without badges is one shift of no dealer): rounds dealt, rounds per "
                    "hour, misdeals per 100 rounds by kind, voids, supervisor approvals, mean and p90 seconds "
                    "per round. Each journal's hash chain is checked as croupier audit verify checks it. Exit "
                    "status: 0 done, 1 done without an events record that cannot be read, or done on a journal that "
                    "fails verification, whose figures cannot be trusted (each named on stderr), 2 a path, URL or "
                    "option is wrong.",
    )
    dealers.add_argument("paths", nargs="+", metavar="PATH",
                         help="a table journal, or the floor archive's postgresql:// URL (every table in it)")
    output = dealers.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help='one JSON object: {"dealers": [...], "shifts": [...]}')
    output.add_argument("--csv", action="store_true", help="CSV: a row per dealer, then a row per shift")
    dealers.add_argument("--plot", metavar="FILE.png", help="draw the game pace over each shift to this PNG")
    add_lang_option(dealers)
    dealers.set_defaults(handler=report_dealers)


def _shifts(paths: list[str], unreadable: Callable[[Message], None]) -> list[Shift]:
    """The shifts of every path; a record that cannot be read, and a journal that fails verification, are told to
    ``unreadable``."""
    shifts: list[Shift] = []
    for path in paths:
        if path.startswith(("postgresql://", "postgres://")):
            for table, timeline in archive_timelines(path, unreadable).items():
                shifts.extend(shifts_of(table, timeline))
        else:
            shifts.extend(shifts_of(path, journal_timeline(path, unreadable, untrusted=unreadable)))
    return shifts


def mode_lines(journals: list[dict[str, Any]], words: Catalogue) -> list[str]:
    """Each journal and its mode: a simulation's rounds never read as live play."""
    if not journals:
        return []
    return [words.say("report.journals", "Journals:")] + [
        words.say("report.journal_mode", "  {path}: {mode}", path=journal.get("path") or journal["table"],
                  mode=words.text(mode_word(journal["mode"]))) for journal in journals]


def report_dealers(args: argparse.Namespace) -> int:
    """Print the report of ``args.paths``; 1 when a record that cannot be read was left out, or a journal fails
    verification (each named on stderr)."""
    warned: list[Message] = []

    def unreadable(warning: Message) -> None:
        warned.append(warning)
        print(f"croupier report dealers: {language_text(warning)}", file=sys.stderr)

    shifts = _shifts(args.paths, unreadable)
    if args.plot:
        from controller.reports.plot import plot_pace

        plot_pace(shifts, args.plot)
    result = report(shifts)
    journals: list[dict[str, Any]] = []
    for path in args.paths:
        if path.startswith(("postgresql://", "postgres://")):
            journals.extend({"table": table, "mode": mode} for table, mode in archive_modes(path).items())
        else:
            journals.append({"path": path, "mode": journal_mode(path)})
    if args.json:
        print(json.dumps({**result, "journals": journals}))
    elif args.csv:
        write_csv(result, sys.stdout)
    else:
        print("\n".join(text_lines(result, of_args(args)) + mode_lines(journals, of_args(args))))
    return 1 if warned else 0

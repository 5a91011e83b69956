"""``croupier recall PATH [--rounds N] [--json]``: game recall (R1, R3, R4 of docs/compliance.md): the last rounds a
journal holds, step by step.

::

    croupier recall table.journal                 # the last 10 rounds, newest last, as text
    croupier recall table.journal --rounds 30 --json

Each round: every card in the order it was read with its slot, every third-card decision with the rule that made it
(read from the rules' tables: :mod:`controller.core.recall`), the result,
the payouts per bet, misdeals and their resolutions; an unfinished round (the table stopped or halted in it) is the
last one, marked unfinished. ``--json`` gives one object per round: ``shoe``, ``round``, ``at``, ``cards`` (slot to
card), ``order`` (``slot``, ``card``, ``manual``, ``undone``), ``decisions`` (``hand``, ``decision``, ``rule``),
``winner``, ``player``, ``banker`` (``cards``, ``total``; null while unfinished), ``natural``, ``payouts`` (bet to
net), ``misdeals``, ``resolutions``, ``voided``, ``unfinished``. Exit status: 0, 1 the journal failed verification
or a record cannot be read (recalled anyway, that record left out and named), 2 missing or not a journal, or bad
arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from controller.cli.argtypes import add_lang_option, whole_number
from controller.cli.language import error_text
from controller.cli.language import text as language_text
from controller.core.events import to_builtins
from controller.core.exceptions import JournalError, JournalTamperedError
from controller.core.recall import RECALL_EVENTS, recalled_rounds
from controller.i18n.message import message
from controller.journal.about import about, mode_word, refuse_training_journal
from controller.journal.store import Journal, Record
from controller.journal.timeline import Timed, timed_events
from controller.journal.verify import verify
from controller.ui.recalltext import recall_text

DEFAULT_ROUNDS = 10
"""R1: the latest game and the nine before it."""


def register(subparsers: Any) -> None:
    """Add the ``recall`` subcommand."""
    parser = subparsers.add_parser(
        "recall", help="game recall: the last rounds of a journal step by step (cards, decisions, result, pays)",
        description="Recall the last rounds a journal holds (10 unless --rounds), newest last: each card in order "
                    "with its slot, every third-card decision with the rule that made it, the result, the payouts "
                    "per bet, misdeals and their resolutions; an unfinished round (halted, stopped) is the last. "
                    "--json gives one JSON object per round. Exit status: 0, 1 the journal failed verification "
                    "or a record cannot be read (recalled anyway, that record left out and named), 2 missing or not "
                    "a journal, or bad arguments.",
    )
    parser.add_argument("path", metavar="PATH", help="the journal file")
    parser.add_argument("--rounds", type=whole_number(1), default=DEFAULT_ROUNDS, metavar="N",
                        help=f"how many of the last rounds (default {DEFAULT_ROUNDS})")
    parser.add_argument("--json", action="store_true", help="one JSON object per round")
    add_lang_option(parser)
    parser.add_argument("--config", metavar="FILE",
                        help="TOML config file whose [table] language and messages_dir word the text")
    parser.set_defaults(handler=recall)


def _events(path: str) -> tuple[list[Timed], int, str]:
    """The journal's events, whether it failed verification (1) and its mode in words."""
    journal = Journal.open_existing(path)
    try:
        with journal.snapshot():  # one moment of a journal a running table is writing
            refuse_training_journal(journal)
            status = 0
            try:
                verify(journal)
            except JournalTamperedError as error:
                warning = message("recall.verification_warning", "WARNING: the journal failed verification: "
                                  "{error}; recalling it anyway", error=error_text(error))
                print(f"croupier recall: {language_text(warning)}", file=sys.stderr)
                status = 1
            left_out: list[int] = []

            def unreadable(record: Record, error: JournalError) -> None:  # named and left out, the rest recalled
                left_out.append(record.seq)
                warning = message("history.unreadable_record", "WARNING: {error}; the record is left out, the rest "
                                  "is shown", error=error.message if error.message is not None else str(error))
                print(f"croupier recall: {language_text(warning)}", file=sys.stderr)

            events = timed_events(journal, unreadable)
            return events, 1 if left_out else status, language_text(mode_word(about(journal).mode))
    finally:
        journal.close()


def recall(args: argparse.Namespace) -> int:
    """Print the last ``args.rounds`` rounds of ``args.path``; returns the exit status."""
    try:
        events, status, mode = _events(args.path)
    except JournalError as error:
        print(f"croupier recall: {error_text(error)}", file=sys.stderr)
        return 2
    rounds = recalled_rounds((to_builtins(timed.event), timed.at) for timed in events
                             if timed.event["event"] in RECALL_EVENTS)[-args.rounds:]
    if args.json:
        for entry in rounds:
            print(json.dumps(entry.as_json(), separators=(", ", ": ")))
        return status
    from controller.cli.history import text_catalogue

    words = text_catalogue(args)
    print(words.say("recall.title", "RECALL: {path} ({mode}), last rounds: {count}", count=len(rounds),
                    path=args.path, mode=mode))
    for line in recall_text(rounds, words):
        print(line)
    return status


__all__ = ["recall", "register"]

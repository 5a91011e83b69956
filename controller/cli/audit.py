"""``croupier audit verify PATH``: check a journal's hash chain.

::

    croupier audit verify table.journal            # exit 0: "OK: 1234 records checked"
    croupier audit verify table.journal --replay   # also replay the inputs and compare the events
    croupier audit verify table.journal --archive postgresql://127.0.0.1/floor   # and its archived copy

Exit status: 0 the journal is intact, 1 a record was edited, deleted, inserted
or reordered (the first one is named), or it differs from its archived copy
(the side that changed is named: the local journal edited, cut or rewritten, or
the archive altered: a row edited or deleted), or the archive holds nothing of
it, 2 the file is missing or not a journal, or the archive cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from controller.cli.argtypes import add_lang_option
from controller.cli.language import error_text, of_args
from controller.core.exceptions import CroupierError, JournalError, JournalTamperedError
from controller.core.table import Table
from controller.i18n.message import message
from controller.journal.replay import replay, settings_from_header
from controller.journal.store import Journal
from controller.journal.verify import verify

EXIT_OK = 0
EXIT_TAMPERED = 1
EXIT_NOT_A_JOURNAL = 2


def register(subparsers: Any) -> None:
    """Add the ``audit`` subcommand and its ``verify`` action."""
    parser = subparsers.add_parser(
        "audit", help="check a journal for tampering",
        description="Audit a Croupier journal. Exit status: 0 intact, 1 tampered (the first edited, "
                    "deleted, inserted or reordered record is named), 2 missing or not a journal.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = actions.add_parser(
        "verify", help="verify the hash chain of a journal",
        description="Recompute every record's SHA-256 and check that each names the record before it.",
    )
    check.add_argument("path", metavar="PATH", help="the journal file")
    check.add_argument("--replay", action="store_true",
                       help="also replay the journaled inputs into a fresh table and check that it gives "
                            "the journaled events")
    check.add_argument("--archive", metavar="URL",
                       help="also compare the journal with its archived copy in this PostgreSQL database "
                            "(croupier archive): exit 1 if it was edited, cut or rewritten since")
    check.add_argument("--site", help="the table's site in the archive (default: found by the journal's record 1)")
    check.add_argument("--table", help="the table's name in the archive (with --site)")
    add_lang_option(check)
    check.set_defaults(handler=audit_verify)


def audit_verify(args: argparse.Namespace) -> int:
    """Verify ``args.path``; print the outcome; return the exit status."""
    path: str = args.path
    say = of_args(args).say
    if (args.site is None) != (args.table is None):
        raise CroupierError(message("audit.site_and_table", "--site and --table name a table in the archive "
                                    "together; give both or neither"))
    if args.site is not None and args.archive is None:
        raise CroupierError(message("audit.needs_archive", "--site and --table name a table in the archive; give "
                                    "--archive URL too"))
    if args.archive is not None:
        from controller.floor.urls import check_database_url

        check_database_url(args.archive, "--archive")
    try:
        journal = Journal.open_existing(path)
    except JournalTamperedError as error:
        print(say("audit.tampered", "TAMPERED: {problem}", problem=error_text(error)))
        return EXIT_TAMPERED
    except JournalError as error:
        print(f"croupier audit verify: {error_text(error)}", file=sys.stderr)
        return EXIT_NOT_A_JOURNAL
    try:
        try:
            verified = verify(journal)
        except JournalTamperedError as error:
            print(say("audit.tampered", "TAMPERED: {problem}", problem=error_text(error)))
            if error.seq:
                print(say("audit.intact_before", "{count} record(s) before it are intact.", count=error.seq - 1)
                      if error.seq > 1 else say("audit.none_before", "No record before it."))
            return EXIT_TAMPERED
        except JournalError as error:
            print(f"croupier audit verify: {error_text(error)}", file=sys.stderr)
            return EXIT_NOT_A_JOURNAL
        if args.replay:
            try:
                table = Table(settings_from_header(path, verified.header))
                found = replay(journal, table)
            except JournalError as error:
                print(say("audit.tampered", "TAMPERED: {problem}", problem=error_text(error)))
                return EXIT_TAMPERED
            replayed = say("audit.replayed", "; replayed {inputs} inputs into a fresh table: same events",
                           inputs=found.inputs)
        else:
            replayed = ""
        if args.archive is not None and not _matches_archive(journal, args):
            return EXIT_TAMPERED
        print(say("audit.ok", "OK: {records} records checked ({inputs} inputs, {events} event records){replayed}",
                  records=verified.records, inputs=verified.inputs, events=verified.events, replayed=replayed))
        print(say("audit.head", "head: record {seq} sha256 {hash}", seq=verified.records, hash=verified.head))
        return EXIT_OK
    finally:
        journal.close()


def _matches_archive(journal: Journal, args: argparse.Namespace) -> bool:
    """Compare the (verified) journal with its archived copy; print the outcome. Raises on a database error."""
    try:
        from controller.floor.archive_check import compare_with_archive
    except ImportError as error:
        raise CroupierError(message("audit.needs_floor", "--archive needs the floor extra ({error}); install it: "
                                    "pip install 'croupier[floor]'", error=str(error))) from None
    from controller.floor.archive_check import Verdict

    with journal.snapshot():
        records = list(journal.records())
    comparison = compare_with_archive(records, args.archive, args.site, args.table, confirmed=journal.feed_acked())
    words = of_args(args)
    first, *rest = (words.text(line) for line in comparison.lines)
    if comparison.matches:
        print(words.say("audit.archive", "archive: {comparison}", comparison=first))
    elif comparison.verdict is Verdict.NOT_ARCHIVED:
        print(words.say("audit.not_archived", "NOT ARCHIVED: {problem}", problem=f"{journal.path}: {first}"))
    else:
        print(words.say("audit.tampered", "TAMPERED: {problem}", problem=f"{journal.path}: {first}"))
    for line in rest:
        print(line)
    return comparison.matches

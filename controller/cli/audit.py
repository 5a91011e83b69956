"""``croupier audit verify PATH``: check a journal's hash chain, and its last checkpoint against a replay of its shoe
(no checkpoint yet: every input against a replay from the start).

::

    croupier audit verify table.journal            # exit 0: "OK: 1234 records checked ...; the last checkpoint ..."
    croupier audit verify table.journal --replay   # replay every input instead and compare the events
    croupier audit verify table.journal --archive postgresql://127.0.0.1/floor   # and its archived copy

Exit status: 0 the journal is intact, 1 a record was edited, deleted, inserted
or reordered (the first one is named), a checkpoint or an event does not match
the replay (named), or it differs from its archived copy (the side that changed
is named: the local journal edited, cut or rewritten, or the archive altered: a
row edited or deleted), or the archive holds nothing of it, 2 the file is
missing, damaged or not a journal, or the archive cannot be read. A resume
(``run``/``simulate --journal``) checks what this checks without ``--replay``
first (:func:`controller.journal.replay.trust`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from controller.cli.argtypes import add_lang_option
from controller.cli.language import error_text, of_args
from controller.core.exceptions import (
    CroupierError,
    JournalDamagedError,
    JournalError,
    JournalTamperedError,
    install_hint,
)
from controller.i18n.catalogue import Catalogue
from controller.i18n.message import message
from controller.journal.about import about, is_training_header
from controller.journal.beside import ReplayBeside
from controller.journal.replay import check_last_checkpoint
from controller.journal.store import Journal, Record
from controller.journal.verify import Verified, verify
from controller.terms import MODE_WORDS

EXIT_OK = 0
EXIT_TAMPERED = 1
EXIT_NOT_A_JOURNAL = 2


def register(subparsers: Any) -> None:
    """Add the ``audit`` subcommand and its ``verify`` action."""
    parser = subparsers.add_parser(
        "audit", help="check a journal for tampering",
        description="Audit a Croupier journal. Exit status: 0 intact, 1 tampered (the first edited, "
                    "deleted, inserted or reordered record is named, or a checkpoint that does not match a replay), "
                    "2 missing, damaged or not a journal.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = actions.add_parser(
        "verify", help="verify the hash chain of a journal",
        description="Recompute every record's SHA-256 and check that each names the record before it; then "
                    "replay the last checkpoint's shoe (from the checkpoint before that shoe began; with no checkpoint "
                    "yet, the journal from its start) and check that it gives the journaled events and that "
                    "checkpoint (--replay: the whole journal, every checkpoint). A resume checks the same first.",
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
    words = of_args(args)
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
        print(words.say("audit.tampered", "TAMPERED: {problem}", problem=error_text(error)))
        return EXIT_TAMPERED
    except JournalError as error:
        print(f"croupier audit verify: {error_text(error)}", file=sys.stderr)
        return EXIT_NOT_A_JOURNAL
    try:
        with journal.snapshot():  # one moment of a journal a running table is writing: what is checked is counted
            if not args.replay:
                return _audited(journal, None, args, words)
            with ReplayBeside(journal) as beside:  # the whole replay on a second core while the chain is checked
                return _audited(journal, beside, args, words)
    finally:
        journal.close()


def _audited(journal: Journal, beside: ReplayBeside | None, args: argparse.Namespace, words: Catalogue) -> int:
    """Check the open ``journal`` (with ``beside``: replay it all); print the outcome; return the exit status."""
    say = words.say
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
    try:
        replayed = _replayed(journal, verified, beside, of_args(args))
    except JournalDamagedError as error:
        print(f"croupier audit verify: {error_text(error)}", file=sys.stderr)
        return EXIT_NOT_A_JOURNAL
    except JournalError as error:
        print(say("audit.tampered", "TAMPERED: {problem}", problem=error_text(error)))
        return EXIT_TAMPERED
    if args.archive is not None and not _matches_archive(journal, args):
        return EXIT_TAMPERED
    print(say("audit.ok", "OK: {records} records checked ({inputs} inputs, {events} event records){replayed}",
              records=verified.records, inputs=verified.inputs, events=verified.events, replayed=replayed))
    print(say("audit.head", "head: record {seq} sha256 {hash}", seq=verified.records, hash=verified.head))
    mode = say("audit.mode", "mode: {mode}", mode=words.text(MODE_WORDS[about(journal).mode]))
    print(f"croupier audit verify: {mode}", file=sys.stderr)  # stdout's two lines stay as they were
    return EXIT_OK


def _replayed(journal: Journal, verified: Verified, whole: ReplayBeside | None, words: Catalogue) -> str:
    """Replay the ``whole`` journal into a fresh table (its replay begun beside the chain check), or else the last
    checkpoint's shoe, checking the journaled events and checkpoints (raises :class:`JournalError` naming the record
    that differs); what to print."""
    if is_training_header(verified.header):  # a trainee's answers: no table replays them, the chain is all
        return ""
    if whole is not None:  # every event compared and counted as it is replayed, none kept
        return words.say("audit.replayed", "; replayed {inputs} inputs into a fresh table: same events",
                         inputs=whole.inputs(verified))
    last = journal.last_checkpoint()
    inputs = check_last_checkpoint(journal, verified.header, last)  # none yet: every input since the start
    if last is None:
        return ""
    return words.say("audit.checkpoint_replayed", "; the last checkpoint (record {seq}) matches a replay of its "
                     "shoe ({inputs} inputs)", seq=last.seq, inputs=inputs)


def _matches_archive(journal: Journal, args: argparse.Namespace) -> bool:
    """Compare the (verified) journal with its archived copy; print the outcome. Raises on a database error."""
    try:
        from controller.floor.archive_check import compare_with_archive
    except ImportError as error:
        raise CroupierError(message("audit.needs_floor", "--archive needs the floor extra ({error}); {install}",
                                    error=str(error), install=install_hint("floor"))) from None
    from controller.floor.archive_check import Verdict

    def later(since: int) -> list[Record]:
        """The journal's records from ``since`` on as it is now, past the moment audited (a table deals on)."""
        now = Journal.open_existing(journal.path)
        try:
            return list(now.records(since))
        finally:
            now.close()

    with journal.snapshot():
        records = list(journal.records())
    comparison = compare_with_archive(records, args.archive, args.site, args.table, confirmed=journal.feed_acked(),
                                      later=later)
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

"""``croupier roads``: the scoreboard roads of a result history.

::

    croupier roads --results "BPPTB" --json
    croupier roads --results "BPPTB"            # a readable grid
    croupier roads --events journal-events.jsonl  # table events, one JSON object a line
    croupier roads --journal table.journal --shoe 2   # any shoe of a journal (default: the last)

The grid is coloured when stdout is a terminal (and ``NO_COLOR`` is unset), plain otherwise. It fits
``$COLUMNS`` (else the terminal's width; a pipe gets every column): a road wider than that shows its newest
columns and says how many older ones are left out.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from pathlib import Path

from controller.cli.argtypes import add_lang_option, whole_number
from controller.cli.language import of_args
from controller.cli.language import text as worded
from controller.core.events import to_builtins
from controller.core.exceptions import RoadsInputError
from controller.i18n.message import message
from controller.ui.roads import render_text, result_from_event, roads_from_events, roads_from_results
from controller.ui.terminalwidth import columns_given, terminal_columns


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``roads`` subcommand."""
    parser = subparsers.add_parser(
        "roads",
        help="print the scoreboard roads (bead plate, big road, derived roads) of a result history",
        description="Compute the bead plate, big road, big eye boy, small road and cockroach pig "
                    "of a result history. Past results do not predict the next one. --journal's hash chain is "
                    "checked as croupier audit verify checks it. Exit status: 0, 1 a record of --journal cannot be "
                    "read (left out and named), or --journal fails verification (named: its roads cannot be "
                    "trusted), 2 bad input.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--results", metavar="LETTERS",
                        help="the results in order, one letter each: B banker, P player, T tie "
                             "(e.g. BPPTB)")
    source.add_argument("--events", metavar="PATH",
                        help="a file of table events, one JSON object a line ('-' for stdin); "
                             "result and round_voided events are used")
    source.add_argument("--journal", metavar="PATH", help="a journal (--journal of run or simulate)")
    parser.add_argument("--shoe", type=whole_number(1), metavar="N",
                        help="the roads of shoe N of --events or --journal (default: the last shoe)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object with bead_plate, big_road, big_eye_boy, "
                             "small_road and cockroach_pig")
    add_lang_option(parser)
    parser.set_defaults(handler=run)


def _read_events(path: str) -> list[dict[str, object]]:
    try:
        if not path:  # Path("") is the current directory
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as error:
        raise RoadsInputError(message("roads.cannot_read", "cannot read events file {path}: {reason}; give a file "
                                      "of table events, one JSON object a line ('-' for standard input)",
                                      path=repr(path), reason=str(error.strerror))) from error
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as error:
        raise RoadsInputError(message("roads.not_utf8", "{path}: not UTF-8 text (byte {start} is 0x{byte}): "
                                      "expected table events, one JSON object a line", path=path,
                                      start=error.start, byte=f"{data[error.start]:02x}")) from None
    events: list[dict[str, object]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as error:
            raise RoadsInputError(message("roads.not_json", "{path} line {number}: not JSON ({reason}): "
                                          "expected one table event object a line", path=path, number=number,
                                          reason=error.msg)) from error
        if not isinstance(event, dict):
            raise RoadsInputError(message("roads.not_object", "{path} line {number}: expected a JSON object, got "
                                          "{kind}", path=path, number=number, kind=type(event).__name__))
        if event.get("event") == "result":  # a bad one is named by its line, which a hand-made file may need
            try:
                result_from_event(event)
            except RoadsInputError as error:
                raise RoadsInputError(message("roads.line_problem", "{path} line {number}: {problem}", path=path,
                                              number=number, problem=error.message or str(error))) from None
        events.append(event)
    return events


def _journal_events(path: str, warned: list[int]) -> list[dict[str, object]]:
    """The events of the journal at ``path``. A journal that fails verification (its hash chain, as croupier audit
    verify checks it) is named on stderr, its events still given; each record that cannot be read is named on
    stderr and left out. The record named of each is added to ``warned``."""
    from controller.core.exceptions import JournalError
    from controller.journal.about import refuse_training_journal
    from controller.journal.replay import journaled_events
    from controller.journal.store import Journal, Record
    from controller.journal.verify import first_tampering

    def unreadable(record: Record, error: JournalError) -> None:
        warned.append(record.seq)
        warning = message("roads.unreadable_record", "WARNING: {error}; the record is left out of the roads: check "
                          "the journal with croupier audit verify --replay",
                          error=error.message if error.message is not None else str(error))
        print(f"croupier roads: {worded(warning)}", file=sys.stderr)

    journal = Journal.open_existing(path)
    try:
        refuse_training_journal(journal)
        tampering = first_tampering(journal)
        if tampering is not None:
            warned.append(tampering.seq)
            warning = message("roads.verification_warning", "WARNING: the journal failed verification: {problem}; the "
                              "roads drawn from it cannot be trusted: run croupier audit verify {path}, and keep the "
                              "journal as it is", problem=tampering.message or str(tampering), path=path)
            print(f"croupier roads: {worded(warning)}", file=sys.stderr)
        return [to_builtins(event) for _, events in journaled_events(journal, unreadable) for event in events]
    finally:
        journal.close()


def shoe_numbers(events: list[dict[str, object]]) -> list[int]:
    """The shoe each event belongs to (a new ``shoe`` event or a ``result``'s ``shoe`` starts one)."""
    current = 1
    numbers = []
    for event in events:
        shoe = event.get("shoe")
        if isinstance(shoe, int) and (event.get("event") == "result" or (
                event.get("event") == "shoe" and event.get("status") == "new")):
            current = shoe
        numbers.append(current)
    return numbers


def events_of_shoe(events: list[dict[str, object]], shoe: int, source: str) -> list[dict[str, object]]:
    """The events of shoe ``shoe``; a shoe the events do not hold is a :class:`RoadsInputError`."""
    numbers = shoe_numbers(events)
    picked = [event for event, number in zip(events, numbers, strict=True) if number == shoe]
    if not picked:
        held = sorted(set(numbers))
        if len(held) > 1:
            worded = message("roads.shoes_held", "--shoe {shoe}: {source} holds shoes {first}-{last}; give one of "
                             "those", shoe=shoe, source=source, first=held[0], last=held[-1])
        elif held:
            worded = message("roads.shoe_held", "--shoe {shoe}: {source} holds shoe {first}; give one of those",
                             shoe=shoe, source=source, first=held[0])
        else:
            worded = message("roads.no_shoe_held", "--shoe {shoe}: {source} holds no shoe; give one of those",
                             shoe=shoe, source=source)
        raise RoadsInputError(worded)
    return picked


def terminal_width() -> int | None:
    """The width the text keeps within: ``$COLUMNS`` when it is a width (0 is none), else the terminal's when stdout
    is one (80 when it reports 0 columns), else none (a pipe or a file gets every column)."""
    given = columns_given()
    if given is not None:
        return given
    if sys.stdout.isatty():
        return terminal_columns(sys.stdout.fileno())
    return None


def run(args: argparse.Namespace) -> int:
    """Print the roads; bad input raises :class:`RoadsInputError` (exit 2); 1 when a journal record that cannot
    be read was left out, or the journal fails verification (named on stderr)."""
    warned: list[int] = []
    if args.results is not None:
        if args.shoe is not None:
            raise RoadsInputError(message("roads.shoe_with_results", "--shoe picks a shoe of --events or --journal; "
                                          "--results is one history"))
        roads = roads_from_results(args.results)
    else:
        events = _read_events(args.events) if args.events is not None else _journal_events(args.journal, warned)
        if args.shoe is not None:
            events = events_of_shoe(events, args.shoe, args.events or args.journal)
        roads = roads_from_events(events)
    if args.json:
        print(json.dumps(roads.to_dict(), ensure_ascii=False))
    else:
        print(render_text(roads, colour=sys.stdout.isatty() and not os.environ.get("NO_COLOR"), words=of_args(args),
                          width=terminal_width()))
    return 1 if warned else 0

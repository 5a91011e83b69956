"""``croupier roads``: the scoreboard roads of a result history.

::

    croupier roads --results "BPPTB" --json
    croupier roads --results "BPPTB"            # a readable grid
    croupier roads --events journal-events.jsonl  # table events, one JSON object a line
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.core.exceptions import RoadsInputError
from controller.ui.roads import render_text, roads_from_events, roads_from_results


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``roads`` subcommand."""
    parser = subparsers.add_parser(
        "roads",
        help="print the scoreboard roads (bead plate, big road, derived roads) of a result history",
        description="Compute the bead plate, big road, big eye boy, small road and cockroach pig "
                    "of a result history. Past results do not predict the next one.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--results", metavar="LETTERS",
                        help="the results in order, one letter each: B banker, P player, T tie "
                             "(e.g. BPPTB)")
    source.add_argument("--events", metavar="PATH",
                        help="a file of table events, one JSON object a line ('-' for stdin); "
                             "result and round_voided events are used")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object with bead_plate, big_road, big_eye_boy, "
                             "small_road and cockroach_pig")
    parser.set_defaults(handler=run)


def _read_events(path: str) -> list[dict[str, object]]:
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as error:
        raise RoadsInputError(f"cannot read events file {path!r}: {error.strerror}") from error
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as error:
        raise RoadsInputError(f"{path}: not UTF-8 text (byte {error.start} is 0x{data[error.start]:02x}): "
                              "expected table events, one JSON object a line") from None
    events: list[dict[str, object]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as error:
            raise RoadsInputError(f"{path} line {number}: not JSON ({error.msg}): "
                                  "expected one table event object a line") from error
        if not isinstance(event, dict):
            raise RoadsInputError(f"{path} line {number}: expected a JSON object, got {type(event).__name__}")
        events.append(event)
    return events


def run(args: argparse.Namespace) -> int:
    """Print the roads; bad input raises :class:`RoadsInputError` (exit 2)."""
    if args.results is not None:
        roads = roads_from_results(args.results)
    else:
        roads = roads_from_events(_read_events(args.events))
    if args.json:
        print(json.dumps(roads.to_dict(), ensure_ascii=False))
    else:
        print(render_text(roads))
    return 0

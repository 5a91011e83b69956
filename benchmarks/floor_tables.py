"""Many simulated tables in one process, each one ``croupier simulate --journal --feed`` in a thread of its own.

Run by :mod:`benchmarks.floor`: ``python -m benchmarks.floor_tables --feed mqtt://HOST:PORT/SITE --dir DIR
--rounds R --pace P [--ready PATH] TABLE:SEED[@DELAY] ...``. Each thread calls the ``croupier``
command line itself (:func:`controller.cli.main.main` with ``simulate --seed SEED --rounds R --pace P
--quiet --journal DIR/TABLE.journal --feed mqtt://HOST:PORT/SITE/TABLE``), so it is the very code
path of the command: a mock shoe, the table, its journal and the feed's publisher reading the journal
as its outbox (``controller/floor/feed.py``, ``controller/journal/outbox.py``). Only the interpreter
is shared; it first builds what one table process builds once at its start (:func:`warm_up`). With
``--ready PATH`` it then writes PATH and waits for a line on its standard input, so that the benchmark
starts the tables after every interpreter's own start-up; a table starts DELAY seconds after that.
Exit status: 0 when every table's command exited 0, else 1 (each failure named on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
import threading
import time
from pathlib import Path

from controller.cli.main import main as croupier
from controller.core.bets.exact import Shoe, bet_evs
from controller.core.odds import compute_odds

DECKS = 8
"""``croupier simulate``'s default shoe."""
TABLE_MODULES = ("controller.cli.simulate", "controller.app.session", "controller.journal.replay",
                 "controller.floor.feed", "drivers.mock")
"""What ``croupier simulate --journal --feed`` imports once it runs (beyond the command line's own)."""


def table_command(feed: str, directory: Path, table: str, seed: int, rounds: int, pace: float) -> list[str]:
    """The ``croupier`` arguments of one table (the same for a table in its own process)."""
    return ["simulate", "--seed", str(seed), "--rounds", str(rounds), "--pace", str(pace), "--quiet",
            "--journal", str(directory / f"{table}.journal"), "--feed", f"{feed}/{table}"]


def table_spec(text: str) -> tuple[str, int, float]:
    """``TABLE:SEED`` or ``TABLE:SEED@DELAY`` (seconds after the start of the tables; default 0)."""
    table, _, rest = text.partition(":")
    seed, _, delay = rest.partition("@")
    try:
        after = float(delay) if delay else 0.0
    except ValueError:
        after = -1.0
    if not table or not seed.isdigit() or not (math.isfinite(after) and after >= 0):
        raise argparse.ArgumentTypeError(f"{text!r}: expected TABLE:SEED or TABLE:SEED@DELAY, e.g. t001:1 or "
                                         "t003:3@0.05")
    return table, int(seed), after


def warm_up() -> None:
    """Build once what a table process builds once at its start (its modules, the live edge's multiset
    tables, the summary's exact odds), before the threads start: each thread would otherwise build it
    again while the others do (``functools.cache`` does not hold them back), a cost no real table has."""
    for module in TABLE_MODULES:
        importlib.import_module(module)
    bet_evs(Shoe.of(DECKS))
    compute_odds(DECKS)


def main(argv: list[str] | None = None) -> int:
    """Run the tables to their end, one thread each."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.floor_tables", description=__doc__)
    parser.add_argument("--feed", required=True, help="mqtt://HOST:PORT/SITE (the table name is appended)")
    parser.add_argument("--dir", required=True, type=Path, help="directory of the tables' journals")
    parser.add_argument("--rounds", required=True, type=int)
    parser.add_argument("--pace", required=True, type=float, help="seconds between cards")
    parser.add_argument("--ready", type=Path, metavar="PATH",
                        help="once warmed up, write PATH and wait for a line on standard input to start the tables")
    parser.add_argument("tables", nargs="+", type=table_spec, metavar="TABLE:SEED[@DELAY]")
    args = parser.parse_args(argv)
    statuses: dict[str, int] = {}
    warm_up()
    if args.ready is not None:
        args.ready.write_text("ready\n")
        if sys.stdin.readline().strip() != "go":
            print("floor_tables: the benchmark ended before it started the tables", file=sys.stderr)
            return 2

    def deal(table: str, seed: int) -> None:
        statuses[table] = croupier(table_command(args.feed, args.dir, table, seed, args.rounds, args.pace))

    started = time.monotonic()
    threads = []
    for table, seed, delay in sorted(args.tables, key=lambda spec: spec[2]):
        time.sleep(max(0.0, started + delay - time.monotonic()))
        threads.append(threading.Thread(target=deal, args=(table, seed), name=f"table-{table}"))
        threads[-1].start()
    for thread in threads:
        thread.join()
    failed = {table: status for table, status in statuses.items() if status != 0}
    missing = [table for table, _, _ in args.tables if table not in statuses]
    for table, status in failed.items():
        print(f"floor_tables: table {table} exited with status {status}", file=sys.stderr)
    for table in missing:
        print(f"floor_tables: table {table} did not finish (its thread raised)", file=sys.stderr)
    return 1 if failed or missing else 0


if __name__ == "__main__":
    sys.exit(main())

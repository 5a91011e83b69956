"""``croupier archive --broker mqtt://... --db postgresql://...``: every table's journal into PostgreSQL.

::

    croupier archive --broker mqtt://127.0.0.1:1883 --db postgresql://archive@127.0.0.1/floor
    croupier archive --broker mqtts://archive:SECRET@broker:8883 --ca-file ca.pem --db ... --client-id archive-2

Subscribes to ``croupier/+/+/journal`` (shared in ``--group`` when one is given), checks each table's
hash chain as it goes and stores each record once in ``journal_records``; a record that does not chain goes to
``journal_rejects`` and is reported (``REJECTED SITE/TABLE record N: why``). Runs until SIGTERM or
Ctrl+C. Exit status: 0 stopped, 2 a bad URL, the broker or the database cannot be used.
"""

from __future__ import annotations

import argparse
import signal
import socket
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from controller.cli.argtypes import add_lang_option, whole_number
from controller.cli.language import words
from controller.core.exceptions import CroupierError, install_hint
from controller.i18n.message import message

EXIT_STOPPED = 0
EXIT_FAILED = 2
PLAIN = ("", "none")
"""``--group`` values for a plain (not shared) subscription, the default."""
DEFAULT_SESSION_EXPIRY = 86400


def register(subparsers: Any) -> None:
    """Add the ``archive`` subcommand."""
    parser = subparsers.add_parser(
        "archive", help="store every table's journal from the MQTT broker in PostgreSQL",
        description="Subscribe to every table's croupier/SITE/TABLE/journal topic and store each record once in "
                    "PostgreSQL (table journal_records, key site, table_id, seq), checking each table's hash "
                    "chain; a record that does not chain is kept apart (journal_rejects) and reported. Runs "
                    "until SIGTERM or Ctrl+C. Exit status: 0 stopped, 2 bad URL, broker or database unusable.",
    )
    parser.add_argument("--broker", required=True, metavar="URL",
                        help="the MQTT 5 broker: mqtt://[USER:PASSWORD@]HOST:PORT, or mqtts:// for TLS")
    parser.add_argument("--db", required=True, metavar="URL",
                        help="the PostgreSQL database: postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE "
                             "(the archive's tables are created when missing)")
    parser.add_argument("--ca-file", metavar="PATH", help="the CA certificate that signed the broker's (mqtts://)")
    parser.add_argument("--group", default="", metavar="NAME",
                        help="an MQTT 5 shared-subscription group: archive processes in one group split the "
                             "messages (default: none, a plain subscription that the broker keeps over its "
                             "restarts; see docs/floor.md)")
    parser.add_argument("--client-id", metavar="ID",
                        help="this process's MQTT client id, one per archive process: the broker keeps its "
                             "session (what it has not acknowledged) while it is down (default "
                             "croupier-archive-HOSTNAME)")
    parser.add_argument("--session-expiry", type=whole_number(1), default=DEFAULT_SESSION_EXPIRY, metavar="SECONDS",
                        help=f"how long the broker keeps the session while the archive is down "
                             f"(default {DEFAULT_SESSION_EXPIRY})")
    parser.add_argument("--writers", type=whole_number(1, 16), default=2, metavar="N",
                        help="database connections writing at once, each with its own share of the tables (1-16, "
                             "default 2): while one waits for its commit, another stores; each stores in one "
                             "transaction what arrived meanwhile and in the 10 ms after the first of it")
    parser.add_argument("--timing", metavar="PATH",
                        help="append one JSON line a batch to PATH: when its messages were received and when it was "
                             "decoded, read, judged, written, committed and acknowledged (for measuring; default: "
                             "off, nothing is timed)")
    add_lang_option(parser)
    parser.set_defaults(handler=archive)


def archive(args: argparse.Namespace) -> int:
    """Run the archive until a signal stops it; returns the exit status."""
    from controller.floor.urls import check_database_url, parse_broker_url

    broker = parse_broker_url(args.broker)
    database = check_database_url(args.db)
    group = _group(args.group)
    if args.ca_file is not None and not broker.tls:
        raise CroupierError(message("floor.ca_file_plain", "--ca-file is for an mqtts:// broker; use mqtts:// or "
                                    "leave --ca-file out"))
    try:
        from controller.floor.archive import Archiver
        from controller.floor.archive_store import ArchiveStore, connect, create_schema
    except ImportError as error:
        raise CroupierError(message("archive.needs_floor", "the archive needs the floor extra ({error}); {install}",
                                    error=str(error), install=install_hint("floor"))) from None
    timing = _timing_log(args.timing)
    stores: list[Any] = []
    try:
        stores.append(ArchiveStore(connect(database)))
        create_schema(stores[0])
        stores += [ArchiveStore(connect(database)) for _ in range(args.writers - 1)]
        archiver = Archiver(stores, broker, client_id=args.client_id or f"croupier-archive-{socket.gethostname()}",
                            group=group, session_expiry=args.session_expiry, ca_file=args.ca_file, timing=timing,
                            words=words())
        return _run(archiver)
    finally:
        for store in stores:
            store.close()
        if timing is not None:
            timing.close()


def _timing_log(path: str | None) -> Any:
    """``--timing PATH``'s log (None without it); a file that cannot be written is said in one line."""
    if path is None:
        return None
    from controller.floor.archive_timing import TimingLog

    try:
        return TimingLog(Path(path))
    except OSError as error:
        raise CroupierError(message("archive.bad_timing", "--timing {path}: cannot write there ({error}); give a "
                                    "file in a directory that exists and is writable", path=repr(path),
                                    error=error.strerror or str(error))) from None


def _group(name: str) -> str:
    """The shared-subscription group ("" for a plain subscription); refuses a name MQTT cannot carry."""
    if name.strip().lower() in PLAIN:
        return ""
    if any(char in name for char in "/+#") or name != name.strip():
        raise CroupierError(message("archive.bad_group", "--group {name}: a shared-subscription group is one topic "
                                    "level without '/', '+', '#' or surrounding spaces; give another name, or none "
                                    "for a plain subscription", name=repr(name)))
    return name


def _run(archiver: Any) -> int:
    def stop(signum: int, frame: FrameType | None) -> None:
        archiver.stop()

    previous = {number: signal.signal(number, stop) for number in (signal.SIGTERM, signal.SIGINT)}
    try:
        archiver.start()
        archiver.wait()
    finally:
        archiver.close()
        for number, handler in previous.items():
            signal.signal(number, handler)
    counts = archiver.counts
    print(words().say("archive.stopped", "stopped: {stored} records stored, {duplicates} duplicates, {pending} "
                      "waiting for their predecessor, {rejected} rejected", stored=counts.stored,
                      duplicates=counts.duplicates, pending=counts.pending, rejected=counts.rejected), flush=True)
    if archiver.failure is not None:
        print(f"croupier archive: {archiver.failure}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_STOPPED

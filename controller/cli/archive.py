"""``croupier archive --broker mqtt://... --db postgresql://...``: every table's journal into PostgreSQL.

::

    croupier archive --broker mqtt://127.0.0.1:1883 --db postgresql://archive@127.0.0.1/floor
    croupier archive --broker mqtts://archive:SECRET@broker:8883 --ca-file ca.pem --db ... --client-id archive-2
    croupier archive import t12.journal --db postgresql://archive@127.0.0.1/floor --site casino --table t12

Subscribes to ``croupier/+/+/journal`` (shared in ``--group`` when one is given), checks each table's
hash chain as it goes and stores each record once in ``journal_records``; a record that does not chain goes to
``journal_rejects`` and is reported (``REJECTED SITE/TABLE record N: why``). Runs until SIGTERM or
Ctrl+C. Exit status: 0 stopped, 2 a bad URL, the broker or the database cannot be used.

``croupier archive import JOURNAL... --db URL [--site S --table T]`` stores journal files directly
(:mod:`controller.floor.archive_import`), each as the table named, else the archived table it continues, else the
table its journal names (``SITE/TABLE``, or a table of the site ``local``). Exit status: 0 every record archived,
1 a journal does not verify or holds records the archive refuses, 2 bad input or a database that cannot be used.
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
from controller.core.undecodable import undecodable
from controller.i18n.message import message

EXIT_STOPPED = 0
EXIT_REFUSED = 1
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
    parser.add_argument("--broker", metavar="URL",
                        help="the MQTT 5 broker: mqtt://[USER:PASSWORD@]HOST:PORT, or mqtts:// for TLS (required to "
                             "archive)")
    parser.add_argument("--db", metavar="URL",
                        help="the PostgreSQL database: postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE "
                             "(the archive's tables are created when missing)")
    parser.add_argument("--ca-file", metavar="PATH", help="the CA certificate that signed the broker's (mqtts://)")
    parser.add_argument("--password-file", metavar="PATH",
                        help="a file whose first line is the broker password of the --broker URL's user (written "
                             "mqtt://USER@HOST:PORT), so that no password is on the command line; default: "
                             "CROUPIER_MQTT_PASSWORD, then the file CROUPIER_MQTT_PASSWORD_FILE names")
    parser.add_argument("--group", default="", metavar="NAME",
                        help="an MQTT 5 shared-subscription group: archive processes in one group split the "
                             "messages (default: none, a plain subscription that the broker keeps over its "
                             "restarts; see docs/floor.md)")
    parser.add_argument("--site", action="append", default=[], metavar="SITE",
                        help="archive only this site's tables (repeatable; default: every site): archive processes "
                             "split the floor by site, each with its own sites")
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
    subcommands = parser.add_subparsers(dest="archive_command", required=False, metavar="[SUBCOMMAND]",
                                        help="an archive tool (none: archive from the broker)")
    importing = subcommands.add_parser(
        "import", help="store journal files in the archive directly (tables that ran without a broker)",
        description="Store each journal file's records in the archive, as the archive stores a table's published "
                    "records: the journal's hash chain is verified, each record is checked against the archived "
                    "record before it and stored once (a second import stores nothing new). The table is the one "
                    "named with --site and --table; else the one whose archived record 1 is the journal's record 1; "
                    "else the one the journal names: its table's id (docs/journal.md), the feed's SITE/TABLE for a "
                    "table that had a feed, or a table name alone (a [table] id without '/', else the host's name), "
                    "archived under the site 'local'. "
                    "Exit status: 0 every record archived, 1 a journal does not verify or holds records the "
                    "archive refuses, 2 bad input or a database that cannot be used.")
    importing.add_argument("journals", nargs="+", metavar="JOURNAL", help="a journal file")
    importing.add_argument("--db", required=True, metavar="URL",
                           help="the archive's PostgreSQL database: postgresql://[USER[:PASSWORD]@]HOST[:PORT]/"
                                "DATABASE (its tables are created when missing)")
    importing.add_argument("--site", help="the table's site in the archive (with --table; default: the archived "
                                          "table that holds the journal's record 1, else the table the journal "
                                          "names)")
    importing.add_argument("--table", help="the table's name in the archive (with --site)")
    add_lang_option(importing)
    importing.set_defaults(handler=archive_import)


def archive(args: argparse.Namespace) -> int:
    """Run the archive until a signal stops it; returns the exit status."""
    from controller.floor.urls import check_database_url, parse_broker_url

    for option, value in (("--broker", args.broker), ("--db", args.db)):
        if value is None:
            raise CroupierError(message("archive.needs_option", "{option} is missing: the archive needs the floor's "
                                        "broker (--broker mqtt://HOST:PORT) and its database (--db postgresql://...)",
                                        option=option))
    broker = parse_broker_url(args.broker, password_file=args.password_file)
    database = check_database_url(args.db)
    group = _group(args.group)
    client_id = _client_id(args.client_id)
    sites = _sites(args.site)
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
        archiver = Archiver(stores, broker, client_id=client_id,
                            group=group, session_expiry=args.session_expiry, ca_file=args.ca_file, timing=timing,
                            sites=sites, reconnect=lambda: ArchiveStore(connect(database)), words=words())
        return _run(archiver)
    finally:
        for store in stores:
            store.close()
        if timing is not None:
            timing.close()


def archive_import(args: argparse.Namespace) -> int:
    """``croupier archive import``: store each journal file; print what each gave; returns the exit status."""
    from controller.core.exceptions import JournalTamperedError
    from controller.floor.urls import NAME, check_database_url

    if (args.site is None) != (args.table is None):
        raise CroupierError(message("audit.site_and_table", "--site and --table name a table in the archive "
                                    "together; give both or neither"))
    if args.site is not None and len(args.journals) > 1:
        raise CroupierError(message("archive_import.one_journal", "--site and --table name one table: give one "
                                    "journal with them"))
    for option, name in (("--site", args.site), ("--table", args.table)):
        if name is not None and not NAME.fullmatch(name):
            raise CroupierError(message("archive_import.bad_name", "{option} {name}: 1-64 letters, digits, '-', '_' "
                                        "or '.', as the table's feed URL names it", option=option, name=repr(name)))
    database = check_database_url(args.db)
    from controller.floor.archive_import import journal_records
    from controller.floor.archive_store import ArchiveStore, connect, create_schema

    store = ArchiveStore(connect(database))
    status = EXIT_STOPPED
    say = words().say
    try:
        create_schema(store)
        for path in args.journals:
            try:
                records = journal_records(path)
            except JournalTamperedError as error:
                print(say("audit.tampered", "TAMPERED: {problem}", problem=str(error)))
                status = EXIT_REFUSED
                continue
            status = max(status, _import_one(store, records, args, path))
    finally:
        store.close()
    return status


def _import_one(store: Any, records: list[Any], args: argparse.Namespace, path: str) -> int:
    import psycopg

    from controller.floor.archive_import import import_records
    from controller.floor.archive_store import database_failure

    say = words().say
    try:
        done = import_records(store, records, args.site, args.table, path)
    except psycopg.Error as error:
        raise database_failure(error) from None
    counts: dict[str, str | int] = {"path": path, "site": done.site, "table": done.table, "last": done.records,
                                    "stored": done.stored, "duplicates": done.duplicates,
                                    "rejected": done.refused}
    if done.unstored:  # never a record left out of the count
        print(say("archive_import.done_unstored", "{path}: {site}/{table} records 1-{last}: {stored} stored, "
                  "{duplicates} already archived, {rejected} refused, {unstored} not stored (each follows a record "
                  "the archive does not hold)", unstored=done.unstored, **counts))
    else:
        print(say("archive_import.done", "{path}: {site}/{table} records 1-{last}: {stored} stored, {duplicates} "
                  "already archived, {rejected} refused", **counts))
    for rejection in done.rejections:
        print(say("archive.rejected", "REJECTED {rejection}", rejection=str(rejection)))
    archived_all = not (done.rejections or done.refused or done.unstored)
    return EXIT_STOPPED if archived_all else EXIT_REFUSED


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
    legible = undecodable(name)
    if legible is not None:
        raise CroupierError(message("archive.group_not_utf8", "--group {name}: a shared-subscription group is one "
                                    "topic level of UTF-8 text; give another name", name=f"'{legible}'"))
    if any(char in name for char in "/+#") or name != name.strip():
        raise CroupierError(message("archive.bad_group", "--group {name}: a shared-subscription group is one topic "
                                    "level without '/', '+', '#' or surrounding spaces; give another name, or none "
                                    "for a plain subscription", name=repr(name)))
    return name


def _client_id(given: str | None) -> str:
    """``--client-id`` (left out: ``croupier-archive-HOSTNAME``); refuses an id MQTT cannot carry."""
    if given is None:
        return f"croupier-archive-{socket.gethostname()}"
    legible = undecodable(given)
    shown = f"'{legible}'" if legible is not None else repr(given)
    if legible is not None or not given or not given.isprintable() or len(given.encode("utf-8")) > 65535:
        raise CroupierError(message("archive.bad_client_id", "--client-id {given}: expected an MQTT client id of "
                                    "1-65535 bytes of UTF-8 text without control characters, e.g. archive-2 (one per "
                                    "archive process; left out: croupier-archive-HOSTNAME)", given=shown))
    return given


def _sites(names: list[str]) -> list[str]:
    """The ``--site`` names, each a floor name (one topic level)."""
    from controller.floor.urls import NAME

    for name in names:
        if not NAME.fullmatch(name):
            raise CroupierError(message("archive.bad_site", "--site {name}: a site is 1-64 letters, digits, '-', "
                                        "'_' or '.'; give a site's name as its tables' feed URLs name it",
                                        name=repr(name)))
    return list(dict.fromkeys(names))


def _run(archiver: Any) -> int:
    def stop(signum: int, frame: FrameType | None) -> None:
        archiver.stop()

    import logging

    logging.getLogger("psycopg").disabled = True  # a lost connection is said once, in the archive's own words

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

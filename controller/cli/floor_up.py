"""``croupier floor up [--tables N]``: a whole floor on this machine, for a newcomer, in one command.

::

    croupier floor up                 # two paced simulated tables
    croupier floor up --tables 6 --pace 0.5

Starts, each on a free port of 127.0.0.1 and by PID, in a temporary directory: a persistent Mosquitto and a
PostgreSQL 15 from their Debian binaries (PostgreSQL as the ``postgres`` user when run as root), the
archive (``croupier archive``), the pit dashboard (``croupier floor``) and N simulated tables (``croupier
simulate --pace ... --journal ... --feed ...``); prints the dashboard's URL and what runs where; and on
Ctrl+C (or SIGTERM) stops everything, the tables first (cleanly: their feeds drain), then the archive, the
dashboard, Mosquitto and PostgreSQL, and removes the directory: nothing is left running. Exit status: 0
stopped, 2 a bad option or a part that could not start (one line says which).
"""

from __future__ import annotations

import argparse
import contextlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

from controller.cli.argtypes import add_lang_option, whole_number
from controller.cli.language import words
from controller.core.exceptions import CroupierError
from controller.i18n.message import message

EXIT_STOPPED = 0
SITE = "floor"
STOP_SECONDS = 30.0
"""How long a part may take to stop cleanly before it is killed."""
START_SECONDS = 60.0


def register(subparsers: Any) -> None:
    """Add the ``up`` action to ``croupier floor``'s subparsers."""
    parser = subparsers.add_parser(
        "up", help="a whole floor on this machine: broker, database, archive, dashboard and simulated tables",
        description="Start a persistent Mosquitto and a PostgreSQL from their Debian binaries (free ports of "
                    "127.0.0.1, a temporary directory), the archive, the pit dashboard and N paced simulated "
                    "tables; print the dashboard's URL; Ctrl+C stops everything and leaves nothing running. "
                    "Exit status: 0 stopped, 2 a bad option or a part that could not start.")
    parser.add_argument("--tables", type=whole_number(0, 200), default=2, metavar="N",
                        help="simulated tables (0-200, default 2)")
    parser.add_argument("--pace", type=float, default=0.5, metavar="SECONDS",
                        help="seconds between two cards of a table (default 0.5)")
    parser.add_argument("--listen", default="127.0.0.1:0", metavar="HOST:PORT",
                        help="where the dashboard serves (default 127.0.0.1:0: a free port)")
    add_lang_option(parser)
    parser.set_defaults(handler=floor_up)


def _croupier(*args: str) -> list[str]:
    return [sys.executable, "-m", "controller.cli.main", *args]


class Floor:
    """The parts of one floor, started in order and stopped in the reverse order."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.broker: Any = None
        self.database: Any = None
        self.parts: list[tuple[str, subprocess.Popen[str]]] = []
        """The croupier processes (archive, dashboard, tables), in the order started."""

    def start_services(self) -> tuple[str, str]:
        """Mosquitto and PostgreSQL (a database ``floor``); their URLs."""
        import psycopg

        from controller.floor.localservers import Mosquitto, Postgres

        self.broker = Mosquitto(self.directory / "mosquitto")
        self.broker.start()
        self.database = Postgres(directory=self.directory / "postgresql")
        self.database.start()
        with psycopg.connect(self.database.url(), autocommit=True) as admin:
            admin.execute("CREATE DATABASE floor")
        return f"mqtt://{self.broker.address}", self.database.url("floor")

    def start(self, name: str, *args: str, log: str) -> subprocess.Popen[str]:
        """A croupier process of its own session (Ctrl+C reaches floor up only, which stops it in turn), its
        standard error kept in the directory."""
        with (self.directory / log).open("w", encoding="utf-8") as errors:
            process = subprocess.Popen(_croupier(*args), stdout=subprocess.PIPE, stderr=errors, text=True,
                                       start_new_session=True)
        self.parts.append((name, process))
        return process

    def first_line(self, process: subprocess.Popen[str], name: str, prefix: str) -> str:
        """The first output line of ``process`` that starts with ``prefix``; a part that ends first is named."""
        assert process.stdout is not None
        found: list[str] = []

        def read() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                if line.startswith(prefix):
                    found.append(line.strip())
                    break

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(START_SECONDS)
        if not found:
            raise CroupierError(message("floor_up.part_failed", "the {part} did not start (see {log})", part=name,
                                        log=str(self.directory)))
        threading.Thread(target=lambda: process.stdout.read() if process.stdout else None, daemon=True).start()
        return found[0]

    def stop(self) -> None:
        """Stop every part, the tables first (a clean stop), and wait for each; then the servers."""
        tables = [process for name, process in self.parts if name.startswith("table")]
        others = [process for name, process in reversed(self.parts) if not name.startswith("table")]
        for group, sig in ((tables, signal.SIGINT), (others, signal.SIGTERM)):
            for process in group:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(sig)
            deadline = time.monotonic() + STOP_SECONDS
            for process in group:
                try:
                    process.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        for server in (self.broker, self.database):
            if server is not None:
                with contextlib.suppress(Exception):
                    server.stop()


def floor_up(args: argparse.Namespace) -> int:
    """Start the floor, print where it is, wait for Ctrl+C, stop everything; returns the exit status."""
    from controller.floor.dashboard import parse_listen

    parse_listen(args.listen)
    if not 0.0 <= args.pace <= 60.0:
        raise CroupierError(message("floor_up.bad_pace", "--pace {pace}: give the seconds between two cards, from 0 "
                                    "to 60", pace=args.pace))
    say = words().say
    directory = Path(tempfile.mkdtemp(prefix="croupier-floor-"))
    directory.chmod(0o711)  # the postgres user walks into its own directory below
    floor = Floor(directory)
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    previous = {number: signal.signal(number, stop) for number in (signal.SIGTERM, signal.SIGINT)}
    try:
        _start(floor, args, say)
        while not stopping.wait(1.0):
            ended = [name for name, process in floor.parts if process.poll() is not None]
            if ended:
                print(say("floor_up.part_ended", "floor up: the {part} ended (see {log}); stopping everything",
                          part=ended[0], log=str(directory)), file=sys.stderr, flush=True)
                break
        print(say("floor_up.stopping", "floor up: stopping everything"), flush=True)
    finally:
        floor.stop()
        for number, handler in previous.items():
            signal.signal(number, handler)
        shutil.rmtree(directory, ignore_errors=True)
    print(say("floor_up.stopped", "floor up: stopped; nothing is left running"), flush=True)
    return EXIT_STOPPED


def _start(floor: Floor, args: argparse.Namespace, say: Any) -> None:
    from controller.floor.localservers import ServerUnavailable

    try:
        broker, database = floor.start_services()
    except ServerUnavailable as error:
        raise CroupierError(message("floor_up.server_unavailable", "floor up: {problem}",
                                    problem=str(error))) from None
    print(say("floor_up.services", "floor up: Mosquitto {broker} (PID {broker_pid}), PostgreSQL {database} "
              "(PID {database_pid}), files in {directory}", broker=broker, broker_pid=floor.broker.process.pid,
              database=database, database_pid=floor.database.pid, directory=str(floor.directory)), flush=True)
    archive = floor.start("archive", "archive", "--broker", broker, "--db", database, "--client-id",
                          "croupier-archive-floor-up", log="archive.log")
    floor.first_line(archive, "archive", "archiving ")
    dashboard = floor.start("dashboard", "floor", "--broker", broker, "--listen", args.listen, log="dashboard.log")
    serving = floor.first_line(dashboard, "dashboard", "floor: ")
    found = re.search(r"(https?://\S+/)", serving)
    url = found.group(1) if found else serving
    journals = floor.directory / "tables"
    journals.mkdir()
    for number in range(1, args.tables + 1):
        floor.start(f"table t{number}", "simulate", "--seed", str(number), "--rounds", "1000000", "--pace",
                    str(args.pace), "--quiet", "--journal", str(journals / f"t{number}.journal"), "--feed",
                    f"{broker}/{SITE}/t{number}", log=f"t{number}.log")
    pids = ", ".join(f"{name} {process.pid}" for name, process in floor.parts)
    print(say("floor_up.running", "floor up: archive, dashboard and {tables} tables running (PIDs: {pids})",
              tables=args.tables, pids=pids), flush=True)
    print(say("floor_up.dashboard", "floor up: the dashboard is at {url} ; Ctrl+C stops everything", url=url),
          flush=True)

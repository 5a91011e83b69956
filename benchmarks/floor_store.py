"""The archive's batch speed beside PostgreSQL's own ``COPY`` of the same rows and beside the archive's store at
issue 27's start, in the same run.

Run: .venv/bin/python -m benchmarks.floor_store [--tables N] [--rounds R] [--pairs P] [--start DIR] [--write]

Makes N real journals (``croupier simulate --journal``), then stores all their records four ways, each
into a fresh database of one PostgreSQL 15 of its own (on a free port, stopped by PID):

- ``COPY``: PostgreSQL's own bulk load of the rows into ``journal_records`` (one ``COPY ... FROM STDIN``, binary,
  its fastest form), the floor of what any loader can do;
- the archive's store: :meth:`ArchiveStore.receive_batch` on the records as the archive receives them (the
  tables' messages interleaved, each decoded and checked from its payload by the archive's own
  ``Archiver._decode``, in batches of :data:`~controller.floor.archive.BATCH_LIMIT`);
- the same with the archive's store at issue 27's start (commit :data:`ISSUE_START`, the parent of the issue's
  first commit 7f5c07e), run from a checkout of it (``--start DIR``; without it a temporary git worktree, removed
  after): both stores run by the same few lines (:data:`STORE_RUN`) in a process of their own, on the same rows,
  in P pairs of four runs (:func:`pair_order`: A B B A, then B A A B), so that the shared machine's load falls on
  both alike;
- the archive end to end: a ``croupier archive`` process fed through a real Mosquitto (every record
  published once, QoS 1), until every row is stored.

Each row gives records a second and the CPU of each side (the storing process, and the PostgreSQL backend) per
record, read from ``/proc``; each way's rows are checked to be the journals' (the same digest of every column the
start's archive had). The machine is shared (2 cores, other work running), so the figures are compared within one
run, never with other runs.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import paho.mqtt.client as mqtt
import psycopg
from paho.mqtt.enums import CallbackAPIVersion

from benchmarks.floor_measure import journal_rows
from benchmarks.report import write_section
from controller.floor.archive_store import ArchiveStore, create_schema
from controller.floor.localservers import Mosquitto, Postgres, ServerUnavailable, stop_pid
from controller.floor.messages import journal_message
from controller.journal.store import Record

ROOT = Path(__file__).resolve().parents[1]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
SITE = "bench"
COLUMNS = "site, table_id, seq, kind, at, body, prev, hash, mode"
COLUMN_TYPES = ("text", "text", "int8", "text", "text", "text", "text", "text", "text")
ISSUE_START = "21ff2c8"
"""Issue 27's start: the parent of its first commit, 7f5c07e ("Failing tests first (issue 27 items 1-2)")."""
TODAY = "the archive's store"
START = "the archive's store at issue 27's start"
DIGEST = ("SELECT count(*), md5(string_agg(concat_ws('|', site, table_id, seq, kind, at, body, prev, hash), '\n' "
          "ORDER BY site, table_id, seq)) FROM journal_records")
"""Every archived row's columns as the start's archive had them (it had no ``mode``), as one digest."""
STORE_RUN = """
import json, os, pickle, sys, time
import paho.mqtt.client as mqtt
import controller.floor.archive_store as archive_store
from controller.floor.archive import BATCH_LIMIT, Archiver
if not os.path.realpath(archive_store.__file__).startswith(os.path.realpath(os.getcwd()) + os.sep):
    sys.exit(f"{archive_store.__file__} is not the store of {os.getcwd()}")
url, rows = sys.argv[1], sys.argv[2]
ticks = os.sysconf("SC_CLK_TCK")
def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks
messages = []
with open(rows, "rb") as file:
    for topic, payload in pickle.load(file):
        message = mqtt.MQTTMessage(topic=topic.encode())
        message.payload = payload
        messages.append(message)
store = archive_store.ArchiveStore(archive_store.connect(url))
archive_store.create_schema(store)
backend = store.connection.info.backend_pid
client, server, started = time.process_time(), cpu(backend), time.monotonic()
for first in range(0, len(messages), BATCH_LIMIT):
    store.receive_batch([Archiver._decode(message) for message in messages[first:first + BATCH_LIMIT]])
wall = time.monotonic() - started
print(json.dumps({"wall": wall, "client": time.process_time() - client, "server": cpu(backend) - server,
                  "batch": BATCH_LIMIT, "code": archive_store.__file__}))
"""
"""How each store is measured: the archive's own connection (``archive_store.connect``), schema and decoding, the
rows' messages built before the clock starts. Run in the checkout whose store it measures."""
NOTE = ("The same rows four ways, in one run; the machine's 2 cores are shared with other work, so the rows of "
        "one run compare, runs do not. The store at issue 27's start is commit 21ff2c8 run from a checkout of it; it "
        "and this checkout's store are run by the same code on the same rows, each run in a fresh database of one "
        "PostgreSQL, twice a pair in the order start now now start (then now start start now), so that a load that "
        "rises or falls through a pair weighs on both; a pair's figures are its two runs of each store together, and "
        "the first table gives each measure's median over the pairs. COPY is PostgreSQL's binary COPY of all the rows "
        "in one transaction (the store commits every batch of 500).")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


@dataclass
class Measured:
    """One way of storing the rows."""

    name: str
    rows: int
    wall: float
    client_cpu: float
    server_cpu: float

    def cpu_per_record(self) -> float:
        """Both sides' CPU a record, in µs."""
        return (self.client_cpu + self.server_cpu) * 1e6 / self.rows

    def cells(self, copy: Measured) -> list[str]:
        per = 1e6 / self.rows
        return [self.name, f"{self.rows / self.wall:,.0f}", f"{self.client_cpu * per:.0f} µs",
                f"{self.server_cpu * per:.0f} µs", f"{self.cpu_per_record():.0f} µs",
                f"{self.cpu_per_record() / copy.cpu_per_record():.1f}x"]


def make_journals(directory: Path, tables: int, rounds: int) -> dict[str, list[Record]]:
    """``tables`` real journals of ``rounds`` rounds each, by table name."""
    journals = {}
    for number in range(1, tables + 1):
        path = directory / f"t{number}.journal"
        subprocess.run([sys.executable, "-m", "controller.cli.main", "simulate", "--seed", str(number), "--rounds",
                        str(rounds), "--quiet", "--journal", str(path)], cwd=ROOT, check=True, capture_output=True)
        journals[f"t{number}"] = journal_rows(path)
    return journals


def interleaved(journals: dict[str, list[Record]]) -> list[tuple[str, Record]]:
    """Every table's records, the tables taking turns (as a floor's messages arrive), each table in order."""
    out: list[tuple[str, Record]] = []
    longest = max(len(records) for records in journals.values())
    for index in range(longest):
        out.extend((table, records[index]) for table, records in journals.items() if index < len(records))
    return out


def fresh_database(server: Postgres) -> str:
    name = f"bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(server.url(), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    return server.url(name)


def _timed(name: str, rows: int, server_pid: Callable[[], int], work: Callable[[], None],
           client_pid: int | None = None) -> Measured:
    backend = server_pid()
    own = client_pid or os.getpid()
    client_before, server_before, started = cpu_seconds(own), cpu_seconds(backend), time.monotonic()
    work()
    wall = time.monotonic() - started
    return Measured(name, rows, wall, cpu_seconds(own) - client_before, cpu_seconds(backend) - server_before)


def by_copy(url: str, rows: list[tuple[str, Record]]) -> Measured:
    connection = psycopg.connect(url)
    store = ArchiveStore(connection)
    create_schema(store)

    def work() -> None:
        with connection.transaction(), connection.cursor() as cursor, cursor.copy(
                f"COPY journal_records ({COLUMNS}) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(COLUMN_TYPES)
            for table, record in rows:
                copy.write_row((SITE, table, *record, "simulation"))  # the archive's own rows carry their mode

    try:
        return _timed("PostgreSQL COPY of the same rows", len(rows), lambda: connection.info.backend_pid, work)
    finally:
        connection.close()


def environment(code: Path) -> dict[str, str]:
    """This interpreter's environment running ``code``'s Croupier (it first on the path)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("CROUPIER_")}
    return {**env, "PYTHONPATH": str(code)}


def by_store(name: str, code: Path, url: str, messages: Path, rows: int) -> Measured:
    """The archive's store of the checkout ``code`` on the messages pickled in ``messages`` (:data:`STORE_RUN`)."""
    done = subprocess.run([sys.executable, "-c", STORE_RUN, url, str(messages)], cwd=code, env=environment(code),
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{name} ({code}) failed: {done.stderr.strip()[-2000:]}")
    said = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(said["code"]).resolve().is_relative_to(code.resolve()):
        raise RuntimeError(f"{name} ran {said['code']}, not the store of {code}")
    return Measured(f"{name} (batches of {said['batch']})", rows, said["wall"], said["client"], said["server"])


def archived_digest(url: str) -> tuple[int, str]:
    """How many rows ``journal_records`` holds and the digest of their columns (:data:`DIGEST`)."""
    with psycopg.connect(url, autocommit=True) as connection:
        row = connection.execute(DIGEST).fetchone()
        assert row is not None
        left = connection.execute("SELECT (SELECT count(*) FROM journal_rejects) + (SELECT count(*) FROM "
                                  "journal_pending)").fetchone()
    if left is not None and left[0]:
        raise RuntimeError(f"{url}: {left[0]} records rejected or left pending: not the journals' rows")
    return int(row[0]), str(row[1])


def _archive_backends(url: str) -> list[int]:
    with psycopg.connect(url, autocommit=True) as connection:
        name = url.rsplit("/", 1)[1]
        return [int(pid) for (pid,) in connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", (name,))]


def by_archive(url: str, broker: Mosquitto, rows: list[tuple[str, Record]]) -> Measured:
    """A ``croupier archive`` process: the rows published once through the broker, until all are stored."""
    client_id = f"bench-archive-{uuid.uuid4().hex[:8]}"
    archive = subprocess.Popen([sys.executable, "-m", "controller.cli.main", "archive", "--broker",
                                f"mqtt://{broker.address}", "--db", url, "--client-id", client_id],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert archive.stdout is not None
        line = archive.stdout.readline()
        if not line.startswith("archiving "):
            raise RuntimeError(f"the archive did not start: {line}{archive.stderr.read() if archive.stderr else ''}")
        backends = _archive_backends(url)
        publisher = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-pub-{uuid.uuid4().hex[:8]}",
                                protocol=mqtt.MQTTv5)
        publisher.max_inflight_messages_set(1000)
        publisher.connect("127.0.0.1", broker.port)
        publisher.loop_start()
        before = {pid: cpu_seconds(pid) for pid in (archive.pid, *backends)}
        started = time.monotonic()
        infos = [publisher.publish(f"croupier/{SITE}/{table}/journal", journal_message(record), qos=1)
                 for table, record in rows]
        for info in infos:
            info.wait_for_publish(120)
        with psycopg.connect(url, autocommit=True) as reader:
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                count = reader.execute("SELECT count(*) FROM journal_records").fetchone()
                if count is not None and int(count[0]) >= len(rows):
                    break
                time.sleep(0.05)
        wall = time.monotonic() - started
        client = cpu_seconds(archive.pid) - before[archive.pid]
        server = sum(cpu_seconds(pid) - before[pid] for pid in backends if Path(f"/proc/{pid}").exists())
        publisher.disconnect()
        publisher.loop_stop()
        return Measured("`croupier archive` end to end (via Mosquitto)", len(rows), wall, client, server)
    finally:
        stop_pid(archive.pid)
        archive.wait(timeout=60)


@dataclass
class Pair:
    """The two stores on the same rows, each run twice in the order A B B A (a load that rises or falls through the
    pair weighs on both alike), and COPY beside them; each store's figures are its two runs' together."""

    copy: Measured
    today: Measured
    start: Measured

    def ratios(self) -> tuple[float, float, float]:
        """Today's store against the start's: records a second, client CPU a record, total CPU a record."""
        return (self.start.wall / self.today.wall, self.start.client_cpu / self.today.client_cpu,
                (self.start.client_cpu + self.start.server_cpu) / (self.today.client_cpu + self.today.server_cpu))


@dataclass
class Run:
    """Every pair of a run, and the archive end to end."""

    pairs: list[Pair]
    archive: Measured


def together(runs: list[Measured]) -> Measured:
    """Several runs of one way as one: their rows, times and CPU added up."""
    return Measured(runs[0].name, sum(run.rows for run in runs), sum(run.wall for run in runs),
                    sum(run.client_cpu for run in runs), sum(run.server_cpu for run in runs))


def pair_order(number: int) -> tuple[str, ...]:
    """The stores' order in pair ``number`` (from 0): start, now, now, start; then now, start, start, now; ..."""
    return (START, TODAY, TODAY, START) if number % 2 == 0 else (TODAY, START, START, TODAY)


def one_pair(number: int, server: Postgres, rows: list[tuple[str, Record]], messages: Path, start_code: Path,
             ) -> Pair:
    """COPY, then both stores twice in :func:`pair_order`, each in a fresh database; every way's rows checked
    against COPY's."""
    url = fresh_database(server)
    copy = by_copy(url, rows)
    expected = archived_digest(url)
    measured: dict[str, list[Measured]] = {START: [], TODAY: []}
    for name in pair_order(number):
        url = fresh_database(server)
        measured[name].append(by_store(name, start_code if name == START else ROOT, url, messages, len(rows)))
        if archived_digest(url) != expected:
            raise RuntimeError(f"{name}: the archived rows differ from the journals'")
    return Pair(copy, together(measured[TODAY]), together(measured[START]))


def run(tables: int, rounds: int, start_code: Path, pairs: int = 3, journal_dir: Path | None = None) -> Run:
    server, broker = Postgres(), None
    with tempfile.TemporaryDirectory(prefix="croupier-bench-store-") as scratch:
        directory = Path(scratch)
        if journal_dir is not None and any(journal_dir.glob("t*.journal")):
            journals = {path.stem: journal_rows(path) for path in sorted(journal_dir.glob("t*.journal"))}
        else:
            if journal_dir is not None:
                journal_dir.mkdir(parents=True, exist_ok=True)
            journals = make_journals(journal_dir or directory, tables, rounds)
        rows = interleaved(journals)
        messages = directory / "messages.pickle"
        messages.write_bytes(pickle.dumps([(f"croupier/{SITE}/{table}/journal", journal_message(record))
                                           for table, record in rows]))
        server.start()
        try:
            measured = [one_pair(number, server, rows, messages, start_code) for number in range(pairs)]
            broker = Mosquitto(directory / "mosquitto")
            broker.start()
            return Run(measured, by_archive(fresh_database(server), broker, rows))
        finally:
            if broker is not None:
                broker.stop()
            server.stop()


def median(measured: list[Measured]) -> Measured:
    """Each measure's median over ``measured`` (the same way in each pair)."""
    return Measured(measured[0].name, measured[0].rows, statistics.median(row.wall for row in measured),
                    statistics.median(row.client_cpu for row in measured),
                    statistics.median(row.server_cpu for row in measured))


def table(done: Run) -> str:
    copy = median([pair.copy for pair in done.pairs])
    rows = [copy, median([pair.today for pair in done.pairs]), median([pair.start for pair in done.pairs]),
            done.archive]
    header = ["way", "records/s", "client CPU / record", "PostgreSQL CPU / record", "total CPU / record",
              "vs COPY"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row.cells(copy)) + " |" for row in rows]
    return "\n".join(lines)


def pairs_table(done: Run) -> str:
    """Each pair: both stores' records a second and client CPU a record, and today's store against the start's."""
    header = ["pair (order)", "records/s: start → now", "ratio", "client CPU / record: start → now", "ratio",
              "total CPU ratio"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for number, pair in enumerate(done.pairs, 1):
        speed, client, total = pair.ratios()
        order = " ".join("start" if name == START else "now" for name in pair_order(number - 1))
        lines.append(f"| {number} ({order}) | {pair.start.rows / pair.start.wall:,.0f} → "
                     f"{pair.today.rows / pair.today.wall:,.0f} | {speed:.2f}x | "
                     f"{pair.start.client_cpu * 1e6 / pair.start.rows:.1f} → "
                     f"{pair.today.client_cpu * 1e6 / pair.today.rows:.1f} µs | {client:.2f}x | {total:.2f}x |")
    return "\n".join(lines)


TARGET = 3.0
"""Issue 27 item 8: the archive stores batches at least 3 times as fast as at the issue's start."""


def verdict(done: Run) -> str:
    """Whether every pair meets :data:`TARGET`, in records a second and in client CPU a record."""
    speeds = [pair.ratios()[0] for pair in done.pairs]
    clients = [pair.ratios()[1] for pair in done.pairs]
    met = min(speeds) >= TARGET and min(clients) >= TARGET
    return (f"Issue 27 item 8 (at least {TARGET:.0f} times the records a second of the store at the issue's start): "
            f"{'met' if met else 'MISSED'} in {'every pair' if met else 'this run'}: "
            f"{min(speeds):.2f}-{max(speeds):.2f}x the records a second, {min(clients):.2f}-{max(clients):.2f}x "
            "less client CPU a record.")


def as_json(done: Run) -> str:
    def one(row: Measured) -> dict[str, float]:
        return {"rows": row.rows, "wall": row.wall, "client": row.client_cpu, "server": row.server_cpu}
    return json.dumps({"pairs": [{"copy": one(pair.copy), "today": one(pair.today), "start": one(pair.start)}
                                 for pair in done.pairs], "archive": one(done.archive)})


def measure(args: argparse.Namespace, start_code: Path) -> int:
    """Run, print both tables and the figures as JSON; with ``--write``, write the section of docs/performance.md."""
    load_before = os.getloadavg()[0]
    try:
        done = run(args.tables, args.rounds, start_code, args.pairs, args.journals)
    except ServerUnavailable as error:
        print(f"benchmarks.floor_store: {error}", file=sys.stderr)
        return 2
    load = (f"The machine's load average (1 minute) was {load_before:.1f} as the run started, "
            f"{os.getloadavg()[0]:.1f} as it ended.")
    text = (table(done) + "\n\nToday's store against the store at issue 27's start, pair by pair:\n\n"
            + pairs_table(done) + "\n\n" + verdict(done) + " " + load)
    print(text)
    print(as_json(done))
    if args.write:
        write_section("Archive batch speed", f"python -m benchmarks.floor_store --tables {args.tables} --rounds "
                      f"{args.rounds} --pairs {args.pairs}", text + "\n\n" + NOTE)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=150)
    parser.add_argument("--pairs", type=int, default=3, help="the two stores' alternations (default 3)")
    parser.add_argument("--start", type=Path, metavar="DIR",
                        help=f"a checkout of issue 27's start ({ISSUE_START}; default: a temporary git worktree of it, "
                             "removed after)")
    parser.add_argument("--journals", type=Path, metavar="DIR",
                        help="keep the journals in DIR (and use those already there: the same rows for runs to "
                             "compare)")
    parser.add_argument("--write", action="store_true", help="write the section of docs/performance.md")
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error("--pairs is 1 or more")
    if args.start is not None:
        return measure(args, args.start.resolve())
    with tempfile.TemporaryDirectory(prefix="croupier-issue27-start-") as scratch:
        checkout = Path(scratch) / "start"
        subprocess.run(["git", "worktree", "add", "--detach", str(checkout), ISSUE_START], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            return measure(args, checkout)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(checkout)], cwd=ROOT, check=False,
                           capture_output=True)


if __name__ == "__main__":
    sys.exit(main())

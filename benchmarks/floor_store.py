"""The archive's batch speed beside PostgreSQL's own ``COPY`` of the same rows, in the same run.

Run: .venv/bin/python -m benchmarks.floor_store [--tables N] [--rounds R] [--write]

Makes N real journals (``croupier simulate --journal``), then stores all their records three ways, each
into a fresh database of one PostgreSQL 15 of its own (on a free port, stopped by PID):

- ``COPY``: PostgreSQL's own bulk load of the rows into ``journal_records`` (one ``COPY ... FROM STDIN``),
  the floor of what any loader can do;
- the archive's store: :meth:`ArchiveStore.receive_batch` on the records as the archive receives them (the
  tables' messages interleaved, decoded and checked from their payloads, in batches of
  :data:`~controller.floor.archive.BATCH_LIMIT`);
- the archive end to end: a ``croupier archive`` process fed through a real Mosquitto (every record
  published once, QoS 1), until every row is stored.

Each row gives the wall time, records a second and the CPU of each side (this process or the archive
process, and the PostgreSQL backend) per record, read from ``/proc``. The machine is shared (2 cores, other
work running), so the figures are compared with COPY's in the same run, not with other runs.
"""

from __future__ import annotations

import argparse
import json
import os
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
from controller.floor.archive import BATCH_LIMIT, decode_message
from controller.floor.archive_store import ArchiveStore, create_schema
from controller.floor.localservers import Mosquitto, Postgres, ServerUnavailable, stop_pid
from controller.floor.messages import journal_message
from controller.journal.store import Record

ROOT = Path(__file__).resolve().parents[1]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
SITE = "bench"
COLUMNS = "site, table_id, seq, kind, at, body, prev, hash, mode"
NOTE = ("The same rows three ways, in one run; the machine's 2 cores are shared with other work, so the rows of "
        "one run compare, runs do not. Before issue 27 the archive's store took 7.3-9.6 times the CPU of COPY "
        "and the archive end to end 148-201 µs of its own CPU a record, in runs alternated with these on the same "
        "journals (docs/floor.md, Archive, Scaling out).")


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

    def cells(self, copy: Measured) -> list[str]:
        per = 1e6 / self.rows
        return [self.name, f"{self.rows / self.wall:,.0f}", f"{self.client_cpu * per:.0f} µs",
                f"{self.server_cpu * per:.0f} µs", f"{(self.client_cpu + self.server_cpu) * per:.0f} µs",
                f"{(self.client_cpu + self.server_cpu) / (copy.client_cpu + copy.server_cpu):.1f}x"]


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
    connection.commit()

    def work() -> None:
        with connection.cursor() as cursor, cursor.copy(f"COPY journal_records ({COLUMNS}) FROM STDIN") as copy:
            for table, record in rows:
                copy.write_row((SITE, table, *record, "simulation"))  # the archive's own rows carry their mode
        connection.commit()

    try:
        return _timed("PostgreSQL COPY of the same rows", len(rows), lambda: connection.info.backend_pid, work)
    finally:
        connection.close()


def by_store(url: str, rows: list[tuple[str, Record]]) -> Measured:
    store = ArchiveStore(psycopg.connect(url))
    create_schema(store)
    store.connection.commit()
    payloads = [(f"croupier/{SITE}/{table}/journal", journal_message(record)) for table, record in rows]

    def work() -> None:
        for start in range(0, len(payloads), BATCH_LIMIT):
            batch = payloads[start:start + BATCH_LIMIT]
            store.receive_batch([(decode_message(topic, payload), payload.decode()) for topic, payload in batch])

    try:
        return _timed(f"the archive's store (batches of {BATCH_LIMIT})", len(rows),
                      lambda: store.connection.info.backend_pid, work)
    finally:
        store.close()


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


def run(tables: int, rounds: int, journal_dir: Path | None = None) -> list[Measured]:
    server, broker = Postgres(), None
    with tempfile.TemporaryDirectory(prefix="croupier-bench-store-") as scratch:
        directory = Path(scratch)
        if journal_dir is not None and any(journal_dir.glob("t*.journal")):
            journals = {path.stem: journal_rows(path) for path in sorted(journal_dir.glob("t*.journal"))}
        else:
            journals = make_journals(journal_dir or directory, tables, rounds)
        rows = interleaved(journals)
        server.start()
        try:
            broker = Mosquitto(directory / "mosquitto")
            broker.start()
            return [by_copy(fresh_database(server), rows), by_store(fresh_database(server), rows),
                    by_archive(fresh_database(server), broker, rows)]
        finally:
            if broker is not None:
                broker.stop()
            server.stop()


def table(measured: list[Measured]) -> str:
    copy = measured[0]
    header = ["way", "records/s", "client CPU / record", "PostgreSQL CPU / record", "total CPU / record",
              "vs COPY"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row.cells(copy)) + " |" for row in measured]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=150)
    parser.add_argument("--journals", type=Path, metavar="DIR",
                        help="keep the journals in DIR (and use those already there: the same rows for runs to "
                             "compare)")
    parser.add_argument("--write", action="store_true", help="write the section of docs/performance.md")
    args = parser.parse_args(argv)
    try:
        measured = run(args.tables, args.rounds, args.journals)
    except ServerUnavailable as error:
        print(f"benchmarks.floor_store: {error}", file=sys.stderr)
        return 2
    text = table(measured)
    print(text)
    print(json.dumps({row.name: {"rows": row.rows, "wall": row.wall, "client": row.client_cpu,
                                 "server": row.server_cpu} for row in measured}))
    if args.write:
        write_section("Archive batch speed", f"python -m benchmarks.floor_store --tables {args.tables} --rounds "
                      f"{args.rounds}", text + "\n\n" + NOTE)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""2,000 tables on Mosquitto bridges: edge brokers for the tables, a core broker for the archive, measured.

Run: .venv/bin/python -m benchmarks.floor_bridge [--tables 2000] [--edges 2] [--seconds 60] [--every 1.6] [--write]

Starts a core Mosquitto (the archive and the pit connect there), ``--edges`` edge Mosquittos, each bridged
to the core (MQTT 5, a persistent bridge session: the tables' ``journal``, ``events``, ``state`` and
``status`` out, the archive's ``archived`` heads in), a PostgreSQL 15 and one ``croupier archive`` on the
core, all on free ports, stopped by PID. The tables are light stand-ins, one MQTT 5 connection each
(:mod:`asyncio`, one process an edge): each replays a real journal's records (``croupier simulate
--journal``, 20 journals shared out) at a real table's pace, one record every ``--every`` seconds, each
record's ``events`` messages and then its retained ``state``, and reads its own ``archived`` head back as a
table's feed does. Measured: the records a second the archive stored, the time from a record's publication
at its table to the archive's confirmation reaching that table (through both bridges), the archive's lag and
every part's CPU; then every table's rows are compared with what it published: none lost, none twice.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import resource
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from benchmarks.floor_measure import journal_rows, percentile
from benchmarks.floor_probe import children_of
from benchmarks.floor_store import cpu_seconds, fresh_database, make_journals
from benchmarks.report import write_section
from controller.floor.localservers import Mosquitto, Postgres, ServerUnavailable, free_port, stop_pid
from controller.floor.messages import event_message, journal_message, record_events
from controller.journal.store import Record

ROOT = Path(__file__).resolve().parents[1]
SITE = "bridge"
JOURNALS = 20
STATE = b'{"status":"online"}'


def bridge_config(core_port: int, name: str) -> str:
    """An edge broker's bridge to the core."""
    return (f"connection core-{name}\naddress 127.0.0.1:{core_port}\nbridge_protocol_version mqttv50\n"
            f"cleansession false\nremote_clientid bridge-{name}\nlocal_clientid local-{name}\n"
            + "".join(f"topic croupier/+/+/{topic} out 1\n" for topic in ("journal", "events", "state", "status"))
            + "topic croupier/+/+/archived in 1\n")


# -- a table's stand-in: just enough MQTT 5 ------------------------------------------------

def _length(value: int) -> bytes:
    out = bytearray()
    while True:
        digit, value = value % 128, value // 128
        out.append(digit | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _text(value: str) -> bytes:
    data = value.encode()
    return struct.pack("!H", len(data)) + data


def _packet(first: int, body: bytes) -> bytes:
    return bytes([first]) + _length(len(body)) + body


def connect_packet(client_id: str) -> bytes:
    return _packet(0x10, _text("MQTT") + bytes([5, 0x02]) + struct.pack("!H", 60) + b"\x00" + _text(client_id))


def subscribe_packet(pid: int, topic: str) -> bytes:
    return _packet(0x82, struct.pack("!H", pid) + b"\x00" + _text(topic) + b"\x01")


def publish_packet(pid: int, topic: str, payload: bytes, retain: bool = False) -> bytes:
    return _packet(0x32 | (1 if retain else 0), _text(topic) + struct.pack("!H", pid) + b"\x00" + payload)


async def read_packet(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    first = (await reader.readexactly(1))[0]
    length, shift = 0, 0
    while True:
        byte = (await reader.readexactly(1))[0]
        length += (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    return first, await reader.readexactly(length)


@dataclass
class TableRun:
    """What one stand-in table published and what came back."""

    name: str
    published: int = 0
    confirmed: int = 0
    latencies: list[float] | None = None


def _published_head(first: int, body: bytes) -> tuple[int, int] | None:
    """(packet id, the ``seq`` of the archived head) of a PUBLISH the broker sent; None for another packet."""
    if first & 0xF0 != 0x30:
        return None
    at = 2 + struct.unpack("!H", body[:2])[0]
    pid = 0
    if first & 0x06:
        pid = struct.unpack("!H", body[at:at + 2])[0]
        at += 2
    properties, shift = 0, 0
    while True:  # the properties' length, then skip them
        byte = body[at]
        at += 1
        properties += (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    return pid, int(json.loads(body[at + properties:]).get("seq", 0))


async def _listen(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, run: TableRun,
                  sent_at: dict[int, float]) -> None:
    """Read the archive's heads for the table: each record confirmed once, its latency measured."""
    while True:
        found = _published_head(*await read_packet(reader))
        if found is None:
            continue
        pid, head = found
        now = time.monotonic()
        for seq in range(run.confirmed + 1, head + 1):
            if seq in sent_at and run.latencies is not None:
                run.latencies.append(now - sent_at.pop(seq))
        run.confirmed = max(run.confirmed, head)
        if pid:
            writer.write(b"\x40\x02" + struct.pack("!H", pid))


def _record_packets(name: str, record: Record, pid: int, events: int) -> tuple[bytes, int, int]:
    """A record's journal message, its events and the retained state after them; the next packet id and
    event number."""
    packets = [publish_packet(pid, f"croupier/{SITE}/{name}/journal", journal_message(record))]
    for event in record_events(record):
        events += 1
        pid = pid % 65000 + 2
        packets.append(publish_packet(pid, f"croupier/{SITE}/{name}/events", event_message(event, SITE, name, events)))
    pid = pid % 65000 + 2
    packets.append(publish_packet(pid, f"croupier/{SITE}/{name}/state", STATE, retain=True))
    return b"".join(packets), pid % 65000 + 2, events


async def run_table(port: int, name: str, records: list[Record], every: float, offset: float,
                    until: float) -> TableRun:
    """Publish ``records`` one every ``every`` seconds (after ``offset``) until ``until``; read the heads back."""
    run = TableRun(name, latencies=[])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(connect_packet(f"bench-{name}"))
    await read_packet(reader)  # CONNACK
    writer.write(subscribe_packet(1, f"croupier/{SITE}/{name}/archived"))
    sent_at: dict[int, float] = {}
    listener = asyncio.ensure_future(_listen(reader, writer, run, sent_at))
    await asyncio.sleep(offset)
    pid, events = 2, 0
    for record in records:
        if time.monotonic() >= until:
            break
        sent_at[record.seq] = time.monotonic()
        packets, pid, events = _record_packets(name, record, pid, events)
        writer.write(packets)
        run.published = record.seq
        await writer.drain()
        await asyncio.sleep(every)
    deadline = time.monotonic() + 120
    while run.confirmed < run.published and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    listener.cancel()
    writer.close()
    return run


async def run_edge(port: int, tables: list[tuple[str, Path]], every: float, seconds: float) -> list[TableRun]:
    journals = {path: journal_rows(path) for _, path in tables}
    until = time.monotonic() + seconds
    runs = [run_table(port, name, journals[path], every, every * index / len(tables), until)
            for index, (name, path) in enumerate(tables)]
    return list(await asyncio.gather(*runs))


def edge_worker(port: int, tables: list[tuple[str, Path]], every: float, seconds: float, out: Any) -> None:
    runs = asyncio.run(run_edge(port, tables, every, seconds))
    out.put([(run.name, run.published, run.confirmed, run.latencies) for run in runs])


# -- the floor --------------------------------------------------------------------------

def measure(tables: int, edges: int, seconds: float, every: float, directory: Path) -> dict[str, Any]:
    (directory / "journals").mkdir()
    journals = sorted(make_journals(directory / "journals", JOURNALS, 150).items())
    paths = {name: directory / "journals" / f"{name}.journal" for name, _ in journals}
    postgres, core = Postgres(), Mosquitto(directory / "core")
    edge_brokers: list[Mosquitto] = []
    archive = None
    try:
        postgres.start()
        core.start()
        for number in range(edges):
            port = free_port()
            edge = Mosquitto(directory / f"edge{number}", bridge_config(core.port, str(number)), port=port)
            edge.start()
            edge_brokers.append(edge)
        database = fresh_database(postgres)
        archive = subprocess.Popen([sys.executable, "-m", "controller.cli.main", "archive", "--broker",
                                    f"mqtt://{core.address}", "--db", database, "--client-id", "bench-bridge"],
                                   cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert archive.stdout is not None
        if not archive.stdout.readline().startswith("archiving "):
            raise ServerUnavailable("croupier archive did not start")
        names = [f"t{number:04d}" for number in range(1, tables + 1)]
        assigned = [(name, paths[journals[index % len(journals)][0]]) for index, name in enumerate(names)]
        parts = {"core broker": [broker.process.pid for broker in (core,) if broker.process],
                 "edge brokers": [edge.process.pid for edge in edge_brokers if edge.process],
                 "archive": [archive.pid], "PostgreSQL": children_of(postgres.pid)}
        before = {part: sum(cpu_seconds(pid) for pid in pids if pid) for part, pids in parts.items()}
        results: Any = multiprocessing.get_context("spawn").Queue()
        workers = [multiprocessing.get_context("spawn").Process(
            target=edge_worker, args=(edge.port, assigned[number::edges], every, seconds, results))
            for number, edge in enumerate(edge_brokers)]
        started = time.monotonic()
        for worker in workers:
            worker.start()
        runs = [row for _ in workers for row in results.get(timeout=seconds + 400)]
        wall = time.monotonic() - started
        for worker in workers:
            worker.join(timeout=60)
        cpu = {part: sum(cpu_seconds(pid) for pid in pids if pid and Path(f"/proc/{pid}").exists()) - before[part]
               for part, pids in parts.items()}
        with psycopg.connect(database) as connection:
            counts: dict[str, int] = dict(connection.execute(
                "SELECT table_id, count(*) FROM journal_records GROUP BY table_id").fetchall())
            duplicates = connection.execute("SELECT count(*) - count(DISTINCT (table_id, seq)) FROM journal_records"
                                            ).fetchone()
        published = sum(run[1] for run in runs)
        lost = sum(max(0, run[1] - int(counts.get(run[0], 0))) for run in runs)
        latencies = [value for run in runs for value in run[3]]
        return {"tables": tables, "edges": edges, "seconds": wall, "published": published, "lost": lost,
                "duplicated": int(duplicates[0]) if duplicates else 0,
                "records_per_second": published / seconds, "p50": percentile(latencies, 0.5),
                "p99": percentile(latencies, 0.99), "max": max(latencies, default=float("nan")),
                "cpu": {part: round(value / wall, 3) for part, value in cpu.items()}}
    finally:
        if archive is not None:
            stop_pid(archive.pid)
            with contextlib.suppress(Exception):
                archive.wait(timeout=60)
        for edge in edge_brokers:
            edge.stop()
        core.stop()
        postgres.stop()


def table(result: dict[str, Any]) -> str:
    cpu = ", ".join(f"{part} {share * 100:.0f}%" for part, share in result["cpu"].items())
    rows = [("tables (one MQTT 5 connection each) / edge brokers", f"{result['tables']} / {result['edges']}"),
            ("records published (journal messages; with events and states)", f"{result['published']:,}"),
            ("records a second archived", f"{result['records_per_second']:,.0f}"),
            ("records lost / duplicated in the archive", f"{result['lost']} / {result['duplicated']}"),
            ("publication at the table → archive's confirmation back at it, p50 / p99 / max",
             f"{result['p50'] * 1000:.0f} ms / {result['p99'] * 1000:.0f} ms / {result['max'] * 1000:.0f} ms"),
            ("CPU of a core, each part (2 cores, shared)", cpu)]
    return "\n".join(["| measure | value |", "|---|---|", *(f"| {name} | {value} |" for name, value in rows)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--edges", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--every", type=float, default=1.6,
                        help="seconds between two records of a table (default 1.6: a fast real table's pace, a "
                             "card every 3.2 s and two records a card)")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # a connection a table, in the brokers too
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    with tempfile.TemporaryDirectory(prefix="croupier-bench-bridge-") as scratch:
        try:
            result = measure(args.tables, args.edges, args.seconds, args.every, Path(scratch))
        except ServerUnavailable as error:
            print(f"benchmarks.floor_bridge: {error}", file=sys.stderr)
            return 2
    text = table(result)
    print(text)
    print(json.dumps(result))
    if args.write:
        write_section("Floor on bridges", f"python -m benchmarks.floor_bridge --tables {args.tables} --edges "
                      f"{args.edges} --seconds {args.seconds:g} --every {args.every:g}", text)
    return 0 if result["lost"] == 0 and result["duplicated"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

"""The casino floor at scale: many tables publishing their journals to one broker, one archive, measured.

Run: .venv/bin/python -m benchmarks.floor [--quick] [--tables N] [--peer N] [--rounds R] [--pace S] [--ramp S]
[--workers N] [--write]

Starts a real Mosquitto (one per scenario, persistent) and a real PostgreSQL 15 (with
``track_commit_timestamp=on``) on free ports of 127.0.0.1, stopped by PID, and one
``croupier archive`` process per scenario. The tables are ``croupier simulate --seed N --rounds R
--pace S --journal ... --feed mqtt://.../SITE/TABLE``: two of them as processes of their own, the
others as threads in worker processes, one per :data:`TABLES_PER_WORKER` (``--workers`` N: N of
them; :mod:`benchmarks.floor_tables`, the same command-line code path in each thread). Every worker
first warms up (its interpreter, modules and tables), then the tables start one after another over
``--ramp`` seconds (:data:`RAMP`; 0: all at once). Scenarios, in one run: the peer (``--peer``
tables), the floor (``--tables``), the same floor at the services' priority with its journals on the
disk (shared), and the floor with faults (:data:`FAULT_KINDS`: the broker stopped and started again
twice, the two table processes killed with ``kill -9`` and started again with the same arguments, the
archive killed with ``kill -9`` mid-batch, the broker killed with ``kill -9`` while the archive is away
and the archive started late, PostgreSQL stopped and started, one of each bad message, archived rows
deleted). Each is checked
record by record against the journals: zero lost, duplicated or rejected records is the pass mark
(exit status 1 otherwise); the p99 target (journal commit to archive commit under 100 ms) is reported.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from benchmarks.floor_measure import Audit, BrokerCounters, archived_count, audit, journal_rows
from benchmarks.floor_probe import Arrivals, CpuSampler, children_of
from benchmarks.floor_report import PROCESS_TABLES, Outcome, report
from benchmarks.floor_tables import table_command
from benchmarks.report import write_section
from controller.floor.archive_timing import read_batches, stage_waits
from controller.floor.localservers import MAX_QUEUED, Mosquitto, Postgres, ServerUnavailable, stop_pid

ROOT = Path(__file__).resolve().parents[1]
MOSQUITTO_EXTRA = "sys_interval 1\n"
"""$SYS counters every second; otherwise the floor set-up of docs/floor.md (``max_queued_messages``
:data:`MAX_QUEUED`, not Mosquitto's default 1000, beyond which QoS 1 messages for a subscriber that
falls behind are dropped; ``--max-queued`` changes it)."""
TABLES_PER_WORKER = 13
"""Thread tables a worker process holds by default (200 tables: 16 workers; 20: 2). A real table has an
interpreter (and a machine) of its own; the tables of one worker share its interpreter's lock, which at
50 tables a worker made most of the tables' latency (a commit's p99 to its publication 188 ms, against
48 ms at 12 or 13 and 63 ms at 5, whose interpreters' start-up and memory cost more of the 2 cores;
2026-12-01)."""
RAMP = 5.0
"""Seconds over which the tables start by default (about three of their rounds at the default pace).
All 200 at once, their start-up (a journal created, a connection to the broker) held every core for
1.5 s, and the records of those seconds waited p99 0.8 s for the tables and 0.25 s for the archive."""
FAULT_KINDS = ("broker", "tables", "archive", "broker-kill", "database", "poison", "deleted")
"""The faults scenario's faults: the broker stopped and started twice; two table processes killed with
``kill -9`` and started again; the archive killed with ``kill -9`` mid-batch and started again; the broker
killed with ``kill -9`` while the archive is away, the archive started again after it (late: what the
broker had queued for it is lost, the tables send it again when the archive asks); PostgreSQL stopped and
started again under the running archive; one of each bad message on a site of its own; the last archived
rows of two tables deleted (the archive asks the tables for them again)."""
WARM_UP_SECONDS = 180.0
"""How long the table workers may take to start their interpreters and warm up."""
CATCH_UP_SECONDS = 180.0
STALL_SECONDS = 30.0
"""The archive is given up on when it stores nothing new for this long (what is missing is lost)."""
CARDS_PER_ROUND = 5.0
"""About 4.9 cards a round with the burns; used only to place the faults in time."""


@dataclass(frozen=True)
class Scenario:
    """One measured run."""

    name: str
    tables: int
    faults: bool = False
    on_disk: bool = False
    """The tables' journals on the disk (``--dir``) rather than on tmpfs (``--table-dir``)."""
    nice: int = 0
    """The tables' niceness (``nice -n``): above 0, the broker, the archive and PostgreSQL come first
    for the cores, as on a real floor where they have machines of their own and each table its own."""


@dataclass
class Plan:
    """What every scenario shares."""

    rounds: int
    pace: float
    workers: int
    """Worker processes for the thread tables of every scenario (0: one per :data:`TABLES_PER_WORKER`)."""
    directory: Path
    postgres: Postgres
    faults: tuple[str, ...] = FAULT_KINDS
    """Which faults the faults scenario injects: ``broker`` (two outages), ``tables`` (two ``kill -9``)."""
    max_queued: int | None = None
    """Mosquitto's ``max_queued_messages`` (None: the floor's, :data:`MAX_QUEUED`; 0: no limit)."""
    table_directory: Path | None = None
    """Where the journals of the scenarios not ``on_disk`` go (None: ``directory``)."""
    ramp: float = 0.0
    """The seconds over which the tables start, one after another (``--ramp``)."""

    @property
    def expected_seconds(self) -> float:
        """How long a table deals its rounds, about."""
        return self.rounds * CARDS_PER_ROUND * self.pace


@dataclass
class Floor:
    """One scenario's broker, archive and tables while they run."""

    scenario: Scenario
    plan: Plan
    broker: Mosquitto
    database: str
    directory: Path
    archive: subprocess.Popen[bytes] | None = None
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    faults: list[str] = field(default_factory=list)
    memory_kib: dict[str, int] = field(default_factory=dict)

    @property
    def site(self) -> str:
        return f"bench-{self.scenario.name}"

    @property
    def feed(self) -> str:
        return f"mqtt://{self.broker.address}/{self.site}"

    def names(self) -> list[str]:
        return [f"t{number:03d}" for number in range(1, self.scenario.tables + 1)]

    def journals(self) -> dict[str, Path]:
        return {name: self.directory / f"{name}.journal" for name in self.names()}

    def log(self, name: str) -> Path:
        return self.directory / f"{name}.log"


def croupier(*args: str) -> list[str]:
    """The command line of ``croupier ARGS``."""
    return [sys.executable, "-m", "controller.cli.main", *args]


def niced(floor: Floor, command: list[str]) -> list[str]:
    """``command`` at the scenario's niceness for tables."""
    return ["nice", "-n", str(floor.scenario.nice), *command] if floor.scenario.nice else command


def start_archive(floor: Floor) -> None:
    """``croupier archive`` for this scenario (again: its log goes on), waiting until it has subscribed."""
    command = croupier("archive", "--broker", f"mqtt://{floor.broker.address}", "--db", floor.database,
                       "--client-id", f"bench-archive-{floor.scenario.name}", "--timing", str(timing_log(floor)))
    before = floor.log("archive").read_bytes().count(b"archiving ") if floor.log("archive").exists() else 0
    with floor.log("archive").open("ab") as log:
        floor.archive = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    deadline = time.monotonic() + 60
    while floor.log("archive").read_bytes().count(b"archiving ") <= before:
        if floor.archive.poll() is not None or time.monotonic() > deadline:
            raise ServerUnavailable(f"croupier archive did not start: {floor.log('archive').read_text()}")
        time.sleep(0.1)


def timing_log(floor: Floor) -> Path:
    """The archive's ``--timing`` log: each batch's stage times."""
    return floor.directory / "archive-timing.jsonl"


def start_process_table(floor: Floor, name: str) -> None:
    """One table as a ``croupier simulate`` process of its own (again: it resumes its journal)."""
    command = niced(floor, croupier(*table_command(floor.feed, floor.directory, name, seed_of(name),
                                                   floor.plan.rounds, floor.plan.pace)))
    with floor.log(name).open("ab") as log:
        floor.processes[name] = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, cwd=ROOT)


def seed_of(name: str) -> int:
    """Table ``tNNN`` deals seed NNN."""
    return int(name[1:])


def start_tables(floor: Floor) -> None:
    """The thread tables split over the workers, each worker warmed up (its interpreter started, its
    modules and tables built); then the process tables started and the workers released, whose tables
    start over the ramp (:func:`start_delay`)."""
    names = floor.names()
    threaded = names[PROCESS_TABLES:]
    count = max(1, min(workers_for(floor.plan, len(threaded)), len(threaded)))
    ready: list[Path] = []
    for index in range(count):
        share = threaded[index::count]
        if not share:
            continue
        ready.append(floor.directory / f"worker-{index}.ready")
        command = niced(floor, [sys.executable, "-m", "benchmarks.floor_tables", "--feed", floor.feed, "--dir",
                                str(floor.directory), "--rounds", str(floor.plan.rounds), "--pace",
                                str(floor.plan.pace), "--ready", str(ready[-1]),
                                *(f"{name}:{seed_of(name)}@{start_delay(floor, name):.3f}" for name in share)])
        with floor.log(f"worker-{index}").open("wb") as log:
            floor.workers.append(subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                                  stderr=log, cwd=ROOT))
    wait_ready(floor, ready)
    for name in names[:PROCESS_TABLES]:
        start_process_table(floor, name)
    for worker in floor.workers:
        assert worker.stdin is not None
        with contextlib.suppress(BrokenPipeError):  # it ended: wait_tables reports its status
            worker.stdin.write(b"go\n")
            worker.stdin.close()


def workers_for(plan: Plan, tables: int) -> int:
    """The worker processes holding ``tables`` thread tables: ``--workers``, else one per :data:`TABLES_PER_WORKER`."""
    return plan.workers or max(1, -(-tables // TABLES_PER_WORKER))


def start_delay(floor: Floor, name: str) -> float:
    """When table ``name`` starts, in seconds after the first: one after another, in order, over the ramp."""
    return floor.plan.ramp * (seed_of(name) - 1) / floor.scenario.tables


def wait_ready(floor: Floor, ready: list[Path]) -> None:
    """Wait until every worker has written its ready file; raises :class:`ServerUnavailable` naming a worker
    that ended first (with the end of its log) or did not warm up in :data:`WARM_UP_SECONDS`."""
    deadline = time.monotonic() + WARM_UP_SECONDS
    while True:
        for index, (path, worker) in enumerate(zip(ready, floor.workers, strict=True)):
            if not path.exists() and worker.poll() is not None:
                raise ServerUnavailable(f"table worker {index} exited with status {worker.returncode} before its "
                                        f"tables started: {last_line(floor.log(f'worker-{index}'))}")
        if all(path.exists() for path in ready):
            return
        if time.monotonic() > deadline:
            raise ServerUnavailable(f"the table workers did not warm up in {WARM_UP_SECONDS:.0f} s "
                                    "(--keep keeps their logs)")
        time.sleep(0.1)


def last_line(log: Path) -> str:
    """The last line a process wrote to ``log`` (``(nothing)`` when empty)."""
    lines = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
    return lines[-1] if lines else "(nothing on its standard error)"


def sample_memory(floor: Floor) -> None:
    """Resident memory of one table process and of one worker (with its thread tables), once."""
    if floor.memory_kib:
        return
    pids = {"process": next(iter(floor.processes.values())).pid if floor.processes else None,
            "worker": floor.workers[0].pid if floor.workers else None}
    for what, pid in pids.items():
        with contextlib.suppress(OSError, ValueError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    floor.memory_kib[what] = int(line.split()[1])


def run_faults(floor: Floor) -> None:
    """Two broker outages and a ``kill -9`` of each process table (started again at once), spread over the run."""
    expected = floor.plan.expected_seconds
    outage = max(1.5, 0.06 * expected)
    started = time.monotonic()
    tables = list(floor.processes)
    steps: list[tuple[float, str, Callable[[], None]]] = [
             (0.05, "deleted", lambda: delete_archived_tails(floor)),
             (0.1, "tables", lambda: kill_table(floor, tables[0])),
             (0.15, "archive", lambda: kill_archive(floor)),
             (0.2, "broker", lambda: broker_outage(floor, outage)),
             (0.3, "broker-kill", lambda: broker_killed_while_the_archive_is_away(floor, outage)),
             (0.4, "database", lambda: database_outage(floor, outage)),
             (0.45, "poison", lambda: bad_messages(floor)),
             (0.5, "tables", lambda: kill_table(floor, tables[-1])),
             (0.6, "broker", lambda: broker_outage(floor, outage))]
    for share, kind, step in steps:
        if kind not in floor.plan.faults:
            continue
        time.sleep(max(0.0, started + share * expected - time.monotonic()))
        step()


def kill_table(floor: Floor, name: str) -> None:
    """``kill -9`` the table process ``name``, then start it again with the same arguments."""
    process = floor.processes[name]
    if process.poll() is not None:
        floor.faults.append(f"{name} had already finished (not killed)")
        return
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    floor.faults.append(f"{name} killed with SIGKILL after {len(journal_rows(floor.journals()[name]))} records")
    start_process_table(floor, name)


def kill_archive(floor: Floor) -> None:
    """``kill -9`` the archive (batches being stored: not acknowledged, sent again), then start it again."""
    assert floor.archive is not None
    floor.archive.send_signal(signal.SIGKILL)
    floor.archive.wait(timeout=60)
    start_archive(floor)
    floor.faults.append("archive killed with SIGKILL mid-run and started again")


def broker_killed_while_the_archive_is_away(floor: Floor, seconds: float) -> None:
    """The archive stopped; the broker killed with ``kill -9`` (its queue for the archive lost: Mosquitto
    saves it only on a clean stop) and started again; the archive started ``seconds`` later."""
    if floor.archive is not None:
        stop_pid(floor.archive.pid)
        floor.archive.wait(timeout=60)
    time.sleep(seconds / 2)
    floor.broker.kill()
    floor.broker.start()
    time.sleep(seconds)
    start_archive(floor)
    floor.faults.append(f"broker killed with SIGKILL while the archive was away; the archive started {seconds:.1f} s "
                        "after the broker")


def database_outage(floor: Floor, seconds: float) -> None:
    """PostgreSQL stopped (fast shutdown) under the running archive for ``seconds``, then started again."""
    floor.plan.postgres.halt()
    time.sleep(seconds)
    floor.plan.postgres.resume()
    floor.faults.append(f"PostgreSQL stopped for {seconds:.1f} s and started again")


POISON = [b"\x00", b'{"seq": 1, "kind": "x\\u0000", "at": "", "body": "", "prev": "", "hash": ""}',
          b'{"seq": 1, "kind": "\\ud800", "at": "", "body": "", "prev": "", "hash": ""}',
          b'{"seq": 9223372036854775808, "kind": "a", "at": "", "body": "", "prev": "", "hash": ""}',
          b"x" * 2_000_000, b"\xff\xfe", b"[" * 100_000]
"""One of each bad message: a NUL byte, a NUL and a lone surrogate in JSON text, seq 2^63, 2 MB, invalid UTF-8,
deep JSON."""


def bad_messages(floor: Floor) -> None:
    """Each bad message on a site of its own (its rejects are expected; the floor's site must have none)."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-poison-{floor.scenario.name}",
                         protocol=mqtt.MQTTv5)
    client.connect("127.0.0.1", floor.broker.port)
    client.loop_start()
    try:
        for info in [client.publish(f"croupier/{floor.site}-poison/t/journal", payload, qos=1) for payload in POISON]:
            info.wait_for_publish(60)
    finally:
        client.disconnect()
        client.loop_stop()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and rejects_of(floor, f"{floor.site}-poison") < len(POISON):
        time.sleep(0.25)
    floor.faults.append(f"{len(POISON)} bad messages published, {rejects_of(floor, floor.site + '-poison')} "
                        "refused by the archive, which ran on")


def rejects_of(floor: Floor, site: str) -> int:
    with contextlib.suppress(psycopg.Error), psycopg.connect(floor.database) as connection:
        row = connection.execute("SELECT count(*) FROM journal_rejects WHERE site = %s", (site,)).fetchone()
        return int(row[0]) if row else 0
    return 0


def delete_archived_tails(floor: Floor) -> None:
    """Delete the last 20 archived rows of two tables still dealing: the archive's head goes back, it asks
    them for the records again (a table that has ended would need ``croupier archive import``)."""
    journals = floor.journals()
    before = {name: len(journal_rows(path)) for name, path in journals.items() if path.exists()}
    time.sleep(1.0)
    dealing = [name for name, count in before.items() if len(journal_rows(journals[name])) > count][:2]
    if not dealing:
        floor.faults.append("no table was still dealing: no archived rows deleted")
        return
    deleted = 0
    with psycopg.connect(floor.database) as connection:
        for name in dealing:
            cursor = connection.execute(
                "DELETE FROM journal_records WHERE site = %s AND table_id = %s AND seq > (SELECT max(seq) - 20 FROM "
                "journal_records WHERE site = %s AND table_id = %s)", (floor.site, name, floor.site, name))
            deleted += cursor.rowcount
    floor.faults.append(f"{deleted} archived rows of {', '.join(dealing)} (still dealing) deleted from the end")


def broker_outage(floor: Floor, seconds: float) -> None:
    """Stop the broker (SIGTERM: it saves its persistence file), wait ``seconds``, start it again."""
    floor.broker.stop()
    time.sleep(seconds)
    floor.broker.start()
    floor.faults.append(f"broker stopped (SIGTERM) for {seconds:.1f} s and started again")


def wait_tables(floor: Floor) -> list[str]:
    """Wait for every table to end; the failures, as text."""
    deadline = time.monotonic() + 3 * floor.plan.expected_seconds + 180
    failures = []
    everything = {**{f"worker {n}": p for n, p in enumerate(floor.workers)}, **floor.processes}
    for what, process in everything.items():
        try:
            status = process.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            stop_pid(process.pid, signal.SIGKILL)
            status = -9
        if status != 0:
            failures.append(f"{what} exited with status {status} (log in {floor.directory})")
    return failures


def wait_archive(floor: Floor, expected: int) -> float:
    """Wait until the archive holds ``expected`` rows, at most :data:`CATCH_UP_SECONDS` and while it makes
    progress (:data:`STALL_SECONDS`); the seconds it took after the tables ended."""
    started = progressed = time.monotonic()
    count = -1
    while time.monotonic() - started < CATCH_UP_SECONDS and time.monotonic() - progressed < STALL_SECONDS:
        now = archived_count(floor.database, floor.site)
        if now >= expected:
            break
        if now != count:
            count, progressed = now, time.monotonic()
        time.sleep(0.25)
    return time.monotonic() - started


def stop_archive(floor: Floor) -> str:
    """SIGTERM the archive; its closing ``stopped: ...`` line."""
    if floor.archive is not None:
        stop_pid(floor.archive.pid)
        floor.archive.wait(timeout=60)
    lines = [line for line in floor.log("archive").read_text(errors="replace").splitlines()
             if line.startswith("stopped:")]
    return lines[-1] if lines else "(the archive printed no summary)"


@contextlib.contextmanager
def scenario_floor(scenario: Scenario, plan: Plan) -> Iterator[Floor]:
    """A fresh broker, database and archive for ``scenario``; all stopped afterwards."""
    base = plan.directory if scenario.on_disk or plan.table_directory is None else plan.table_directory
    directory = base / scenario.name
    directory.mkdir(parents=True)
    database = f"bench_{scenario.name}"
    with psycopg.connect(plan.postgres.url(), autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {database}")
        admin.execute(f"CREATE DATABASE {database}")
    broker = Mosquitto(directory / "mosquitto", MOSQUITTO_EXTRA,
                       MAX_QUEUED if plan.max_queued is None else plan.max_queued)
    broker.start()
    floor = Floor(scenario, plan, broker, plan.postgres.url(database), directory)
    try:
        start_archive(floor)
        yield floor
    finally:
        for process in [*floor.workers, *floor.processes.values()]:
            if process.poll() is None:
                stop_pid(process.pid, signal.SIGKILL)
        if floor.archive is not None and floor.archive.poll() is None:
            stop_pid(floor.archive.pid)
        broker.stop()


def run_scenario(scenario: Scenario, plan: Plan) -> Outcome:
    """Run one scenario to its end and audit the archive against the journals."""
    print(f"floor: {scenario.name}: {scenario.tables} tables, {plan.rounds} rounds, pace {plan.pace} s",
          flush=True)
    with scenario_floor(scenario, plan) as floor:
        counters = BrokerCounters(floor.broker.address)
        counters.fresh(10)
        probe = Arrivals(floor.broker.address, floor.site)
        probe.subscribed.wait(30)
        cpu = cpu_sampler(floor)
        received_before = counters.read("received")
        load_before = os.getloadavg()[0]
        started = time.monotonic()
        start_tables(floor)
        time.sleep(min(5.0, plan.expected_seconds / 3))
        sample_memory(floor)
        if scenario.faults:
            run_faults(floor)
        failures = wait_tables(floor)
        dealt = time.monotonic() - started
        expected = sum(len(journal_rows(path)) for path in floor.journals().values())
        catch_up = wait_archive(floor, expected)
        busy = time.monotonic() - started
        cpu_seconds = cpu.stop()
        probe.close()
        counters.fresh(10)
        counters.fresh(10)
        messages = counters.read("received") - received_before
        dropped = counters.read("dropped")
        counters.close()
        summary = stop_archive(floor)
        result: Audit = audit(floor.database, floor.site, floor.journals(), probe.arrivals())
        return Outcome(scenario.name, scenario.tables, scenario.faults, scenario.nice, scenario.on_disk, result,
                       messages, dropped, dealt, catch_up, summary, failures, floor.faults, load_before,
                       os.getloadavg()[0], dict(floor.memory_kib), plan.pace, plan.rounds, cpu_seconds, busy,
                       stage_waits(read_batches(timing_log(floor))), ramp=plan.ramp,
                       workers=len(floor.workers))


def cpu_sampler(floor: Floor) -> CpuSampler:
    """CPU of each part of the floor, sampled from now until the archive has caught up."""
    return CpuSampler({
        "tables": lambda: [process.pid for process in [*floor.workers, *floor.processes.values()]],
        "broker": lambda: [floor.broker.process.pid] if floor.broker.process else [],
        "archive": lambda: [floor.archive.pid] if floor.archive else [],
        "PostgreSQL": lambda: children_of(floor.plan.postgres.pid),
        "the benchmark's subscribers": lambda: [os.getpid()],
    })


def scenarios(args: argparse.Namespace) -> list[Scenario]:
    """The peer, the floor, the floor with the tables at the services' priority, the floor with faults
    (``--only``: one of them)."""
    nice = args.table_nice
    every = [Scenario("peer", args.peer, nice=nice), Scenario("floor", args.tables, nice=nice),
             Scenario("shared", args.tables, on_disk=True), Scenario("faults", args.tables, True, nice=nice)]
    return [scenario for scenario in every if args.only in (None, scenario.name)]


def fault_kinds(text: str) -> str:
    """``--faults``: a comma-separated subset of :data:`FAULT_KINDS`."""
    kinds = [kind for kind in text.split(",") if kind]
    wrong = [kind for kind in kinds if kind not in FAULT_KINDS]
    if wrong or not kinds:
        raise argparse.ArgumentTypeError(f"{text!r}: expected one or more of {', '.join(FAULT_KINDS)}, "
                                         "comma-separated, e.g. broker,tables")
    return ",".join(kinds)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.floor", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 8 tables (peer 4), 12 rounds, pace 0.1 s, 2 workers, started over 1 s, "
                             "faults included (it sets those options)")
    parser.add_argument("--tables", type=int, default=200, help="tables on the floor (default 200)")
    parser.add_argument("--peer", type=int, default=20, help="tables of the smaller peer run (default 20)")
    parser.add_argument("--rounds", type=int, default=20, help="rounds each table deals (default 20)")
    parser.add_argument("--pace", type=float, default=0.32,
                        help="seconds between cards (default 0.32: ten times the rounds an hour of a fast real "
                             "table, the shuffles and the simulated dealer's own time included; 0.35 gave 9.5 times)")
    parser.add_argument("--workers", type=int, default=0,
                        help=f"processes holding a scenario's thread tables (default: one per {TABLES_PER_WORKER})")
    parser.add_argument("--ramp", type=float, default=RAMP, metavar="SECONDS",
                        help=f"the tables start one after another over this many seconds (default {RAMP:g}: tables "
                             "on a floor open at their own times; 0: all at once)")
    parser.add_argument("--dir", default="/var/tmp",
                        help="a directory on a real disk: the shared scenario's journals (default /var/tmp)")
    parser.add_argument("--table-dir", default="/dev/shm",
                        help="where the other scenarios' journals go (default /dev/shm, tmpfs: on a real floor "
                             "each table fsyncs to a disk of its own, not 200 tables to one)")
    parser.add_argument("--only", choices=("peer", "floor", "shared", "faults"), help="run only this scenario")
    parser.add_argument("--table-nice", type=int, default=10, metavar="N",
                        help="the tables' niceness (default 10): the floor's services come first for the cores, "
                             "as on a real floor where each has machines of its own; the shared scenario runs "
                             "the tables at the services' priority")
    parser.add_argument("--faults", default=",".join(FAULT_KINDS), type=fault_kinds, metavar="KINDS",
                        help="the faults of the faults scenario, comma-separated: broker (stopped and started "
                             "twice), tables (two killed with kill -9 and started again), archive (killed with "
                             "kill -9 mid-batch), broker-kill (the broker killed with kill -9 while the archive is "
                             "away; the archive started late), database (PostgreSQL stopped and started), poison "
                             "(one of each bad message), deleted (archived rows deleted); default all")
    parser.add_argument("--max-queued", type=int, metavar="N",
                        help=f"Mosquitto's max_queued_messages (default: the floor's, {MAX_QUEUED}; Mosquitto's own "
                             "default is 1000; 0: no limit)")
    parser.add_argument("--keep", action="store_true", help="keep the journals and logs (the path is printed)")
    parser.add_argument("--write", action="store_true", help="write the section of docs/performance.md")
    args = parser.parse_args(argv)
    if args.quick:
        args.tables, args.peer, args.rounds, args.pace, args.workers, args.ramp = 8, 4, 12, 0.1, 2, 1.0
    if min(args.tables, args.peer) < PROCESS_TABLES + 1 or args.rounds < 1 or args.workers < 0 \
            or not all(math.isfinite(value) and value >= 0 for value in (args.pace, args.ramp)):
        parser.error(f"--tables and --peer need at least {PROCESS_TABLES + 1} tables, --rounds at least 1, "
                     "--workers 0 or more, --pace and --ramp finite and 0 or more")
    return args


def compile_bytecode() -> None:
    """Compile the modules as installing does (pip compiles what it installs): otherwise, where
    ``PYTHONDONTWRITEBYTECODE`` is set, every table process compiles every module at its start (60 MiB
    and more CPU than it deals with). A read-only checkout is measured as it is, and says so."""
    done = subprocess.run([sys.executable, "-m", "compileall", "-q", "controller", "config", "drivers", "benchmarks"],
                          cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    if done.returncode != 0:
        print("floor: could not compile the bytecode (a read-only checkout?); each table process compiles its "
              "modules at its start, which costs it memory and CPU", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """Run the scenarios; print (and with ``--write``, record) the results. Exit 1 when a record was lost."""
    args = parse_args(argv)
    compile_bytecode()
    postgres = Postgres(("track_commit_timestamp=on", "max_connections=50"))
    scratch = Path(tempfile.mkdtemp(prefix="croupier-floor-", dir=args.dir))
    table_scratch = Path(tempfile.mkdtemp(prefix="croupier-floor-", dir=args.table_dir))
    if args.keep:
        print(f"floor: journals and logs in {scratch} and {table_scratch}", flush=True)
    try:
        postgres.start()
        plan = Plan(args.rounds, args.pace, args.workers, scratch, postgres, tuple(args.faults.split(",")),
                    args.max_queued, table_scratch, args.ramp)
        outcomes = [run_scenario(scenario, plan) for scenario in scenarios(args)]
    except ServerUnavailable as error:
        print(f"python -m benchmarks.floor: {error}", file=sys.stderr)
        return 2
    finally:
        postgres.stop()
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
            shutil.rmtree(table_scratch, ignore_errors=True)
    body = report(outcomes, quick=args.quick)
    print(body)
    if args.write and not args.quick:
        write_section("Casino floor", "python -m benchmarks.floor --write", body)
    return 0 if all(outcome.sound for outcome in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())

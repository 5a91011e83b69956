"""The floor benchmark's results as a docs/performance.md section: each scenario beside its peers."""

from __future__ import annotations

import os
from dataclasses import dataclass

from benchmarks.floor_measure import Audit, median, percentile
from controller.floor.archive import BATCH_LIMIT, BATCH_LINGER, WRITERS

TARGET_P99_MS = 100.0
PROCESS_TABLES = 2
"""Tables of a scenario that run as processes of their own; the others are threads in worker processes."""
FAST_REAL_ROUNDS_PER_HOUR = 200.0
"""A fast real Punto Banco table (mini-baccarat); a full big table deals 60-80 rounds an hour."""
CARDS_PER_ROUND = 4.9
"""About 4.9 cards a round with the burns: a fast real table draws a card every ~3.7 s."""


def times_real(pace: float) -> float:
    """How many times a fast real table's pace ``--pace SECONDS`` between cards asks for."""
    real_seconds_per_card = 3600 / (FAST_REAL_ROUNDS_PER_HOUR * CARDS_PER_ROUND)
    return real_seconds_per_card / pace if pace > 0 else float("inf")


LOSS_NOTE = (
    "Two ways to lose records were found by this benchmark and are closed (docs/floor.md, Archive): a "
    "broker queue for an archive that falls behind longer than `max_queued_messages` (Mosquitto's default "
    "1000; the floor's 1,000,000) is dropped, which the \"MQTT messages dropped by the broker\" row "
    "counts; and Mosquitto 2.0.11 does not restore a shared subscription (`--group`) after a restart. "
    "Look in the broker's and the archive's logs (`--keep`) for what else happened.")


ARCHIVE_NOTE = (
    "Inside the archive: the rows \"inside the archive\" come from its `--timing` log (each record's receipt "
    "by the archive's MQTT thread, then each stage of its batch). A writer's own CPU is a millisecond or two a "
    "batch; the rest of a batch's time is its 10 ms wait for more records and PostgreSQL's round trips and "
    "commit (its fsync). "
    "What made the tail at 200 tables, found on 2026-12-01 (one run each way, so within this shared machine's "
    "noise): the tables' shared interpreters (50 tables a worker process: commit → publication p99 188 ms; 13: "
    "48 ms); 200 tables starting in the same second (their start-up held both cores for 1.5 s, and the records "
    "of those seconds waited p99 0.8 s on the tables' side); a generic plan PostgreSQL kept for the archive's "
    "lookup of archived hashes, made on the empty table (a sequential scan: PostgreSQL's CPU 13 s against 5 s "
    "with plans for each batch, and the archive's p50 growing from 19 to 35 ms over a run); and one-record "
    "batches (PostgreSQL's CPU 20 s against 13 s with the 10 ms wait). With all of those changed but the "
    "ramp (`--ramp 0`: the 200 tables started in the same second), the floor's p99 was 296 ms, the records "
    "of its first seconds. "
    "Before those changes, measured side by side on one run (two extra archives subscribed to the same floor "
    "at once, so under the same load): the batch of two round trips and a handful of statements against the "
    "earlier six round trips and one statement a row, receipt → commit p50 530 ms / p99 3.45 s against "
    "855 ms / 4.48 s; 2 writers against 1, p50 636 ms / p99 2.09 s against 1.35 s / 7.02 s (three "
    "archives and the floor overloaded the machine, hence the seconds: the gain is in how fast a backlog "
    "is worked off; a batch limit of 2000 instead of 500 changed nothing measurable).")


@dataclass
class Outcome:
    """One scenario's measurements."""

    name: str
    tables: int
    faults: bool
    nice: int
    on_disk: bool
    audit: Audit
    messages: int
    """PUBLISH messages the broker received (Mosquitto's $SYS counter)."""
    dropped: int
    """PUBLISH messages the broker dropped ($SYS)."""
    dealt_seconds: float
    catch_up_seconds: float
    archive_summary: str
    failures: list[str]
    fault_log: list[str]
    load_before: float
    load_after: float
    memory_kib: dict[str, int]
    pace: float
    rounds: int
    cpu_seconds: dict[str, float]
    """CPU seconds of each part of the floor from the tables' start until the archive caught up."""
    busy_seconds: float
    """Wall seconds of that span."""
    stages: dict[str, list[float]]
    """The archive's ``--timing`` log: seconds each record waited for each stage (and the batch sizes)."""
    ramp: float = 0.0
    """Seconds over which the tables started, one after another."""
    workers: int = 0
    """Worker processes holding the thread tables."""

    @property
    def sound(self) -> bool:
        """Nothing lost, duplicated or rejected, and every table ended well."""
        return self.audit.faultless and not self.failures

    @property
    def window(self) -> float:
        """Seconds from the first to the last journal record of all tables (archived or not)."""
        first, last = self.audit.first_at, self.audit.last_at
        return (last - first).total_seconds() if first and last and last > first else float("nan")

    def rounds_per_hour(self) -> float:
        """A table's rounds an hour: its measured cards a second over the cards of a round."""
        per_round = self.audit.cards / self.audit.rounds if self.audit.rounds else float("nan")
        return median(self.audit.cards_per_second) * 3600 / per_round


def _ms(value: float) -> str:
    return f"{value:.1f} ms" if value < 1000 else f"{value / 1000:.2f} s"


def _row(label: str, values: list[str]) -> str:
    return f"| {label} | " + " | ".join(values) + " |"


def _verdict(outcome: Outcome) -> str:
    p99 = percentile(outcome.audit.latencies_ms, 0.99)
    if outcome.faults:
        return "(outages included)"
    return "meets" if p99 < TARGET_P99_MS else "MISSES"


def _ramp_split(outcome: Outcome) -> str:
    """p99 of the records journaled before the last table started, and of the others."""
    audit = outcome.audit
    if not audit.latency_at or not outcome.ramp:
        return "- (no ramp)"
    end = min(audit.latency_at) + outcome.ramp
    starting = [ms for ms, at in zip(audit.latencies_ms, audit.latency_at, strict=True) if at < end]
    dealing = [ms for ms, at in zip(audit.latencies_ms, audit.latency_at, strict=True) if at >= end]
    return f"{_ms(percentile(starting, 0.99))} / {_ms(percentile(dealing, 0.99))}"


def table_rows(outcomes: list[Outcome]) -> list[str]:
    """The comparison table: one column per scenario."""
    rows = ["| measure | " + " | ".join(_heading(o) for o in outcomes) + " |",
            "| --- |" + " --- |" * len(outcomes)]
    each = outcomes
    rows += [
        _row("journal records / archived rows", [f"{o.audit.journal_records} / {o.audit.archived_rows}" for o in each]),
        _row("records lost / duplicated / rejected / left pending",
             [f"{o.audit.lost} / {o.audit.duplicated} / {o.audit.rejected} / {o.audit.pending}" for o in each]),
        _row("tables that did not end well", [str(len(o.failures)) for o in each]),
        _row("rounds played (all tables)", [str(o.audit.rounds) for o in each]),
        _row("a table's dealing rate, median (cards/s; rounds/hour)",
             [f"{median(o.audit.cards_per_second):.2f}; {o.rounds_per_hour():.0f} "
              f"({o.rounds_per_hour() / FAST_REAL_ROUNDS_PER_HOUR:.1f}× a fast real table)" for o in each]),
        _row("rows archived / s, over the tables' dealing time (first to last journal record)",
             [f"{o.audit.archived_rows / o.window:.0f}" for o in each]),
        _row("MQTT messages received by the broker / s",
             [f"{o.messages / o.window:.0f}" + (" (≈: restarts)" if o.faults else "") for o in each]),
        _row("MQTT messages dropped by the broker", [str(o.dropped) for o in each]),
        _row("latency journal commit → archive commit (archived records), p50",
             [_ms(percentile(o.audit.latencies_ms, 0.5)) for o in each]),
        _row("latency p99 (target < 100 ms)",
             [f"{_ms(percentile(o.audit.latencies_ms, 0.99))} {_verdict(o)}" for o in each]),
        _row("latency max", [_ms(max(o.audit.latencies_ms, default=float("nan"))) for o in each]),
        _row("latency p99 of the records journaled while the tables were starting (the ramp's seconds) / after",
             [_ramp_split(o) for o in each]),
        _row("of which journal commit → a subscriber's receipt (the feed and the broker), p50 / p99",
             [_split(o.audit.to_subscriber_ms) for o in each]),
        _row("of which that receipt → archive commit (the archive), p50 / p99",
             [_split(o.audit.subscriber_to_archive_ms) for o in each]),
        _row("batches stored by the archive; records a batch, p50 / max",
             [_batches(o.stages.get("batch size", [])) for o in each]),
        _row("a batch's time, taken → acknowledged, p50 / p99: wall; the storing thread's own CPU",
             [f"{_stage(o, 'batch wall')}; {_stage(o, 'batch cpu')}" for o in each]),
        _row("inside the archive (`--timing`), per record, p50 / p99: receipt → batch taken (waiting for the "
             "batch before)", [_stage(o, "taken") for o in each]),
        *[_row(f"… {label}", [_stage(o, stage) for o in each]) for stage, label in STAGE_LABELS],
        _row("… receipt → commit, in all", [_stage(o, "received to committed") for o in each]),
        _row("CPU seconds from the tables' start to the archive caught up (share of the cores' time)",
             [_cpu(o) for o in each]),
        _row("the tables' CPU per round a table deals (all of it: start-up, dealing, live edge, journal, feed)",
             [f"{1000 * o.cpu_seconds.get('tables', float('nan')) / max(1, o.audit.rounds):.1f} ms" for o in each]),
        _row("archive caught up, after the tables ended", [f"{o.catch_up_seconds:.1f} s" for o in each]),
        _row("load average (1 min) before → after", [f"{o.load_before:.1f} → {o.load_after:.1f}" for o in each]),
        _row("worker processes holding the thread tables (thread tables each, at most)",
             [f"{o.workers} ({-(-(o.tables - PROCESS_TABLES) // max(1, o.workers))})" for o in each]),
        _row("resident memory: a table process; a worker process with its thread tables",
             [_memory(o) for o in each]),
    ]
    return rows


STAGE_LABELS = (("decoded", "→ messages decoded (JSON)"),
                ("read", "→ the tables' locks taken, archived hashes and pending records read"),
                ("judged", "→ every record judged (hash and chain)"), ("written", "→ the writes queued"),
                ("committed", "→ written and committed"), ("acknowledged", "→ acknowledged to the broker"))


def _batches(sizes: list[float]) -> str:
    if not sizes:
        return "-"
    return f"{len(sizes)}; {percentile(sizes, 0.5):.0f} / {max(sizes):.0f}"


def _stage(outcome: Outcome, stage: str) -> str:
    return _split([1000 * seconds for seconds in outcome.stages.get(stage, [])])


def _heading(outcome: Outcome) -> str:
    faults = " + faults" if outcome.faults else ""
    priority = f"tables at nice {outcome.nice}" if outcome.nice else "tables at the services' priority"
    journals = "journals on the disk" if outcome.on_disk else "journals on tmpfs"
    return f"{outcome.name}: {outcome.tables} tables{faults} ({priority}, {journals})"


def _split(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{_ms(percentile(values, 0.5))} / {_ms(percentile(values, 0.99))}"


def _cpu(outcome: Outcome) -> str:
    capacity = outcome.busy_seconds * (os.cpu_count() or 1)
    return "; ".join(f"{name} {seconds:.0f} s ({seconds / capacity:.0%})"
                     for name, seconds in outcome.cpu_seconds.items())


def _memory(outcome: Outcome) -> str:
    process = outcome.memory_kib.get("process")
    worker = outcome.memory_kib.get("worker")
    parts = [f"{process / 1024:.0f} MiB" if process else "-", f"{worker / 1024:.0f} MiB" if worker else "-"]
    return "; ".join(parts)


def report(outcomes: list[Outcome], quick: bool = False) -> str:
    """The section's body."""
    first = outcomes[0]
    faults = next((o for o in outcomes if o.faults), None)
    lines = [
        ("Quick smoke run. " if quick else "")
        + f"Each table is `croupier simulate --seed N --rounds {first.rounds} --pace {first.pace} --quiet --journal "
        "PATH --feed mqtt://127.0.0.1:PORT/SITE/TABLE` (mock shoe, the journal fsync'd, the feed publishing from "
        "the journal as its outbox): two tables as processes of their own, the others as threads in worker "
        "processes that call the same command line (`benchmarks/floor_tables.py`; a row below says how many); "
        "every worker first starts its interpreter and builds what a table builds once (its modules, the live "
        "edge's tables), then the tables start "
        + (f"one after another over {first.ramp:g} s (`--ramp`: tables on a floor open at their own times), "
           "the two process tables first. " if first.ramp else "all at once. ")
        + "One Mosquitto 2.0 "
        "(persistent, `max_queued_messages 1000000`) and one `croupier archive --timing PATH` process (its "
        f"default: a plain persistent subscription, {WRITERS} writers, records stored in batches of up to "
        f"{BATCH_LIMIT} a transaction, what arrived while the writer's previous batch was committed and in the "
        f"{BATCH_LINGER * 1000:.0f} ms after the first, two round trips a batch) into one PostgreSQL 15 on the "
        "disk (`synchronous_commit` on), all on this "
        f"machine ({os.cpu_count()} cores shared with other engineers' builds and tests while this was measured; "
        "the load averages below say how busy it was, and count the tables' own threads). "
        "On a real floor every table has a machine and a disk of its own, and the broker, the archive and "
        "PostgreSQL theirs; here all share 2 cores and one disk. So the floor's scenarios run the tables at a "
        "lower priority (`nice`) with their journals on tmpfs, and the shared scenario runs the same tables "
        "at the services' priority with their journals on the disk, to show what sharing costs.",
        "",
        f"Pace: a fast real table deals {FAST_REAL_ROUNDS_PER_HOUR:.0f} rounds an hour, about "
        f"{CARDS_PER_ROUND} cards a round, a card every {3600 / (FAST_REAL_ROUNDS_PER_HOUR * CARDS_PER_ROUND):.1f} s; "
        f"`--pace {first.pace}` (seconds between two cards of the simulated dealer) asks for "
        f"{times_real(first.pace):.1f}× that, and the dealing-rate row says what each table achieved. Each "
        "table computes the live edge of every round (`[bets] live_edge`, the default, as a real table does). "
        "The tables' CPU per round is the figure to compare between runs on a shared machine; the latencies "
        "depend on what else runs.",
        "",
        "Latency: from each record's `at` (taken in the table's journal transaction, just before its "
        "fsync'd commit) to the commit of the archive's transaction that stored it "
        "(`pg_xact_commit_timestamp(xmin)`, PostgreSQL with `track_commit_timestamp=on`); both are this "
        "machine's wall clock. Lost, duplicated and rejected records are counted by comparing every "
        "journal, record by record (seq and hash), with `journal_records`.",
        "",
        ARCHIVE_NOTE,
        "",
        *table_rows(outcomes),
    ]
    if faults is not None:
        lines += ["", "Faults injected in the last run, in order: " + "; ".join(faults.fault_log) + ". "
                  f"The archive: `{faults.archive_summary}`."]
    failures = [failure for outcome in outcomes for failure in outcome.failures]
    if failures:
        lines += ["", "Failures: " + "; ".join(failures) + "."]
    lost = [example for outcome in outcomes for example in outcome.audit.lost_examples]
    if lost:
        lines += ["", "Lost, e.g.: " + ", ".join(lost) + ". " + LOSS_NOTE]
    return "\n".join(lines)

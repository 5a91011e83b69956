"""Card-to-prompt latency of the serial shoe driver over a real pseudo-terminal.

Run: .venv/bin/python -m benchmarks.serial_latency [--cards N] [--dir DIR] [--write]

A shoe process owns the pty's master and sends ``--cards`` cards, one at a
time (stop-and-wait on the driver's acknowledgement), timing the moment it
writes each frame's last byte. The controller process reads them with
``SerialShoe`` and times (1) ``recv()`` returning the card and (2) the table
core (``controller.core.table.Table``) returning the events of that card, which hold
the next prompt for the dealer. Both processes read CLOCK_MONOTONIC
(``time.perf_counter_ns``), so the times compare across them.

Each framing is measured twice in the same run: without a journal, and with the journal on (in
``--dir``, default /var/tmp on disk so the fsyncs are real): the card and its events then go through
the journal's live path (one transaction, fsync'd, before the prompt counts as shown; then the
delivered mark), as ``croupier run --journal`` does.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import select
import statistics
import tempfile
import time
import tty
from multiprocessing.connection import Connection
from typing import Any

from controller.core.inputs import Input, InputKind
from controller.core.shoe import shoe_with_cut_card
from drivers.serial.driver import SerialShoe
from drivers.serial.framing import ACK, ENQ, Frame, LineFramer, StxFramer

SEED = 2026


def card_codes(count: int) -> list[str]:
    """``count`` card codes from consecutive seeded 8-deck shoes, cut cards left out."""
    codes: list[str] = []
    shoe = 0
    while len(codes) < count:
        codes += [token for token in shoe_with_cut_card(SEED, 8, shoe) if token != "@cut"]
        shoe += 1
    return codes[:count]


def _shoe_side(conn: Connection, framing: str, codes: list[str]) -> None:
    """The shoe: wait for the hello, then send each card and wait for its acknowledgement."""
    master, slave = os.openpty()
    tty.setraw(slave)
    conn.send(os.ttyname(slave))
    framer = StxFramer(controls=True) if framing == "stx" else LineFramer()
    buffer = b""

    def next_frame() -> Frame:
        nonlocal buffer
        while True:
            used, frame = framer.decode(buffer)
            if used:
                buffer = buffer[used:]
                if frame is not None:
                    return frame
                continue
            select.select([master], [], [], 10)
            buffer += os.read(master, 4096)

    while next_frame().kind not in ("R", chr(ENQ)):
        pass
    sent: list[int] = []
    for seq, code in enumerate(codes, start=1):
        data = framer.encode(Frame("C", seq, code))
        os.write(master, data[:-1])
        sent.append(time.perf_counter_ns())
        os.write(master, data[-1:])
        while True:
            frame = next_frame()
            if frame.kind == chr(ACK) or (frame.kind == "A" and frame.seq == seq):
                break
    conn.send(sent)
    conn.recv()  # keep the pty open until the controller is done
    os.close(master)
    os.close(slave)


class TableFeed:
    """The table core, with the dealer's inputs between cards supplied as the runner's auto mode does."""

    def __init__(self, journal: Any = None) -> None:
        from controller.core.machine import State
        from controller.core.table import Table

        self._table_class = Table
        self._state = State
        self.table: Any = None
        self.journal = journal
        """A :class:`~controller.journal.store.Journal` (None: no journal)."""
        self._seq = 0
        from controller.journal.checkpoint import Cursor

        self.cursor = Cursor()
        """Where the game stands, for the checkpoints the live path writes after the prompt."""
        self._checkpoint_due = False
        self._fresh()

    def _fresh(self) -> None:
        self.table = self._table_class()
        start = self.table.start()
        if self.journal is not None and self.journal.empty:
            self.journal.begin({"benchmark": "serial_latency"}, start)
        self._prepare()

    def _prepare(self) -> None:
        state = self.table.state
        if state in (self._state.NEW_SHOE, self._state.SHOE_CLOSED):
            self.handle(Input(InputKind.SHOE), from_source=False)
        elif state is self._state.ROUND_OVER:
            self.handle(Input(InputKind.NEXT), from_source=False)
        if self.table.state is self._state.HALTED:
            self._fresh()  # a card count from mixed shoes tripped a misdeal: start over

    def handle(self, item: Input, from_source: bool = True) -> list[Any]:
        """The core's events for ``item``; with the journal, once they are durable with it."""
        before = self.table.state
        events: list[Any] = self.table.handle(item)
        if self.journal is not None:
            self.cursor.note_input(item, before, from_source, None)
            began = self.cursor.note_events(self.journal.last_seq + 2, events)
            self._checkpoint_due = self.cursor.due(began, self.table.settings.journal.checkpoint_every)
            self._seq = self.journal.append_input_and_events(item, from_source, None, events)
        return events

    def shown(self) -> None:
        """The events were shown: the journal's delivered mark and any checkpoint due, as the live path
        (:func:`~controller.journal.replay.attach_journal`) writes them."""
        if self.journal is not None:
            self.journal.mark_delivered(self._seq)
            if self._checkpoint_due:
                self.journal.append_checkpoint(self.cursor.body(self.table))

    def between(self) -> None:
        self._prepare()


def measure(framing: str, count: int, with_table: bool, journal_path: str | None = None,
            reserve: bool = True) -> dict[str, list[float]]:
    """Latencies in microseconds: ``recv`` and, with the table, ``prompt`` (with ``journal_path``,
    the journal included)."""
    codes = card_codes(count)
    context = multiprocessing.get_context("fork")
    conn, child = context.Pipe()
    shoe = context.Process(target=_shoe_side, args=(child, framing, codes), daemon=True)
    shoe.start()
    path = conn.recv()
    journal = None
    if journal_path is not None:
        from controller.journal.files import WAL_RESERVE
        from controller.journal.store import Journal

        journal = Journal.create_or_open(journal_path, WAL_RESERVE if reserve else 0)
    feed = TableFeed(journal) if with_table else None
    received: list[int] = []
    prompted: list[int] = []
    with SerialShoe(f"serial://{path}?framing={framing}") as source:
        while len(received) < count:
            item = source.recv(10)
            now = time.perf_counter_ns()
            if item is None:
                raise SystemExit(f"the shoe stopped after {len(received)} cards")
            if item.kind is not InputKind.CARD:
                continue
            received.append(now)
            if feed is not None:
                feed.handle(item)
                prompted.append(time.perf_counter_ns())
                feed.shown()
                feed.between()
        source.recv(0)  # acknowledge the last card
        sent: list[int] = conn.recv()
    conn.send(None)
    if journal is not None:
        journal.close()
    shoe.join(10)
    result = {"recv": [(r - s) / 1000 for s, r in zip(sent, received, strict=True)]}
    if prompted:
        result["prompt"] = [(p - s) / 1000 for s, p in zip(sent, prompted, strict=True)]
    return result


def distribution(values: list[float]) -> tuple[float, float, float, float]:
    """p50, p99, p99.9 and max of ``values``."""
    return statistics.median(values), percentile(values, 0.99), percentile(values, 0.999), max(values)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def fsync_floor(directory: str, count: int) -> list[float]:
    """Microseconds of a bare ``fdatasync`` (what SQLite calls on Linux) after a small overwrite in
    ``directory`` (the same 128 bytes each time: the file's size never changes): the disk's own floor under
    any durable commit (a journal-on prompt cannot come sooner)."""
    times: list[float] = []
    with tempfile.NamedTemporaryFile(dir=directory) as handle:
        for _ in range(count):
            os.pwrite(handle.fileno(), b"x" * 128, 0)
            started = time.perf_counter_ns()
            os.fdatasync(handle.fileno())
            times.append((time.perf_counter_ns() - started) / 1000)
    return times


JOURNALS = ("none", "reserved", "grown")
"""The runs of each framing with the table: no journal, a live table's (its WAL written up front), and one
whose WAL grows as commits come."""
LABELS = {
    ("recv", "none"): "frame's last byte → `recv()` returns",
    ("prompt", "none"): "frame's last byte → table events (next prompt), no journal",
    ("prompt", "reserved"): "frame's last byte → table events (next prompt), journal on (one fsync'd commit)",
    ("prompt", "grown"): "the same, journal on but its WAL not written up front (each commit may grow the file)",
}
SYSCALLS = (
    "What a card's commit costs, by `strace -f -T -e trace=fdatasync,fsync,pwrite64,ftruncate` over 1000 cards "
    "through the journal's live path: one `fdatasync` of the WAL per commit (SQLite's `synchronous=FULL` in WAL "
    "mode) and about five 4 KiB `pwrite64`s of a few microseconds each; nothing else syncs before the prompt. "
    "The database file is synced only by the WAL checkpoint (`PRAGMA wal_checkpoint(PASSIVE)` every 200 "
    "commits, SQLite's automatic one turned off) and the checkpoint records are commits of their own, both "
    "after the prompt was shown. So the journal-on prompt is the no-journal prompt plus one `fdatasync` of "
    "this disk: its tail is the disk's tail (the last row), which other engineers' work on the same disk sets. "
    "A live table's journal pads its WAL with zeros to 8 MiB before its first card (`croupier run`, "
    "`controller/journal/files.py` `reserve_wal`), so a commit overwrites blocks already written instead of "
    "growing the file, whose `fdatasync` must then also commit the new size; the row \"not written up front\" "
    "measures the same path without it (as `simulate` journals: nobody waits on its cards). On this shared "
    "virtual disk one run differs from the next by as much as the two rows do; in six runs taken in turn on "
    "2026-12-01 the journal-on p99 averaged 754 µs with it and 866 µs without. The tail of the journal-on rows is "
    "the tail of `fdatasync` itself when a commit's five or six 4 KiB frames are synced (by strace over a run: "
    "p50 260 µs, p99 860 µs), against the one block of the bare row.")
"""Measured once with strace (see docs/performance.md); printed with the figures for the reader."""
TARGET_P99_US = 1000.0
"""The journal-on p99 target (issue 17): under a millisecond from the frame's last byte to the prompt."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--cards", type=int, default=3000, help="cards per framing (default 3000)")
    parser.add_argument("--dir", default="/var/tmp", help="directory for the journal (on a real disk)")
    parser.add_argument("--write", action="store_true", help="write the section of docs/performance.md")
    args = parser.parse_args(argv)
    try:
        import controller.core.table  # noqa: F401
        with_table = True
    except ImportError:
        with_table = False
    rows = []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(dir=args.dir) as scratch:
        for framing in ("line", "stx"):
            for journal in (JOURNALS if with_table else ("none",)):
                journal_path = os.path.join(scratch, f"{framing}-{journal}.journal") if journal != "none" else None
                result = measure(framing, args.cards, with_table, journal_path, reserve=journal == "reserved")
                for what, values in result.items():
                    if journal != "none" and what == "recv":
                        continue
                    rows.append((framing, LABELS[what, journal], *distribution(values)))
        floor = fsync_floor(scratch, args.cards)
        rows.append(("-", f"bare `fdatasync` of a small overwrite in `{args.dir}` (the disk's floor)",
                     *distribution(floor)))
    load_after = os.getloadavg()[0]
    lines = ["| framing | measure | p50 | p99 | p99.9 | max |", "| --- | --- | --- | --- | --- | --- |"]
    lines += [f"| {framing} | {label} | {p50:.0f} µs | {p99:.0f} µs | {p999:.0f} µs | {worst:.0f} µs |"
              for framing, label, p50, p99, p999, worst in rows]
    table = "\n".join(lines)
    journal_p99 = [row[3] for row in rows if row[1] == LABELS["prompt", "reserved"]]
    if journal_p99:
        verdict = "meets" if max(journal_p99) < TARGET_P99_US else "MISSES"
        table += (f"\n\nJournal on, p99 {max(journal_p99):.0f} µs at worst: {verdict} the "
                  f"{TARGET_P99_US:.0f} µs target. The durable commit costs about one `fdatasync` of the disk "
                  "(its bare one is in the last row); WAL checkpoints and the journal's checkpoint records run "
                  "after the prompt, not inside the card's commit. Load average (1 min) "
                  f"{load_before:.1f} before, {load_after:.1f} after: the machine (2 cores, one disk) was shared "
                  "with other engineers' builds and tests while this ran.")
    print(table)
    if args.write:
        from benchmarks.report import write_section

        body = (f"{args.cards} cards per framing over a real pty, the shoe in another process sending one "
                "card at a time and waiting for the driver's acknowledgement (sent when the controller "
                "comes back for the next input). Journal on: the card and its events committed in one "
                f"transaction (WAL, `synchronous=FULL`) in `{args.dir}` before the prompt counts as shown, "
                "then the delivered mark and any checkpoint record due (`[journal] checkpoint_every`, and "
                f"new shoes), as the live path writes them; target p99 under {TARGET_P99_US:.0f} µs. Journal off "
                "and on measured one after the other in the same run.\n\n" + table + "\n\n" + SYSCALLS + "\n")
        write_section("Serial shoe latency", "python -m benchmarks.serial_latency --write", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Card-to-prompt latency of the serial shoe driver over a real pseudo-terminal.

Run: .venv/bin/python -m benchmarks.serial_latency [--cards N] [--write]

A shoe process owns the pty's master and sends ``--cards`` cards, one at a
time (stop-and-wait on the driver's acknowledgement), timing the moment it
writes each frame's last byte. The controller process reads them with
``SerialShoe`` and times (1) ``recv()`` returning the card and (2) the table
core (``controller.core.table.Table``) returning the events of that card, which hold
the next prompt for the dealer. Both processes read CLOCK_MONOTONIC
(``time.perf_counter_ns``), so the times compare across them.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import select
import statistics
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

    def __init__(self) -> None:
        from controller.core.machine import State
        from controller.core.table import Table

        self._table_class = Table
        self._state = State
        self.table: Any = None
        self._fresh()

    def _fresh(self) -> None:
        self.table = self._table_class()
        self.table.start()
        self._prepare()

    def _prepare(self) -> None:
        state = self.table.model.state
        if state in (self._state.NEW_SHOE, self._state.SHOE_CLOSED):
            self.table.handle(Input(InputKind.SHOE))
        elif state is self._state.ROUND_OVER:
            self.table.handle(Input(InputKind.NEXT))
        if self.table.model.state is self._state.HALTED:
            self._fresh()  # a card count from mixed shoes tripped a misdeal: start over

    def handle(self, item: Input) -> list[Any]:
        events: list[Any] = self.table.handle(item)
        return events

    def between(self) -> None:
        self._prepare()


def measure(framing: str, count: int, with_table: bool) -> dict[str, list[float]]:
    """Latencies in microseconds: ``recv`` and, with the table, ``prompt``."""
    codes = card_codes(count)
    context = multiprocessing.get_context("fork")
    conn, child = context.Pipe()
    shoe = context.Process(target=_shoe_side, args=(child, framing, codes), daemon=True)
    shoe.start()
    path = conn.recv()
    feed = TableFeed() if with_table else None
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
                feed.between()
        source.recv(0)  # acknowledge the last card
        sent: list[int] = conn.recv()
    conn.send(None)
    shoe.join(10)
    result = {"recv": [(r - s) / 1000 for s, r in zip(sent, received, strict=True)]}
    if prompted:
        result["prompt"] = [(p - s) / 1000 for s, p in zip(sent, prompted, strict=True)]
    return result


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--cards", type=int, default=1000, help="cards per framing (default 1000)")
    parser.add_argument("--write", action="store_true", help="write the section of docs/performance.md")
    args = parser.parse_args(argv)
    try:
        import controller.core.table  # noqa: F401
        with_table = True
    except ImportError:
        with_table = False
    rows = []
    for framing in ("line", "stx"):
        result = measure(framing, args.cards, with_table)
        for what, values in result.items():
            label = "frame's last byte → `recv()` returns" if what == "recv" else \
                "frame's last byte → table events (next prompt)"
            rows.append((framing, label, statistics.median(values), percentile(values, 0.99), max(values)))
    lines = ["| framing | measure | p50 | p99 | max |", "| --- | --- | --- | --- | --- |"]
    lines += [f"| {framing} | {label} | {p50:.0f} µs | {p99:.0f} µs | {worst:.0f} µs |"
              for framing, label, p50, p99, worst in rows]
    table = "\n".join(lines)
    print(table)
    if args.write:
        from benchmarks.report import write_section

        body = (f"{args.cards} cards per framing over a real pty, the shoe in another process sending one "
                "card at a time and waiting for the driver's acknowledgement (sent when the controller "
                "comes back for the next input).\n\n" + table + "\n")
        write_section("Serial shoe latency", "python -m benchmarks.serial_latency --write", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The archive's optional timing log (``croupier archive --timing PATH``): where a record's wait goes.

Off by default, and then free: the archive stamps nothing. On, each batch appends one JSON line to
PATH: the batch's size, when each of its messages was received (paho stamps every message on
receipt anyway), and when the batch reached each of :data:`STAGES`. All times are seconds of this
process's monotonic clock; ``"wall"`` and ``"clock"`` give the wall clock (seconds since the epoch)
and the monotonic clock at one instant, to compare with other processes' wall-clock times.
:func:`stage_waits` reads such a log back.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any

STAGES = ("taken", "decoded", "read", "judged", "written", "committed", "acknowledged")
"""A batch's stages, in order: taken from the inbox, messages decoded, the tables' locks taken and the
archived hashes and pending records read (one round trip), every record judged, the writes queued,
the writes done and the transaction committed (one round trip), the messages acknowledged to the broker."""


class BatchStamps:
    """The times one batch reached each stage (called with the stage's name)."""

    __slots__ = ("cpu", "times")

    def __init__(self) -> None:
        self.times: dict[str, float] = {"taken": time.monotonic()}
        self.cpu: dict[str, float] = {"taken": time.thread_time()}
        """The storing thread's own CPU time at each stage: the rest of a stage's time it waited (for
        the database, the broker, the GIL or a core)."""

    def __call__(self, stage: str) -> None:
        self.times[stage] = time.monotonic()
        self.cpu[stage] = time.thread_time()


class TimingLog:
    """Appends one JSON line a batch to a file (from any writer's thread)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] = path.open("a", encoding="utf-8")
        self._lock = threading.Lock()

    def batch(self, received: Sequence[float], stamps: BatchStamps) -> None:
        """Write one batch: its messages' receipt times and its stages' times."""
        line = {"wall": time.time(), "clock": time.monotonic(), "size": len(received),
                "received": [round(at, 6) for at in received],
                **{stage: round(at, 6) for stage, at in stamps.times.items()},
                "cpu": {stage: round(at, 6) for stage, at in stamps.cpu.items()}}
        text = json.dumps(line, separators=(",", ":")) + "\n"
        with self._lock:
            self._file.write(text)
            self._file.flush()

    def close(self) -> None:
        """Close the file."""
        self._file.close()


def read_batches(path: Path) -> list[dict[str, Any]]:
    """The batches of the timing log at ``path``, in order."""
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def stage_waits(batches: Iterable[dict[str, Any]]) -> dict[str, list[float]]:
    """Seconds each record spent before each stage since the one before it (``received`` to ``taken``
    first), one value per record, plus ``"received to committed"``; and one value per batch:
    ``"batch size"``, ``"batch wall"`` (taken to acknowledged) and ``"batch cpu"`` (the storing
    thread's CPU seconds in that span)."""
    waits: dict[str, list[float]] = {name: [] for name in ("batch size", "batch wall", "batch cpu", *STAGES,
                                                           "received to committed")}
    for batch in batches:
        if not all(stage in batch for stage in STAGES):
            continue
        waits["batch size"].append(float(batch["size"]))
        waits["batch wall"].append(batch["acknowledged"] - batch["taken"])
        waits["batch cpu"].append(batch["cpu"]["acknowledged"] - batch["cpu"]["taken"])
        for received in batch["received"]:
            before = received
            for stage in STAGES:
                waits[stage].append(batch[stage] - before)
                before = batch[stage]
            waits["received to committed"].append(batch["committed"] - received)
    return waits

"""Where a floor record's wait builds up: its arrival at a subscriber, and the CPU each part of the floor used.

:class:`Arrivals` is one more MQTT subscriber of the tables' ``journal`` topic (beside the archive):
the time each record first reaches it splits the latency from journal commit to archive commit into
the tables' and the broker's part (commit to receipt) and the archive's part (receipt to commit).
:class:`CpuSampler` reads ``/proc/PID/stat`` of every process of each part of the floor (the tables,
the broker, the archive, PostgreSQL) every half second, so the CPU of a process that ended or was
killed is still counted, and says which part kept the cores busy.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.subscribeoptions import SubscribeOptions

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
SAMPLE_SECONDS = 0.5


class Arrivals:
    """The wall-clock time each ``croupier/SITE/TABLE/journal`` record of one site first reached us."""

    def __init__(self, address: str, site: str) -> None:
        host, port = address.rsplit(":", 1)
        self.site = site
        self.lock = threading.Lock()
        self.first: dict[tuple[str, int], float] = {}
        self.subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-probe-{uuid.uuid4().hex[:8]}",
                                  protocol=mqtt.MQTTv5)
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = lambda *args: self.subscribed.set()
        self.client.on_message = self._on_message
        self.client.reconnect_delay_set(min_delay=1, max_delay=1)
        self.client.connect_async(host, int(port))
        self.client.loop_start()

    def _on_connect(self, client: mqtt.Client, *args: Any) -> None:
        client.subscribe(f"croupier/{self.site}/+/journal", options=SubscribeOptions(qos=1))

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        received = time.time()
        table = message.topic.split("/")[2]
        seq = _seq_of(bytes(message.payload))
        if seq is None:
            return
        with self.lock:
            self.first.setdefault((table, seq), received)

    def arrivals(self) -> dict[tuple[str, int], float]:
        """(table, seq) -> the first receipt's time (seconds since the epoch)."""
        with self.lock:
            return dict(self.first)

    def close(self) -> None:
        """Disconnect."""
        with contextlib.suppress(Exception):
            self.client.disconnect()
        self.client.loop_stop()


def _seq_of(payload: bytes) -> int | None:
    """The ``seq`` of a journal message, read without parsing its body (it comes first, as stored)."""
    head = payload[:40]
    marker = b'"seq":'
    at = head.find(marker)
    if at < 0:
        return None
    digits = head[at + len(marker):].lstrip().split(b",", 1)[0]
    return int(digits) if digits.isdigit() else None


class CpuSampler:
    """CPU seconds (user + system) of each named group of processes, sampled until :meth:`stop`."""

    def __init__(self, groups: dict[str, Callable[[], Iterable[int]]]) -> None:
        self.groups = groups
        self.seen: dict[str, dict[int, float]] = {name: {} for name in groups}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bench-cpu", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            self.sample()
            if self._stop.wait(SAMPLE_SECONDS):
                self.sample()
                return

    def sample(self) -> None:
        """Read every group's processes once."""
        for name, pids in self.groups.items():
            with contextlib.suppress(Exception):
                for pid in list(pids()):
                    seconds = cpu_seconds(pid)
                    if seconds is not None:
                        self.seen[name][pid] = max(seconds, self.seen[name].get(pid, 0.0))

    def stop(self) -> dict[str, float]:
        """Stop sampling; each group's CPU seconds."""
        self._stop.set()
        self._thread.join()
        return {name: sum(per_pid.values()) for name, per_pid in self.seen.items()}


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` (None when it is gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def children_of(parent: int | None) -> list[int]:
    """``parent`` and its direct children (PostgreSQL's backends are the postmaster's children)."""
    if parent is None:
        return []
    found = [parent]
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                found.append(int(entry.name))
    return found

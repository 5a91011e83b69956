"""Helpers for the archive tests: real journals, a publisher that plays a table's feed, the archive process."""

from __future__ import annotations

import functools
import json
import queue
import signal
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import psycopg
from paho.mqtt.enums import CallbackAPIVersion

from tests.inprocess import croupier_process, start_croupier

DEADLINE = 90.0
FIELDS = ("seq", "kind", "at", "body", "prev", "hash")


croupier = functools.partial(croupier_process, timeout=180)
"""Run ``croupier ARGS`` to its end, in a process of its own."""


def make_journal(path: Path, seed: int, rounds: int) -> Path:
    """A real journal: ``croupier simulate --seed SEED --rounds ROUNDS --journal PATH``."""
    run = croupier("simulate", "--seed", str(seed), "--rounds", str(rounds), "--quiet", "--journal", str(path))
    assert run.returncode == 0, run.stderr
    return path


def journal_records(path: Path) -> list[dict[str, Any]]:
    """The records of a journal exactly as stored in its SQLite ``records`` table."""
    with sqlite3.connect(path) as connection:
        rows = connection.execute(f"SELECT {', '.join(FIELDS)} FROM records ORDER BY seq").fetchall()
    return [dict(zip(FIELDS, row, strict=True)) for row in rows]


def publish(broker: str, site: str, table: str, records: list[dict[str, Any]], *,
            raw: list[bytes] | None = None) -> None:
    """Publish ``records`` (then any ``raw`` payloads) on croupier/SITE/TABLE/journal, QoS 1, as a table would."""
    payloads = [json.dumps(record).encode() for record in records] + list(raw or [])
    publish_on(broker, f"croupier/{site}/{table}/journal", payloads)


def publish_on(broker: str, topic: str, payloads: list[bytes], *, retain: bool = False) -> None:
    """Publish ``payloads`` on ``topic``, in order, QoS 1 (``retain``: as retained messages)."""
    host, port = broker.rsplit(":", 1)
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"test-publisher-{uuid.uuid4().hex[:8]}",
                         protocol=mqtt.MQTTv5)
    client.connect(host, int(port))
    client.loop_start()
    try:
        infos = [client.publish(topic, payload, qos=1, retain=retain) for payload in payloads]
        for info in infos:
            info.wait_for_publish(timeout=DEADLINE)
            assert info.is_published(), "the broker did not acknowledge a message"
    finally:
        client.disconnect()
        client.loop_stop()


def archived(database: str, site: str, table: str) -> list[dict[str, Any]]:
    """The archive's journal_records rows of one table, in order."""
    with psycopg.connect(database) as connection:
        rows = connection.execute(f"SELECT {', '.join(FIELDS)} FROM journal_records WHERE site = %s AND "
                                  "table_id = %s ORDER BY seq", (site, table)).fetchall()
    return [dict(zip(FIELDS, row, strict=True)) for row in rows]


def rejects(database: str, site: str) -> list[tuple[str, int | None, str]]:
    """(table, seq, reason) of the archive's rejected records of one site."""
    with psycopg.connect(database) as connection:
        rows = connection.execute("SELECT table_id, seq, reason FROM journal_rejects WHERE site = %s ORDER BY id",
                                  (site,)).fetchall()
    return [(str(table), seq, str(reason)) for table, seq, reason in rows]


def wait_for(condition: Any, what: str, seconds: float = DEADLINE) -> None:
    """Poll ``condition()`` until it is true; fail naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {seconds:.0f} s waiting for {what}")


class Archive:
    """A ``croupier archive`` process; its output lines are collected as they come."""

    def __init__(self, broker: str, database: str, *extra: str, client_id: str | None = None,
                 group: str | None = None, scheme: str = "mqtt", ready: bool = True) -> None:
        """``broker`` is ``[USER:PASSWORD@]HOST:PORT``; ``scheme`` mqtt or mqtts; ``ready``: wait until it
        archives (its ``archiving`` line)."""
        self.client_id = client_id or f"test-archive-{uuid.uuid4().hex[:8]}"
        # A group of its own: a stopped archive's session stays in its group and is given its share.
        # "" is a plain subscription (the default of croupier archive).
        self.group = group if group is not None else f"test-group-{uuid.uuid4().hex[:8]}"
        self.process = start_croupier("archive", "--broker", f"{scheme}://{broker}", "--db", database, "--client-id",
                                      self.client_id, "--session-expiry", "600", "--group", self.group, *extra)
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if ready:
            self.wait_line("archiving ")

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_line(self, prefix: str, seconds: float = DEADLINE) -> str:
        """The next output line that starts with ``prefix``."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None and self.lines.empty():
                    stderr = self.process.stderr.read() if self.process.stderr else ""
                    raise AssertionError(f"the archive exited ({self.process.returncode}): {stderr}") from None
                continue
            self.output.append(line)
            if line.startswith(prefix):
                return line
        raise AssertionError(f"no line {prefix!r} from the archive within {seconds:.0f} s: {self.output}")

    def stop(self, sig: int = signal.SIGTERM) -> tuple[int, str, str]:
        """Stop the archive with ``sig``; returns (exit status, the rest of stdout, stderr)."""
        self.process.send_signal(sig)
        self.process.wait(timeout=DEADLINE)
        self._reader.join(timeout=DEADLINE)
        rest = []
        while not self.lines.empty():
            rest.append(self.lines.get())
        self.output.extend(rest)
        stderr = self.process.stderr.read() if self.process.stderr else ""
        return self.process.returncode, "\n".join(rest), stderr


class Table:
    """A paced ``croupier simulate --journal J --feed URL`` process, dealing until stopped."""

    def __init__(self, journal: Path, feed: str, *, seed: int = 1, rounds: int = 2000, pace: float = 0.05,
                 env: dict[str, str] | None = None) -> None:
        import os

        self.journal = journal
        self.arguments = ["simulate", "--seed", str(seed), "--rounds", str(rounds), "--pace", str(pace), "--quiet",
                          "--journal", str(journal), "--feed", feed]
        self.process = start_croupier(*self.arguments, env={**os.environ, **(env or {})})

    def records(self) -> list[dict[str, Any]]:
        """The journal's records now."""
        return journal_records(self.journal) if self.journal.exists() else []

    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, str]:
        """Stop it (Ctrl+C: a clean stop); its exit status and stderr."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        _, stderr = self.process.communicate(timeout=DEADLINE)
        return self.process.returncode, stderr


def archived_keys(database: str, site: str, table: str) -> list[tuple[int, str]]:
    """(seq, hash) of every archived row of one table, in order (a duplicate would show twice)."""
    with psycopg.connect(database) as connection:
        rows = connection.execute("SELECT seq, hash FROM journal_records WHERE site = %s AND table_id = %s "
                                  "ORDER BY seq", (site, table)).fetchall()
    return [(int(seq), str(hash_)) for seq, hash_ in rows]


def holds_every_record(database: str, site: str, table: str, records: list[dict[str, Any]]) -> bool:
    """True when every record of ``records`` is archived, same seq and hash (one query)."""
    if not records:
        return True
    archived_now = dict(archived_keys(database, site, table)) if _has_archive(database) else {}
    return all(archived_now.get(int(record["seq"])) == record["hash"] for record in records)


def _has_archive(database: str) -> bool:
    with psycopg.connect(database) as connection:
        row = connection.execute("SELECT to_regclass('journal_records') IS NOT NULL").fetchone()
    return bool(row and row[0])


def assert_archived_exactly(database: str, site: str, table: str, records: list[dict[str, Any]]) -> None:
    """Every record of the journal archived once, field for field, and nothing else."""
    assert archived(database, site, table) == records, "the archive is not the journal, record by record"

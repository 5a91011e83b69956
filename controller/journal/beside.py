"""The whole journal replayed beside its chain check, on a second core (``croupier audit verify --replay``).

The two checks read the journal each on its own: the chain (:func:`~controller.journal.verify.verify`, here)
and the replay of every input into a fresh table (:func:`~controller.journal.replay.replay`, in a child process
forked at the start with a connection of its own). The child says only how many inputs it replayed, when every
event and checkpoint matched; whatever else happens (a fault, an error, a crash), the replay is run again here,
after the chain, so that what the audit says and how it exits are exactly what a replay after the chain says.
A broken chain is said as soon as it is found: the child is stopped then.

Where no child can be forked safely (no ``fork``, other threads in this process, or the live edge without its
compiled kernel, whose one-line notice belongs to this process) nothing runs beside, and :meth:`ReplayBeside.inputs`
replays here.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from types import TracebackType
from typing import Any

from controller.core.bets import kernel
from controller.journal.replay import replay, table_from_header
from controller.journal.store import Journal, canonical, parsed
from controller.journal.verify import Verified


class ReplayBeside:
    """A replay of ``journal`` from its first record, begun beside the caller's own work; a context manager that
    stops and reaps the child when left."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._child: tuple[int, int] | None = _fork_replay(journal.path) if _may_fork() else None

    @property
    def beside(self) -> bool:
        """A child process is replaying the journal."""
        return self._child is not None

    def inputs(self, verified: Verified) -> int:
        """The inputs replayed into a fresh table with the settings of ``verified``'s header, every event and
        checkpoint matching; raises what :func:`~controller.journal.replay.replay` raises (run here when the child
        did not replay it all, read another header, or replayed other records than ``verified`` counts: a running
        table wrote more since the chain was read)."""
        found = self._collect()
        if found is not None and found.get("header") == canonical(verified.header):
            inputs = found.get("inputs")
            if isinstance(inputs, int) and not isinstance(inputs, bool) and inputs == verified.inputs:
                return inputs
        return replay(self.journal, table_from_header(self.journal.path, verified.header), keep_events=False).inputs

    def _collect(self) -> dict[str, Any] | None:
        """What the child wrote once it ended (None: it failed, or none was forked)."""
        if self._child is None:
            return None
        pid, source = self._child
        self._child = None
        with os.fdopen(source, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(pid, 0)
        if status != 0:
            return None
        try:
            found = json.loads(data)
        except ValueError:
            return None
        return found if isinstance(found, dict) else None

    def __enter__(self) -> ReplayBeside:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        """Stop the child if it is still replaying (the chain broke, or the audit was interrupted) and reap it."""
        if self._child is not None:
            pid, source = self._child
            self._child = None
            os.close(source)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _may_fork() -> bool:
    """A child can be forked safely and replay as this process would: a POSIX system, no thread in this process
    but this one (a lock another thread holds would stay held in the child), and the compiled kernel (the pure
    Python path says so once, in this process's words)."""
    threading = sys.modules.get("threading")
    return hasattr(os, "fork") and (threading is None or threading.active_count() == 1) and kernel.compiled()


def _fork_replay(path: str) -> tuple[int, int] | None:
    """A child replaying the journal at ``path`` with a connection of its own; (its pid, the pipe it answers on),
    or None when it cannot be forked."""
    source, sink = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(source)
        os.close(sink)
        return None
    if pid:
        os.close(sink)
        return pid, source
    status = 1  # the child: it answers only when every input replayed and matched
    try:
        os.close(source)
        journal = Journal.open_existing(path)
        try:
            first = journal.record(1)
            header = parsed(first.body) if first is not None else None
            if isinstance(header, dict):
                found = replay(journal, table_from_header(path, header), keep_events=False)
                with os.fdopen(sink, "wb") as pipe:
                    pipe.write(json.dumps({"inputs": found.inputs, "header": canonical(header)}).encode())
                status = 0
        finally:
            journal.close()
    finally:
        os._exit(status)

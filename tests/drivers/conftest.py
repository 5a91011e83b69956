"""Helpers for driver tests over real pseudo-terminals, the shoe side in another process.

* :class:`EmulatorProcess` runs ``shoe-emulator`` in a subprocess and reads its
  ``PTY <path>`` line.
* :class:`RawShoe` owns a pty in a forked child process and writes / reads exact
  bytes on the test's command, for byte-level driver tests.

Both wait on events with timeouts; nothing sleeps blindly.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import select
import subprocess
import sys
import time
import tty
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
EMULATOR = [sys.executable, "-m", "controller.cli.shoe_emulator"]


def read_line(stream: Any, timeout: float) -> str:
    """One line from a pipe, or AssertionError after ``timeout`` seconds."""
    ready, _, _ = select.select([stream], [], [], timeout)
    assert ready, f"no line within {timeout}s"
    line: str = stream.readline()
    return line


class EmulatorProcess:
    """``shoe-emulator`` running in a subprocess."""

    def __init__(self, args: list[str], stdin: int | None = None) -> None:
        self.args = args
        self.process = subprocess.Popen(
            [*EMULATOR, *args], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=stdin if stdin is not None else subprocess.DEVNULL, text=True,
        )
        first = read_line(self.process.stdout, 10)
        assert first.startswith(("PTY ", "TCP ")), f"first line {first!r}; stderr: {self.stderr()}"
        self.kind, self.where = first.split()
        self.path = self.where

    def next_line(self, timeout: float = 10) -> str:
        return read_line(self.process.stdout, timeout)

    def wait(self, timeout: float = 10) -> int:
        return self.process.wait(timeout)

    def stderr(self) -> str:
        if self.process.poll() is None or self.process.stderr is None:
            return "(still running)"
        return self.process.stderr.read()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def emulator() -> Iterator[Callable[..., EmulatorProcess]]:
    """Start ``shoe-emulator`` processes; they are stopped after the test."""
    started: list[EmulatorProcess] = []

    def start(*args: str, stdin: int | None = None) -> EmulatorProcess:
        process = EmulatorProcess(list(args), stdin)
        started.append(process)
        return process

    yield start
    for process in started:
        process.stop()


# -- a raw pty shoe in a child process ---------------------------------------------
def _open_pty(link: str | None) -> tuple[int, int, str]:
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    if link:
        temporary = link + ".tmp"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        os.symlink(path, temporary)
        os.replace(temporary, link)
    return master, slave, link or path


class _RawShoeSide:
    """The shoe's end of a raw pty, run in a child process and driven by commands over a pipe."""

    def __init__(self, link: str | None) -> None:
        self.link = link
        self.master, self.slave, self.path = _open_pty(link)
        self.pending = b""

    def read_until(self, until: bytes, timeout: float) -> bytes | None:
        deadline = time.monotonic() + timeout
        while until not in self.pending:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.master], [], [], max(0.0, left)) if self.master >= 0 else ([], [], [])
            if not ready:
                break
            try:
                self.pending += os.read(self.master, 4096)
            except OSError:
                break
        if until not in self.pending:
            return None
        index = self.pending.index(until) + len(until)
        data, self.pending = self.pending[:index], self.pending[index:]
        return data

    def drain(self, quiet: float) -> bytes:
        data, self.pending = self.pending, b""
        if self.master >= 0:
            while select.select([self.master], [], [], quiet)[0]:
                try:
                    data += os.read(self.master, 4096)
                except OSError:
                    break
        return data

    def unplug(self) -> None:
        if self.link:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.link)
        os.close(self.master)
        os.close(self.slave)
        self.master = self.slave = -1
        self.pending = b""

    def replug(self) -> str:
        self.master, self.slave, self.path = _open_pty(self.link)
        return self.path


def _raw_shoe_main(conn: Connection, link: str | None) -> None:
    shoe = _RawShoeSide(link)
    conn.send(shoe.path)
    while True:
        command, *args = conn.recv()
        if command == "write":
            os.write(shoe.master, args[0])
            conn.send(None)
        elif command == "read":
            conn.send(shoe.read_until(*args))
        elif command == "drain":
            conn.send(shoe.drain(args[0]))
        elif command == "unplug":
            shoe.unplug()
            conn.send(None)
        elif command == "replug":
            conn.send(shoe.replug())
        elif command == "stop":
            conn.send(None)
            return


class RawShoe:
    """A pty whose master side lives in a child process and writes exactly what the test says."""

    def __init__(self, link: str | None = None) -> None:
        context = multiprocessing.get_context("fork")
        self._conn, child = context.Pipe()
        self.process = context.Process(target=_raw_shoe_main, args=(child, link), daemon=True)
        self.process.start()
        self.path: str = self._answer(10)

    def _answer(self, timeout: float) -> Any:
        assert self._conn.poll(timeout), "the raw shoe process did not answer"
        return self._conn.recv()

    def write(self, data: bytes) -> None:
        """Send bytes to the driver."""
        self._conn.send(("write", data))
        self._answer(10)

    def read_until(self, marker: bytes, timeout: float = 5.0) -> bytes | None:
        """Bytes from the driver up to and including ``marker``; None if it does not come in time."""
        self._conn.send(("read", marker, timeout))
        result: bytes | None = self._answer(timeout + 10)
        return result

    def drain(self, quiet: float = 0.1) -> bytes:
        """Everything the driver wrote, reading until it is quiet for ``quiet`` seconds."""
        self._conn.send(("drain", quiet))
        data: bytes = self._answer(30)
        return data

    def unplug(self) -> None:
        """Close the master: the driver's reads fail, as when the cable is pulled."""
        self._conn.send(("unplug",))
        self._answer(10)

    def replug(self) -> str:
        """A new pty (behind the same link, if any)."""
        self._conn.send(("replug",))
        self.path = self._answer(10)
        return self.path

    def stop(self) -> None:
        if self.process.is_alive():
            with contextlib.suppress(OSError, EOFError, AssertionError):
                self._conn.send(("stop",))
                self._answer(2)
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)


@pytest.fixture
def raw_shoe() -> Iterator[Callable[..., RawShoe]]:
    """Start :class:`RawShoe` children; stopped after the test."""
    started: list[RawShoe] = []

    def start(link: str | None = None) -> RawShoe:
        shoe = RawShoe(link)
        started.append(shoe)
        return shoe

    yield start
    for shoe in started:
        shoe.stop()

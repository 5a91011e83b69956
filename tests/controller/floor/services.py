"""A real Mosquitto and a real PostgreSQL for the floor tests, each started on a free port, stopped by PID.

``.ci/test`` starts both and exports where they are (``CROUPIER_TEST_MQTT=127.0.0.1:PORT``,
``CROUPIER_TEST_POSTGRES=postgresql://...``); run without it, the fixtures start their own. A missing
server skips the tests, except under CI (``CI`` set), where it fails them.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

PG_BIN = Path("/usr/lib/postgresql/15/bin")
START_SECONDS = 60.0


def unavailable(reason: str) -> None:
    """Skip, or fail under CI, where the floor tests must run."""
    if os.environ.get("CI"):
        pytest.fail(f"the floor tests must run under CI but {reason}")
    pytest.skip(reason)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_listening(port: int, pid_alive: object, seconds: float = START_SECONDS) -> None:
    """Wait until 127.0.0.1:``port`` accepts a connection (``pid_alive()`` False: fail at once)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        if callable(pid_alive) and not pid_alive():
            raise RuntimeError(f"the server for port {port} exited while starting")
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {seconds:.0f} s")


def stop_pid(pid: int, sig: int = signal.SIGTERM, seconds: float = START_SECONDS) -> None:
    """Send ``sig`` to ``pid`` and wait until it is gone (SIGKILL after ``seconds``)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)

MAX_QUEUED = 1_000_000
"""The floor's ``max_queued_messages`` (docs/floor.md): an archive briefly away loses nothing."""


class Mosquitto:
    """A Mosquitto of our own: persistent, on a free port (kept across restarts), stopped by PID."""

    def __init__(self, directory: Path, extra: str = "", port: int | None = None) -> None:
        self.directory = directory
        self.port = port or free_port()
        self.config = directory / "mosquitto.conf"
        (directory / "data").mkdir(parents=True, exist_ok=True)
        self.config.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
                               f"persistence_location {directory / 'data'}/\nlog_dest stderr\n"
                               # as root it would drop to "mosquitto": the user
                               f"max_queued_messages {MAX_QUEUED}\nuser {getpass.getuser()}\n{extra}")
        self.process: subprocess.Popen[bytes] | None = None
        self.log = directory / "mosquitto.log"

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not Path(binary).exists():
            unavailable("mosquitto is not installed (apt-get install -y mosquitto; .ci/setup --test installs it)")
        with self.log.open("ab") as log:
            self.process = subprocess.Popen([binary, "-c", str(self.config)], stdout=log, stderr=log)
        process = self.process
        wait_listening(self.port, lambda: process.poll() is None)

    def stop(self) -> None:
        """SIGTERM (Mosquitto saves its persistence file) and wait for it to exit."""
        process, self.process = self.process, None
        if process is None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=START_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=START_SECONDS)


class Postgres:
    """A PostgreSQL 15 server of our own (run as the ``postgres`` user when we are root)."""

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="croupier-pg-"))
        self.port = free_port()
        self.pid: int | None = None

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _as_postgres(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        if not (PG_BIN / "initdb").exists():
            unavailable(f"PostgreSQL 15 is not installed ({PG_BIN}; apt-get install postgresql)")
        data, sockets = self.directory / "data", self.directory / "sockets"
        sockets.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres", "postgres")
            shutil.chown(sockets, "postgres", "postgres")
        self._as_postgres(str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres")
        self._as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(data), "-w", "-l", str(self.directory / "log"), "-o",
                          f"-p {self.port} -k {sockets} -c listen_addresses=127.0.0.1", "start")
        self.pid = int((data / "postmaster.pid").read_text().split()[0])

    def stop(self) -> None:
        if self.pid is not None:
            stop_pid(self.pid, signal.SIGINT)  # fast shutdown
            self.pid = None
        shutil.rmtree(self.directory, ignore_errors=True)

"""A Mosquitto and a PostgreSQL of one's own, from their Debian binaries, on free ports of 127.0.0.1, stopped by PID.

``croupier floor up`` (a whole floor on one machine), the floor benchmark (``benchmarks/``) and the floor
tests (``tests/controller/floor/services.py``) start them this way: a server that is missing or does not
start raises :class:`ServerUnavailable` with what to install. PostgreSQL refuses to run as root: as root,
it is initialized and started as the ``postgres`` user (``runuser``), its directory owned by that user.
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

PG_BIN = Path("/usr/lib/postgresql/15/bin")
START_SECONDS = 60.0


class ServerUnavailable(RuntimeError):
    """A server the benchmark or a test needs is not installed or did not start."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_listening(port: int, process: subprocess.Popen[bytes] | None = None,
                   seconds: float = START_SECONDS) -> None:
    """Wait until 127.0.0.1:``port`` accepts a connection (``process`` exited: fail at once)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        if process is not None and process.poll() is not None:
            raise ServerUnavailable(f"the server for port {port} exited while starting (status {process.returncode})")
        time.sleep(0.05)
    raise ServerUnavailable(f"nothing listens on 127.0.0.1:{port} after {seconds:.0f} s")


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
"""The floor's ``max_queued_messages`` (docs/floor.md), unless a benchmark asks for another."""


class Mosquitto:
    """A persistent Mosquitto of our own on a free port, kept across restarts; stopped by PID."""

    def __init__(self, directory: Path, extra: str = "", max_queued: int = MAX_QUEUED,
                 port: int | None = None) -> None:
        self.directory = directory
        self.port = port or free_port()
        self.config = directory / "mosquitto.conf"
        (directory / "data").mkdir(parents=True, exist_ok=True)
        self.config.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
                               f"persistence_location {directory / 'data'}/\nlog_dest stderr\n"
                               # as root it would drop to "mosquitto": the user
                               f"max_queued_messages {max_queued}\nuser {getpass.getuser()}\n{extra}")
        self.log = directory / "mosquitto.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        """HOST:PORT."""
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start it and wait until it listens."""
        binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not Path(binary).exists():
            raise ServerUnavailable("mosquitto is not installed (apt-get install -y mosquitto; .ci/setup --test)")
        with self.log.open("ab") as log:
            self.process = subprocess.Popen([binary, "-c", str(self.config)], stdout=log, stderr=log)
        wait_listening(self.port, self.process)

    def stop(self) -> None:
        """SIGTERM (Mosquitto saves its persistence file and exits) and wait for it."""
        process, self.process = self.process, None
        if process is not None:
            stop_pid(process.pid)
            process.wait(timeout=START_SECONDS)

    def kill(self) -> None:
        """SIGKILL (a crash, an OOM kill, a power loss: nothing is saved since the last autosave) and wait."""
        process, self.process = self.process, None
        if process is not None:
            process.kill()
            process.wait(timeout=START_SECONDS)


class Postgres:
    """A PostgreSQL 15 server of our own (run as the ``postgres`` user when we are root), stopped by PID."""

    def __init__(self, settings: tuple[str, ...] = (), directory: Path | None = None) -> None:
        if directory is not None:
            directory.mkdir(parents=True)
        self.directory = directory or Path(tempfile.mkdtemp(prefix="croupier-bench-pg-"))
        self.port = free_port()
        self.settings = settings
        """Extra ``-c NAME=VALUE`` server settings."""
        self.pid: int | None = None

    def url(self, database: str = "postgres") -> str:
        """The URL of ``database`` on this server."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def _as_postgres(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        """initdb, then start it and wait until it accepts connections."""
        if not (PG_BIN / "initdb").exists():
            raise ServerUnavailable(f"PostgreSQL 15 is not installed ({PG_BIN}; apt-get install postgresql)")
        data, sockets = self.directory / "data", self.directory / "sockets"
        sockets.mkdir(exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres", "postgres")
            shutil.chown(sockets, "postgres", "postgres")
        try:
            self._as_postgres(str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres")
            self.resume()
        except subprocess.CalledProcessError as error:
            said = (error.stderr or b"").decode(errors="replace").strip().splitlines()
            raise ServerUnavailable(f"PostgreSQL did not start ({said[-1] if said else error}); see "
                                    f"{self.directory / 'log'}") from None

    def halt(self) -> None:
        """Fast shutdown (SIGINT), its files kept: :meth:`resume` starts it again on the same port."""
        if self.pid is not None:
            stop_pid(self.pid, signal.SIGINT)
            self.pid = None

    def resume(self) -> None:
        """Start it again after :meth:`halt` (same data, same port)."""
        data = self.directory / "data"
        options = " ".join([f"-p {self.port} -k {self.directory / 'sockets'} -c listen_addresses=127.0.0.1",
                            *(f"-c {setting}" for setting in self.settings)])
        self._as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(data), "-w", "-l", str(self.directory / "log"),
                          "-o", options, "start")
        self.pid = int((data / "postmaster.pid").read_text().split()[0])

    def stop(self) -> None:
        """Fast shutdown (SIGINT), then remove its files."""
        self.halt()
        shutil.rmtree(self.directory, ignore_errors=True)

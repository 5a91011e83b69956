"""Fixtures for the PC/SC tests: a real pcscd with vpcd's virtual readers, and virtual cards.

The ``pcscd`` fixture reuses a running pcscd that shows the vpcd readers
(``.ci/test`` starts one and names its PID file in ``TESTS_PCSCD_PIDFILE``);
otherwise it starts ``pcscd -f -i`` itself, waits for the readers by polling
``SCardListReaders`` against a deadline, and stops it by PID at the end of the
session. Each test holds a machine-wide lock while it uses pcscd, so test
sessions running at the same time take turns instead of colliding.

When pcscd, vpcd or pyscard is missing the tests skip, except when
``TESTS_REQUIRE_PCSC=1`` (set by ``.ci/test``): then they fail, because
in CI these tests must run.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.drivers.pcsc.vcard import VirtualCard  # noqa: E402

READER_A = "Virtual PCD 00 00"
"""vpcd's first reader; a virtual card reaches it on port 35963."""
PORT_A = 35963
READER_B = "Virtual PCD 00 01"
"""vpcd's second reader (port 35964): the badge reader in these tests."""
PORT_B = 35964
VPCD_CONFIG = Path("/etc/reader.conf.d/vpcd")
SYSTEM_PIDFILE = Path("/run/pcscd/pcscd.pid")
READY_SECONDS = 15.0
LOCK_PATH = Path("/tmp/croupier-pcsc-tests.lock")
LOCK_SECONDS = 240.0


def _unavailable(reason: str) -> None:
    if os.environ.get("TESTS_REQUIRE_PCSC") == "1":
        pytest.fail(f"PC/SC tests must run here (TESTS_REQUIRE_PCSC=1) but {reason}")
    pytest.skip(reason)


def _read_pid(path: Path) -> int | None:
    """The PID in a PID file (pcscd NUL-terminates its own), or None."""
    try:
        return int(path.read_text().replace("\0", " ").split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Pcscd:
    """The pcscd these tests talk to, and helpers that wait on its reader events."""

    def __init__(self, scard: Any, log_path: Path) -> None:
        self.scard = scard
        self.log_path = log_path
        self.pid: int | None = None
        self.owned = False
        """True when this fixture started pcscd (and so stops it)."""
        self.pidfile = Path(os.environ["TESTS_PCSCD_PIDFILE"]) if os.environ.get(
            "TESTS_PCSCD_PIDFILE") else None
        """The PID file .ci/test stops pcscd by; kept current across :meth:`restart`."""
        self._process: subprocess.Popen[bytes] | None = None
        self.failure: str | None = None
        """Why pcscd did not get ready this session; later tests fail with it at once instead of waiting again."""

    # -- state ------------------------------------------------------------------
    def readers(self) -> list[str] | None:
        """The reader names, or None when pcscd does not answer."""
        s = self.scard
        code, context = s.SCardEstablishContext(s.SCARD_SCOPE_USER)
        if code != s.SCARD_S_SUCCESS:
            return None
        try:
            code, readers = s.SCardListReaders(context, [])
            return list(readers) if code == s.SCARD_S_SUCCESS else []
        finally:
            s.SCardReleaseContext(context)

    def ready(self) -> bool:
        readers = self.readers()
        return readers is not None and READER_A in readers and READER_B in readers

    def wait_ready(self, timeout: float = READY_SECONDS) -> None:
        """Poll SCardListReaders until both vpcd readers show, or fail at the deadline.

        A failure names what pcscd answered and shows its log; it is remembered, so the session's
        later tests fail with it at once (see :meth:`ensure_running`).
        """
        if self.failure is not None:
            pytest.fail(self.failure, pytrace=False)
        deadline = time.monotonic() + timeout
        while not self.ready():
            if self._process is not None and self._process.poll() is not None:
                self._fail(f"pcscd exited with status {self._process.returncode}")
            if time.monotonic() > deadline:
                readers = self.readers()
                seen = "pcscd does not answer" if readers is None else f"pcscd shows readers {readers}"
                self._fail(f"pcscd showed no vpcd readers {READER_A!r} and {READER_B!r} within {timeout} s "
                           f"({seen}; vpcd config {VPCD_CONFIG})")
            time.sleep(0.02)

    def _fail(self, why: str) -> None:
        self.failure = f"{why}; {self._log()}"
        pytest.fail(self.failure, pytrace=False)

    def log_paths(self) -> list[Path]:
        """Where pcscd's output may be: this session's log, or the log .ci/test keeps next to its PID file."""
        paths = [self.log_path]
        if self.pidfile is not None:
            paths.append(self.pidfile.with_name(self.pidfile.name + ".log"))
        return paths

    def _log(self) -> str:
        for path in self.log_paths():
            with contextlib.suppress(OSError):
                return f"pcscd log {path}:\n" + path.read_text(errors="replace")[-3000:]
        tried = ", ".join(str(path) for path in self.log_paths())
        return (f"no pcscd log here ({tried}): pcscd was started elsewhere; "
                f"see its own log, e.g. journalctl -u pcscd")

    def wait_card(self, reader: str, present: bool, timeout: float = 10.0) -> None:
        """Block on SCardGetStatusChange until pcscd sees a card on ``reader`` (or none)."""
        s = self.scard
        code, context = s.SCardEstablishContext(s.SCARD_SCOPE_USER)
        assert code == s.SCARD_S_SUCCESS, s.SCardGetErrorMessage(code)
        try:
            deadline = time.monotonic() + timeout
            state = s.SCARD_STATE_UNAWARE
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"pcscd did not see {reader!r} {'with' if present else 'without'} "
                                         f"a card within {timeout} s")
                code, states = s.SCardGetStatusChange(context, int(left * 1000), [(reader, state)])
                if code == s.SCARD_S_SUCCESS:
                    state = states[0][1] & ~s.SCARD_STATE_CHANGED
                    if bool(state & s.SCARD_STATE_PRESENT) == present:
                        return
        finally:
            s.SCardReleaseContext(context)

    # -- lifecycle ---------------------------------------------------------------
    def ensure_running(self) -> None:
        """Make sure a pcscd showing the vpcd readers answers: ours, .ci/test's, another one, or a new one."""
        if self.pid is not None and _pid_alive(self.pid) and (
                self._process is None or self._process.poll() is None):
            self.wait_ready()
            return
        if self.failure is not None:
            pytest.fail(self.failure, pytrace=False)
        # Ours (or the one adopted) is gone: another test session stopped the one it had started.
        self.pid, self._process, self.owned = None, None, False
        if self.pidfile is not None:  # .ci/test started one; it may still be starting up
            pid = _read_pid(self.pidfile)
            if pid is not None and _pid_alive(pid):
                self.pid = pid
                self.wait_ready()
                return
        if self.ready():
            self.pid = _read_pid(SYSTEM_PIDFILE)
            return
        self.start()

    def start(self) -> None:
        """Start ``pcscd -f -i`` and wait for the vpcd readers."""
        binary = shutil.which("pcscd") or "/usr/sbin/pcscd"
        self.failure = None
        log = self.log_path.open("ab")
        self._process = subprocess.Popen([binary, "-f", "-i"], stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
        log.close()
        self.pid = self._process.pid
        self.owned = self.pidfile is None
        if self.pidfile is not None:
            self.pidfile.write_text(f"{self.pid}\n")
        self.wait_ready()

    def stop(self) -> None:
        """Stop pcscd by its PID and wait until it has exited."""
        pid = self.pid
        if pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        if self._process is not None and self._process.pid == pid:
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        else:
            while _pid_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.02)
            if _pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
        self.pid = None
        self._process = None

    @property
    def restartable(self) -> bool:
        """True when these tests may stop and restart pcscd (they or .ci/test started it)."""
        return self.pid is not None and (self.owned or self.pidfile is not None)

    def restart(self) -> None:
        self.stop()
        self.start()


@contextlib.contextmanager
def _exclusive(timeout: float = LOCK_SECONDS) -> Iterator[None]:
    """Hold a machine-wide lock: two test sessions sharing pcscd and vpcd's ports would collide."""
    with LOCK_PATH.open("a") as lock:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    pytest.fail(f"another test session held {LOCK_PATH} (the PC/SC tests) for {timeout} s")
                time.sleep(0.1)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def pcscd_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pcscd]:
    """The session's view of pcscd; stops it at the end if this session started it."""
    try:
        import smartcard.scard as scard
    except ImportError:
        _unavailable("pyscard is not installed (.ci/setup --test installs it)")
    if not VPCD_CONFIG.exists():
        _unavailable(f"vpcd is not installed ({VPCD_CONFIG} missing; apt install vsmartcard-vpcd)")
    daemon = Pcscd(scard, tmp_path_factory.mktemp("pcscd") / "pcscd.log")
    if not daemon.ready() and shutil.which("pcscd") is None and not Path("/usr/sbin/pcscd").exists():
        _unavailable("pcscd is not installed (apt install pcscd)")
    yield daemon
    if daemon.owned:
        with _exclusive():
            daemon.stop()


@pytest.fixture
def pcscd(pcscd_daemon: Pcscd) -> Iterator[Pcscd]:
    """A running pcscd showing the vpcd readers, held for this test alone.

    Reused when running (``.ci/test``'s, or another one), else started here and
    stopped by PID at the end of the session. The machine-wide lock keeps two
    test sessions from using pcscd and vpcd's ports at the same time.
    """
    with _exclusive():
        pcscd_daemon.ensure_running()
        yield pcscd_daemon


@pytest.fixture
def reader_a(pcscd: Pcscd) -> Iterator[str]:
    """Reader A, empty at the start and at the end of the test."""
    pcscd.wait_ready()
    pcscd.wait_card(READER_A, present=False)
    yield READER_A


@pytest.fixture
def reader_b(pcscd: Pcscd) -> Iterator[str]:
    """Reader B (the badge reader), empty at the start of the test."""
    pcscd.wait_ready()
    pcscd.wait_card(READER_B, present=False)
    yield READER_B


class Hand:
    """Presents virtual cards to a reader, waiting until pcscd has seen each move."""

    def __init__(self, pcscd: Pcscd, reader: str, port: int) -> None:
        self.pcscd = pcscd
        self.reader = reader
        self.port = port
        self.cards: list[VirtualCard] = []

    def card(self, uid: str = "04A1B2C3D4E5F6", **options: Any) -> VirtualCard:
        card = VirtualCard(uid, port=self.port, **options)
        self.cards.append(card)
        return card

    def present(self, card: VirtualCard) -> VirtualCard:
        """Insert ``card`` and wait until pcscd sees it."""
        card.insert()
        self.pcscd.wait_card(self.reader, present=True)
        return card

    def take_away(self, card: VirtualCard) -> None:
        """Remove ``card`` and wait until pcscd sees the reader empty."""
        card.remove()
        self.pcscd.wait_card(self.reader, present=False)

    def cleanup(self) -> None:
        for card in self.cards:
            card.remove()


@pytest.fixture
def hand_a(pcscd: Pcscd, reader_a: str) -> Iterator[Hand]:
    hand = Hand(pcscd, reader_a, PORT_A)
    yield hand
    hand.cleanup()


@pytest.fixture
def hand_b(pcscd: Pcscd, reader_b: str) -> Iterator[Hand]:
    hand = Hand(pcscd, reader_b, PORT_B)
    yield hand
    hand.cleanup()

"""``croupier run`` end to end with staff badges, against a real pcscd with vpcd.

The run is a subprocess (``python -m controller.cli.main run --json``) reading its
badges from ``[auth] reader`` = vpcd's reader B and, depending on the test,
its playing cards from vpcd's reader A (NFC-tagged virtual cards, so every card
arrives only when the test deals it) or from a ``mock://?script=FILE`` shoe.
Dealer inputs are typed on its stdin (plain console). Every step waits for the
event it causes in the JSON stream, against a deadline; nothing sleeps blindly.

Why cards come from reader A and not from a mock script in most tests:
``mock://?script`` hands its whole script to the table the moment the run
starts, before any badge can have been read (the badge feed reads a badge in
its own thread), so scripted cards always meet a table with no dealer signed in
(``no_dealer`` misdeals; :func:`test_scripted_cards_before_any_badge_are_no_dealer_misdeals`
pins that down). A ``@double`` cannot come from a PC/SC reader; the misdeal that
needs a supervisor's void here is a tag storing a code that is no card
(``unknown_card``, resolutions manual/burn/void, void and manual supervisor-only).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.drivers.pcsc.conftest import READER_A, READER_B, Hand, Pcscd
from tests.drivers.pcsc.vcard import VirtualCard
from tests.inprocess import CROUPIER, ROOT

pytestmark = pytest.mark.pcsc

ALICE = "04A1B2C3D4E5F6"
"""Alice Martin's dealer badge."""
BOB = "04B0B0B0B0B0B0"
"""Bob Stone's supervisor badge."""
STRANGER = "04DEADBEEF0001"
"""A badge nobody enrolled."""
CARDS_URL = f"pcsc://?reader={READER_A}&poll=20"
EVENT_SECONDS = 10.0
"""How long any one expected event may take (pcscd polls vpcd every 0.4 s)."""
STOP_SECONDS = 5.0

Event = dict[str, Any]


def write_config(tmp_path: Path, idle_signout_seconds: float = 0) -> Path:
    path = tmp_path / "croupier.toml"
    path.write_text(
        '[shoe]\nburn = "none"\n\n'
        f'[auth]\nenabled = true\nreader = "pcsc://?reader={READER_B}"\n'
        f"idle_signout_seconds = {idle_signout_seconds}\n\n"
        f'[auth.badges.{ALICE}]\nname = "Alice Martin"\nrole = "dealer"\n\n'
        f'[auth.badges.{BOB}]\nname = "Bob Stone"\nrole = "supervisor"\n',
        encoding="utf-8",
    )
    return path


class TableRun:
    """A ``croupier run --json`` subprocess whose events the test waits on, in order."""

    def __init__(self, config: Path, driver: str, *extra: str) -> None:
        env = {name: value for name, value in os.environ.items() if not name.startswith("CROUPIER_")}
        env["PYTHONUNBUFFERED"] = "1"
        self.events: list[Event] = []
        self.stderr: list[str] = []
        self.cursor = 0
        """Index in :attr:`events` after the last event a wait matched."""
        self._changed = threading.Condition()
        self.process = subprocess.Popen(
            [*CROUPIER, "run", "--config", str(config), "--driver", driver,
             "--json", "--auto-next", "--console", "plain", *extra],
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, bufsize=1,
        )
        self._threads = [threading.Thread(target=self._read_stdout, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for thread in self._threads:
            thread.start()

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                event = {"event": "(not json)", "line": line.rstrip("\n")}
            with self._changed:
                self.events.append(event)
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._changed:
                self.stderr.append(line.rstrip("\n"))
                self._changed.notify_all()

    def describe(self) -> str:
        shown = "\n".join(json.dumps(event) for event in self.events)
        return f"events so far:\n{shown}\nstderr:\n" + "\n".join(self.stderr)

    def wait_for(self, name: str, timeout: float = EVENT_SECONDS,
                 where: Callable[[Event], bool] | None = None, **fields: Any) -> Event:
        """The next event (after :attr:`cursor`) called ``name`` with these field values."""

        def matches(event: Event) -> bool:
            return (event.get("event") == name and all(event.get(k) == v for k, v in fields.items())
                    and (where is None or where(event)))

        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for index in range(self.cursor, len(self.events)):
                    if matches(self.events[index]):
                        self.cursor = index + 1
                        return self.events[index]
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                if self.process.poll() is not None and not any(t.is_alive() for t in self._threads[:1]):
                    break
                self._changed.wait(min(left, 0.2))
        status = self.process.poll()
        ended = f" (croupier run exited with {status})" if status is not None else ""
        pytest.fail(f"no {name} event {fields or ''} within {timeout} s{ended}; {self.describe()}")

    def wait_stderr(self, text: str, timeout: float = EVENT_SECONDS) -> str:
        """The first stderr line containing ``text``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self.stderr:
                    if text in line:
                        return line
                left = deadline - time.monotonic()
                if left <= 0:
                    pytest.fail(f"croupier run said nothing with {text!r} within {timeout} s; {self.describe()}")
                self._changed.wait(min(left, 0.2))

    def since(self, start: int) -> list[Event]:
        """The events from index ``start`` up to the cursor."""
        with self._changed:
            return list(self.events[start:self.cursor])

    def type(self, line: str) -> None:
        """Type a dealer input on the run's stdin."""
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def stop(self) -> None:
        """Interrupt the run (as Ctrl-C would), killing it if it does not stop; no process is left."""
        process = self.process
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=STOP_SECONDS)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()
        for thread in self._threads:
            thread.join(timeout=STOP_SECONDS)


@pytest.fixture
def start_run(hand_a: Hand, hand_b: Hand, tmp_path: Path) -> Any:
    """Start ``croupier run`` with the [auth] badge reader on reader B; stopped at the end."""
    runs: list[TableRun] = []

    def start(driver: str = CARDS_URL, idle_signout_seconds: float = 0) -> TableRun:
        run = TableRun(write_config(tmp_path, idle_signout_seconds), driver)
        runs.append(run)
        # The first instruction comes after the badge reader is being watched.
        run.wait_for("instruction", action="sign_in")
        return run

    try:
        yield start
    finally:
        for run in runs:
            try:
                run.stop()
            finally:
                if run.process.poll() is None:  # pragma: no cover - stop() kills it; never leave it running
                    run.process.kill()
                    run.process.wait()


class Dealer:
    """Deals NFC-tagged playing cards on reader A, one at a time, each seen by the table."""

    def __init__(self, run: TableRun, hand: Hand) -> None:
        self.run = run
        self.hand = hand
        self.serial = 0
        self.current: VirtualCard | None = None

    def show(self, code: str) -> None:
        """Put a tag storing ``code`` on reader A (left there until :meth:`take`)."""
        self.serial += 1
        self.current = self.hand.present(self.hand.card(f"04C0DE0000{self.serial:04X}", code=code))

    def take(self) -> None:
        assert self.current is not None
        self.hand.take_away(self.current)
        self.current = None

    def deal(self, code: str) -> Event:
        """Deal ``code``: wait for its card event, then take the tag away."""
        self.show(code)
        event = self.run.wait_for("card", card=code)
        self.take()
        return event


def empty_script(tmp_path: Path) -> str:
    """A mock shoe that deals nothing: the run then lives on badges and typed inputs alone."""
    script = tmp_path / "nothing.txt"
    script.write_text("# no cards\n", encoding="utf-8")
    return f"mock://?script={script}"


def sign_in(run: TableRun, hand_b: Hand, uid: str = ALICE, name: str = "Alice Martin") -> VirtualCard:
    badge = hand_b.present(hand_b.card(uid))
    event = run.wait_for("dealer_signed_in", uid=uid)
    assert event["name"] == name
    return badge


# -- the tests -------------------------------------------------------------------------

@pytest.mark.slow
def test_dealer_badge_signs_in_and_results_carry_the_dealer(start_run: Any, hand_a: Hand, hand_b: Hand) -> None:
    run = start_run()
    sign_in(run, hand_b)
    dealer = Dealer(run, hand_a)
    for code, slot in (("3S", "P1"), ("KD", "B1"), ("5H", "P2"), ("9C", "B2")):
        assert dealer.deal(code)["slot"] == slot
    result = run.wait_for("result")
    assert result["winner"] == "banker" and result["natural"] is True
    assert result["player"] == {"cards": ["3S", "5H"], "total": 8}
    assert result["banker"] == {"cards": ["KD", "9C"], "total": 9}
    assert result["dealer"] == {"name": "Alice Martin", "uid": ALICE, "role": "dealer"}
    assert not [e for e in run.events if e["event"] == "misdeal"], run.describe()


def test_presenting_the_dealer_badge_is_not_answered_with_a_rejection(
        start_run: Any, hand_b: Hand, tmp_path: Path) -> None:
    run = start_run(driver=empty_script(tmp_path))
    start = run.cursor
    sign_in(run, hand_b)
    run.wait_for("instruction", action="confirm_shoe")
    rejected = [e for e in run.since(start) if e["event"] == "rejected"]
    assert not rejected, run.describe()


@pytest.mark.slow
def test_void_waits_for_a_supervisor_badge(start_run: Any, hand_a: Hand, hand_b: Hand) -> None:
    run = start_run()
    alice = sign_in(run, hand_b)
    dealer = Dealer(run, hand_a)
    dealer.deal("3S")
    dealer.show("ZZ")  # a tag storing no card code
    misdeal = run.wait_for("misdeal", kind="unknown_card")
    dealer.take()
    assert misdeal["card"] == "ZZ" and misdeal["round"] == 1
    assert "void" in misdeal["resolutions"] and "void" in misdeal["supervisor"]
    assert misdeal["dealer"]["name"] == "Alice Martin"

    run.type("v")
    required = run.wait_for("approval_required")
    assert required["action"] == "void" and required["input"] == "@void"
    run.wait_for("instruction", action="approval")

    # One badge fits on the reader: the dealer takes hers away for the supervisor's.
    # While the approval is pending that does not sign her out.
    pending_from = run.cursor
    hand_b.take_away(alice)
    stranger = hand_b.present(hand_b.card(STRANGER))
    refused = run.wait_for("approval_refused")
    assert refused["reason"] == "unknown badge" and refused["action"] == "void"
    assert refused["uid"] == STRANGER
    hand_b.take_away(stranger)
    bob = hand_b.present(hand_b.card(BOB))
    approval = run.wait_for("approval")
    assert approval["action"] == "void" and approval["by"] == "Bob Stone" and approval["role"] == "supervisor"
    resolved = run.wait_for("resolved")
    assert resolved["resolution"] == "void" and resolved["approved_by"] == "Bob Stone"
    assert resolved["dealer"]["name"] == "Alice Martin"
    voided = run.wait_for("round_voided", round=1)
    assert voided["bets"] == "returned" and voided["cards"] == ["3S"]
    between = run.since(pending_from)
    assert not [e for e in between if e["event"] in ("dealer_signed_out", "dealer_signed_in")], run.describe()
    # Alice is still the dealer: the next round is dealt (the supervisor's badge still on the reader).
    assert bob.inserted
    assert dealer.deal("4H")["round"] == 2
    assert not [e for e in run.since(pending_from) if e["event"] == "misdeal"], run.describe()


@pytest.mark.slow
def test_removing_the_badge_signs_the_dealer_out(start_run: Any, hand_a: Hand, hand_b: Hand) -> None:
    run = start_run()
    alice = sign_in(run, hand_b)
    dealer = Dealer(run, hand_a)
    dealer.deal("3S")
    hand_b.take_away(alice)
    out = run.wait_for("dealer_signed_out")
    assert out == {"event": "dealer_signed_out", "name": "Alice Martin", "uid": ALICE, "reason": "badge removed"}
    run.wait_for("instruction", action="sign_in")
    # With nobody signed in, a card from the shoe halts the table.
    dealer.show("KD")
    misdeal = run.wait_for("misdeal", kind="no_dealer")
    dealer.take()
    assert misdeal["card"] == "KD" and misdeal["dealer"] is None


@pytest.mark.slow
def test_idle_dealer_is_signed_out(start_run: Any, hand_b: Hand, tmp_path: Path) -> None:
    run = start_run(driver=empty_script(tmp_path), idle_signout_seconds=1)
    sign_in(run, hand_b)
    out = run.wait_for("dealer_signed_out", timeout=6)
    assert out["reason"] == "idle" and out["uid"] == ALICE


def test_scripted_cards_before_any_badge_are_no_dealer_misdeals(
        start_run: Any, hand_b: Hand, tmp_path: Path) -> None:
    script = tmp_path / "shoe.txt"
    script.write_text("3S KD\n", encoding="utf-8")
    run = start_run(driver=f"mock://?script={script}")
    misdeal = run.wait_for("misdeal", kind="no_dealer")
    assert misdeal["card"] == "3S" and misdeal["dealer"] is None and misdeal["resolutions"] == ["burn"]
    run.type("b")  # nobody is signed in: refused
    rejected = run.wait_for("rejected", input="@burn")
    assert "no dealer is signed in" in rejected["reason"]
    sign_in(run, hand_b)
    run.type("b")  # burning needs no supervisor
    resolved = run.wait_for("resolved", resolution="burn")
    assert resolved["cards"] == ["3S", "KD"] and resolved["dealer"]["name"] == "Alice Martin"
    assert "approved_by" not in resolved


@pytest.fixture
def restartable(pcscd: Pcscd) -> Iterator[Pcscd]:
    if not pcscd.restartable:
        pytest.skip("pcscd was started neither by these tests nor by .ci/test; not stopping it")
    yield pcscd
    if not pcscd.ready():
        pcscd.start()


def test_badge_reader_outage_signs_the_dealer_out(
        restartable: Pcscd, start_run: Any, hand_b: Hand, tmp_path: Path) -> None:
    run = start_run(driver=empty_script(tmp_path))
    alice = sign_in(run, hand_b)
    restartable.stop()  # pcscd goes away: the badge can no longer be seen
    out = run.wait_for("dealer_signed_out")
    assert out["uid"] == ALICE and out["reason"] == "badge removed"
    run.wait_for("instruction", action="sign_in")
    run.wait_stderr("pcscd")
    restartable.start()
    run.wait_stderr("is back")
    alice.closed.wait(5)  # vpcd went down with pcscd, and the badge with it
    hand_b.present(alice)
    run.wait_for("dealer_signed_in", uid=ALICE)


@pytest.mark.parametrize("driver", [f"pcsc://?reader={READER_B}", "pcsc://?reader=PCD 00 01"])
def test_badge_reader_that_is_also_the_card_reader_is_refused(
        reader_b: str, tmp_path: Path, driver: str) -> None:
    """One reader for both cards and badges would read every badge as a card (an unreadable card, a misdeal) and
    every card as a refused badge (a lockout after a few cards): the run refuses to start and says so."""
    run = TableRun(write_config(tmp_path), driver)
    try:
        assert run.process.wait(timeout=EVENT_SECONDS) == 2, run.describe()
        run.stop()
        said = "\n".join(run.stderr)
        assert f"'{READER_B}'" in said and "card reader" in said and driver in said, said
        assert "two different readers" in said, said
        assert not [e for e in run.events if e.get("event") == "dealer_signed_in"], run.describe()
    finally:
        run.stop()

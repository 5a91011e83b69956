"""Badge reader and ``croupier badges watch`` against a real pcscd with vpcd and virtual badges."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.cli.main import main
from controller.core.auth import AuthSettings, settings_from_dict
from controller.core.exceptions import ConfigError
from drivers.pcsc.badges import BadgeEvent, BadgeReader
from tests.drivers.pcsc.conftest import READER_A, READER_B, Hand
from tests.drivers.pcsc.vcard import DEFAULT_AID
from tests.inprocess import CROUPIER, ROOT

pytestmark = pytest.mark.pcsc

ALICE = "04A1B2C3D4E5F6"
STRANGER = "04DEADBEEF0001"
SELECT = "00A40400" + f"{len(DEFAULT_AID):02X}" + DEFAULT_AID.hex().upper()


def write_config(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "croupier.toml"
    path.write_text(
        f'[auth]\nenabled = true\nreader = "pcsc://?reader={READER_B}"\n{extra}\n'
        f'[auth.badges.{ALICE}]\nname = "Alice Martin"\nrole = "supervisor"\n'
    )
    return path


# -- BadgeReader ---------------------------------------------------------------------

def test_badge_presented_and_removed_by_uid(hand_b: Hand) -> None:
    with BadgeReader(READER_B, poll=0.02) as badges:
        assert badges.next_event(0) is None
        badge = hand_b.present(hand_b.card(ALICE))
        assert badges.next_event(5) == BadgeEvent("presented", READER_B, ALICE)
        hand_b.take_away(badge)
        assert badges.next_event(5) == BadgeEvent("removed", READER_B, ALICE)


def test_badge_identified_by_its_own_application(hand_b: Hand) -> None:
    settings = settings_from_dict({"identify": "apdu", "select_apdu": SELECT, "read_apdu": "00B0000000"})
    with BadgeReader.from_settings(settings, READER_B) as badges:
        badge = hand_b.present(hand_b.card(ALICE, badge_id="EMP-0042"))
        event = badges.next_event(5)
        assert event == BadgeEvent("presented", READER_B, b"EMP-0042".hex().upper())
        hand_b.take_away(badge)
        assert badges.next_event(5) == BadgeEvent("removed", READER_B, b"EMP-0042".hex().upper())
        # A badge without the application is unreadable, with the reason.
        hand_b.present(hand_b.card(STRANGER))
        event = badges.next_event(5)
        assert event is not None and event.kind == "unreadable" and "6A82" in event.message


def test_badge_taken_away_mid_read_says_so(hand_b: Hand) -> None:
    """A badge that leaves the field while its UID is read answers nothing: the reason says it left, not a
    status word that was never sent."""
    with BadgeReader(READER_B, poll=0.02) as badges:
        hand_b.present(hand_b.card(STRANGER, vanish_on_read=True))
        event = badges.next_event(5)
        assert event is not None and event.kind == "unreadable", event
        assert "FFCA000000" in event.message and "left the reader or stopped answering mid-read" in event.message
        assert "status nothing" not in event.message


def test_apdu_mode_defaults_to_get_data(hand_b: Hand) -> None:
    settings = settings_from_dict({"identify": "apdu", "select_apdu": SELECT})
    with BadgeReader.from_settings(settings, READER_B) as badges:
        hand_b.present(hand_b.card(ALICE, badge_id="X1"))
        assert badges.next_event(5) == BadgeEvent("presented", READER_B, "5831")
        assert bytes.fromhex("00CA010000") in hand_b.cards[0].apdus


def test_apdu_mode_needs_a_read_apdu() -> None:
    with pytest.raises(ConfigError, match="read_apdu"):
        BadgeReader(READER_B, identify="apdu")


def test_reader_from_settings_and_override(hand_b: Hand) -> None:
    settings = AuthSettings(reader=f"pcsc://?reader={READER_B}")
    with BadgeReader.from_settings(settings) as badges:
        assert badges.reader == READER_B
    with BadgeReader.from_settings(settings, READER_A) as badges:
        assert badges.reader == READER_A


# -- croupier badges watch ---------------------------------------------------------------

class Watch:
    """``croupier badges watch`` in a subprocess; its stdout read line by line as it flushes."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [*CROUPIER, "badges", "watch", *args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.err: list[str] = []
        threading.Thread(target=self._pump, args=(self.process.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.process.stderr, self.err.append), daemon=True).start()

    @staticmethod
    def _pump(stream: Any, put: Any) -> None:
        for line in stream:
            put(line.rstrip("\n"))

    def line(self, timeout: float = 10) -> str:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no output within {timeout} s; stderr: {self.err}") from None

    def wait(self, timeout: float = 10) -> int:
        return self.process.wait(timeout)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def watches() -> Iterator[list[Watch]]:
    started: list[Watch] = []
    yield started
    for watch in started:
        watch.close()


@pytest.mark.slow
def test_watch_json_contract(hand_b: Hand, tmp_path: Path, watches: list[Watch]) -> None:
    config = write_config(tmp_path)
    badge = hand_b.present(hand_b.card(ALICE))  # already lying there when the watch starts: reported
    watch = Watch("--reader", READER_B, "--json", "--count", "4", "--config", str(config))
    watches.append(watch)
    lines = [watch.line()]
    hand_b.take_away(badge)
    lines.append(watch.line())
    other = hand_b.present(hand_b.card(STRANGER.lower()))
    lines.append(watch.line())
    hand_b.take_away(other)
    lines.append(watch.line())
    assert watch.wait() == 0
    assert [json.loads(line) for line in lines] == [
        {"event": "badge_presented", "uid": ALICE, "reader": READER_B, "known": True},
        {"event": "badge_removed", "uid": ALICE, "reader": READER_B, "known": True},
        {"event": "badge_presented", "uid": STRANGER, "reader": READER_B, "known": False},
        {"event": "badge_removed", "uid": STRANGER, "reader": READER_B, "known": False},
    ]
    assert lines[0] == (f'{{"event": "badge_presented", "uid": "{ALICE}", "reader": "{READER_B}", '
                        '"known": true}')


def test_watch_human_mode_uses_the_configured_reader(hand_b: Hand, tmp_path: Path,
                                                     watches: list[Watch]) -> None:
    watch = Watch("--config", str(write_config(tmp_path)), "--count", "2")
    watches.append(watch)
    badge = hand_b.present(hand_b.card(ALICE))
    first = watch.line()
    hand_b.take_away(badge)
    second = watch.line()
    assert watch.wait() == 0
    assert "presented" in first and ALICE in first and "Alice Martin (supervisor)" in first
    assert "removed" in second and ALICE in second
    assert any(READER_B in line and "Ctrl-C" in line for line in watch.err)


@pytest.mark.slow
def test_watch_runs_until_ctrl_c_and_exits_0(hand_b: Hand, watches: list[Watch]) -> None:
    watch = Watch("--reader", READER_B, "--json")
    watches.append(watch)
    hand_b.present(hand_b.card(STRANGER))
    assert json.loads(watch.line()) == {"event": "badge_presented", "uid": STRANGER, "reader": READER_B,
                                        "known": False}
    watch.process.send_signal(signal.SIGINT)
    assert watch.wait() == 0


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ("colour = 1", ["auth.colour", "unknown key"]),
        ('identify = "face"', ["auth.identify", '"uid" or "apdu"', "'face'"]),
    ],
)
def test_watch_bad_config_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: str,
                                  words: list[str]) -> None:
    config = write_config(tmp_path, extra)
    assert main(["badges", "watch", "--config", str(config), "--count", "1"]) == 2
    err = capsys.readouterr().err
    for word in [str(config), *words]:
        assert word in err


def test_watch_bad_badge_key_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'[auth.badges.{ALICE}]\nname = "A"\nrole = "dealer"\npin = 1234\n')
    assert main(["badges", "watch", "--config", str(config)]) == 2
    assert f"auth.badges.{ALICE}.pin: unknown key" in capsys.readouterr().err


def test_watch_no_such_reader_exits_2(reader_b: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["badges", "watch", "--reader", "Front desk"]) == 2
    err = capsys.readouterr().err
    assert "no PC/SC reader 'Front desk'" in err and READER_A in err and READER_B in err


def test_watch_without_a_reader_says_how_to_name_one(reader_b: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["badges", "watch"]) == 2
    err = capsys.readouterr().err
    assert "--reader NAME" in err and READER_A in err and READER_B in err

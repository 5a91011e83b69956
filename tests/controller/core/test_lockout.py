"""Issue 29 item 5 (S2, S3): after ``[auth] lockout_after`` refused badges within ``lockout_window_seconds`` the
badge reader's approvals lock, a critical alert is raised, and only a supervisor's badge unlocks them; every refused
badge is an event with its UID. The core has no clock: a badge's time comes with its input."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import pytest

from config.loader import load_config
from controller.core.events import (
    AlertAcknowledgedEvent,
    AlertEvent,
    ApprovalEvent,
    ApprovalRefusedEvent,
    DealerSignedInEvent,
    Event,
    SignInRefusedEvent,
)
from controller.core.exceptions import ConfigError
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.snapshot import restore, snapshot
from controller.core.table import Table
from controller.journal.replay import settings_from_header
from tests.badges import auth_section

DEALER = "04A1B2C3D4E5F6"
SUPERVISOR = "04DEADBEEF0001"
STRANGERS = ["0411223301", "0411223302", "0411223303", "0411223304", "0411223305", "0411223306"]


def table_with(tmp_path: Path, extra: str = "") -> Table:
    path = tmp_path / "auth.toml"
    path.write_text('[shoe]\nburn = "none"\n\n' + auth_section(DEALER, SUPERVISOR, extra), encoding="utf-8")
    table = Table(load_config(path, environ={}))
    table.start()
    return table


def badge(uid: str, at: float | None = None) -> Input:
    return Input(InputKind.BADGE, uid, at=at)


Kind = TypeVar("Kind", bound=Event)


def of(events: list[Event], kind: type[Kind]) -> list[Kind]:
    return [event for event in events if isinstance(event, kind)]


def test_five_refused_badges_lock_the_reader_and_raise_a_critical_alert(tmp_path: Path) -> None:
    table = table_with(tmp_path)
    seen: list[Event] = []
    for number, uid in enumerate(STRANGERS[:4]):
        seen += table.handle(badge(uid, at=100.0 + number))
        assert not of(seen, AlertEvent), f"locked after {number + 1} refusals"
    fifth = table.handle(badge(STRANGERS[4], at=104.0))
    seen += fifth
    assert [event.uid for event in of(seen, SignInRefusedEvent)] == STRANGERS[:5]  # each refused badge, its UID
    alerts = of(fifth, AlertEvent)
    assert len(alerts) == 1
    alert = alerts[0]
    assert (alert.kind, alert.severity, alert.id) == ("badge_lockout", "critical", "A1")
    assert table.badges_locked

    # Locked: the dealer's own badge is refused with the reason, and counted nowhere else.
    refused = table.handle(badge(DEALER, at=105.0))
    assert not of(refused, DealerSignedInEvent)
    (locked,) = of(refused, SignInRefusedEvent)
    assert locked.uid == DEALER and "locked" in locked.reason
    assert table.authority is not None and table.authority.dealer is None

    # A supervisor's badge unlocks: the alert is acknowledged by the supervisor; the next badge signs in.
    unlocked = table.handle(badge(SUPERVISOR, at=106.0))
    (ack,) = of(unlocked, AlertAcknowledgedEvent)
    assert (ack.id, ack.kind, ack.by) == ("A1", "badge_lockout", SUPERVISOR)
    assert not table.badges_locked
    assert of(table.handle(badge(DEALER, at=107.0)), DealerSignedInEvent)


def test_refusals_older_than_the_window_do_not_count(tmp_path: Path) -> None:
    table = table_with(tmp_path)
    events: list[Event] = []
    for number, uid in enumerate(STRANGERS[:4]):
        events += table.handle(badge(uid, at=float(number)))
    events += table.handle(badge(STRANGERS[4], at=600.5))  # the first, at 0, is out of the 600 s window
    assert not of(events, AlertEvent) and not table.badges_locked
    events += table.handle(badge(STRANGERS[5], at=601.0))  # five within 600 s: 1, 2, 3, 600.5, 601
    assert [alert.kind for alert in of(events, AlertEvent)] == ["badge_lockout"]


def test_refused_approvals_count_too_and_a_locked_reader_approves_nothing(tmp_path: Path) -> None:
    table = table_with(tmp_path, "lockout_after = 3\nlockout_window_seconds = 60\n")
    events: list[Event] = []
    for item in parse_tokens(f"@badge {DEALER} @shoe 3S @double @void"):
        events += table.handle(item)
    assert table.pending_approval is not None
    for uid in (DEALER, STRANGERS[0], STRANGERS[1]):  # the dealer's own (two_person) and two unknown badges
        events += table.handle(badge(uid, at=10.0))
    assert len(of(events, ApprovalRefusedEvent)) == 3
    assert [alert.kind for alert in of(events, AlertEvent)] == ["badge_lockout"]
    assert table.badges_locked and table.pending_approval is not None
    events = table.handle(badge(SUPERVISOR, at=11.0))  # unlocks; approves nothing yet
    assert of(events, AlertAcknowledgedEvent) and not of(events, ApprovalEvent)
    assert table.pending_approval is not None
    assert of(table.handle(badge(SUPERVISOR, at=12.0)), ApprovalEvent)


def test_badges_without_a_time_count_as_one_moment(tmp_path: Path) -> None:
    """A script's ``@badge`` carries no time: its refusals all fall in the window."""
    table = table_with(tmp_path)
    events: list[Event] = []
    for uid in STRANGERS[:5]:
        events += table.handle(badge(uid))
    assert [alert.kind for alert in of(events, AlertEvent)] == ["badge_lockout"]


def test_the_lock_survives_a_snapshot(tmp_path: Path) -> None:
    table = table_with(tmp_path)
    for number, uid in enumerate(STRANGERS[:5]):
        table.handle(badge(uid, at=float(number)))
    assert table.badges_locked
    again = restore(table.settings, snapshot(table))
    assert again.badges_locked
    assert of(again.handle(badge(SUPERVISOR, at=9.0)), AlertAcknowledgedEvent)

    counted = table_with(tmp_path)
    for number, uid in enumerate(STRANGERS[:4]):
        counted.handle(badge(uid, at=float(number)))
    resumed = restore(counted.settings, snapshot(counted))
    assert [event.kind for event in of(resumed.handle(badge(STRANGERS[4], at=5.0)), AlertEvent)] == \
        ["badge_lockout"]


def test_lockout_after_zero_never_locks_and_is_what_an_older_journal_replays_with(tmp_path: Path) -> None:
    table = table_with(tmp_path, "lockout_after = 0\n")
    events: list[Event] = []
    for uid in STRANGERS:
        events += table.handle(badge(uid))
    assert not of(events, AlertEvent) and not table.badges_locked
    header = {"identity": {"settings": {"table": {}, "shoe": {}, "procedures": {}, "simulation": {}}},
              "extra": {"auth": {"enabled": True, "reader": "pcsc://?reader=X", "two_person": True}}}
    assert settings_from_header("old.journal", header).auth.lockout_after == 0


@pytest.mark.parametrize(("extra", "expected"), [
    ("lockout_after = -1\n", "auth.lockout_after: expected a whole number from 0"),
    ("lockout_window_seconds = 0\n", "auth.lockout_window_seconds: expected a number of seconds above 0"),
])
def test_bad_lockout_settings_are_one_clear_line(tmp_path: Path, extra: str, expected: str) -> None:
    with pytest.raises(ConfigError) as raised:
        table_with(tmp_path, extra)
    assert expected in str(raised.value)

"""controller.core.auth: badge settings from TOML, sign-in/out, idle sign-out and approvals."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.core.auth import (
    DEFAULT_SUPERVISOR_ONLY,
    Authority,
    AuthSettings,
    Badge,
    normalise_uid,
    settings_from_dict,
)
from controller.core.events import ApprovalRefusedEvent, decode_event
from controller.core.exceptions import ConfigError
from tests.typed_events import expect, plain

ALICE = "04A1B2C3D4E5F6"
BOB = "04B0B0B0B0B0B0"
STRANGER = "04FFFFFFFFFFFF"
OWN_VOID = "Bob Stone is the dealer signed in and cannot approve their own void; a second person's badge must " \
    "approve it"
UNKNOWN = {"reason": "unknown badge", "say": "unknown badge", "say_id": "auth.refused.unknown_badge", "say_params": {}}

CONFIG = f"""
[auth]
enabled = true
reader = "pcsc://?reader=Virtual PCD 00 01"
idle_signout_seconds = 600

[auth.badges.{ALICE}]
name = "Alice Martin"
role = "dealer"

[auth.badges."04:b0:b0:b0:b0:b0:b0"]
name = "Bob Stone"
role = "supervisor"
"""


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def settings(**overrides: Any) -> AuthSettings:
    data = tomllib.loads(CONFIG)["auth"]
    data.update(overrides)
    return settings_from_dict(data)


def test_defaults_without_a_section() -> None:
    s = settings_from_dict(None)
    assert s == AuthSettings()
    assert s.enabled is False and s.reader is None and s.identify == "uid"
    assert s.supervisor_only == list(DEFAULT_SUPERVISOR_ONLY)
    assert s.supervisor_only == ["void", "manual", "foreign_card", "close_shoe"]


def test_parses_the_documented_example() -> None:
    s = settings()
    assert s.enabled is True
    assert s.reader == "pcsc://?reader=Virtual PCD 00 01"
    assert s.idle_signout_seconds == 600.0
    assert s.badges == {
        ALICE: Badge(ALICE, "Alice Martin", "dealer"),
        BOB: Badge(BOB, "Bob Stone", "supervisor"),
    }
    assert s.badge("04 a1 b2 c3 d4 e5 f6") == s.badges[ALICE]
    assert s.badge("nonsense") is None


def test_badges_as_an_array_of_tables() -> None:
    s = settings_from_dict({"badges": [{"uid": "04aabb", "name": "Cy", "role": "supervisor"}]})
    assert s.badges == {"04AABB": Badge("04AABB", "Cy", "supervisor")}


def test_identify_apdu_normalises_hex_and_defaults_the_read() -> None:
    s = settings_from_dict({"identify": "apdu", "select_apdu": "00 a4 04 00 08 F0 43 52 4F 55 50 49 45"})
    assert s.select_apdu == "00A4040008F043524F55504945"
    assert s.read_apdu == "00CA010000"


@pytest.mark.parametrize(
    ("data", "names"),
    [
        ({"colour": "red"}, ["auth.colour", "unknown key", "enabled"]),
        ({"enabled": "yes"}, ["auth.enabled", "true or false", "'yes'"]),
        ({"enabled": True}, ["auth.reader", "pcsc://?reader=NAME"]),
        ({"reader": "serial:///dev/ttyUSB0"}, ["auth.reader", "pcsc://?reader=NAME", "serial:///dev/ttyUSB0"]),
        ({"identify": "face"}, ["auth.identify", '"uid" or "apdu"', "'face'"]),
        ({"read_apdu": "00CAZZ"}, ["auth.read_apdu", "hex", "'00CAZZ'"]),
        ({"select_apdu": "00A4"}, ["auth.select_apdu", "at least 4"]),
        ({"idle_signout_seconds": -1}, ["auth.idle_signout_seconds", ">= 0", "-1"]),
        ({"idle_signout_seconds": True}, ["auth.idle_signout_seconds", "True"]),
        ({"supervisor_only": "void"}, ["auth.supervisor_only", "list", "'void'"]),
        ({"supervisor_only": ["void", 3]}, ["auth.supervisor_only[1]", "3"]),
        ({"badges": 5}, ["auth.badges", "table of badges", "5"]),
        ({"badges": {"XYZ": {"name": "A", "role": "dealer"}}}, ["auth.badges.XYZ", "UID in hex", "'XYZ'"]),
        ({"badges": {ALICE: {"name": "A", "role": "boss"}}},
         [f"auth.badges.{ALICE}.role", "supervisor", "'boss'"]),
        ({"badges": {ALICE: {"name": "", "role": "dealer"}}}, [f"auth.badges.{ALICE}.name", "non-empty"]),
        ({"badges": {ALICE: {"name": "A", "role": "dealer", "pin": 1}}},
         [f"auth.badges.{ALICE}.pin", "unknown"]),
        ({"badges": {"04aa": {"name": "A", "role": "dealer"}, "04AA": {"name": "B", "role": "dealer"}}},
         ["04AA", "enrolled twice"]),
        ({"badges": [{"name": "A"}]}, ["auth.badges[0]", "uid"]),
    ],
)
def test_bad_config_names_key_expected_and_value(data: dict[str, Any], names: list[str]) -> None:
    with pytest.raises(ConfigError) as info:
        settings_from_dict(data)
    for name in names:
        assert name in str(info.value)


def test_helpers() -> None:
    assert normalise_uid("04:a1-b2 c3") == "04A1B2C3"
    with pytest.raises(ValueError):
        normalise_uid("04A")


def test_sign_in_and_out() -> None:
    authority = Authority(settings(), FakeClock())
    assert authority.dealer is None and authority.identity() is None
    assert plain(authority.sign_in(ALICE.lower())) == [
        {"event": "dealer_signed_in", "name": "Alice Martin", "uid": ALICE, "role": "dealer"}
    ]
    assert plain(authority.identity()) == {"name": "Alice Martin", "uid": ALICE, "role": "dealer"}
    assert authority.sign_in(ALICE) == []  # same dealer again
    assert plain(authority.sign_in(BOB)) == [
        {"event": "dealer_signed_out", "name": "Alice Martin", "uid": ALICE, "reason": "replaced"},
        {"event": "dealer_signed_in", "name": "Bob Stone", "uid": BOB, "role": "supervisor"},
    ]
    assert plain(authority.sign_out("badge")) == [
        {"event": "dealer_signed_out", "name": "Bob Stone", "uid": BOB, "reason": "badge"}
    ]
    assert authority.sign_out("badge") == []


def test_unknown_badge_cannot_sign_in() -> None:
    authority = Authority(settings(), FakeClock())
    assert plain(authority.sign_in(STRANGER)) == [
        {"event": "sign_in_refused", "uid": STRANGER, **UNKNOWN}
    ]
    assert authority.dealer is None


def test_idle_sign_out_uses_the_supplied_clock() -> None:
    clock = FakeClock()
    authority = Authority(settings(), clock)
    authority.sign_in(ALICE)
    assert authority.signed_in_at == 1000.0
    clock.now += 599
    assert authority.check_idle() == []
    authority.touch()
    clock.now += 599
    assert authority.idle_seconds() == 599
    assert authority.check_idle() == []
    clock.now += 1
    assert plain(authority.check_idle()) == [
        {"event": "dealer_signed_out", "name": "Alice Martin", "uid": ALICE, "reason": "idle"}
    ]
    assert authority.check_idle() == []


def test_idle_zero_means_never() -> None:
    clock = FakeClock()
    authority = Authority(settings(idle_signout_seconds=0), clock)
    authority.sign_in(ALICE)
    clock.now += 10**9
    assert authority.check_idle() == []


def test_approvals() -> None:
    authority = Authority(settings(), FakeClock())
    assert authority.needs_supervisor("void") and not authority.needs_supervisor("burn")
    assert plain(authority.approve(BOB, "void")) == (
        True, [{"event": "approval", "action": "void", "by": "Bob Stone", "uid": BOB, "role": "supervisor"}]
    )
    assert plain(authority.approve(ALICE, "void")) == (
        False, [{"event": "approval_refused", "action": "void", "uid": ALICE,
                 "reason": "role dealer cannot approve void", "say": "role dealer cannot approve void",
                 "say_id": "auth.refused.role", "say_params": {"role": "dealer", "action": "void"}}]
    )
    assert plain(authority.approve(ALICE, "burn")) == (
        True, [{"event": "approval", "action": "burn", "by": "Alice Martin", "uid": ALICE, "role": "dealer"}]
    )
    assert plain(authority.approve(STRANGER, "burn")) == (
        False, [{"event": "approval_refused", "action": "burn", "uid": STRANGER,
                 **UNKNOWN}]
    )
    assert authority.dealer is None  # approving does not sign anyone in


def test_the_dealer_signed_in_cannot_approve_their_own_input() -> None:
    authority = Authority(settings(), FakeClock())
    authority.sign_in(BOB)
    assert plain(authority.approve(BOB, "void")) == (
        False, [{"event": "approval_refused", "action": "void", "uid": BOB, "rule": "two_person",
                 "reason": OWN_VOID, "say": OWN_VOID, "say_id": "auth.refused.own",
                 "say_params": {"name": "Bob Stone", "action": "void"}}]
    )
    assert authority.approve(ALICE, "burn")[0] is True
    alone = Authority(settings(two_person=False), FakeClock())
    alone.sign_in(BOB)
    assert alone.approve(BOB, "void")[0] is True


def test_two_person_must_be_true_or_false() -> None:
    assert settings_from_dict({}).two_person is True
    with pytest.raises(ConfigError, match=r"^auth\.two_person: expected true or false .*, got 'yes'$"):
        settings_from_dict({"two_person": "yes"})


def test_supervisor_only_is_configurable() -> None:
    authority = Authority(settings(supervisor_only=["close_shoe"]), FakeClock())
    assert authority.approve(ALICE, "void")[0] is True
    assert authority.approve(ALICE, "close_shoe")[0] is False


@given(st.binary(min_size=1, max_size=10), st.sampled_from(["", ":", " ", "-"]), st.booleans())
def test_normalise_uid_accepts_any_spelling(uid: bytes, separator: str, lower: bool) -> None:
    text = separator.join(f"{byte:02x}" if lower else f"{byte:02X}" for byte in uid)
    assert normalise_uid(text) == uid.hex().upper()


@given(st.lists(st.tuples(st.sampled_from(["in", "out", "approve", "touch", "tick"]),
                          st.sampled_from([ALICE, BOB, STRANGER]),
                          st.sampled_from(["void", "burn", "manual"]),
                          st.floats(min_value=0, max_value=400)), max_size=30))
def test_authority_invariants(steps: list[tuple[str, str, str, float]]) -> None:
    clock = FakeClock()
    authority = Authority(settings(), clock)
    for op, uid, action, seconds in steps:
        if op == "in":
            events = authority.sign_in(uid)
            if uid == STRANGER:
                assert events == [decode_event({"event": "sign_in_refused", "uid": STRANGER, **UNKNOWN})]
            else:
                assert authority.dealer is not None and authority.dealer.uid == uid
        elif op == "out":
            authority.sign_out("badge")
            assert authority.dealer is None
        elif op == "approve":
            own = authority.dealer is not None and authority.dealer.uid == uid
            approved, answer = authority.approve(uid, action)
            assert len(answer) == 1
            assert approved == (not own and (uid == BOB or (uid == ALICE and action == "burn")))
            if own and uid == BOB:
                assert expect(answer[0], ApprovalRefusedEvent)["rule"] == "two_person"
            assert answer[0]["event"] == ("approval" if approved else "approval_refused")
        elif op == "touch":
            authority.touch()
        else:
            clock.now += seconds
            authority.check_idle()
        # Invariants: identity mirrors the dealer; nobody stays signed in past the idle limit.
        assert (authority.identity() is None) == (authority.dealer is None)
        idle = authority.idle_seconds()
        assert (idle is None) == (authority.dealer is None)
        if op == "tick" and idle is not None:
            assert idle < 600

"""Face-down dealing: each hand is revealed by the dealer, the result waits for the last reveal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from config.loader import load_config
from controller.app.runner import Runner
from controller.core.editions import EDITIONS
from controller.core.events import Event, decode_event
from controller.core.inputs import Input, InputKind, card_read, parse_tokens
from controller.core.misdeals import POLICIES
from controller.core.table import Table
from drivers.mock import MockShoe
from tests.badges import auth_section

REVEAL = Input(InputKind.REVEAL)
# P1 B1 P2 B2: player 2+3 = 5 draws; banker 4+2 = 6 draws on a player third card 6 -> P3 6, B3 KH.
THIRD_CARDS = ["2C", "4D", "3S", "2H", "6D", "KH"]
NATURAL = ["9S", "KD", "TH", "2C"]  # player 9: a natural


def face_down_table(reveal_confirm: str = "none", edition: int | None = None) -> Table:
    settings = load_config(environ={}, overrides={
        "shoe": {"burn": "none"}, "table": {"dealing": "face_down", "reveal_confirm": reveal_confirm}})
    table = Table(settings) if edition is None else Table(settings, EDITIONS[edition])
    table.start()
    table.handle(Input(InputKind.SHOE))
    return table


def feed(table: Table, *items: Input | str) -> list[Event]:
    events: list[Event] = []
    for item in items:
        events.extend(table.handle(card_read(item) if isinstance(item, str) else item))
    return events


def named(events: list[Event], name: str) -> list[Any]:
    return [event for event in events if event["event"] == name]


def test_cards_are_read_face_down_and_the_third_cards_wait_for_the_reveals() -> None:
    """A squeeze game (issue 28): both hands are revealed before the player's third card is called, the player's
    third card before the banker's; the result waits for the last reveal."""
    table = face_down_table()
    events = feed(table, *THIRD_CARDS[:4])
    assert [e["card"] for e in named(events, "card")] == THIRD_CARDS[:4]  # the surveillance view
    assert all(e["face_down"] is True for e in named(events, "card"))
    assert events[-1] == decode_event({"event": "instruction", "round": 1, "action": "reveal",
                          "say": "Reveal the next hand (@reveal): the third card is called after the reveals",
                          "say_id": "reveal.squeeze", "say_params": {}})
    revealed = named(feed(table, REVEAL), "revealed")
    step = feed(table, REVEAL)
    revealed += named(step, "revealed")
    assert [e["slot"] for e in named(step, "prompt")] == ["P3"]
    step = feed(table, THIRD_CARDS[4])
    assert not named(step, "prompt"), "the banker's card waits for the player's third card's reveal"
    step = feed(table, REVEAL)
    revealed += named(step, "revealed")
    assert [e["slot"] for e in named(step, "prompt")] == ["B3"]
    events = feed(table, THIRD_CARDS[5])
    assert not named(events, "result") and not named(events, "settlement")
    assert events[-1] == decode_event({"event": "instruction", "round": 1, "action": "reveal",
                          "say": "Reveal the next hand (@reveal): the result comes after the last reveal",
                          "say_id": "reveal.next", "say_params": {}})
    last = feed(table, REVEAL)
    revealed += named(last, "revealed")
    assert [(e["side"], e["slots"], e["cards"], e["total"]) for e in revealed] == [
        ("player", ["P1", "P2"], ["2C", "3S"], 5), ("banker", ["B1", "B2"], ["4D", "2H"], 6),
        ("player", ["P3"], ["6D"], 1), ("banker", ["B3"], ["KH"], 6)]
    assert all(set(e) == {"event", "round", "side", "slots", "cards", "total"} and e["round"] == 1
               for e in revealed)
    assert [e["event"] for e in last][:3] == ["revealed", "result", "settlement"]
    assert named(last, "result")[0]["winner"] == "banker"


def test_the_earlier_edition_dealt_every_card_before_the_reveals() -> None:
    table = face_down_table(edition=2)
    events = feed(table, *THIRD_CARDS)
    assert [e["card"] for e in named(events, "card")] == THIRD_CARDS
    assert not named(events, "result")
    for _ in range(3):
        assert not named(feed(table, REVEAL), "result")
    assert named(feed(table, REVEAL), "result")[0]["winner"] == "banker"


def test_the_player_hand_is_revealed_first_and_nothing_before_its_cards_are_down() -> None:
    table = face_down_table()
    assert named(feed(table, "2C", "4D", REVEAL), "rejected")[0]["reason"].startswith("no hand of this round")
    step = feed(table, "3S", REVEAL)
    assert named(step, "revealed")[0]["side"] == "player"
    assert named(feed(table, REVEAL), "rejected")  # the banker's second card is not down yet
    assert named(feed(table, "2H", REVEAL), "revealed")[0]["side"] == "banker"


def test_the_next_round_and_an_early_close_wait_for_the_reveals() -> None:
    table = face_down_table()
    feed(table, *NATURAL)
    refused = named(feed(table, Input(InputKind.NEXT)), "rejected")
    assert "round 1 is not revealed yet" in refused[0]["reason"]
    assert named(feed(table, Input(InputKind.CLOSE)), "rejected")
    events = feed(table, REVEAL, REVEAL, Input(InputKind.NEXT))
    assert named(events, "result")[0]["natural"] is True
    assert named(events, "round")[0]["round"] == 2


def test_a_cut_card_before_the_reveals_closes_the_shoe_only_after_the_result() -> None:
    settings = load_config(environ={}, overrides={
        "shoe": {"burn": "none", "cut_card": "this_round"}, "table": {"dealing": "face_down"}})
    table = Table(settings)
    table.start()
    events = feed(table, Input(InputKind.SHOE), *NATURAL[:3], Input(InputKind.CUT), NATURAL[3])
    assert named(events, "cut_card")[0]["last_round"] == 1
    assert not named(events, "shoe_closed") and table.view.state == "hands_down"
    events = feed(table, REVEAL, REVEAL)
    assert [e["event"] for e in events].index("result") < [e["event"] for e in events].index("shoe_closed")


def test_face_up_dealing_refuses_a_reveal() -> None:
    table = Table(load_config(environ={}, overrides={"shoe": {"burn": "none"}}))
    table.start()
    events = feed(table, Input(InputKind.SHOE), "2C", "4D", "3S", REVEAL)
    assert named(events, "rejected")[0]["reason"] == (
        'dealing is face up ([table] dealing = "face_up"): nothing to reveal')
    assert "face_down" not in named(events, "card")[0]


def test_a_keyed_total_must_match_the_shoe() -> None:
    table = face_down_table("total")
    feed(table, *THIRD_CARDS[:4])
    refused = named(feed(table, REVEAL), "rejected")[0]
    assert refused["reason"].startswith("key the total the PLAYER hand shows, e.g. '@reveal 7'")
    assert named(feed(table, Input(InputKind.REVEAL, "5")), "revealed")
    misdeal = named(feed(table, Input(InputKind.REVEAL, "3")), "misdeal")[0]
    assert misdeal["kind"] == "reveal_mismatch"
    assert misdeal["round"] == 1  # the round in play, whose hands are down (not the next one)
    assert "keyed 3 for the BANKER hand, the shoe read 6" in misdeal["detail"]
    assert misdeal["resolutions"] == ["void"] and misdeal["supervisor"] == ["void"]
    assert named(feed(table, Input(InputKind.REVEAL, "6")), "rejected")  # halted: resolve first
    voided = feed(table, Input(InputKind.VOID))
    assert named(voided, "round_voided")[0]["cards"] == ["2C", "3S", "4D", "2H"]
    assert not named(voided, "result")
    assert table.state.value == "round_over" and not table.result_due
    assert named(feed(table, Input(InputKind.NEXT)), "round")[0]["round"] == 2


def test_a_mismatch_on_a_hand_revealed_mid_round_voids_the_round_in_play() -> None:
    table = face_down_table("total")
    misdeal = named(feed(table, "2C", "4D", "3S", Input(InputKind.REVEAL, "9")), "misdeal")[0]
    assert "keyed 9 for the PLAYER hand, the shoe read 5" in misdeal["detail"]
    voided = named(feed(table, Input(InputKind.VOID)), "round_voided")[0]
    assert voided["cards"] == ["2C", "3S", "4D"]


def test_reveal_mismatch_is_a_supervisor_misdeal_in_the_policy_table() -> None:
    assert POLICIES["reveal_mismatch"].resolutions == ("void",)


@pytest.mark.parametrize("text, expected", [
    ("@reveal", [Input(InputKind.REVEAL)]),
    ("@reveal 7", [Input(InputKind.REVEAL, "7")]),
    ("@REVEAL 0 9S", [Input(InputKind.REVEAL, "0"), card_read("9S")]),
    ("@reveal 7H", [Input(InputKind.REVEAL), card_read("7H")]),
    ("@reveal 10", [Input(InputKind.REVEAL), card_read("10")]),
])
def test_reveal_tokens(text: str, expected: list[Input]) -> None:
    assert parse_tokens(text) == expected
    assert " ".join(item.token() for item in expected).lower() == text.lower()


@pytest.mark.parametrize("reveal_confirm", ["none", "total"])
def test_face_down_deals_the_same_game_as_face_up(reveal_confirm: str) -> None:
    """Two seeded shoes through the runner with the simulated dealer revealing: every result,
    settlement and shoe report as dealt face up, each after its round's last reveal."""
    def play(overrides: dict[str, Any]) -> list[Event]:
        stream: list[Event] = []
        table = Table(load_config(environ={}, overrides=overrides))
        runner = Runner(table, MockShoe("mock://?seed=9"), stream.extend, rounds=150, new_shoes=True,
                        auto_reveal=True)
        stream.extend(table.start())
        runner.run()
        assert runner.exit_status() == 0
        return stream

    face_up = play({})
    face_down = play({"table": {"dealing": "face_down", "reveal_confirm": reveal_confirm}})
    kept = ("result", "settlement", "shoe_closed", "round_voided", "misdeal")
    assert [e for e in face_down if e["event"] in kept] == [e for e in face_up if e["event"] in kept]
    assert len([e for e in face_up if e["event"] == "shoe_closed"]) >= 1
    last_reveal: dict[int, int] = {}
    for at, event in enumerate(face_down):
        if event["event"] == "revealed":
            last_reveal[event["round"]] = at
        elif event["event"] == "result":
            assert last_reveal[event["round"]] == at - 1
    assert not [e for e in face_down if e["event"] == "rejected"]


def test_with_badges_a_reveal_needs_the_dealer_and_voiding_a_mismatch_the_supervisor(tmp_path: Path) -> None:
    dealer, supervisor = "04A1B2C3D4E5F6", "04DEADBEEF0001"
    path = tmp_path / "auth.toml"
    path.write_text("""
[table]
dealing = "face_down"
reveal_confirm = "total"

[shoe]
burn = "none"

""" + auth_section(dealer, supervisor), encoding="utf-8")
    table = Table(load_config(path, environ={}))
    table.start()
    feed(table, *parse_tokens(f"@badge {dealer} @shoe 9S KD TH 2C"))
    feed(table, *parse_tokens("@sign_out"))
    refused = named(feed(table, Input(InputKind.REVEAL, "9")), "rejected")
    assert refused[0]["reason"] == "no dealer is signed in; present a dealer badge first"
    misdeal = named(feed(table, *parse_tokens(f"@badge {dealer} @reveal 9 @reveal 4")), "misdeal")[0]
    assert misdeal["kind"] == "reveal_mismatch" and misdeal["supervisor"] == ["void"]
    required = named(feed(table, Input(InputKind.VOID)), "approval_required")[0]
    assert required["action"] == "void"
    voided = feed(table, *parse_tokens(f"@badge {supervisor}"))
    assert named(voided, "round_voided")[0]["round"] == 1
    assert named(voided, "resolved")[0]["approved_by"] == "Bob Stone"


EXPOSED = Input(InputKind.EXPOSED)


@pytest.mark.parametrize("dealt", [THIRD_CARDS[:4], [*THIRD_CARDS[:4], REVEAL, REVEAL, THIRD_CARDS[4]], NATURAL],
                         ids=["both hands down", "player's third card down", "a natural down"])
def test_exposed_while_the_cards_wait_face_down_for_their_reveal_says_so(dealt: list[Input | str]) -> None:
    """'@exposed not accepted: no card of a round in progress to take back' while the round's cards waited face
    down for their reveal: a round was in progress. The refusal keeps its id (journals replay to the same events)."""
    table = face_down_table()
    feed(table, *dealt)
    (refusal,) = named(feed(table, EXPOSED), "rejected")
    assert (refusal["reason_id"], refusal.get("reason_params") or {}) == ("rejected.exposed.none", {})
    reason = refusal["reason"]
    assert "round in progress" not in reason, reason
    assert "face down for their reveal" in reason and "supervisor" in reason, reason
    assert table.misdeal is None and not named(feed(table, REVEAL), "rejected")

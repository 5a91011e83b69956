"""Issue 29 item 2 (R1, R3, R4): ``croupier recall PATH [--rounds N] [--json]`` replays the last rounds of a journal
step by step: each card in order with its slot, every third-card decision with the rule that made it, the result,
the payouts per bet, misdeals and their resolutions."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.controller.journal.forger import rewrite_body
from tests.inprocess import croupier_in_process


def recalled(*args: str) -> list[dict[str, Any]]:
    done = croupier_in_process("recall", *args)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def simulated(tmp_path: Path, *args: str) -> Path:
    path = tmp_path / "t.journal"
    done = croupier_in_process("simulate", *args, "--quiet", "--journal", str(path))
    assert done.returncode in (0, 4), done.stderr
    return path


def history_results(path: Path) -> list[dict[str, Any]]:
    done = croupier_in_process("history", str(path), "--json")
    return [event for event in map(json.loads, done.stdout.splitlines()) if event["event"] == "result"]


def test_the_last_ten_rounds_newest_last_each_as_the_table_dealt_it(tmp_path: Path) -> None:
    path = simulated(tmp_path, "--seed", "11", "--rounds", "14")
    rounds = recalled(str(path), "--rounds", "10", "--json")
    results = history_results(path)[-10:]
    assert [(entry["shoe"], entry["round"]) for entry in rounds] == [(r["shoe"], r["round"]) for r in results]
    for entry, result in zip(rounds, results, strict=True):
        assert entry["winner"] == result["winner"]
        assert entry["player"] == result["player"] and entry["banker"] == result["banker"]
        slots = {f"P{i + 1}": card for i, card in enumerate(result["player"]["cards"])}
        slots.update({f"B{i + 1}": card for i, card in enumerate(result["banker"]["cards"])})
        assert entry["cards"] == slots
        assert [step["slot"] for step in entry["order"]][:4] == ["P1", "B1", "P2", "B2"]
        assert set(entry["payouts"]) >= {"player", "banker", "tie"}
        decisions = {decision["hand"]: decision for decision in entry["decisions"]}
        if not result["natural"]:
            assert decisions["player"]["decision"] == ("draw" if "P3" in slots else "stand")
            assert decisions["player"]["rule"]
            assert decisions["banker"]["decision"] == ("draw" if "B3" in slots else "stand")
    assert recalled(str(path), "--json") == rounds, "ten rounds by default"
    assert len(recalled(str(path), "--rounds", "3", "--json")) == 3


def test_a_misdeal_and_its_resolution_are_recalled_and_a_halt_is_the_last_round(tmp_path: Path) -> None:
    path = simulated(tmp_path, "--no-burn", "--cards", "5H 2C 3C 4D 9S @double @void 8H 7C 6D 5S 9C @double")
    rounds = recalled(str(path), "--json")
    voided = next(entry for entry in rounds if entry["round"] == 2)
    assert voided["winner"] is None and voided["voided"] is True
    assert [misdeal["kind"] for misdeal in voided["misdeals"]] == ["two_cards"]
    assert [resolution["resolution"] for resolution in voided["resolutions"]] == ["void"]
    last = rounds[-1]
    assert last["round"] == 3 and last["unfinished"] is True and last["winner"] is None
    assert [misdeal["kind"] for misdeal in last["misdeals"]] == ["two_cards"] and last["resolutions"] == []
    assert last["cards"] == {"P1": "8H", "B1": "7C", "P2": "6D", "B2": "5S", "P3": "9C"}
    assert [(decision["hand"], decision["decision"]) for decision in last["decisions"]] == \
        [("player", "draw"), ("banker", "draw")], "player 4 draws; banker 2 draws on any third card"


def test_the_text_says_each_step_and_a_bad_count_is_one_line(tmp_path: Path) -> None:
    path = simulated(tmp_path, "--seed", "3", "--rounds", "2")
    done = croupier_in_process("recall", str(path))
    assert done.returncode == 0, done.stderr
    assert "RECALL" in done.stdout and "P1" in done.stdout and "B1" in done.stdout
    bad = croupier_in_process("recall", str(path), "--rounds", "0")
    assert bad.returncode == 2  # argparse's usage, then its one-line error naming the option
    assert bad.stderr.strip().splitlines()[-1] == "croupier recall: error: argument --rounds: expected 1 or more, got 0"
    missing = croupier_in_process("recall", str(tmp_path / "none.journal"))
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1


def test_an_exposed_call_taken_back_leaves_the_card_dealt_and_says_so(tmp_path: Path) -> None:
    path = simulated(tmp_path, "--no-burn", "--cards", "6C @exposed @undo 2D 3H 4S")
    history = croupier_in_process("history", str(path))
    said = next(line.strip() for line in history.stdout.splitlines() if line.strip().startswith("@undo:"))
    done = croupier_in_process("recall", str(path))
    assert done.returncode == 0, done.stderr
    assert "(undone)" not in done.stdout, "the card stays where it was dealt"
    assert "P1 6C  B1 2D  P2 3H  B2 4S" in done.stdout
    assert said == "@undo: Exposed call taken back: 6C stays in P1; play on"
    assert said in done.stdout, "recall says the exposed call was taken back, as history does"
    [entry] = recalled(str(path), "--json")
    assert entry["cards"]["P1"] == "6C" and not any(step["undone"] for step in entry["order"])


def test_a_hand_entered_card_taken_back_still_shows_as_undone(tmp_path: Path) -> None:
    path = simulated(tmp_path, "--no-burn", "--cards", "?? @manual 6C @undo @manual 9C 2D KH 4S")
    done = croupier_in_process("recall", str(path))
    assert done.returncode == 0, done.stderr
    assert "P1 6C* (undone)  P1 9C*" in done.stdout
    history = croupier_in_process("history", str(path))
    said = next(line.strip() for line in history.stdout.splitlines() if line.strip().startswith("@undo:"))
    assert said == "@undo: 6C taken back from P1: enter the card again"
    assert said in done.stdout
    [entry] = recalled(str(path), "--json")
    assert entry["cards"]["P1"] == "9C"


MISDEALS = ("5H 2C 3C 4C 6C 7C 9S 8H KD 2C 3S ?? @burn 4H 5D 6C 9D 2H @exposed @burn 3D 4D 5S 8C @double @void "
            "AS 2S 3S 4S 5S 6S @close")
"""A natural, an unreadable card burned, an exposed card burned, two cards together voided, a third-card round."""


def test_recall_in_another_language_words_kinds_details_resolutions_and_bets_as_history_does(tmp_path: Path) -> None:
    path = tmp_path / "m.journal"
    croupier_in_process("simulate", "--cards", MISDEALS, "--quiet", "--journal", str(path))
    korean = croupier_in_process("recall", str(path), "--lang", "ko", "--rounds", "6")
    assert korean.returncode == 0, korean.stderr
    history = croupier_in_process("history", str(path), "--lang", "ko").stdout
    assert "카드 두 장이 함께 슈에서 나왔습니다" in history
    for machine in ("two_cards", "unreadable_card", "exposed_card", "two cards left the shoe together",
                    "burn", "player_pair", "banker_pair", "player +1", "banker -1"):
        assert machine not in korean.stdout, machine
    assert "카드 두 장이 함께 슈에서 나왔습니다" in korean.stdout, "the misdeal's detail as history words it"
    spanish = croupier_in_process("recall", str(path), "--lang", "es", "--rounds", "6").stdout
    assert "+0,95" in spanish and "+0.95" not in spanish, "the locale's decimal sign"
    assert "jugador" not in spanish and "punto 3 banca 8" in spanish, "the glossary's punto"


@pytest.mark.parametrize(("lang", "mark"), [("ko", " (취소됨)"), ("ja", "（取り消し）"), ("es", " (retirada)")])
def test_a_card_taken_back_is_marked_in_the_language_asked(tmp_path: Path, lang: str, mark: str) -> None:
    path = simulated(tmp_path, "--no-burn", "--cards", "?? @manual 6C @undo @manual 9C 2D KH 4S")
    done = croupier_in_process("recall", str(path), "--lang", lang)
    assert done.returncode == 0, done.stderr
    assert f"P1 6C*{mark}  P1 9C*" in done.stdout, done.stdout
    assert "undone" not in done.stdout, done.stdout


@pytest.mark.parametrize("chained", [False, True], ids=["edited", "chain recomputed"])
def test_a_record_that_cannot_be_read_is_left_out_named_and_the_rest_recalled(tmp_path: Path, chained: bool) -> None:
    """``recall``'s exit statuses (1: the journal failed verification, recalled anyway): a record that cannot be
    read at all, early in the day, is named on stderr and left out as ``history`` leaves it out; the last rounds
    are still recalled (it had exited 2 recalling nothing: one damaged record hid every later round)."""

    path = simulated(tmp_path, "--seed", "5", "--rounds", "14")
    connection = sqlite3.connect(path)
    seq = next(seq for seq, body in connection.execute("SELECT seq, body FROM records WHERE kind = 'events'")
               if '"event":"result","round":2' in body)
    connection.close()
    rewrite_body(path, seq, '{"events":[{"event":"result",', chained)
    done = croupier_in_process("recall", str(path), "--json")
    assert done.returncode == 1, done.stderr
    assert f"{path}: record {seq}" in done.stderr and "Traceback" not in done.stderr
    rounds = [json.loads(line) for line in done.stdout.splitlines()]
    assert [entry["round"] for entry in rounds] == list(range(5, 15)), "the last ten rounds, recalled anyway"
    text = croupier_in_process("recall", str(path), "--rounds", "14")
    assert text.returncode == 1 and f"record {seq}" in text.stderr
    assert "RECALL" in text.stdout and "round 14" in text.stdout


def test_an_exposed_card_burned_is_marked_set_aside_beside_the_card_dealt_again(tmp_path: Path) -> None:
    """An exposed card burned leaves its slot and the slot is dealt again: recall lists both cards of that slot in the
    order read, the first marked as set aside (it is no card of the hand), never two cards in B1 side by side."""
    path = simulated(tmp_path, "--no-burn", "--cards", "2H 2S @exposed @burn 3D 4H 5C")
    done = croupier_in_process("recall", str(path))
    assert done.returncode == 0, done.stderr
    assert "P1 2H  B1 2S (set aside)  B1 3D  P2 4H  B2 5C" in done.stdout, done.stdout
    [entry] = recalled(str(path), "--json")
    assert entry["cards"] == {"P1": "2H", "B1": "3D", "P2": "4H", "B2": "5C"}
    assert [step["set_aside"] for step in entry["order"]] == [False, True, False, False, False]

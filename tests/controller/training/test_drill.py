"""The drill on the real table core: every tableau cell kind scored right and wrong, the rule named when
wrong, rejected non-words, the banker focus, pays and the report's numbers."""

from __future__ import annotations

import pytest

from config.loader import load_config
from controller.core.inputs import parse_tokens
from controller.core.table import Table
from controller.training.deal import TrainingDealError, dealt_rounds
from controller.training.drill import Drill
from controller.training.events import CallScoredEvent, TrainingEvent
from drivers.mock import MockShoe
from tests.controller.training import oracle
from tests.typed_events import plain

WRONG = {"natural": "draw", "draw": "stand", "stand": "draw", "player": "banker", "banker": "tie",
         "tie": "player"}


def drill_on(cards: str | None = None, rounds: int = 1, seed: int = 0, **options: bool) -> Drill:
    """A drill on a table with no burn dealing ``cards`` (or seeded shoes when None)."""
    settings = load_config(None, overrides={"shoe": {"burn": "none"}} if cards is not None else {})
    source = (MockShoe(f"mock://?seed={seed}", inputs=parse_tokens(cards)) if cards is not None
              else MockShoe(f"mock://?seed={seed}"))
    return Drill(dealt_rounds(Table(settings), source), rounds, **options)


def scored(events: list[TrainingEvent]) -> CallScoredEvent:
    first = events[0]
    assert isinstance(first, CallScoredEvent), events
    return first


def due_call(drill: Drill) -> str | None:
    """The kind of the call due now (None when none is)."""
    return None if drill.due is None else drill.due.call


def round_cards(player: list[str], banker: list[str]) -> str:
    """Deal order: P1 B1 P2 B2, then the third cards."""
    order = [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]
    return " ".join(order)


def banker_cells() -> list[tuple[int, int | None]]:
    return [(total, third) for total in range(8) for third in [None, *range(10)]]


def hands_for(banker_total: int, third: int | None) -> tuple[list[str], list[str]]:
    player = ["3S", "3H"] if third is None else ["AS", "2H", oracle.RANK_OF_VALUE[third] + "D"]
    banker = oracle.two_cards(banker_total, "C")
    if oracle.banker_call(banker, player[2] if third is not None else None) == "draw":
        banker.append("5C")
    return player, banker


@pytest.mark.parametrize(("banker_total", "third"), banker_cells())
@pytest.mark.parametrize("right", [True, False])
def test_every_banker_tableau_cell_is_scored(banker_total: int, third: int | None, right: bool) -> None:
    player, banker = hands_for(banker_total, third)
    drill = drill_on(round_cards(player, banker))
    opening = drill.start()
    assert [e["card"] for e in opening if e["event"] == "card"] == [player[0], banker[0], player[1], banker[1]]
    assert due_call(drill) == "player"
    after_player = drill.answer(oracle.player_call(player, banker), 1.0)
    shown = [e["card"] for e in after_player if e["event"] == "card"]
    assert shown == player[2:], "the player's third card is shown before the banker's call"
    assert due_call(drill) == "banker"
    expected = oracle.banker_call(banker, player[2] if third is not None else None)
    verdict = scored(drill.answer(expected if right else WRONG[expected], 2.0))
    assert verdict["expected"] == expected
    assert verdict["correct"] is right
    column = "player stood" if third is None else f"third card {third}"
    assert verdict["cell"] == f"banker {banker_total} / {column}"
    if right:
        assert "rule" not in verdict
    else:
        assert verdict["rule"].startswith(f"banker {banker_total} {'draws' if expected == 'draw' else 'stands'}")
        if third is not None:
            assert verdict["rule"].endswith(f"the third card was {third}")


def test_the_rule_is_said_as_a_dealer_learns_it() -> None:
    player, banker = hands_for(4, 6)
    drill = drill_on(round_cards(player, banker))
    drill.start()
    drill.answer("draw", 1.0)
    verdict = scored(drill.answer("stand", 1.0))
    assert verdict["rule"] == "banker 4 draws on the player's third card 2-7: the third card was 6"


@pytest.mark.parametrize("player_total", range(8))
def test_every_player_total_is_scored(player_total: int) -> None:
    player = oracle.two_cards(player_total, "S")
    banker = ["7C", "KC"]
    if player_total <= 5:
        player.append("KD")
    drill = drill_on(round_cards(player, banker))
    drill.start()
    expected = "draw" if player_total <= 5 else "stand"
    wrong = scored(drill.answer(WRONG[expected], 1.0))
    assert (wrong["expected"], wrong["correct"], wrong["cell"]) == (expected, False, f"player {player_total}")
    assert wrong["rule"] == (f"player {player_total} draws (the player draws on 0-5)" if expected == "draw"
                             else f"player {player_total} stands (the player stands on 6-7)")


@pytest.mark.parametrize(("player", "banker"), [(["4S", "4H"], ["2C", "3C"]), (["2S", "3H"], ["9C", "KC"]),
                                                (["9S", "KH"], ["8C", "TC"])])
def test_a_natural_is_called_and_ends_the_round(player: list[str], banker: list[str]) -> None:
    drill = drill_on(round_cards(player, banker))
    drill.start()
    verdict = scored(drill.answer("natural", 1.0))
    assert (verdict["expected"], verdict["correct"], verdict["cell"]) == ("natural", True, "natural")
    assert due_call(drill) == "winner", "no banker call after a natural"
    winner = scored(drill.answer(oracle.winner(player, banker), 1.0))
    assert winner["correct"] is True


@pytest.mark.parametrize(("player", "banker", "won"), [
    (["9S", "KH"], ["2C", "3C"], "player"),
    (["2S", "3H", "TD"], ["9C", "KC"], "banker"),
    (["4S", "4H"], ["8C", "KC"], "tie"),
])
def test_every_winner_is_scored(player: list[str], banker: list[str], won: str) -> None:
    drill = drill_on(round_cards(player, banker))
    drill.start()
    while drill.due is not None and drill.due.call != "winner":
        drill.answer(drill.due.expected.answer, 1.0)
    verdict = scored(drill.answer(WRONG[won], 1.0))
    assert (verdict["expected"], verdict["correct"]) == (won, False)
    assert verdict["rule"].endswith("a tie" if won == "tie" else f"{won} wins")


def test_pays_are_called_per_bet_with_commission() -> None:
    player, banker = ["2S", "3H", "TD"], ["9C", "9D"]
    drill = drill_on(round_cards(player, banker), payouts=True)
    drill.start()
    drill.answer("natural", 1.0)
    drill.answer("banker", 1.0)
    asked: dict[str, bool] = {}
    answers = {"player": "-1", "banker": "0.95", "tie": "-1", "player_pair": "-1", "banker_pair": "+8"}
    while drill.due is not None:
        assert drill.due.call == "pay"
        bet = drill.due.bet
        assert bet is not None
        asked[bet] = scored(drill.answer(answers[bet], 1.0))["correct"]
    assert asked == {"player": True, "banker": True, "tie": True, "player_pair": True, "banker_pair": False}
    assert drill.report_event()["missed_cells"] == [
        {"call": "pay", "cell": "banker_pair bet win", "wrong": 1, "calls": 1}]


def test_pays_are_the_houses_pay_tables() -> None:
    """docs/training.md: the pays the table settles: a house paying the tie 9 to 1 and the pairs 12 to 1 ([bets.pays])
    drills +9 and +12, what its table pays, not the catalogue's defaults."""
    settings = load_config(None, overrides={"shoe": {"burn": "none"}, "table": {"variant": "no_commission"},
                                            "bets": {"pays": {"tie": {"win": 9}, "player_pair": {"pair": 12},
                                                              "banker_no_commission": {"win_with_6": "0.25"}}}})
    tie = MockShoe("mock://?seed=0", inputs=parse_tokens(round_cards(["9S", "KH"], ["KD", "9C"])))
    pair_six = MockShoe("mock://?seed=0", inputs=parse_tokens(round_cards(["2S", "2H", "KD"], ["3C", "3D"])))
    expected = {}
    for source in (tie, pair_six):
        drill = Drill(dealt_rounds(Table(settings), source), 1, payouts=True)
        drill.start()
        while drill.due is not None and drill.due.call != "pay":
            drill.answer(drill.due.expected.answer, 1.0)
        while drill.due is not None:
            expected[(source is tie, drill.due.bet)] = drill.due.expected.answer
            drill.answer(drill.due.expected.answer, 1.0)
    assert expected[(True, "tie")] == "+9" and expected[(True, "player")] == "0"
    assert expected[(False, "player_pair")] == "+12" and expected[(False, "banker")] == "+0.25"


def test_a_word_outside_the_vocabulary_is_rejected_and_asked_again() -> None:
    drill = drill_on(round_cards(["3S", "3H"], ["7C", "KC"]))
    drill.start()
    for text in ("maybe", "banker", ""):
        events = drill.answer(text, 1.0)
        assert [e["event"] for e in events] == ["rejected", "call_due"]
        assert events[1] == {"event": "call_due", "round": 1, "call": "player"}
    assert drill.report.scored == []
    assert scored(drill.answer("Stand", 1.0))["correct"] is True


def test_the_banker_focus_drills_only_rounds_where_the_player_drew() -> None:
    drill = drill_on(rounds=12, seed=5, focus_banker=True)
    events = drill.start()
    while drill.due is not None:
        due = drill.due
        assert due.call in ("banker", "winner")
        events += drill.answer(due.expected.answer, 1.0)
    thirds = [e["round"] for e in events if e["event"] == "card" and e["slot"] == "P3"]
    assert thirds == list(range(1, 13))
    report = events[-1]
    assert report["event"] == "training_report"
    assert report["by_call"] == {"banker": {"calls": 12, "correct": 12, "wrong": 0},
                                 "winner": {"calls": 12, "correct": 12, "wrong": 0}}


def test_the_report_adds_up_a_known_drill() -> None:
    cards = " ".join([round_cards(["AS", "2H", "6D"], ["3C", "AC", "9C"]),   # player 3 draws; banker 4, third 6
                      round_cards(["AS", "2H", "6D"], ["3C", "AC", "9C"]),
                      round_cards(["4S", "4H"], ["2C", "3C"])])              # natural
    drill = drill_on(cards, rounds=3)
    drill.start()
    plan = [("draw", 1.0), ("stand", 2.0), ("player", 3.0),     # banker call wrong
            ("draw", 4.0), ("stand", 5.0), ("banker", 6.0),     # banker and winner wrong
            ("natural", 7.0), ("player", 10.0)]
    for text, seconds in plan:
        drill.answer(text, seconds)
    report = drill.report_event()
    assert drill.finished
    assert plain(report) == {
        "event": "training_report", "rounds": 3, "calls": 8, "correct": 5, "wrong": 3,
        "by_call": {"player": {"calls": 3, "correct": 3, "wrong": 0},
                    "banker": {"calls": 2, "correct": 0, "wrong": 2},
                    "winner": {"calls": 3, "correct": 2, "wrong": 1}},
        "missed_cells": [{"call": "banker", "cell": "banker 4 / third card 6", "wrong": 2, "calls": 2},
                         {"call": "winner", "cell": "player 9 / banker 3", "wrong": 1, "calls": 2}],
        "mean_seconds": 4.75, "p90_seconds": 10.0, "finished": True,
    }


def test_cards_that_stop_the_table_are_a_clear_error() -> None:
    with pytest.raises(TrainingDealError, match="unknown_card"):
        list(dealt_rounds(Table(load_config(None, overrides={"shoe": {"burn": "none"}})),
                          MockShoe("mock://", inputs=parse_tokens("AS 2H XX"))))


def test_cards_that_stop_the_table_mid_drill_end_it_with_its_report() -> None:
    """A misdeal in the cards ends the drill early: the calls made so far are reported, the error is kept."""
    drill = drill_on(f"{round_cards(['3S', '4C'], ['3H', '3C'])} AS 2H XX", rounds=3)
    drill.start()
    events = drill.answer("stand", 1.0) + drill.answer("stand", 1.0) + drill.answer("player", 1.0)
    report = events[-1]
    assert report["event"] == "training_report", events
    assert (report["calls"], report["correct"], report["finished"]) == (3, 3, False)
    assert drill.due is None and not drill.finished
    assert drill.stopped is not None and "unknown_card" in str(drill.stopped)


ROUND_ONE = round_cards(["3S", "4C"], ["3H", "3C"])  # player 7 and banker 6 stand: player wins
ROUND_TWO = round_cards(["AS", "2H", "6D"], ["3C", "AC", "9C"])


@pytest.mark.parametrize("offline", ["@offline @online", "@offline @online @online"])
def test_a_reader_offline_step_between_the_cards_waits_for_the_reader(offline: str) -> None:
    """The script takes the reader offline and back: the drill carries on as the table does, no misdeal."""
    drill = drill_on(f"{ROUND_ONE} {offline} {ROUND_TWO}", rounds=2)
    events = drill.start()
    while drill.due is not None:
        events += drill.answer(drill.due.expected.answer, 1.0)
    report = events[-1]
    assert (report["rounds"], report["wrong"], report["finished"]) == (2, 0, True), events
    assert drill.stopped is None


def test_a_reader_offline_mid_round_waits_for_the_reader() -> None:
    first, second, third, fourth, *rest = ROUND_TWO.split()
    drill = drill_on(" ".join([ROUND_ONE, first, second, "@offline", "@online", third, fourth, *rest]), rounds=2)
    events = drill.start()
    while drill.due is not None:
        events += drill.answer(drill.due.expected.answer, 1.0)
    assert (events[-1]["rounds"], events[-1]["finished"]) == (2, True), events


def test_a_reader_that_never_comes_back_ends_the_drill_with_its_report() -> None:
    drill = drill_on(f"{ROUND_ONE} @offline {ROUND_TWO}", rounds=2)
    events = drill.start()
    while drill.due is not None:
        events += drill.answer(drill.due.expected.answer, 1.0)
    assert events[-1]["event"] == "training_report" and events[-1]["finished"] is False
    assert drill.stopped is not None and "offline" in str(drill.stopped)


def test_a_pay_rule_is_a_sentence() -> None:
    player, banker = ["2S", "3H", "TD"], ["9C", "9D"]
    drill = drill_on(round_cards(player, banker), payouts=True)
    drill.start()
    drill.answer("natural", 1.0)
    drill.answer("banker", 1.0)
    rules: dict[str, str] = {}
    while drill.due is not None:
        bet = drill.due.bet
        assert bet is not None
        rules[bet] = str(scored(drill.answer("+100", 1.0)).get("rule"))
    assert rules["player"] == "the player bet loses (commission): -1"
    assert rules["banker"] == "the banker bet wins (commission): +0.95"
    assert rules["banker_pair"] == "the banker pair bet wins (commission): +11"


def test_a_long_drill_runs_on_into_the_next_shoe() -> None:
    drill = drill_on(rounds=130, seed=9)
    events = drill.start()
    while drill.due is not None:
        events += drill.answer(drill.due.expected.answer, 0.5)
    report = events[-1]
    assert report["event"] == "training_report"
    assert (report["rounds"], report["wrong"], report["finished"]) == (130, 0, True)
    assert report["calls"] == sum(e["event"] == "call_scored" for e in events)


def test_a_missed_pay_cell_is_worded_as_a_sentence_in_the_report() -> None:
    from controller.i18n.catalogue import Catalogue
    from controller.training.report import report_lines

    player, banker = ["2S", "3H", "TD"], ["9C", "9D"]
    drill = drill_on(round_cards(player, banker), payouts=True)
    drill.start()
    drill.answer("natural", 1.0)
    drill.answer("banker", 1.0)
    while drill.due is not None:
        drill.answer("+100", 1.0)
    english = "\n".join(report_lines(drill.report_event()))
    assert "pay: banker pair bet wins (1 of 1 wrong)" in english and "player bet loses" in english, english
    korean = "\n".join(report_lines(drill.report_event(), Catalogue("ko")))
    assert not any(word in korean for word in ("win", "lose", "push", "banker_pair")), korean

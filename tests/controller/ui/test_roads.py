"""The roads engine and ``croupier roads``.

Every expected road below was worked out by hand; the working is in the
comments (big-road columns are written as lengths, ``L = [..]``, and the
derived roads as R = red, b = blue). The rules (docs/roads.md):

* new column entry (c, 0): columns c-1 and c-1-k equal length → red, else blue;
* entry (c, r >= 1): column c-k has row r → red; length == r → blue; shorter → red;
* road k starts at the first entry at (k, 1) or (k+1, 0).
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cli import roads as roads_command
from controller.core.exceptions import CroupierError, RoadsInputError
from controller.ui.roads import (
    BLUE,
    RED,
    Result,
    ResultHistory,
    compute_roads,
    derived_road,
    layout_derived,
    layout_runs,
    parse_results,
    render_text,
    roads_from_events,
    roads_from_results,
    run_lengths,
)

if TYPE_CHECKING:
    from controller.core.events import Event
    from controller.core.table import Table

R, b = RED, BLUE


def colours(text: str) -> list[str]:
    """``"RRb"`` → ``["red", "red", "blue"]``."""
    return [RED if char == "R" else BLUE for char in text.replace(" ", "")]


def big(text: str) -> list[tuple[int, int, str, int]]:
    return [(e.col, e.row, e.winner, e.ties) for e in roads_from_results(text).big_road]


# --------------------------------------------------------------------------- bead plate


def test_bead_plate_fills_six_rows_column_by_column_with_ties() -> None:
    roads = roads_from_results("BPTBBPPT")
    assert [(bead.col, bead.row, bead.winner) for bead in roads.bead_plate] == [
        (0, 0, "B"), (0, 1, "P"), (0, 2, "T"), (0, 3, "B"), (0, 4, "B"), (0, 5, "P"),
        (1, 0, "P"), (1, 1, "T"),
    ]


def test_bead_plate_and_big_road_carry_pairs_and_naturals() -> None:
    roads = compute_roads([
        Result("B", banker_pair=True, natural=True),
        Result("T", player_pair=True),
        Result("P", player_pair=True, banker_pair=True),
    ])
    beads = roads.bead_plate
    assert (beads[0].banker_pair, beads[0].natural, beads[0].player_pair) == (True, True, False)
    assert beads[1].winner == "T" and beads[1].player_pair
    first, second = roads.big_road
    assert first.banker_pair and first.natural and not first.player_pair and first.ties == 1
    assert second.player_pair and second.banker_pair and not second.natural
    assert roads.counts.to_dict() == {"rounds": 3, "banker": 1, "player": 1, "tie": 1,
                                      "player_pair": 2, "banker_pair": 2, "natural": 1}
    assert roads.to_state()["big_road"][0]["natural"] is True


# --------------------------------------------------------------------------- big road


def test_big_road_new_column_when_winner_changes() -> None:
    assert big("BBPBPP") == [(0, 0, "B", 0), (0, 1, "B", 0), (1, 0, "P", 0), (2, 0, "B", 0),
                             (3, 0, "P", 0), (3, 1, "P", 0)]


def test_tie_chain_marks_previous_entry_and_does_not_break_a_run() -> None:
    # B T T P T B T T T B: the ties sit on the entry before them; B T B stays one column.
    assert big("BTTPTBTTTB") == [(0, 0, "B", 2), (1, 0, "P", 1), (2, 0, "B", 3), (2, 1, "B", 0)]
    assert big("BTB") == [(0, 0, "B", 1), (0, 1, "B", 0)]


def test_leading_ties_are_attached_to_the_first_entry() -> None:
    roads = roads_from_results("TTPTB")
    first = roads.big_road[0]
    # 2 ties before the first result + 1 after it: the cell shows 3 ties, 2 of them leading.
    assert (first.winner, first.ties, first.leading_ties) == ("P", 3, 2)
    assert roads.leading_ties == 2
    assert roads.big_road[1].leading_ties == 0
    assert sum(entry.ties for entry in roads.big_road) == "TTPTB".count("T")


def test_only_ties_leave_an_empty_big_road_but_keep_the_count() -> None:
    roads = roads_from_results("TTT")
    assert roads.big_road == ()
    assert roads.leading_ties == 3
    assert len(roads.bead_plate) == 3
    assert roads.big_eye_boy == roads.small_road == roads.cockroach_pig == ()


def test_long_dragon_turns_right_along_the_bottom_row() -> None:
    roads = roads_from_results("B" * 9 + "P")
    logical = [(e.col, e.row) for e in roads.big_road]
    shown = [(e.display_col, e.display_row) for e in roads.big_road]
    assert logical == [(0, r) for r in range(9)] + [(1, 0)]
    # rows 0-5 in column 0, then right along row 5; the P starts column 1 at the top.
    assert shown == [(0, r) for r in range(6)] + [(1, 5), (2, 5), (3, 5), (1, 0)]


def test_dragon_tail_turns_early_above_an_earlier_tail() -> None:
    # 8 B (tail on row 5 to column 2), then 7 P: column 1 goes down to row 4, finds
    # (1, 5) taken, so it turns right on row 4: (2, 4), (3, 4).
    roads = roads_from_results("B" * 8 + "P" * 7 + "B")
    shown = [(e.display_col, e.display_row) for e in roads.big_road]
    assert shown[:8] == [(0, r) for r in range(6)] + [(1, 5), (2, 5)]
    assert shown[8:15] == [(1, r) for r in range(5)] + [(2, 4), (3, 4)]
    assert shown[15] == (2, 0)
    assert [(e.col, e.row) for e in roads.big_road][8:] == [(1, r) for r in range(7)] + [(2, 0)]


def test_layout_skips_a_top_cell_taken_by_a_tail() -> None:
    # Stacked tails: run 0 turns on row 5 at (1, 5), run 1 on row 4 at (2, 4), ...,
    # run 5 (length 2, at column 5) finds (5, 1) taken and turns right on row 0 to
    # (6, 0). So run 6 cannot start at (6, 0): it starts at (7, 0); run 7 at (8, 0).
    laid = layout_runs([7, 6, 5, 4, 3, 2, 2, 1])
    cells = [cell for run in laid for cell in run]
    assert len(cells) == len(set(cells)), "no two entries share a cell"
    assert laid[0][-1] == (1, 5) and laid[1][-1] == (2, 4) and laid[4] == [(4, 0), (4, 1), (5, 1)]
    assert laid[5] == [(5, 0), (6, 0)]
    assert laid[6] == [(7, 0), (7, 1)]
    assert laid[7] == [(8, 0)]


# --------------------------------------------------------------------------- derived roads


def test_derived_roads_first_entries() -> None:
    # Big eye boy starts at (1,1) or (2,0); small road at (2,1) or (3,0); cockroach at (3,1) or (4,0).
    assert roads_from_results("BP").big_eye_boy == ()
    # B P P: (1,1): column 0 has length 1 == r → blue.
    assert list(roads_from_results("BPP").big_eye_boy) == colours("b")
    # B P B: (2,0) comes first: columns 1 and 0 both length 1 → red.
    assert list(roads_from_results("BPB").big_eye_boy) == colours("R")
    # B P B P: small road starts at (3,0): columns 2 and 0 equal (1, 1) → red.
    roads = roads_from_results("BPBP")
    assert list(roads.small_road) == colours("R") and roads.cockroach_pig == ()
    # B P B B: small road starts at (2,1): column 0 length 1 == r → blue.
    assert list(roads_from_results("BPBB").small_road) == colours("b")
    # B P B P B: cockroach starts at (4,0): columns 3 and 0 equal → red.
    assert list(roads_from_results("BPBPB").cockroach_pig) == colours("R")
    # B P B P P: cockroach starts at (3,1): column 0 length 1 == r → blue.
    assert list(roads_from_results("BPBPP").cockroach_pig) == colours("b")


def test_worked_example_with_leading_ties_and_a_long_dragon() -> None:
    # T T | B x8 | P P T P | B | P | B B | P P P
    # L = [8, 3, 1, 1, 2, 3]
    # Big eye boy (k=1), from (1,1):
    #   (1,1) col0 has row1 → R   (1,2) col0 has row2 → R
    #   (2,0) L1=3 vs L0=8 → b    (3,0) L2=1 vs L1=3 → b   (4,0) L3=1 vs L2=1 → R
    #   (4,1) L3=1 == 1 → b       (5,0) L4=2 vs L3=1 → b
    #   (5,1) col4 has row1 → R   (5,2) L4=2 == 2 → b
    # Small road (k=2), from (3,0):
    #   (3,0) L2=1 vs L0=8 → b    (4,0) L3=1 vs L1=3 → b   (4,1) L2=1 == 1 → b
    #   (5,0) L4=2 vs L2=1 → b    (5,1) L3=1 == 1 → b      (5,2) L3=1 < 2 → R
    # Cockroach pig (k=3), from (4,0):
    #   (4,0) L3=1 vs L0=8 → b    (4,1) col1 has row1 → R
    #   (5,0) L4=2 vs L1=3 → b    (5,1) L2=1 == 1 → b      (5,2) L2=1 < 2 → R
    roads = roads_from_results("TTBBBBBBBBPPTPBPBBPPP")
    assert [len(column) for column in roads.big_road_columns()] == [8, 3, 1, 1, 2, 3]
    assert roads.big_road[0].ties == 2 and roads.big_road[0].leading_ties == 2
    assert roads.big_road[9].ties == 1  # the second P of column 1
    assert list(roads.big_eye_boy) == colours("RR bbR b bRb")
    assert list(roads.small_road) == colours("bb b bbR")
    assert list(roads.cockroach_pig) == colours("bR bbR")


def test_worked_example_chop_and_streaks() -> None:
    # B B B P B B P P P B  → L = [3, 1, 2, 3, 1]
    # Big eye boy from (1,1)? column 1 has length 1, so it starts at (2,0):
    #   (2,0) L1=1 vs L0=3 → b    (2,1) col1 L=1 == 1 → b
    #   (3,0) L2=2 vs L1=1 → b    (3,1) col2 has row1 → R   (3,2) L2=2 == 2 → b
    #   (4,0) L3=3 vs L2=2 → b
    # Small road from (2,1):
    #   (2,1) col0 has row1 → R   (3,0) L2=2 vs L0=3 → b    (3,1) col1 L=1 == 1 → b
    #   (3,2) L1=1 < 2 → R        (4,0) L3=3 vs L1=1 → b
    # Cockroach from (4,0) ((3,1) comes earlier!): (3,1) col0 has row1 → R
    #   (3,2) col0 has row2 → R   (4,0) L3=3 vs L0=3 → R
    roads = roads_from_results("BBBPBBPPPB")
    assert list(roads.big_eye_boy) == colours("bb bRb b")
    assert list(roads.small_road) == colours("R bbR b")
    assert list(roads.cockroach_pig) == colours("RR R")


def test_worked_example_of_the_docs() -> None:
    # docs/roads.md: B B P P P B P B B P P B, L = [2, 3, 1, 1, 2, 2, 1] (table there).
    roads = roads_from_results("BBPPPBPBBPPB")
    assert [len(column) for column in roads.big_road_columns()] == [2, 3, 1, 1, 2, 2, 1]
    assert list(roads.big_eye_boy) == colours("RbbbRbbRR")
    assert list(roads.small_road) == colours("bbbbbb")
    assert list(roads.cockroach_pig) == colours("bRbbb")


def test_ties_do_not_change_derived_roads() -> None:
    plain = roads_from_results("BBBPBBPPPB")
    tied = roads_from_results("TBTBBTPBTBPPTTPB")
    assert (tied.big_eye_boy, tied.small_road, tied.cockroach_pig) == (
        plain.big_eye_boy, plain.small_road, plain.cockroach_pig)


def test_derived_road_long_dragon_compares_logical_columns() -> None:
    # B x8 then P x8: big eye boy (1,1)..(1,7) all have a row in column 0 → 7 red;
    # then B: L1=8 vs L0=8 → red.
    roads = roads_from_results("B" * 8 + "P" * 8 + "B")
    assert list(roads.big_eye_boy) == [RED] * 8
    # P x9 after B x8: (1,8) column 0 has length 8 == 8 → blue.
    assert roads_from_results("B" * 8 + "P" * 9).big_eye_boy[-1] == BLUE


def test_derived_road_rejects_k_zero() -> None:
    with pytest.raises(ValueError):
        derived_road([1, 2], 0)


def _reference_derived(text: str, k: int) -> list[str]:
    """An independent formulation on a cell grid, to cross-check :func:`derived_road`.

    A new column asks "would the previous column, continued one more cell, find
    column c-1-k ending level with it?"; a cell below asks "are the cells at rows
    r and r-1 of column c-k alike (both filled or both empty)?".
    """
    cells: set[tuple[int, int]] = set()
    entries: list[tuple[int, int]] = []
    col, row, last = -1, 0, ""
    for letter in text:
        if letter == "T":
            continue
        if letter == last:
            row += 1
        else:
            col, row = col + 1, 0
        last = letter
        cells.add((col, row))
        entries.append((col, row))
    started = False
    out: list[str] = []
    for c, r in entries:
        started = started or (c == k and r >= 1) or c >= k + 1
        if not started:
            continue
        if r == 0:
            depth = max(row for cc, row in cells if cc == c - 1) + 1
            other = c - 1 - k
            level = (other, depth - 1) in cells and (other, depth) not in cells
            out.append(RED if level else BLUE)
        else:
            alike = ((c - k, r) in cells) == ((c - k, r - 1) in cells)
            out.append(RED if alike else BLUE)
    return out


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="BPT", max_size=80))
def test_derived_roads_match_a_grid_formulation(text: str) -> None:
    roads = roads_from_results(text)
    assert list(roads.big_eye_boy) == _reference_derived(text, 1)
    assert list(roads.small_road) == _reference_derived(text, 2)
    assert list(roads.cockroach_pig) == _reference_derived(text, 3)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="BPT", max_size=120))
def test_road_invariants(text: str) -> None:
    roads = roads_from_results(text)
    assert len(roads.bead_plate) == len(text)
    assert len(roads.big_road) == len(text.replace("T", ""))
    assert sum(entry.ties for entry in roads.big_road) + (
        roads.leading_ties if not roads.big_road else 0) == text.count("T")
    shown = [(entry.display_col, entry.display_row) for entry in roads.big_road]
    assert len(shown) == len(set(shown)) and all(0 <= row < 6 for _, row in shown)
    for name in ("big_eye_boy", "small_road", "cockroach_pig"):
        marks = roads.derived(name)
        laid = layout_derived(marks)
        assert len(laid) == len(set(laid)) == len(marks)
    assert run_lengths("BBPB") == [2, 1, 1]


# --------------------------------------------------------------------------- events


def result_event(round_number: int, winner: str, **flags: Any) -> dict[str, Any]:
    return {"event": "result", "round": round_number, "winner": winner,
            "player": {"cards": ["AS", "7H"], "total": 8}, "banker": {"cards": ["TH", "2C"], "total": 2},
            "natural": False, "player_pair": False, "banker_pair": False, **flags}


def test_roads_from_events_void_and_correction_are_exact() -> None:
    events = [
        {"event": "prompt", "round": 1, "slot": "P1", "to": "player", "say": "Card to PLAYER"},
        result_event(1, "banker"),
        result_event(2, "player", natural=True),
        result_event(3, "tie"),
        result_event(4, "player"),
        {"event": "round_voided", "round": 4},
        {"event": "round_voided", "round": 99},  # never recorded: nothing happens
        result_event(5, "banker", banker_pair=True),
        result_event(2, "banker"),  # a correction of round 2
    ]
    roads = roads_from_events(events)
    assert roads == roads_from_events([
        result_event(1, "banker"), result_event(2, "banker"), result_event(3, "tie"),
        result_event(5, "banker", banker_pair=True)])
    assert [e.winner for e in roads.bead_plate] == ["B", "B", "T", "B"]
    assert big_from(roads) == [(0, 0, "B", 0), (0, 1, "B", 1), (0, 2, "B", 0)]
    assert roads.big_road[2].banker_pair
    assert [result.round for result in roads.results] == [1, 2, 3, 5]


def big_from(roads: Any) -> list[tuple[int, int, str, int]]:
    return [(e.col, e.row, e.winner, e.ties) for e in roads.big_road]


def test_a_new_shoe_starts_new_roads() -> None:
    history = ResultHistory()
    assert history.apply(result_event(1, "banker"))
    assert not history.apply({"event": "shoe_closed", "rounds": 1})
    assert len(history.roads().bead_plate) == 1  # the closed shoe stays shown
    history.apply(result_event(1, "player"))
    assert [e.winner for e in history.roads().bead_plate] == ["P"]
    assert history.apply({"event": "new_shoe"})
    assert history.results == ()
    history.apply(result_event(1, "banker"))
    history.apply({"event": "shoe_closed"})
    assert history.apply({"event": "shoe", "cards_left": 10})  # the next shoe begins
    assert history.results == ()


def test_bad_result_event_is_named() -> None:
    with pytest.raises(RoadsInputError, match=r"round 7.*'dragon'.*'banker', 'player' or 'tie'"):
        roads_from_events([{"event": "result", "round": 7, "winner": "dragon"}])


# --------------------------------------------------------------------------- parsing and command


def test_parse_results_names_position_and_expected_letters() -> None:
    assert [r.winner for r in parse_results("bp t")] == ["B", "P", "T"]
    with pytest.raises(RoadsInputError) as caught:
        parse_results("BPXB")
    assert "position 3" in str(caught.value) and "'X'" in str(caught.value)
    assert "B (banker), P (player) or T (tie)" in str(caught.value)
    assert isinstance(caught.value, CroupierError)


def run_roads(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="croupier")
    subparsers = parser.add_subparsers(dest="command", required=True)
    roads_command.register(subparsers)
    args = parser.parse_args(argv)
    status: int = args.handler(args)
    return status


def test_roads_command_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_roads(["roads", "--results", "BPPTB", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig"):
        assert key in data
    assert data["big_road"] == [
        {"col": 0, "row": 0, "winner": "B", "ties": 0},
        {"col": 1, "row": 0, "winner": "P", "ties": 0},
        {"col": 1, "row": 1, "winner": "P", "ties": 1},
        {"col": 2, "row": 0, "winner": "B", "ties": 0},
    ]
    # (1,1): column 0 length 1 == 1 → blue; (2,0): L1=2 vs L0=1 → blue.
    assert data["big_eye_boy"] == ["blue", "blue"]
    assert data["small_road"] == [] and data["cockroach_pig"] == []
    assert [bead["winner"] for bead in data["bead_plate"]] == list("BPPTB")


def test_roads_command_logical_columns_before_the_turn(capsys: pytest.CaptureFixture[str]) -> None:
    run_roads(["roads", "--results", "BBBBBBBB", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert [(e["col"], e["row"]) for e in data["big_road"]] == [(0, r) for r in range(8)]
    assert data["big_road_display"][-2:] == [[1, 5], [2, 5]]


def test_roads_command_text_grid(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_roads(["roads", "--results", "TBPPTB"]) == 0
    out = capsys.readouterr().out
    assert "Big road" in out and "Bead plate" in out and "Cockroach pig" in out
    assert "B1 P  B" in out  # the leading tie is marked on the first entry
    assert "Past results do not predict the next one." in out
    assert render_text(roads_from_results("")).count("·") == 0


def test_roads_command_events_file(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in [
        result_event(1, "player"), result_event(2, "player"), {"event": "round_voided", "round": 2},
    ]) + "\n", encoding="utf-8")
    run_roads(["roads", "--events", str(path), "--json"])
    assert json.loads(capsys.readouterr().out)["big_road"] == [
        {"col": 0, "row": 0, "winner": "P", "ties": 0}]
    path.write_text("not json\n", encoding="utf-8")
    with pytest.raises(RoadsInputError, match="line 1"):
        run_roads(["roads", "--events", str(path)])
    path.write_text(json.dumps(result_event(1, "player")) + '\n{"event": "result"}\n', encoding="utf-8")
    with pytest.raises(RoadsInputError) as bad:  # 'result event for round None' named neither the file nor the line
        run_roads(["roads", "--events", str(path)])
    assert str(bad.value) == (f"{path} line 2: result event for round None has winner None: expected 'banker', "
                              "'player' or 'tie'")


def test_croupier_roads_bad_letter_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli import main as cli

    assert "controller.cli.roads" in cli.COMMAND_MODULES
    assert cli.main(["roads", "--results", "BPZ", "--json"]) == 2
    err = capsys.readouterr().err
    assert "position 3" in err and "'Z'" in err and "B (banker), P (player) or T (tie)" in err


# --------------------------------------------------------------------------- with the real table core


def play_shoe(seed: int, void_at: int | None = None) -> tuple[Table, list[Event]]:
    """Deal a seeded shoe through the table core; with ``void_at``, void that round mid-deal."""
    from controller.core.inputs import Input, InputKind, card_read
    from controller.core.machine import State
    from controller.core.shoe import shoe_with_cut_card
    from controller.core.table import Table

    table = Table()
    events = table.start() + table.handle(Input(InputKind.SHOE))
    for token in shoe_with_cut_card(seed, table.decks):
        if table.state is State.SHOE_CLOSED:
            break
        if table.state is State.ROUND_OVER:
            events += table.handle(Input(InputKind.NEXT))
        events += table.handle(Input(InputKind.CUT) if token == "@cut" else card_read(token))
        if void_at is not None and table.round == void_at and table.state is not State.ROUND_OVER:
            events += table.handle(Input(InputKind.UNREADABLE))
            events += table.handle(Input(InputKind.VOID, approver="supervisor"))
            void_at = None
    return table, events


def test_roads_from_the_table_cores_events() -> None:
    table, events = play_shoe(7, void_at=6)
    assert any(event["event"] == "round_voided" and event["round"] == 6 for event in events)
    roads = roads_from_events(events)
    letters = "".join(result["winner"][0].upper() for result in table.results)
    assert "".join(result.winner for result in roads.results) == letters
    assert 6 not in [result.round for result in roads.results]
    assert roads == compute_roads(roads.results)
    assert [entry.to_dict() for entry in roads.big_road] == [
        entry.to_dict() for entry in roads_from_results(letters).big_road]
    closed = next(event for event in events if event["event"] == "shoe_closed")
    assert (roads.counts.banker, roads.counts.player, roads.counts.tie) == (
        closed["results"]["banker"], closed["results"]["player"], closed["results"]["tie"])
    assert (roads.counts.player_pair, roads.counts.banker_pair, roads.counts.natural) == (
        closed["pairs"]["player"], closed["pairs"]["banker"], closed["naturals"])


def test_table_view_counts_the_shoe_like_the_core() -> None:
    from controller.core.events import ShoeEvent
    from controller.ui.tableview import TableView

    table, events = play_shoe(11)
    view = TableView()
    for event in events:
        if event["event"] == "shoe_closed":
            assert view.shoe.cards_left == event["cards_remaining"]
            assert view.shoe.cut_card_out
        view.apply(event)
    assert view.shoe.closed and view.round == table.round
    # The next shoe starts new roads.
    next_shoe = ShoeEvent(shoe=2, status="new", decks=8)
    view.apply(next_shoe)
    assert view.roads().results == () and view.shoe.cards_left == 416 and not view.shoe.closed

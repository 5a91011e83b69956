"""croupier roads as text: a grid that tie counts of 10 or more do not break, pair and natural marks,
colour on a terminal only, and --shoe N for any shoe of a journal or an events file."""

from __future__ import annotations

import json
import os
import pty
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main as cli
from tests.inprocess import CROUPIER, ROOT


def roads_text(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert cli.main(["roads", *argv]) == 0
    return capsys.readouterr().out


def section(text: str, title: str) -> list[str]:
    lines = text.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith(title)) + 1
    return lines[start:start + 6]


def starts(line: str) -> list[int]:
    return [index for index, ch in enumerate(line) if ch != " " and (index == 0 or line[index - 1] == " ")]


def test_tie_counts_of_ten_or_more_keep_the_big_road_grid(capsys: pytest.CaptureFixture[str]) -> None:
    text = roads_text(capsys, "--results", "B" + "T" * 12 + "PBBPT")
    rows = section(text, "Big road")
    assert rows[0].split() == ["B12", "P", "B", "P1"]
    assert rows[1].split() == ["·", "·", "B", "·"]
    assert starts(rows[0]) == starts(rows[1]) == starts(rows[2])  # every column where it belongs
    assert "\033[" not in text  # not a terminal: plain


def result(number: int, winner: str, **flags: bool) -> dict[str, Any]:
    return {"event": "result", "round": number, "shoe": 1, "winner": winner,
            "player": {"cards": ["AS", "7H"], "total": 8}, "banker": {"cards": ["TH", "2C"], "total": 2},
            "natural": False, "player_pair": False, "banker_pair": False, **flags}


def test_pair_and_natural_marks_say_which_side(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "events.jsonl"
    events = [result(1, "banker", player_pair=True), result(2, "banker", banker_pair=True, natural=True),
              result(3, "player", player_pair=True, banker_pair=True), result(4, "tie")]
    path.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    text = roads_text(capsys, "--events", str(path))
    assert "marks: p player pair, b banker pair, n natural" in text
    assert [row.split() for row in section(text, "Bead plate")][:4] == [["Bp"], ["Bbn"], ["Ppb"], ["T"]]
    big = [row.split() for row in section(text, "Big road")]
    assert big[0] == ["Bp", "P1pb"] and big[1] == ["Bbn", "·"]


def in_a_terminal(*argv: str, no_color: bool = False) -> str:
    leader, follower = pty.openpty()
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    if no_color:
        env["NO_COLOR"] = "1"
    try:
        process = subprocess.run([*CROUPIER, "roads", *argv], cwd=ROOT,
                                 stdout=follower, stderr=subprocess.PIPE, env=env, timeout=120, check=True)
        assert process.returncode == 0
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8")
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)


def test_coloured_on_a_terminal_plain_with_no_color() -> None:
    coloured = in_a_terminal("--results", "BPT")
    assert "\033[1;31mB\033[0m" in coloured and "\033[1;34mP\033[0m" in coloured
    assert "\033[1;32mT\033[0m" in coloured
    plain = in_a_terminal("--results", "BPT", no_color=True)
    assert "\033[" not in plain and "Bead plate" in plain


def test_any_shoe_of_a_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.journal"
    assert cli.main(["simulate", "--seed", "4", "--decks", "1", "--rounds", "14", "--quiet",
                     "--journal", str(path)]) == 0
    capsys.readouterr()
    assert cli.main(["history", str(path), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_shoe: dict[int, list[dict[str, Any]]] = {}
    for line in lines:
        if line["event"] == "result":
            by_shoe.setdefault(line["shoe"], []).append(line)
    assert len(by_shoe) >= 2
    for shoe, results in by_shoe.items():
        assert cli.main(["roads", "--journal", str(path), "--shoe", str(shoe), "--json"]) == 0
        from_journal = json.loads(capsys.readouterr().out)
        only_this_shoe = tmp_path / f"shoe{shoe}.jsonl"
        only_this_shoe.write_text("".join(json.dumps(result) + "\n" for result in results), encoding="utf-8")
        assert cli.main(["roads", "--events", str(only_this_shoe), "--json"]) == 0
        assert from_journal == json.loads(capsys.readouterr().out)
        assert from_journal["counts"]["rounds"] == len(results)
        letters = "".join(result["winner"][0].upper() for result in results)
        assert cli.main(["roads", "--results", letters, "--json"]) == 0
        assert from_journal["big_road"] == json.loads(capsys.readouterr().out)["big_road"]
    winners = by_shoe
    last = max(winners)
    assert cli.main(["roads", "--journal", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["rounds"] == len(winners[last])
    assert cli.main(["roads", "--journal", str(path), "--shoe", "99"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"holds shoes 1-{last}" in err and "--shoe 99" in err


def test_a_journal_record_that_cannot_be_read_is_left_out_and_named(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The roads of the rounds that can be read, the one that cannot named on stderr, exit 1."""
    path = tmp_path / "table.journal"
    assert cli.main(["simulate", "--seed", "5", "--rounds", "6", "--quiet", "--journal", str(path)]) == 0
    capsys.readouterr()
    connection = sqlite3.connect(path)
    seq = next(seq for seq, body in connection.execute("SELECT seq, body FROM records WHERE kind = 'events'")
               if '"event":"result","round":3' in body)
    connection.execute("UPDATE records SET body = ? WHERE seq = ?", ('{"events":[{"event":"result"', seq))
    connection.commit()
    connection.close()
    assert cli.main(["roads", "--journal", str(path), "--json"]) == 1
    captured = capsys.readouterr()
    verification, unreadable = captured.err.splitlines()  # the record edited also fails verification, checked first
    assert f"{path}: record {seq}" in verification and "failed verification" in verification, captured.err
    assert f"{path}: record {seq}" in unreadable and "left out of the roads" in unreadable, captured.err
    assert json.loads(captured.out)["counts"]["rounds"] == 5


@pytest.mark.parametrize("output", [[], ["--json"]])
def test_a_journal_that_fails_verification_is_said_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               output: list[str]) -> None:
    """A result edited in the journal (another winner, still an events record) is what croupier audit verify calls
    TAMPERED: the roads say the journal fails verification, at which record, that the roads cannot be trusted and
    what to run; exit 1. The untouched journal gives its roads without a word, exit 0."""
    path = tmp_path / "table.journal"
    assert cli.main(["simulate", "--seed", "5", "--rounds", "6", "--quiet", "--journal", str(path)]) == 0
    capsys.readouterr()
    assert cli.main(["roads", "--journal", str(path), *output]) == 0
    assert capsys.readouterr().err == ""
    connection = sqlite3.connect(path)
    rows = connection.execute("SELECT seq, body FROM records WHERE kind = 'events'")
    seq, body = next((seq, body) for seq, body in rows if '"event":"result","round":3' in body)
    won = next(event["winner"] for event in json.loads(body)["events"] if event["event"] == "result")
    other = "player" if won != "player" else "banker"
    connection.execute("UPDATE records SET body = ? WHERE seq = ?",
                       (body.replace(f'"winner":"{won}"', f'"winner":"{other}"'), seq))
    connection.commit()
    connection.close()
    assert cli.main(["audit", "verify", str(path)]) == 1
    assert f"record {seq} " in capsys.readouterr().out
    assert cli.main(["roads", "--journal", str(path), *output]) == 1
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, lines
    assert f"{path}: record {seq} was edited" in lines[0] and "failed verification" in lines[0], lines
    assert "cannot be trusted" in lines[0] and f"croupier audit verify {path}" in lines[0], lines
    assert ("Big road" in captured.out) if not output else json.loads(captured.out)["counts"]["rounds"] == 6


def grid_rows(text: str, title: str) -> list[str]:
    """The six rows of the grid under the heading that starts with ``title`` (however the heading wraps)."""
    lines = text.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith(title))
    first = next(index for index in range(start + 1, len(lines)) if lines[index][:1] in ("B", "P", "·"))
    return lines[first:first + 6]


FULL_SHOE = "BP" * 38 + "BBPT"
"""80 rounds whose big road is 78 columns wide: 234 characters in text."""


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_full_shoe_fits_the_terminal_keeping_the_newest_columns(capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    from controller.ui.bigtext import cells

    monkeypatch.delenv("COLUMNS", raising=False)
    whole = roads_text(capsys, "--results", FULL_SHOE, "--lang", lang)
    assert max(cells(line) for line in whole.splitlines()) > 120  # not a terminal, no COLUMNS: nothing cut
    monkeypatch.setenv("COLUMNS", "80")
    fitted = roads_text(capsys, "--results", FULL_SHOE, "--lang", lang)
    assert max(cells(line) for line in fitted.splitlines()) <= 80, fitted
    title = "Big road" if lang == "en" else "빅로드"
    whole_rows, fitted_rows = grid_rows(whole, title), grid_rows(fitted, title)
    for whole_row, fitted_row in zip(whole_rows, fitted_rows, strict=True):
        kept = fitted_row.split()
        assert 20 <= len(kept) < len(whole_row.split()) and whole_row.split()[-len(kept):] == kept  # the newest
    assert fitted_rows[0].split()[-2:] == ["B", "P1"] and fitted_rows[1].split()[-2:] == ["B", "·"]
    assert starts(fitted_rows[0]) == starts(fitted_rows[1])  # every column where it belongs
    notice = "older columns are not shown" if lang == "en" else "열"
    assert notice in fitted and notice not in whole

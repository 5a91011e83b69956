"""croupier simulate ends with the observed frequencies and the net per bet set against croupier odds,
keeps its summary line exactly, and draws the comparison with --plot."""

from __future__ import annotations

import json
import re
import struct
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main as cli
from controller.core.events import Event, Winner, decode_event
from controller.ui.oddscompare import OddsComparison

SUMMARY_LINE = re.compile(r"^  banker (\d+) \((\d+\.\d\d)%\)   player (\d+) \((\d+\.\d\d)%\)   "
                          r"tie (\d+) \((\d+\.\d\d)%\)$", re.MULTILINE)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def odds_json(capsys: pytest.CaptureFixture[str], decks: int) -> dict[str, Any]:
    status, out, _ = run(capsys, "odds", "--decks", str(decks), "--json")
    assert status == 0
    data: dict[str, Any] = json.loads(out)
    return data


def row(text: str, label: str, after: str = "Compared with croupier odds") -> list[str]:
    lines = text.splitlines()
    start = next(index for index, line in enumerate(lines) if line.lstrip().startswith(after))
    line = next(line for line in lines[start:] if line.startswith(f"  {label} "))
    return line[len(label) + 2:].split()


def test_the_summary_compares_with_the_exact_odds(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--seed", "12", "--decks", "6", "--rounds", "300"]
    status, text, _ = run(capsys, *argv, "--quiet")
    assert status == 0
    assert text.startswith("Summary: 300 rounds")
    assert SUMMARY_LINE.search(text), "the summary line another contract relies on is kept exactly"
    assert "Compared with croupier odds --decks 6 --variant commission (exact), over 300 rounds:" in text
    odds = odds_json(capsys, 6)
    _, stream, _ = run(capsys, *argv, "--json")
    events = [json.loads(line) for line in stream.splitlines()]
    results = [event for event in events if event["event"] == "result"]
    assert len(results) == 300
    for label, name in (("banker wins", "banker"), ("player wins", "player"), ("tie", "tie"),
                        ("natural", "natural"), ("player pair", "player_pair"), ("banker pair", "banker_pair")):
        count = sum(1 for result in results if (result["winner"] == name if name in ("banker", "player", "tie")
                                                else result[name]))
        observed, exact, difference, z = row(text, label)
        assert observed == f"{100 * count / 300:.2f}%"
        assert exact == f"{odds['probabilities'][name]['value'] * 100:.4f}%"
        assert difference == f"{(count / 300 - odds['probabilities'][name]['value']) * 100:+.2f}pt"
        assert abs(float(z)) < 4
    settlements = [event for event in events if event["event"] == "settlement"]
    for bet in ("banker", "player", "tie", "player_pair", "banker_pair"):
        net = sum(Decimal(settlement["bets"][bet]["net"]) for settlement in settlements)
        observed, expected, _ = row(text, bet.replace("_", " "), after="net per unit")
        assert observed == f"{float(net) / 300:+.4f}"
        assert expected == f"{-odds['house_edge'][bet]['value']:+.4f}"


def result(winner: str, natural: bool = False, player_pair: bool = False, banker_pair: bool = False) -> Event:
    names: dict[str, Winner] = {"B": "banker", "P": "player", "T": "tie"}
    return decode_event({"event": "result", "round": 1, "shoe": 1, "winner": names[winner],
                         "player": {"cards": ["AS", "7H"], "total": 8}, "banker": {"cards": ["TH", "2C"], "total": 2},
                         "natural": natural, "player_pair": player_pair, "banker_pair": banker_pair, "say": ""})


def test_a_shoe_far_from_the_odds_is_called_unusual() -> None:
    comparison = OddsComparison(8, "commission")
    comparison([result("B") for _ in range(200)])
    text = comparison.text()
    assert "UNUSUAL: banker wins, player wins, tie, natural" in text
    fair = OddsComparison(8, "commission")
    winners = "B" * 46 + "P" * 44 + "T" * 10
    fair([result(winners[n], n < 34, n % 14 == 0, n % 14 == 7) for n in range(100)])
    assert "every frequency is within 3 standard errors" in fair.text()
    assert OddsComparison(8, "commission").text() == "Compared with croupier odds: no round with a result to compare"


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_plot_draws_the_comparison(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    picture = tmp_path / "odds.png"
    status, out, _ = run(capsys, "simulate", "--seed", "3", "--rounds", "200", "--quiet", "--plot", str(picture))
    assert status == 0 and "Compared with croupier odds" in out
    assert png_size(picture) == (800, 320)
    vector = tmp_path / "odds.svg"
    assert run(capsys, "simulate", "--seed", "3", "--rounds", "50", "--json", "--plot", str(vector))[0] == 0
    svg = vector.read_text(encoding="utf-8")
    assert "<svg" in svg and "Frequencies over 50 rounds" in svg


@pytest.mark.parametrize("name, fragment", [("odds.txt", "expected a file name ending .png, .svg, .pdf"),
                                            ("missing/odds.png", "no such directory")])
def test_a_bad_plot_path_is_refused_before_dealing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   name: str, fragment: str) -> None:
    status, out, err = run(capsys, "simulate", "--seed", "3", "--rounds", "5", "--plot", str(tmp_path / name))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and fragment in err and "--plot" in err


def test_a_plot_path_that_is_a_directory_is_refused_before_the_journal_is_made(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A ``--plot`` that names a directory was found out only after the table had dealt and journaled: it is refused
    first, and no journal is left for a later run to resume with other arguments."""
    (tmp_path / "odds.png").mkdir()
    journal = tmp_path / "t.journal"
    status, out, err = run(capsys, "simulate", "--seed", "3", "--rounds", "5", "--journal", str(journal), "--plot",
                           str(tmp_path / "odds.png"))
    assert status == 2 and out == ""
    assert err == (f"croupier simulate: --plot {tmp_path / 'odds.png'}: cannot write the picture there (Is a "
                   "directory); give a file name in a directory you may write to\n")
    assert not journal.exists()


def expected_row(text: str, bet: str) -> str:
    return row(text, bet.replace("_", " "), after="net per unit")[1]


@pytest.mark.parametrize("options", [["--rounds", "300", "--quiet"], ["--rounds", "20"]],
                         ids=["fast path", "full path with the transcript"])
def test_the_expected_values_follow_the_house_pay_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         options: list[str]) -> None:
    config = tmp_path / "house.toml"
    config.write_text('[bets.pays]\ntie = { win = 9 }\nplayer_pair = { pair = 12 }\n', encoding="utf-8")
    status, text, _ = run(capsys, "simulate", "--seed", "7", *options, "--config", str(config))
    assert status == 0
    probabilities = odds_json(capsys, 8)["probabilities"]
    tie, pair = probabilities["tie"]["value"], probabilities["player_pair"]["value"]
    assert expected_row(text, "tie") == f"{9 * tie - (1 - tie):+.4f}" == "-0.0484", "tie pays 9:1 here, not 8:1"
    assert expected_row(text, "player_pair") == f"{12 * pair - (1 - pair):+.4f}"
    assert expected_row(text, "banker_pair") == "-0.1036", "the banker pair keeps its default 11:1"
    assert "[bets.pays]" in text.split("net per unit")[0], "the summary says it is not croupier odds' default pays"


def test_the_ez_banker_expected_value_is_the_ez_bets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """EZ: a banker win pays 1 except a three-card 7, which pushes (docs/bets.md ``banker_ez``)."""
    config = tmp_path / "ez.toml"
    config.write_text('[table]\nvariant = "ez"\n', encoding="utf-8")
    status, text, _ = run(capsys, "simulate", "--seed", "7", "--rounds", "20", "--config", str(config))
    assert status == 0
    ez_edge = Decimal(odds_json(capsys, 8)["bets"]["banker_ez"]["house_edge"]["percent"]) / 100
    assert expected_row(text, "banker") == f"{-ez_edge:+.4f}" == "-0.0102"
    assert "[bets.pays]" not in text, "the default pays: nothing to say"


def net_rows(text: str) -> list[str]:
    """The bets of the summary's net-per-unit table, in order."""
    lines = text.splitlines()
    start = next(index for index, line in enumerate(lines) if line.lstrip().startswith("net per unit"))
    rows = []
    for line in lines[start + 1:]:
        if not re.match(r"^  \S", line) or not re.search(r"[+-]\d\.\d{4}", line):
            break
        rows.append(line.split("  ")[1].strip())
    return rows


@pytest.mark.parametrize("options", [["--rounds", "300", "--quiet"], ["--rounds", "20"]],
                         ids=["fast path", "full path with the transcript"])
def test_the_net_per_unit_lists_only_the_bets_the_table_settles(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                options: list[str]) -> None:
    """A bet the house does not offer is never settled: its "observed +0.0000" beside a negative expected value
    was no net at all, and the difference a number made up."""
    config = tmp_path / "house.toml"
    config.write_text('[bets]\noffered = ["player", "banker", "tie"]\n[bets.pays]\nplayer_pair = { pair = 12 }\n',
                      encoding="utf-8")
    status, text, _ = run(capsys, "simulate", "--seed", "7", *options, "--config", str(config))
    assert status == 0
    assert net_rows(text) == ["banker", "player", "tie"]
    assert "player_pair" not in text.split("net per unit")[0], "a pay of a bet not settled is not named"
    assert "player pair" in text.split("net per unit")[0], "the pair frequencies are still compared"

"""``croupier study`` through the command line: the contract of issue 30 (the JSON report, ``--bets`` and
``--variant``), the same shoes as ``croupier simulate --seed`` card for card with the same exact edges, figures
that do not depend on ``--workers``, the plot, the progress bar on a terminal, and bad input in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tty
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
STANDARD = ["player", "banker", "tie", "player_pair", "banker_pair"]


def croupier(*args: str, stderr: int | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=stderr is None,
                          stdout=subprocess.PIPE if stderr is not None else None, stderr=stderr, text=True,
                          timeout=600, cwd=ROOT)


def study_json(*args: str) -> dict[str, Any]:
    run = croupier("study", *args, "--json")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 1, "one JSON object"
    report: dict[str, Any] = json.loads(lines[0])
    return report


def test_the_contract_200_shoes_seed_1_json() -> None:
    report = study_json("--shoes", "200", "--seed", "1")
    assert report["shoes"] == 200 and report["seed"] == 1 and report["decks"] == 8
    assert list(report["bets"]) == STANDARD, "each offered bet (the default [bets] offered)"
    for name, bet in report["bets"].items():
        perfect = bet["perfect"]
        assert {"rounds_per_shoe", "mean_edge", "units_per_shoe"} <= set(perfect), name
        assert all(isinstance(perfect[key], float) for key in ("rounds_per_shoe", "mean_edge", "units_per_shoe"))
        thresholds = bet["thresholds"]
        assert isinstance(thresholds, list) and thresholds
        assert [row["above"] for row in thresholds] == [0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5]
        for row in thresholds:
            assert {"above", "alerts_per_shoe", "share_of_win"} <= set(row)
            assert 0 <= row["share_of_win"] <= 1 and row["alerts_per_shoe"] >= 0
        if perfect["rounds_per_shoe"]:
            assert perfect["mean_edge"] > 0 and perfect["units_per_shoe"] > 0
            assert thresholds[0]["share_of_win"] == 1.0
    assert report["bets"]["player_pair"]["perfect"]["rounds_per_shoe"] > 0.5


def test_bets_and_variant_restrict_the_report() -> None:
    report = study_json("--shoes", "30", "--seed", "1", "--bets", "dragon_7,panda_8", "--variant", "ez")
    assert list(report["bets"]) == ["dragon_7", "panda_8"] and report["variant"] == "ez"
    dragon = report["bets"]["dragon_7"]
    assert round(dragon["house_edge"] * 100, 4) == 7.6113
    assert set(dragon["counts"]) == {"jacobson_2011", "how_unbalanced_2012"}
    assert dragon["counts"]["jacobson_2011"]["threshold"] == 4.0
    banker = study_json("--shoes", "2", "--seed", "1", "--bets", "banker", "--variant", "ez")["bets"]["banker"]
    assert banker["settled_as"] == "banker_ez"


@pytest.mark.parametrize("rules", [(), ("--decks", "2", "--no-burn")], ids=["default", "two-decks-no-burn"])
def test_the_same_seed_deals_the_same_shoes_as_simulate_with_the_same_exact_edges(tmp_path: Path,
                                                                                rules: tuple[str, ...]) -> None:
    trace = tmp_path / "rounds.jsonl"
    shoes = "2" if not rules else "9"
    study = croupier("study", "--shoes", shoes, "--seed", "1", "--bets", "all", "--trace", str(trace), "--json",
                     *rules)
    assert study.returncode == 0, study.stderr
    rounds = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    simulate = croupier("simulate", "--seed", "1", "--rounds", str(len(rounds)), "--json", *rules)
    assert simulate.returncode == 0, simulate.stderr
    stream = [json.loads(line) for line in simulate.stdout.splitlines()]
    edges = [event for event in stream if event["event"] == "edge"]
    results = [event for event in stream if event["event"] == "result"]
    assert len(rounds) == len(edges) == len(results) > 150
    assert [r["shoe"] for r in rounds] == [e["shoe"] for e in edges]
    assert {r["shoe"] for r in rounds} == set(range(1, int(shoes) + 1))
    for traced, edge, result in zip(rounds, edges, results, strict=True):
        player, banker = result["player"]["cards"], result["banker"]["cards"]
        assert traced["cards"] == [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]
        assert (traced["round"], traced["seen"]) == (edge["round"], edge["seen"])
        assert {name: traced["bets"][name] for name in edge["bets"]} == {
            name: value["ev"] for name, value in edge["bets"].items()}


def test_the_figures_do_not_depend_on_the_workers() -> None:
    one = study_json("--shoes", "30", "--seed", "4", "--bets", "dragon_7,perfect_pair", "--workers", "1")
    two = study_json("--shoes", "30", "--seed", "4", "--bets", "dragon_7,perfect_pair", "--workers", "2")
    assert one == two


def test_the_expected_win_is_the_sum_of_the_exact_edges_bet(tmp_path: Path) -> None:
    trace = tmp_path / "rounds.jsonl"
    report = study_json("--shoes", "3", "--seed", "8", "--bets", "dragon_7", "--trace", str(trace))
    edges = [Fraction(json.loads(line)["bets"]["dragon_7"]) for line in trace.read_text().splitlines()]
    positive = [edge for edge in edges if edge > 0]
    perfect = report["bets"]["dragon_7"]["perfect"]
    assert perfect["rounds_per_shoe"] * 3 == len(positive)
    assert perfect["units_per_shoe"] == pytest.approx(float(sum(positive)) / 3)
    above_two = [edge for edge in positive if edge > Fraction(2, 100)]
    row = next(row for row in report["bets"]["dragon_7"]["thresholds"] if row["above"] == 0.02)
    assert row["rounds_above_per_shoe"] * 3 == len(above_two)
    assert row["share_of_win"] == pytest.approx(float(sum(above_two) / sum(positive)))


def test_the_plot_is_drawn(tmp_path: Path) -> None:
    picture = tmp_path / "study.png"
    run = croupier("study", "--shoes", "4", "--seed", "1", "--bets", "dragon_7", "--plot", str(picture))
    assert run.returncode == 0, run.stderr
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "recommended [bets.alert_above] dragon_7 = " in run.stdout


def test_the_recommendation_names_the_config_key_that_sets_the_studied_bets_threshold(tmp_path: Path) -> None:
    """A house copies the recommendation into [bets.alert_above]: on a no-commission table the banker bet's alerts
    follow [bets.alert_above] banker_no_commission (banker is the commission row), and a reference bet no table
    offers has no key there (the config refuses one)."""
    import re

    from config.loader import load_config
    from controller.core.exceptions import CroupierError

    run = croupier("study", "--shoes", "2", "--seed", "1", "--workers", "1", "--variant", "no_commission",
                   "--bets", "banker,dragon_7,natural_9")
    assert run.returncode == 0, run.stderr
    keys = dict(re.findall(r"recommended \[bets\.alert_above\] (\w+) = ([-\d.e]+)", run.stdout))
    assert set(keys) == {"banker_no_commission", "dragon_7"}, run.stdout
    config = tmp_path / "table.toml"
    config.write_text('[table]\nvariant = "no_commission"\n[bets.alert_above]\n'
                      + "".join(f"{key} = {float(value)}\n" for key, value in keys.items()), encoding="utf-8")
    load_config(str(config), environ={})
    config.write_text("[bets.alert_above]\nnatural_9 = 0.5\n", encoding="utf-8")
    with pytest.raises(CroupierError):
        load_config(str(config), environ={})
    assert "natural_9" in run.stdout.split("\n\nnatural_9 ", 1)[1].splitlines()[-1], "its threshold is still shown"


def test_the_progress_bar_shows_on_a_terminal() -> None:
    main, other = os.openpty()
    tty.setraw(other)
    try:
        run = croupier("study", "--shoes", "30", "--seed", "1", "--bets", "tie", "--workers", "1", stderr=other)
        os.close(other)
        shown = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(main)
    assert run.returncode == 0
    assert b"\r[########################################] 30/30 shoes" in shown


@pytest.mark.parametrize(("args", "line"), [
    (("--bets", "dragon_8"), "croupier study: --bets 'dragon_8': expected all, or names from player, banker, "),
    (("--shoes", "0"), "croupier study: error: argument --shoes: expected 1 or more, got 0"),
    (("--plot", "study.gif"), "croupier study: --plot study.gif: expected a file name ending .png, .svg, .pdf, "
                              "got .gif"),
])
def test_bad_input_is_refused_in_one_line(args: tuple[str, ...], line: str) -> None:
    run = croupier("study", "--shoes", "1", *args) if args[0] != "--shoes" else croupier("study", *args)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    if "error: argument" not in line:  # argparse shows the usage above its one line, as for every command
        assert run.stderr.count("\n") == 1
    assert run.stderr.splitlines()[-1].startswith(line), run.stderr


@pytest.mark.parametrize("where", ["missing directory", "no permission", "a directory"])
def test_a_trace_that_cannot_be_written_is_refused_before_any_shoe_is_dealt(where: str, tmp_path: Path) -> None:
    """``--trace`` to a path that cannot be written was found out only after every shoe had been dealt (minutes of a
    long study, then exit 2): it is refused first, in one line naming the path and what to do (exit 2), and the
    command deals nothing (a study of a million shoes would take far longer than it is given here)."""
    if where == "no permission":
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        path = locked / "rounds.jsonl" if os.geteuid() != 0 else Path("/sys/rounds.jsonl")  # root writes anywhere
        # but in sysfs, where nobody creates files
    else:
        path = tmp_path / "missing" / "rounds.jsonl" if where == "missing directory" else tmp_path
    run = refused_before_dealing("--trace", path)
    assert run.stderr.startswith(f"croupier study: --trace {path}: cannot write it ("), run.stderr
    assert run.stderr.rstrip().endswith("; give another path"), run.stderr


def refused_before_dealing(option: str, path: Path) -> subprocess.CompletedProcess[str]:
    """``croupier study`` of a million shoes with ``option path``, which it must refuse at once: exit 2, one line
    on stderr and nothing on stdout (it would take minutes to deal them)."""
    run = subprocess.run([sys.executable, "-m", "controller.cli", "study", "--shoes", "1000000", "--seed", "1",
                          "--workers", "1", option, str(path)], capture_output=True, text=True, timeout=120,
                         cwd=ROOT)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.count("\n") == 1 and run.stdout == "", run.stderr
    return run


@pytest.mark.parametrize("where", ["no permission", "a directory"])
def test_a_plot_that_cannot_be_written_is_refused_before_any_shoe_is_dealt(where: str, tmp_path: Path) -> None:
    """``--plot`` to a path that cannot be written stopped the study with a traceback once every shoe was dealt
    (exit 1, the minutes of a long study lost with it): it is refused first, in one line naming the path and what to
    do (exit 2), and the command deals nothing."""
    if where == "no permission":
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        path = locked / "study.png" if os.geteuid() != 0 else Path("/sys/study.png")  # root writes anywhere but sysfs
    else:
        path = tmp_path / "study.png"
        path.mkdir()
    run = refused_before_dealing("--plot", path)
    assert run.stderr.startswith(f"croupier study: --plot {path}: cannot write the picture there ("), run.stderr
    assert run.stderr.rstrip().endswith("; give a file name in a directory you may write to"), run.stderr
    assert not (tmp_path / "locked" / "study.png").exists()


def test_an_unknown_bet_is_answered_with_each_name_once() -> None:
    """The names ``--bets`` takes, listed once each: ``banker`` is both a bet offered and the commission variant's
    catalogue name, and the list had said it twice."""
    run = croupier("study", "--shoes", "1", "--bets", "dragon_8")
    listed = run.stderr.split("names from ", 1)[1].rsplit(", comma-separated", 1)[0].split(", ")
    assert run.returncode == 2 and len(listed) == len(set(listed)), listed
    assert {"banker", "banker_no_commission", "banker_ez", "natural_8", "natural_9"} <= set(listed)


def test_the_default_alert_thresholds_are_the_stored_studys_recommendation() -> None:
    from config.loader import load_config
    from config.schema import BET_PAY_CLASSES, DEFAULT_ALERT_ABOVE
    from controller.cli.studydoc import recommended_thresholds, stored

    study = stored()
    assert (study["shoes"], study["seed"], study["decks"], study["variant"], study["burn"],
            study["cut_card_from_end"], study["cut_card"]) == (10_000, 1, 8, "commission", "first_card", 16,
                                                                "one_more")
    assert study["target_alerts_per_shoe"] == 0.05
    recommended = recommended_thresholds(study)
    assert set(recommended) == set(BET_PAY_CLASSES)
    assert recommended == DEFAULT_ALERT_ABOVE
    settings = load_config(environ={}).bets
    assert {bet: settings.alert_threshold(bet) for bet in BET_PAY_CLASSES} == recommended


def test_an_honest_shoe_raises_few_advantage_alerts_under_the_defaults() -> None:
    run = croupier("simulate", "--seed", "1", "--rounds", "320", "--json")
    assert run.returncode == 0, run.stderr
    alerts = [event for event in map(json.loads, run.stdout.splitlines())
              if event["event"] == "alert" and event["kind"] == "advantage"]
    assert len(alerts) <= 4, [(alert["bet"], alert["edge"]) for alert in alerts]


def test_the_studys_alerts_a_shoe_are_the_advantage_alerts_the_table_raises_on_the_same_shoes(tmp_path: Path) -> None:
    """docs/bets.md, "Alert thresholds": an alert opens when the edge rises above the threshold and closes when it
    falls back, so a bet above it in two runs of rounds of a shoe raises two alerts, on the table as in the study."""
    offered = ["player", "banker", "tie", "player_pair", "banker_pair", "either_pair", "perfect_pair", "dragon_7",
               "panda_8", "dragon_bonus_player", "dragon_bonus_banker", "big", "small", "lucky_6"]
    config = tmp_path / "table.toml"
    config.write_text(f"[bets]\noffered = {json.dumps(offered)}\nalert_above = 0.02\n", encoding="utf-8")
    report = study_json("--config", str(config), "--shoes", "6", "--seed", "1", "--workers", "1")
    run = croupier("simulate", "--config", str(config), "--seed", "1", "--rounds", str(report["rounds"]), "--json")
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines()]
    assert sum(event["event"] == "shoe_closed" for event in events) == 6
    raised = {name: 0 for name in offered}
    for event in events:
        if event["event"] == "alert" and event["kind"] == "advantage":
            raised[event["bet"]] += 1
    studied = {name: next(row["alerts_per_shoe"] for row in bet["thresholds"] if row["above"] == 0.02) * 6
               for name, bet in report["bets"].items()}
    assert sum(raised.values()) > len(offered), "a test that can tell a run from a shoe"
    assert raised == {name: round(count) for name, count in studied.items()}
    words = (ROOT / "docs" / "bets.md").read_text(encoding="utf-8").split("### Alert thresholds", 1)[1]
    assert "stays open for the rest of the shoe" not in words, "the page says what the table does today"


def test_a_table_offering_no_bet_is_told_to_name_the_bets_to_study(tmp_path: Path) -> None:
    """The default bets are [bets] offered: when it is empty the one line names it, not a --bets never given."""
    config = tmp_path / "table.toml"
    config.write_text("[bets]\noffered = []\n", encoding="utf-8")
    run = croupier("study", "--config", str(config), "--shoes", "1", "--seed", "1")
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert "None" not in run.stderr and "[bets] offered" in run.stderr and "--bets" in run.stderr, run.stderr


def test_the_published_count_wins_agree_with_the_stored_study_within_two_standard_errors() -> None:
    """docs/bets.md says so of the study without the round after the cut card's (study-this-round.json): How's sheet
    of Jacobson's count 0.53 units a shoe, How's unbalanced count 0.52, the Panda 8 co-count 0.134."""
    from controller.cli.studydoc import THIS_ROUND_FILE, stored

    short = stored(THIS_ROUND_FILE)
    assert short["cut_card"] == "this_round" and short["shoes"] == 10_000 and short["seed"] == 1
    published = {("dragon_7", "jacobson_2011"): 0.53, ("dragon_7", "how_unbalanced_2012"): 0.52,
                 ("panda_8", "how_co_count_2013"): 0.134}
    for (bet, count), units in published.items():
        play = short["bets"][bet]["counts"][count]
        assert abs(play["units_per_shoe"] - units) <= 2 * play["units_per_shoe_se"], (bet, count, play)
    assert "within two standard errors" in (ROOT / "docs" / "bets.md").read_text(encoding="utf-8")


WITHOUT_KERNEL = """
import sys
sys.modules["controller.core.bets._kernel"] = None  # as where it could not be built: the import fails
from controller.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_note_that_the_kernel_is_missing_is_said_once_whatever_the_workers() -> None:
    """Without the compiled kernel the command says so in one line, once: each worker process of the study said it
    again (two workers, three notes), for each first computed an edge in a process of its own."""
    run = subprocess.run([sys.executable, "-c", WITHOUT_KERNEL, "study", "--shoes", "50", "--seed", "1", "--bets",
                          "dragon_7", "--workers", "2", "--json"], capture_output=True, text=True, timeout=600,
                         cwd=ROOT)
    assert run.returncode == 0, run.stderr
    notes = [line for line in run.stderr.splitlines() if "compiled live-edge kernel is not available" in line]
    assert len(notes) == 1, run.stderr
    assert json.loads(run.stdout)["shoes"] == 50

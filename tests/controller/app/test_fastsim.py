"""The fast simulation path gives exactly the totals of the full controller path, for the same seeded
shoes and procedures, whatever the number of worker processes."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from controller.app.fastsim import Procedure, play_shoe, simulate
from controller.core import rules
from tests.inprocess import CROUPIER, croupier_in_process

SUMMARY_KEYS = ("rounds", "banker", "player", "tie", "natural", "player_pair", "banker_pair", "shoes")


def full_path_counts(*argv: str) -> Counter[str]:
    """Summary counts from the ``result`` and ``shoe`` events of ``croupier simulate ARGV --json``."""
    run = croupier_in_process("simulate", *argv, "--json")
    assert run.returncode == 0, run.stderr
    counts: Counter[str] = Counter()
    for line in run.stdout.splitlines():
        event = json.loads(line)
        if event["event"] == "result":
            counts["rounds"] += 1
            counts[event["winner"]] += 1
            counts["natural"] += event["natural"]
            counts["player_pair"] += event["player_pair"]
            counts["banker_pair"] += event["banker_pair"]
        elif event["event"] == "shoe" and event["status"] == "new":
            counts["shoes"] += 1
        assert event["event"] not in ("misdeal", "round_voided"), event
    return counts


def config_file(tmp_path_factory: pytest.TempPathFactory, shoe: dict[str, object]) -> str:
    path = tmp_path_factory.mktemp("config") / "croupier.toml"
    lines = ["[shoe]", *(f"{key} = {json.dumps(value)}" for key, value in shoe.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


CASES = [
    # (seed, decks, rounds, [shoe] settings)
    *[(seed, 8, 0, {}) for seed in range(6)],
    *[(seed, 8, 190, {}) for seed in (11, 12)],
    *[(seed, decks, 120, {}) for seed, decks in ((21, 1), (22, 2), (23, 4), (24, 6))],
    (31, 1, 60, {"cut_card_from_end": 12}),
    (32, 1, 60, {"cut_card_from_end": 26}),
    (33, 2, 90, {"cut_card": "this_round", "cut_card_from_end": 12}),
    (34, 6, 0, {"cut_card": "this_round"}),
    (35, 8, 0, {"burn": "none"}),
    (36, 1, 70, {"burn": "none", "cut_card_from_end": 12}),
    (37, 2, 70, {"burn": "fixed", "burn_cards": 8, "cut_card_from_end": 52}),
    (38, 8, 0, {"burn": "fixed", "burn_cards": 1, "cut_card_from_end": 100}),
    *[(seed, 1, 0, {"cut_card_from_end": cut}) for seed in (41, 42, 43) for cut in (12, 19, 26)],
]


@pytest.mark.parametrize(("seed", "decks", "rounds", "shoe"), CASES)
def test_quiet_summary_is_the_full_paths_totals(tmp_path_factory: pytest.TempPathFactory, seed: int, decks: int,
                                                 rounds: int, shoe: dict[str, object]) -> None:
    argv = ["--seed", str(seed), "--decks", str(decks), "--rounds", str(rounds)]
    if shoe:
        argv += ["--config", config_file(tmp_path_factory, shoe)]
    expected = full_path_counts(*argv)
    assert expected["rounds"] == rounds or (rounds == 0 and expected["rounds"] > 0)
    quiet = croupier_in_process("simulate", *argv, "--quiet")
    assert quiet.returncode == 0, quiet.stderr
    lines = quiet.stdout.splitlines()
    assert lines[0] == f"Summary: {expected['rounds']} rounds over {expected['shoes']} shoe(s)"
    share = {key: f"{expected[key]} ({100 * expected[key] / expected['rounds']:.2f}%)" for key in SUMMARY_KEYS}
    assert lines[1] == f"  banker {share['banker']}   player {share['player']}   tie {share['tie']}"
    assert lines[2] == (f"  naturals {share['natural']}   player pairs {share['player_pair']}   "
                        f"banker pairs {share['banker_pair']}")
    assert lines[3] == "  misdeals 0   voided rounds 0"


def test_the_summary_only_run_over_the_transcript_limit_takes_the_same_totals() -> None:
    argv = ["--seed", "7", "--rounds", "260"]
    expected = full_path_counts(*argv)
    run = croupier_in_process("simulate", *argv)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[1] == (
        f"  banker {expected['banker']} ({100 * expected['banker'] / 260:.2f}%)   "
        f"player {expected['player']} ({100 * expected['player'] / 260:.2f}%)   "
        f"tie {expected['tie']} ({100 * expected['tie'] / 260:.2f}%)")


def test_results_do_not_depend_on_the_number_of_workers() -> None:
    procedure = Procedure(seed=99, decks=8, cut_from_end=16)
    one = simulate(procedure, 20_000)
    assert one["rounds"] == 20_000
    assert simulate(procedure, 20_000, workers=3) == one
    assert simulate(procedure, 20_000, workers=2) == one


def test_workers_on_the_command_line_give_the_same_summary() -> None:
    single = croupier_in_process("simulate", "--seed", "5", "--rounds", "9000", "--quiet")
    parallel = croupier_in_process("simulate", "--seed", "5", "--rounds", "9000", "--quiet", "--workers", "2")
    assert single.returncode == parallel.returncode == 0, parallel.stderr
    assert parallel.stdout == single.stdout
    assert "Summary: 9000 rounds" in single.stdout


def test_workers_with_an_option_that_needs_every_event_is_a_clear_error() -> None:
    run = croupier_in_process("simulate", "--seed", "5", "--rounds", "10", "--json", "--workers", "2")
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.strip() == ("croupier simulate: --workers 2 deals shoes in parallel only for summary-only "
                                  "runs, and --json needs every event; drop --workers or --json")


def test_progress_reports_the_rounds_done_in_order() -> None:
    seen: list[int] = []
    simulate(Procedure(seed=1, decks=8, cut_from_end=16), 1000, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 1000 and len(seen) > 5


def test_a_shoe_limited_to_some_rounds_counts_exactly_those() -> None:
    procedure = Procedure(seed=3, decks=8, cut_from_end=16)
    whole = play_shoe(procedure, 0)
    assert whole[0] == 81  # croupier simulate --seed 3 deals 81 rounds in its first shoe
    assert play_shoe(procedure, 0, 10)[0] == 10


def test_every_round_table_cell_follows_the_rules() -> None:
    from controller.app.fastsim import ROUND_TABLE, WINNERS

    for player in range(10):
        for banker in range(10):
            for fifth in range(10):
                for sixth in range(10):
                    code = ROUND_TABLE[player * 1000 + banker * 100 + fifth * 10 + sixth]
                    natural = rules.is_natural(player) or rules.is_natural(banker)
                    draws = not natural and rules.player_draws(player, banker)
                    third = fifth if draws else None
                    banker_draws = not natural and rules.banker_draws(banker, third)
                    final_player = (player + fifth) % 10 if draws else player
                    final_banker = (banker + (sixth if draws else fifth)) % 10 if banker_draws else banker
                    assert code & 1 == natural
                    assert WINNERS[(code >> 1) & 7] == rules.winner(final_player, final_banker)
                    assert code >> 4 == 4 + draws + banker_draws


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_the_engine_deals_the_mocks_shoes_card_for_card(decks: int) -> None:
    from controller.app.fastsim import SHUFFLE_IS_RANDOMS, shoe_ranks
    from controller.core.cards import RANKS
    from controller.core.shoe import shuffled_shoe

    assert SHUFFLE_IS_RANDOMS  # the written-out shuffle is the fast one; it matches random's on this Python
    for seed in (0, 1, 2026, 2**63 - 1):
        for shoe_index in (0, 1, 17):
            ranks = shoe_ranks(Procedure(seed=seed, decks=decks, cut_from_end=16), shoe_index)
            assert [RANKS[rank] for rank in ranks] == [code[0] for code in shuffled_shoe(seed, decks, shoe_index)]


def test_a_long_summary_only_run_shows_a_progress_bar_on_a_terminal() -> None:
    import os
    import pty
    import subprocess

    controller, terminal = pty.openpty()
    process = subprocess.Popen([*CROUPIER, "simulate", "--seed", "3", "--rounds",
                                "30000"], stdout=subprocess.PIPE, stderr=terminal, text=True)
    os.close(terminal)
    shown = b""
    try:
        while True:
            try:
                chunk = os.read(controller, 65536)  # the bar, read as it is drawn; EOF (EIO) once the run ends
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
        assert process.stdout is not None
        stdout = process.stdout.read()
        assert process.wait(timeout=300) == 0
    finally:
        os.close(controller)
        if process.poll() is None:
            process.kill()
            process.wait()
    assert stdout.startswith("Summary: 30000 rounds over ")
    bars = shown.decode().replace("\r\n", "\n").split("\r")
    assert bars[-1].endswith("] 30000/30000 rounds\n")
    assert 2 <= len(bars) <= 102, f"the bar is redrawn at most once a percent, not once a shoe ({len(bars)} times)"
    assert any("/30000 rounds" in bar and "30000/30000" not in bar for bar in bars)  # drawn while dealing


@pytest.mark.parametrize(("seed", "pays"), [
    (5, None),  # the quick loop's case; the other two are long runs (700 rounds on the full path, ~5 s each)
    pytest.param(11, {"bets": {"pays": {"tie": {"win": 9}}}}, marks=pytest.mark.slow),
    pytest.param(23, {"bets": {"offered": ["player", "banker", "tie"]}}, marks=pytest.mark.slow)])
def test_the_fast_paths_whole_output_is_the_full_paths(tmp_path_factory: pytest.TempPathFactory, seed: int,
                                                       pays: dict[str, object] | None) -> None:
    """The summary and its comparison with the odds (frequencies and each bet's net under the house's pays),
    from the fast path's totals, are the full path's to the character (``--journal`` takes the full path)."""
    argv = ["simulate", "--seed", str(seed), "--rounds", "700", "--quiet"]
    if pays is not None:
        path = tmp_path_factory.mktemp("pays") / "croupier.toml"
        bets = pays["bets"]
        assert isinstance(bets, dict)
        lines = ["[bets]"]
        if "offered" in bets:
            lines.append("offered = [" + ", ".join(f'"{name}"' for name in bets["offered"]) + "]")
        if "pays" in bets:
            lines.append("pays.tie = {win = 9}")
        path.write_text("\n".join(lines) + "\n")
        argv += ["--config", str(path)]
    fast = croupier_in_process(*argv)
    full = croupier_in_process(*argv, "--journal", str(tmp_path_factory.mktemp("full") / "table.journal"))
    assert fast.returncode == full.returncode == 0, fast.stderr + full.stderr
    assert "net per unit" in fast.stdout
    assert fast.stdout == full.stdout

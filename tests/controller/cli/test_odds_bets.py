"""`croupier odds` for every bet: the contract (exact house edges keyed by bet), --seen and --journal,
and the live `edge` event of `croupier simulate --json`."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from controller.core.bets.exact import Shoe, bet_evs, round_probabilities
from controller.core.odds import compute_odds
from tests.controller.cli.test_cli import croupier, events
from tests.inprocess import ROOT

CONTRACT_BETS = ("player", "banker", "tie", "player_pair", "banker_pair", "either_pair", "perfect_pair",
                 "dragon_7", "panda_8", "dragon_bonus_player", "dragon_bonus_banker", "big", "small", "lucky_6",
                 "banker_no_commission", "banker_ez")


def odds_json(*args: str) -> dict[str, Any]:
    run = croupier("odds", *args, "--json")
    assert run.returncode == 0, run.stderr
    data: dict[str, Any] = json.loads(run.stdout)
    return data


def test_odds_json_has_every_bet_with_an_exact_house_edge() -> None:
    data = odds_json("--decks", "8")
    assert set(CONTRACT_BETS) <= set(data["bets"])
    for bet in CONTRACT_BETS:
        edge = data["bets"][bet]["house_edge"]
        assert abs(float(Fraction(edge["exact"])) * 100 - edge["percent"]) < 1e-9
    assert round(data["bets"]["banker_ez"]["house_edge"]["percent"], 4) == 1.0183
    assert round(data["bets"]["dragon_7"]["house_edge"]["percent"], 4) == 7.6113
    assert data["bets"]["dragon_7"]["outcomes"]["banker_three_card_7"]["exact"]
    assert data["house_edge"]["banker"]["exact"] == data["bets"]["banker"]["house_edge"]["exact"]


def test_odds_seen_gives_the_shoe_less_those_cards() -> None:
    data = odds_json("--decks", "6", "--seen", "AS 10H,kd 9C 9C")
    shoe = Shoe.of(6, {"AS": 1, "TH": 1, "KD": 1, "9C": 2})
    assert data["cards_left"] == 6 * 52 - 5
    for bet, ev in bet_evs(shoe).items():
        assert Fraction(data["bets"][bet]["house_edge"]["exact"]) == -ev


@pytest.mark.parametrize(("seen", "message"), [
    ("AS XX", "croupier odds: --seen: 'XX' is not a card"),
    ("AS AS", "croupier odds: --seen: 2 copies of AS, but a shoe of 1 deck holds 1"),
])
def test_odds_seen_refuses_bad_cards_in_one_line(seen: str, message: str) -> None:
    run = croupier("odds", "--decks", "1", "--seen", seen)
    assert run.returncode == 2
    assert run.stderr.startswith(message) and run.stderr.count("\n") == 1
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("decks", range(1, 9))
def test_odds_seen_names_the_shoe_right_for_every_deck_count(decks: int) -> None:
    """'--seen: 9 copies of AS, but a 8-deck shoe holds 8'."""
    run = croupier("odds", "--decks", str(decks), "--seen", " ".join(["AS"] * (decks + 1)))
    assert run.returncode == 2
    shoe = "1 deck" if decks == 1 else f"{decks} decks"
    assert run.stderr == (f"croupier odds: --seen: {decks + 1} copies of AS, but a shoe of {shoe} holds {decks}; "
                          "check the cards or give --decks\n")


def test_odds_of_a_shoe_too_short_for_a_round_is_refused() -> None:
    all_but_five = " ".join(rank + suit for rank in "A23456789TJQK" for suit in "SHDC")[: 47 * 3]
    run = croupier("odds", "--decks", "1", "--seen", all_but_five)
    assert run.returncode == 2 and "5 cards left" in run.stderr


@pytest.mark.parametrize("left, says", [
    (5, "5 cards left: a round needs 4 to 6 cards, so the next one may run out before it is complete and has no "
        "odds; croupier odds needs at least 6 cards left"),
    (4, "4 cards left: a round needs 4 to 6 cards, so the next one may run out before it is complete and has no "
        "odds; croupier odds needs at least 6 cards left"),
    (3, "3 cards left: a round needs at least 4 cards, so none can be dealt; croupier odds needs at least 6 cards "
        "left"),
    (1, "1 card left: a round needs at least 4 cards, so none can be dealt; croupier odds needs at least 6 cards "
        "left"),
    (0, "0 cards left: a round needs at least 4 cards, so none can be dealt; croupier odds needs at least 6 cards "
        "left"),
])
def test_odds_of_a_shoe_too_short_says_what_is_true_of_its_next_round(left: int, says: str) -> None:
    gone = " ".join(rank + suit for rank in "A23456789TJQK" for suit in "SHDC").split()[: 52 - left]
    run = croupier("odds", "--decks", "1", "--seen", " ".join(gone))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.splitlines() == [f"croupier odds: --seen: {says}"]


@pytest.mark.parametrize("decks", [1, 8])
def test_round_probabilities_agree_with_the_fresh_shoe_enumerator(decks: int) -> None:
    old = compute_odds(decks)
    new = round_probabilities(Shoe.of(decks))
    for name, value in new.items():
        assert getattr(old, name) == value, name


def seen_in(stream: list[dict[str, Any]]) -> Counter[str]:
    """The cards the players saw in a simulated stream: dealt cards and the turned burn card."""
    seen: Counter[str] = Counter()
    for event in stream:
        if event["event"] == "card" or (event["event"] == "burn" and event.get("turned")):
            seen[event["card"]] += 1
    return seen


def test_simulate_emits_an_exact_edge_before_each_rounds_first_prompt() -> None:
    run = croupier("simulate", "--json", "--seed", "11", "--rounds", "6")
    stream = events(run.stdout)
    rounds = [e["round"] for e in stream if e["event"] == "round"]
    assert rounds == [1, 2, 3, 4, 5, 6]
    for number in rounds:
        first_prompt = next(i for i, e in enumerate(stream) if e["event"] == "prompt" and e["round"] == number)
        edge_at = next(i for i, e in enumerate(stream) if e["event"] == "edge" and e["round"] == number)
        assert edge_at < first_prompt
        edge = stream[edge_at]
        assert set(CONTRACT_BETS) <= set(edge["bets"])
        seen = seen_in(stream[:edge_at])
        assert edge["seen"] == sum(seen.values())
        expected = bet_evs(Shoe.of(8, seen))
        assert {bet: Fraction(value["ev"]) for bet, value in edge["bets"].items()} == expected


def test_odds_journal_uses_the_cards_seen_in_the_shoe_in_play(tmp_path: Path) -> None:
    journal = tmp_path / "table.journal"
    run = croupier("simulate", "--json", "--seed", "5", "--rounds", "4", "--journal", str(journal))
    assert run.returncode == 0, run.stderr
    seen = seen_in(events(run.stdout))
    data = odds_json("--journal", str(journal))
    assert data["decks"] == 8 and data["seen"] == sum(seen.values())
    for bet, ev in bet_evs(Shoe.of(8, seen)).items():
        assert Fraction(data["bets"][bet]["house_edge"]["exact"]) == -ev


def test_odds_journal_that_is_missing_is_one_line(tmp_path: Path) -> None:
    run = croupier("odds", "--journal", str(tmp_path / "none.journal"))
    assert run.returncode == 2 and run.stderr.startswith("croupier odds: ") and run.stderr.count("\n") == 1


def test_odds_journal_follows_the_journals_variant_and_refuses_other_decks(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nvariant = "ez"\n', encoding="utf-8")
    journal = tmp_path / "ez.journal"
    assert croupier("simulate", "--config", str(config), "--seed", "2", "--rounds", "2", "--json",
                    "--journal", str(journal)).returncode == 0
    data = odds_json("--journal", str(journal))
    assert data["variant"] == "ez"
    assert data["house_edge"]["banker"]["exact"] == data["bets"]["banker_ez"]["house_edge"]["exact"]
    run = croupier("odds", "--journal", str(journal), "--decks", "6")
    assert run.returncode == 2 and "--decks 6: the journal's shoe has 8 decks" in run.stderr


def test_a_round_that_starts_with_fewer_than_six_unseen_cards_has_no_edge_as_events_md_says() -> None:
    """The exact odds enumerate the next 6 cards (the most a round needs): with fewer unseen the round gets no
    ``edge`` event, and docs/events.md says so."""
    whole_deck = " ".join(rank + suit for rank in "A23456789TJQK" for suit in "SHDC")
    stream = events(croupier("simulate", "--decks", "1", "--no-burn", "--json", "--cards", whole_deck).stdout)
    with_edge: list[int] = []
    without: list[int] = []
    for index, event in enumerate(stream):
        if event["event"] == "round":
            unseen = 52 - sum(seen_in(stream[:index]).values())
            has_edge = stream[index + 1]["event"] == "edge"
            (with_edge if has_edge else without).append(unseen)
    assert without and min(with_edge) >= 6 and max(without) < 6, (with_edge, without)
    row = next(line for line in (ROOT / "docs" / "events.md").read_text(encoding="utf-8").splitlines()
               if line.startswith("| `edge` |"))
    assert "none when fewer than 6 cards the players have not seen are left in the shoe" in row

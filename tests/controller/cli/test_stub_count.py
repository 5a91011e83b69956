"""The stub count (issue 29 item 6, K1): with ``[procedures] count_every = N`` the table asks the dealer to count
the stub every N rounds, between rounds, before the next round may start; a count that differs from the table's
halts it as the ``count_mismatch`` misdeal. Through the public command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import croupier_in_process

croupier = croupier_in_process

ROUND = "9S KD TH 2C"
"""A whole round of four cards (the player's natural 9)."""
DECK_CARDS = 8 * 52


def events(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def named(stream: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [event for event in stream if event["event"] == name]


@pytest.fixture
def every_two(tmp_path: Path) -> Path:
    path = tmp_path / "count.toml"
    path.write_text("[procedures]\ncount_every = 2\n", encoding="utf-8")
    return path


def simulate(config: Path, tokens: str) -> tuple[int, list[dict[str, Any]], str]:
    run = croupier("simulate", "--config", str(config), "--no-burn", "--manual-next", "--json", "--cards", tokens)
    assert "Traceback" not in run.stderr
    return run.returncode, events(run.stdout), run.stderr


def test_every_second_round_the_table_asks_for_the_count_before_the_next_round(every_two: Path) -> None:
    status, stream, stderr = simulate(every_two, f"{ROUND} @next {ROUND} @next @count @next {ROUND} @next {ROUND} "
                                                 f"@count {DECK_CARDS - 16} @next {ROUND}")
    assert status == 0, stderr
    asked = [e for e in named(stream, "instruction") if e["action"] == "count_stub"]
    assert [(e["round"], e["say_params"]["expected"]) for e in asked] == [  # asked again after the refused @next
        (2, DECK_CARDS - 8), (2, DECK_CARDS - 8), (4, DECK_CARDS - 16)]
    assert asked[0]["say"] == (f"Count the stub: the table expects {DECK_CARDS - 8} cards; confirm it (@count) or "
                               "key the count (@count 312)")
    refused = named(stream, "rejected")
    assert len(refused) == 1 and refused[0]["input"] == "@next"
    assert refused[0]["reason"] == (f"the stub must be counted before round 3 starts: the table expects "
                                    f"{DECK_CARDS - 8} cards (@count)")
    counted = named(stream, "stub_count")
    assert [(e["round"], e["shoe"], e["expected"], e["counted"]) for e in counted] == [
        (2, 1, DECK_CARDS - 8, DECK_CARDS - 8), (4, 1, DECK_CARDS - 16, DECK_CARDS - 16)]
    assert [e["round"] for e in named(stream, "round")] == [1, 2, 3, 4, 5]
    assert not named(stream, "misdeal")


def test_a_count_that_differs_halts_the_table_until_a_recount_matches(every_two: Path) -> None:
    status, stream, stderr = simulate(every_two, f"{ROUND} @next {ROUND} @count 400 @next @count @count 401 "
                                                 f"@count {DECK_CARDS - 8} @next {ROUND}")
    assert status == 0, stderr
    misdeal = named(stream, "misdeal")
    assert len(misdeal) == 1
    assert misdeal[0]["kind"] == "count_mismatch" and misdeal[0]["round"] == 3
    assert misdeal[0]["detail"] == (f"the dealer counted 400 cards in the stub, the table expects {DECK_CARDS - 8}: "
                                    "a card may be missing or added; call the supervisor")
    assert misdeal[0]["resolutions"] == ["count", "close"] and misdeal[0]["supervisor"] == ["close"]
    refused = named(stream, "rejected")
    assert [e["input"] for e in refused] == ["@next", "@count", "@count 401"]
    assert refused[0]["reason"] == "the table is halted on count_mismatch; expected @count, @close"
    assert refused[1]["reason"] == "after a mismatch, key the recounted number (@count 312); confirming is not a count"
    assert refused[2]["reason"] == (f"the recount gives 401 cards, the table expects {DECK_CARDS - 8}: count again "
                                    "(@count 312), or the supervisor closes the shoe (@close)")
    resolved = named(stream, "resolved")
    assert [(e["kind"], e["resolution"]) for e in resolved] == [("count_mismatch", "count")]
    assert [(e["expected"], e["counted"]) for e in named(stream, "stub_count")] == [
        (DECK_CARDS - 8, 400), (DECK_CARDS - 8, DECK_CARDS - 8)]
    assert [e["round"] for e in named(stream, "round")] == [1, 2, 3]


def test_the_supervisor_may_close_the_shoe_on_a_mismatch(every_two: Path) -> None:
    status, stream, stderr = simulate(every_two, f"{ROUND} @next {ROUND} @count 1 @close")
    assert status == 0, stderr
    assert [(e["kind"], e["resolution"]) for e in named(stream, "resolved")] == [("count_mismatch", "close")]
    assert named(stream, "shoe_closing")[0]["reason"] == "stub count mismatch"
    assert named(stream, "shoe_closed")[0]["shoe"] == 1


def test_a_halted_script_ends_with_the_count_mismatch_named(every_two: Path) -> None:
    status, _, stderr = simulate(every_two, f"{ROUND} @next {ROUND} @count 12")
    assert status == 4
    assert "halted on stub count differs (count_mismatch) in round 3" in stderr


def test_the_simulated_dealer_counts_the_stub_and_deals_on(every_two: Path) -> None:
    run = croupier("simulate", "--config", str(every_two), "--seed", "3", "--rounds", "9", "--json")
    assert run.returncode == 0, run.stderr
    stream = events(run.stdout)
    counted = named(stream, "stub_count")
    assert [e["round"] for e in counted] == [2, 4, 6, 8]
    assert all(e["counted"] == e["expected"] for e in counted)
    assert len(named(stream, "result")) == 9 and not named(stream, "misdeal")


def test_without_the_option_no_count_is_asked() -> None:
    run = croupier("simulate", "--no-burn", "--manual-next", "--json", "--cards", f"{ROUND} @next {ROUND} @next "
                   f"{ROUND} @count")
    stream = events(run.stdout)
    assert run.returncode == 0, run.stderr
    assert not named(stream, "stub_count") and not [e for e in named(stream, "instruction")
                                                    if e["action"] == "count_stub"]
    assert named(stream, "rejected")[0]["reason"] == ("no stub count is asked for: the stub count is off "
                                                      "([procedures] count_every = 0)")


@pytest.mark.parametrize("value, said", [
    ("-1", "[procedures] count_every"),
    ('"five"', "[procedures] count_every"),
    ("2.5", "[procedures] count_every"),
])
def test_a_bad_count_every_is_a_one_line_error(tmp_path: Path, value: str, said: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(f"[procedures]\ncount_every = {value}\n", encoding="utf-8")
    run = croupier("simulate", "--config", str(path), "--cards", ROUND)
    assert run.returncode != 0
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0] and "Traceback" not in run.stderr
    assert "a whole number of rounds" in lines[0]


def test_a_journal_of_counts_verifies_and_resumes(tmp_path: Path) -> None:
    config = tmp_path / "count.toml"
    config.write_text("[procedures]\ncount_every = 2\n[journal]\ncheckpoint_every = 1\n", encoding="utf-8")
    journal = tmp_path / "counts.journal"
    argv = ("simulate", "--config", str(config), "--no-burn", "--manual-next", "--json", "--journal", str(journal),
            "--cards", f"{ROUND} @next {ROUND} @count 400 @count {DECK_CARDS - 8} @next {ROUND} @next {ROUND}")
    first = croupier(*argv)
    assert first.returncode == 0, first.stderr
    assert [e["counted"] for e in named(events(first.stdout), "stub_count")] == [400, DECK_CARDS - 8]
    verified = croupier("audit", "verify", "--replay", str(journal))
    assert verified.returncode == 0 and verified.stdout.startswith("OK: "), verified.stdout + verified.stderr
    again = croupier(*argv)  # the same arguments: it resumes where it stopped (the fourth count due)
    assert again.returncode == 0, again.stderr
    assert croupier("audit", "verify", "--replay", str(journal)).returncode == 0
    other_config = tmp_path / "other.toml"
    other_config.write_text("[procedures]\ncount_every = 3\n[journal]\ncheckpoint_every = 1\n", encoding="utf-8")
    other = croupier(*[arg if arg != str(config) else str(other_config) for arg in argv])
    assert other.returncode == 2
    assert "settings.procedures.count_every: journal has 2, now 3" in other.stderr


def test_with_badges_the_dealer_counts_and_closing_the_shoe_on_a_mismatch_needs_the_supervisor(
        tmp_path: Path) -> None:
    from tests.badges import auth_section

    dealer, supervisor = "04A1B2C3D4E5F6", "04B0B0B0B0B0B0"
    config = tmp_path / "badges.toml"
    config.write_text("[procedures]\ncount_every = 1\n\n" + auth_section(dealer, supervisor), encoding="utf-8")
    status, stream, stderr = simulate(config, f"@badge {dealer} @shoe {ROUND} @count @next {ROUND} @count 5 @close "
                                              f"@badge {supervisor}")
    assert status == 0, stderr
    counted = named(stream, "stub_count")
    assert [(e["counted"], e["dealer"]["name"]) for e in counted] == [(DECK_CARDS - 4, "Alice Martin"),
                                                                      (5, "Alice Martin")]
    assert named(stream, "misdeal")[0]["supervisor"] == ["close"]
    assert [e["action"] for e in named(stream, "approval_required")] == ["close_shoe"]
    resolved = named(stream, "resolved")
    assert [(e["resolution"], e["approved_by"]) for e in resolved] == [("close", "Bob Stone")]
    assert named(stream, "shoe_closing")[0]["approved_by"] == "Bob Stone"
    assert named(stream, "shoe_closed")


def test_the_history_shows_each_stub_count(every_two: Path, tmp_path: Path) -> None:
    journal = tmp_path / "counts.journal"
    run = croupier("simulate", "--config", str(every_two), "--no-burn", "--manual-next", "--quiet", "--journal",
                   str(journal), "--cards", f"{ROUND} @next {ROUND} @count 400 @count {DECK_CARDS - 8} @next {ROUND}")
    assert run.returncode == 0, run.stderr
    text = croupier("history", str(journal))
    assert text.returncode == 0, text.stderr
    assert (f"stub count after round 2: 400 counted, {DECK_CARDS - 8} expected" in text.stdout
            and f"stub count after round 2: {DECK_CARDS - 8} counted, {DECK_CARDS - 8} expected" in text.stdout)
    lines = croupier("history", str(journal), "--json")
    assert [(e["counted"], e["expected"]) for e in named(events(lines.stdout), "stub_count")] == [
        (400, DECK_CARDS - 8), (DECK_CARDS - 8, DECK_CARDS - 8)]

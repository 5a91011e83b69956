"""`croupier train` as a front-end runs it: the JSON-lines contract through stdin and stdout, the plain
terminal, the training journal, and clear errors for bad options."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from controller.i18n.catalogue import Catalogue
from controller.i18n.counts import calls as counted_calls
from controller.i18n.counts import rounds as counted_rounds
from controller.i18n.languages import LANGUAGES
from controller.training.events import CallTally, TrainingReportEvent
from controller.training.report import report_lines
from tests.controller.training import oracle
from tests.inprocess import CROUPIER, DEADLINE, ROOT, croupier_in_process, croupier_process, start_croupier

croupier = croupier_process


class Dialogue:
    """A running ``croupier train --json``, spoken to one line at a time."""

    def __init__(self, *args: str) -> None:
        self.process = start_croupier("train", *args, stdin=True)

    def read_until(self, *names: str) -> list[dict[str, Any]]:
        """Events up to and including the first one named in ``names``."""
        assert self.process.stdout is not None
        seen: list[dict[str, Any]] = []
        while True:
            line = self.process.stdout.readline()
            assert line, f"the drill ended before {names}: {seen}"
            event = json.loads(line)
            seen.append(event)
            if event["event"] in names:
                return seen

    def say(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def close(self) -> int:
        try:
            return self.process.wait(timeout=DEADLINE)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                if stream is not None:
                    stream.close()


def expected_call(call: str, player: list[str], banker: list[str]) -> str:
    if call == "player":
        return oracle.player_call(player, banker)
    if call == "banker":
        return oracle.banker_call(banker, player[2] if len(player) == 3 else None)
    return oracle.winner(player, banker)


def test_json_lines_contract_through_stdin() -> None:
    drill = Dialogue("--seed", "11", "--rounds", "4", "--json")
    player: list[str] = []
    banker: list[str] = []
    answered = right = 0
    rejected_once = False
    try:
        while True:
            events = drill.read_until("call_due", "training_report")
            for event in events[:-1]:
                assert event["event"] == "card", event
                if event["slot"] == "P1":
                    player, banker = [], []
                (player if event["slot"][0] == "P" else banker).append(event["card"])
            due = events[-1]
            if due["event"] == "training_report":
                report = due
                break
            assert set(due) == {"event", "round", "call"} and due["call"] in ("player", "banker", "winner")
            if not rejected_once:
                drill.say("perhaps")
                rejection, again = drill.read_until("rejected"), drill.read_until("call_due")
                assert rejection[-1]["input"] == "perhaps" and "expected one of" in rejection[-1]["reason"]
                assert again == [due], "a rejected word is asked again, not scored"
                rejected_once = True
            expected = expected_call(due["call"], player, banker)
            give = expected if answered % 3 else next(w for w in ("draw", "stand", "tie") if w != expected)
            drill.say(give)
            verdict = drill.read_until("call_scored")[-1]
            assert {k: verdict[k] for k in ("round", "call", "expected", "given", "correct")} == {
                "round": due["round"], "call": due["call"], "expected": expected, "given": give,
                "correct": give == expected}
            assert ("rule" in verdict) is (give != expected)
            answered += 1
            right += give == expected
    finally:
        status = drill.close()
    assert status == 0
    assert rejected_once and answered >= 12
    assert (report["calls"], report["correct"], report["wrong"]) == (answered, right, answered - right)
    assert report["rounds"] == 4 and report["finished"] is True


def test_input_ending_early_still_reports_and_exits_3() -> None:
    run = croupier("train", "--seed", "3", "--rounds", "5", "--json", stdin="draw\n")
    assert run.returncode == 3, run.stderr
    last = json.loads(run.stdout.splitlines()[-1])
    assert last["event"] == "training_report" and last["calls"] == 1 and last["finished"] is False


def test_ctrl_c_at_a_call_still_gives_and_keeps_the_report(tmp_path: Path) -> None:
    """Ctrl+C while the drill waits for a call printed only 'interrupted': the report of the calls made was neither
    shown nor journaled. It ends the drill as the input's end does (the report, ended early), then says so (130)."""
    journal = tmp_path / "drill.journal"
    process = start_croupier("train", "--seed", "3", "--rounds", "5", "--journal", str(journal), stdin=True)
    assert process.stdin is not None and process.stdout is not None
    try:
        shown = ""
        while "Player's call" not in shown:
            shown += process.stdout.read(1)
        process.stdin.write("draw\n")
        process.stdin.flush()
        while shown.count("?") < 2:  # the verdict, then the next call asked
            shown += process.stdout.read(1)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=DEADLINE)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "Training report: 1 round, 1 call," in out and "(ended early)" in out, (shown, out, err)
    assert err.strip().splitlines()[-1] == "croupier train: interrupted" and "Traceback" not in err
    bodies = [json.loads(body) for (body,) in sqlite3.connect(journal).execute(
        "SELECT body FROM records WHERE kind = 'events' ORDER BY seq")]
    assert bodies[-1]["events"][-1]["event"] == "training_report"
    assert bodies[-1]["events"][-1]["finished"] is False


def test_plain_terminal_prompts_and_reports() -> None:
    run = croupier("train", "--cards", "AS 3C 2H AC 6D 9C", "--rounds", "1", stdin="draw\nmaybe\nstand\nbanker\n")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "'maybe' is not a banker call: expected one of draw, stand; call again" in out
    assert "Player's call (natural/draw/stand)?" in out and "Player card 3: 6D" in out
    assert "WRONG" in out and "banker 4 draws on the player's third card 2-7: the third card was 6" in out
    assert "Training report: 1 round, 3 calls, 1 right, 2 wrong" in out


def test_the_report_counts_one_round_and_one_call_in_the_singular() -> None:
    """'Training report: 1 rounds, 3 calls' and '   1 calls' for each kind of call."""
    run = croupier("train", "--cards", "AS 3C 2H AC 6D 9C", "--rounds", "1", stdin="draw\nstand\nbanker\n")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "Training report: 1 round, 3 calls, 1 right, 2 wrong" in lines, run.stdout
    assert "  player     1 call     1 right     0 wrong" in lines, run.stdout
    assert "  winner     1 call     0 right     1 wrong" in lines, run.stdout
    assert "1 rounds" not in run.stdout and "1 calls" not in run.stdout


def test_the_tally_keeps_its_columns_when_one_call_is_counted_beside_two() -> None:
    by_call = {"player": CallTally(calls=1, correct=1, wrong=0), "banker": CallTally(calls=2, correct=1, wrong=1)}
    report = TrainingReportEvent(rounds=2, calls=3, correct=2, wrong=1, by_call=by_call, missed_cells=[],
                                 mean_seconds=None, p90_seconds=None, finished=True)
    assert report_lines(report)[:3] == ["Training report: 2 rounds, 3 calls, 2 right, 1 wrong",
                                        "  player     1 call      1 right     0 wrong",
                                        "  banker     2 calls     1 right     1 wrong"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_report_counts_rounds_and_calls_as_each_language_does(language: str) -> None:
    words = Catalogue(language)
    for rounds, calls in ((1, 1), (2, 6)):
        report = TrainingReportEvent(rounds=rounds, calls=calls, correct=calls, wrong=0, by_call={}, missed_cells=[],
                                     mean_seconds=None, p90_seconds=None, finished=True)
        (line,) = report_lines(report, words)
        assert words.text(counted_rounds(rounds)) in line and words.text(counted_calls(calls)) in line, line
        if language == "en":
            assert line == f"Training report: {words.text(counted_rounds(rounds))}, " \
                           f"{words.text(counted_calls(calls))}, {calls} right, 0 wrong"


def test_training_journal_holds_answers_and_the_report(tmp_path: Path) -> None:
    path = tmp_path / "drill.journal"
    run = croupier("train", "--seed", "2", "--rounds", "1", "--json", "--journal", str(path),
                   stdin="natural\nstand\ndraw\ntie\nbanker\nplayer\n")
    verify = croupier("audit", "verify", str(path))
    assert verify.returncode == 0, verify.stdout + verify.stderr
    rows = sqlite3.connect(path).execute("SELECT kind, body FROM records ORDER BY seq").fetchall()
    bodies = [json.loads(body) for _, body in rows]
    assert bodies[0]["identity"]["arguments"]["command"] == "train"
    answers = [body["answer"]["text"] for kind, body in zip([k for k, _ in rows], bodies, strict=True)
               if kind == "input" and "answer" in body]
    stream = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(answers) == sum(e["event"] in ("call_scored", "rejected") for e in stream)
    assert bodies[-1]["events"][-1] == stream[-1] and stream[-1]["event"] == "training_report"
    again = croupier("train", "--seed", "2", "--journal", str(path), stdin="")
    assert again.returncode == 2 and "already exists" in again.stderr and "Traceback" not in again.stderr


def test_history_refuses_a_training_journal_in_one_line_as_docs_training_says(tmp_path: Path) -> None:
    """A drill's journal is not a table's: history names it and exits 2, never calling it tampered."""
    path = tmp_path / "drill.journal"
    croupier("train", "--seed", "2", "--rounds", "1", "--json", "--journal", str(path), stdin="natural\n")
    for extra in ([], ["--json"], ["--csv"], ["--cards"]):
        shown = croupier("history", str(path), *extra)
        assert shown.returncode == 2, (extra, shown.stdout, shown.stderr)
        assert shown.stdout == ""
        assert shown.stderr.strip().splitlines() == [
            f"croupier history: {path}: is a training journal (croupier train); give a table's journal"], extra


def test_bad_options_are_one_clear_line(tmp_path: Path) -> None:
    cases = [
        (["--rounds", "0"], "--rounds: expected 1 or more"),
        (["--focus", "player"], "invalid choice: 'player'"),
        (["--script", str(tmp_path / "none.txt")], "no such script file"),
        (["--cards", "AS", "--script", "x"], "give --cards or --script, not both"),
        (["--cards", "AS 2H XX"], "unknown_card"),
        (["--journal", str(tmp_path / "no" / "dir.journal")], "does not exist"),
        (["--json", "--console"], "not allowed with argument"),
    ]
    for index, (args, message) in enumerate(cases):  # the first through a real process, the rest in this one
        run = croupier("train", *args, stdin="") if index == 0 else croupier_in_process("train", *args, stdin="")
        assert run.returncode == 2, (args, run.stdout, run.stderr)
        assert message in run.stderr, (args, run.stderr)
        assert "Traceback" not in run.stderr


def test_a_seed_beside_the_cards_is_noted_not_dropped(tmp_path: Path) -> None:
    """--seed with --cards or --script deals the cards and the seed shuffles nothing: simulate says so, train dropped
    it without a word."""
    script = tmp_path / "drill.txt"
    script.write_text("9S 8H KD 2C\n", encoding="utf-8")
    for cards in (["--cards", "9S 8H KD 2C"], ["--script", str(script)]):
        run = croupier_in_process("train", "--seed", "7", *cards, "--json", stdin="player\n")
        assert run.returncode == 3, run.stderr
        assert run.stderr.splitlines() == [
            "croupier train: note: --seed is not used when the cards are given (--cards/--script)"]
        cards_dealt = [event["card"] for event in map(json.loads, run.stdout.splitlines()) if event["event"] == "card"]
        assert cards_dealt == ["9S", "8H", "KD", "2C"]
    quiet = croupier_in_process("train", "--cards", "9S 8H KD 2C", "--json", stdin="player\n")
    assert quiet.stderr == ""


def test_plain_terminal_words_the_broken_rule_in_the_language() -> None:
    """The rule a wrong call broke is worded in ``--lang``; in English it is the JSON stream's ``rule``."""
    english = croupier("train", "--cards", "AS 2C 2H AC 6D 9C", "--rounds", "1", stdin="stand\n")
    assert "WRONG" in english.stdout and "player 3 draws (the player draws on 0-5)" in english.stdout
    korean = croupier("train", "--cards", "AS 2C 2H AC 6D 9C", "--rounds", "1", "--lang", "ko", stdin="stand\n")
    assert "플레이어 3: 드로우 (플레이어는 0-5에서 드로우)" in korean.stdout, korean.stdout
    assert "the player draws" not in korean.stdout
    json_run = croupier("train", "--cards", "AS 2C 2H AC 6D 9C", "--rounds", "1", "--lang", "ko", "--json",
                        stdin="stand\n")
    scored = next(json.loads(line) for line in json_run.stdout.splitlines() if '"call_scored"' in line)
    assert scored["rule"] == "player 3 draws (the player draws on 0-5)"


def test_cards_that_stop_the_table_mid_drill_still_report_and_exit_2() -> None:
    cards = "3S 3H 4C 3C AS 2H XX"  # round 1 deals cleanly, round 2 has an unknown card
    run = croupier_in_process("train", "--cards", cards, "--rounds", "2", stdin="stand\nstand\nplayer\n")
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "Training report: 1 round, 3 calls, 3 right, 0 wrong (ended early)" in run.stdout, run.stdout
    assert "unknown_card" in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "Traceback" not in run.stderr
    json_run = croupier_in_process("train", "--cards", cards, "--rounds", "2", "--json",
                                   stdin="stand\nstand\nplayer\n")
    assert json_run.returncode == 2, json_run.stderr
    last = json.loads(json_run.stdout.splitlines()[-1])
    assert last["event"] == "training_report" and last["calls"] == 3 and last["finished"] is False


def test_a_reader_that_goes_offline_and_back_in_the_cards_does_not_stop_the_drill() -> None:
    run = croupier_in_process("train", "--cards", "3S 3H 4C 3C @offline @online AS 3C 2H AC 6D 9C", "--rounds", "2",
                              stdin="stand\nstand\nplayer\ndraw\ndraw\nplayer\n")
    assert run.returncode == 0, (run.stdout, run.stderr)
    assert "Training report: 2 rounds, 6 calls, 6 right, 0 wrong" in run.stdout, run.stdout


def _train_bytes(stdin: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*CROUPIER, "train", "--seed", "3", "--rounds", "1", *args], input=stdin,
                          capture_output=True, cwd=ROOT, timeout=DEADLINE)


def test_a_call_with_bytes_that_are_not_utf8_is_refused_legibly() -> None:
    """Undecodable bytes show as U+FFFD in the one-line refusal, never as Python's surrogate escapes."""
    done = _train_bytes(b"st\xffand\nstand\n")
    said = (done.stdout + done.stderr).decode("utf-8")
    refusal = [line for line in said.splitlines() if "is not a player call" in line]
    assert refusal and "st\ufffdand" in refusal[0], said
    assert "\\udc" not in said and "\\xff" not in said, said


def test_json_output_never_carries_a_lone_surrogate() -> None:
    done = _train_bytes(b"\xff\nstand\n", "--json")
    text = done.stdout.decode("utf-8")
    assert "\\udc" not in text, text
    inputs = [event["input"] for event in map(json.loads, text.splitlines()) if "input" in event]
    assert inputs, text
    for given in inputs:
        given.encode("utf-8")  # a lone surrogate cannot be encoded: strict JSON readers refuse it


def test_the_pay_calls_follow_the_ez_variant(tmp_path: Path) -> None:
    """EZ: a banker win with a three-card 7 pushes (docs/bets.md ``banker_ez``); the drill asks the table's variant's
    pays, as the table settles them, where it stopped with a traceback."""
    config = tmp_path / "ez.toml"
    config.write_text('[table]\nvariant = "ez"\n', encoding="utf-8")
    # player 2S KD = 2 draws 2C (4); banker 3H AC = 4 draws on a third card 2: 3D, a three-card 7 that wins
    answers = "draw\ndraw\nbanker\n-1\n0\n-1\n-1\n-1\n"
    run = croupier("train", "--config", str(config), "--cards", "2S 3H KD AC 2C 3D", "--rounds", "1", "--payouts",
                   "--json", stdin=answers)
    assert run.returncode == 0, run.stderr
    pays = {event["bet"]: event for event in map(json.loads, run.stdout.splitlines())
            if event["event"] == "call_scored" and event["call"] == "pay"}
    assert {bet: event["expected"] for bet, event in pays.items()} == {
        "player": "-1", "banker": "0", "tie": "-1", "player_pair": "-1", "banker_pair": "-1"}
    assert all(event["correct"] for event in pays.values())


def test_cards_that_stop_the_table_on_a_critical_alert_are_a_clear_error_not_a_finished_drill() -> None:
    """Cards a trainer writes in order (AS 2S 3S 4S ...) look unshuffled: the table stops on a critical alert and
    deals nothing more. The drill had ended at once, 0 rounds, exit 0 and ``finished`` true, saying nothing; it is
    the cards' fault, so it is their one-line error, exit 2, as for cards that make a misdeal."""
    cards = "AS 2S 3S 4S 5S 6S 7S 8S 9S"
    run = croupier_in_process("train", "--cards", cards, "--rounds", "2", stdin="")
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "unshuffled_shoe" in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "Traceback" not in run.stderr
    json_run = croupier_in_process("train", "--cards", cards, "--json", stdin="")
    assert json_run.returncode == 2, json_run.stderr
    assert json.loads(json_run.stdout.splitlines()[-1])["finished"] is False


def test_a_pay_call_names_its_bet_and_the_variant_in_the_language() -> None:
    """With --payouts the question names the bet, and a wrong pay's rule the variant, in --lang: a Korean trainee
    read 'banker 베팅의 지급액' and '(commission)' in English inside Korean sentences."""
    # player 2S KD = 2 draws 2C (4); banker 3H AC = 4 draws on a third card 2: 3D, banker 7 wins
    answers = "draw\ndraw\nbanker\n+1\n-1\n-1\n-1\n-1\n"
    run = croupier_in_process("train", "--cards", "2S 3H KD AC 2C 3D", "--rounds", "1", "--payouts", "--lang", "ko",
                              stdin=answers)
    assert run.returncode == 0, run.stderr
    assert "플레이어 베팅의 지급액" in run.stdout and "뱅커 베팅의 지급액" in run.stdout, run.stdout
    assert "플레이어 페어 베팅의 지급액" in run.stdout, run.stdout
    assert "(커미션)" in run.stdout and "commission" not in run.stdout, run.stdout
    assert " bet" not in run.stdout and "banker 베팅" not in run.stdout, run.stdout

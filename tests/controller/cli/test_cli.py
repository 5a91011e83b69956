"""The command line as a user runs it: the contract of `croupier simulate` and `croupier odds`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import ROOT, Completed, croupier_in_process, croupier_process
from tests.tokens import one_by_one

croupier = croupier_in_process
"""``croupier ARGS`` run in this process: these tests read only its output (each contract keeps a real process)."""


def events(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def test_contract_burn_then_one_round() -> None:
    run = croupier_process("simulate", "--cards", "5H 2C 3C 4C 6C 7C 9S 8H KD 2C", "--json")
    assert run.returncode == 0, run.stderr
    stream = events(run.stdout)
    assert all("event" in e for e in stream)
    assert [e["card"] for e in stream if e["event"] == "burn"] == ["5H", "2C", "3C", "4C", "6C", "7C"]
    prompts = [(e["round"], e["slot"], e["to"]) for e in stream if e["event"] == "prompt"]
    assert prompts == [(1, "P1", "player"), (1, "B1", "banker"), (1, "P2", "player"), (1, "B2", "banker")]
    cards = [(e["slot"], e["card"]) for e in stream if e["event"] == "card"]
    assert cards == [("P1", "9S"), ("B1", "8H"), ("P2", "KD"), ("B2", "2C")]
    result = [e for e in stream if e["event"] == "result"]
    assert len(result) == 1
    assert result[0]["winner"] == "player"
    assert result[0]["player"] == {"cards": ["9S", "KD"], "total": 9}
    assert result[0]["banker"] == {"cards": ["8H", "2C"], "total": 0}
    assert result[0]["natural"] is True


def test_prompt_precedes_every_card() -> None:
    run = croupier("simulate", "--seed", "7", "--rounds", "20", "--json", "--no-burn")
    assert run.returncode == 0, run.stderr
    stream = events(run.stdout)
    for index, event in enumerate(stream):
        if event["event"] == "card":
            prompt = stream[index - 1]
            assert prompt["event"] == "prompt"
            assert (prompt["round"], prompt["slot"]) == (event["round"], event["slot"])
    assert len([e for e in stream if e["event"] == "result"]) == 20
    assert not [e for e in stream if e["event"] == "burn"]


def test_same_seed_same_game() -> None:
    first = croupier("simulate", "--seed", "42", "--rounds", "30", "--json")
    second = croupier("simulate", "--seed", "42", "--rounds", "30", "--json")
    assert first.stdout == second.stdout
    other = croupier("simulate", "--seed", "43", "--rounds", "30", "--json")
    assert other.stdout != first.stdout


def test_rounds_span_shoes() -> None:
    run = croupier("simulate", "--seed", "3", "--rounds", "200", "--json", "--decks", "1")
    assert run.returncode == 0, run.stderr
    stream = events(run.stdout)
    assert len([e for e in stream if e["event"] == "result"]) == 200
    assert len([e for e in stream if e["event"] == "shoe_closed"]) >= 10


@pytest.mark.parametrize("cards, status, message", [
    ("3S KD 5H 9C", 0, ""),
    ("3S KD 5H", 3, "B2 is still due"),
    ("3S KD 5H 9C 4D", 3, "round 2: B1 is still due"),
    ("3S ??", 4, "unreadable_card"),
    ("", 0, ""),
])
def test_exit_status(cards: str, status: int, message: str) -> None:
    run = croupier("simulate", "--no-burn", "--cards", cards, "--json")
    assert run.returncode == status, run.stderr
    assert message in run.stderr


def test_manual_next_extra_card_misdeal_then_burn_and_continue() -> None:
    run = croupier("simulate", "--no-burn", "--manual-next", "--json",
                   "--cards", "3S KD 5H 9C 5H @burn @next 4D 5D 4C 5C")
    assert run.returncode == 0, run.stderr
    stream = events(run.stdout)
    misdeal = [e for e in stream if e["event"] == "misdeal"]
    assert misdeal[0]["kind"] == "extra_card" and misdeal[0]["card"] == "5H"
    assert misdeal[0]["detail"]
    results = [e for e in stream if e["event"] == "result"]
    assert [r["round"] for r in results] == [1, 2]
    assert results[1]["player_pair"] is True


def test_foreign_card_halts_with_exit_4() -> None:
    run = croupier("simulate", "--no-burn", "--decks", "1", "--cards", "AS AS", "--json")
    assert run.returncode == 4
    misdeal = [e for e in events(run.stdout) if e["event"] == "misdeal"]
    assert misdeal[0]["kind"] == "foreign_card"
    assert "foreign_card" in run.stderr


@pytest.mark.parametrize("args, fragment", [
    (["simulate", "--decks", "x"], "--decks"),
    (["simulate", "--cards", "AS @bogus"], "'@bogus' is not a token"),
    (["simulate", "--cards", "AS @manual"], "expected a card code after @manual"),
    (["simulate", "--decks", "9"], "argument --decks: expected 1-8, got 9"),
    (["simulate", "--pace", "-1"], "argument --pace: expected a number of seconds from 0 to 3600"),
    (["simulate", "--config", "/dev/null", "--decks", "x"], "expected a whole number (1-8), got 'x'"),
    (["simulate", "--config", "/nonexistent.toml"], "no such config file"),
    (["odds", "--decks", "0"], "argument --decks: expected 1-8, got 0"),
    (["simulate", "--rounds", "-1"], "--rounds"),
    (["simulate", "--seed", "99999999999999999999999"], "argument --seed: expected 0-9223372036854775807"),
    (["run", "--driver", "socket://"], "expected socket://HOST:PORT"),
    (["run", "--driver", "mock:x"], "mock:// takes no host or path"),
    (["run", "--driver", "socket://127.0.0.1:4²"], "expected socket://HOST:PORT with a port from 1 to 65535"),
    (["floor", "--broker", "mqtt://127.0.0.1:1", "--listen", "127.0.0.1:8²"],
     "--listen '127.0.0.1:8²': the port '8²' is not a number from 0 to 65535"),
    (["shoe-emulator", "--seed", "1", "--tcp", "127.0.0.1:4²"], "--tcp"),
    (["shoe-emulator", "--seed", "1", "--tcp", "shoe\udcff:4001"],  # bytes not UTF-8: a traceback of bind()
     "argument --tcp: expected HOST:PORT, e.g. 127.0.0.1:4001 (port 0: any), with a HOST of UTF-8 text, got "
     "'shoe\\xff:4001'"),
    (["run", "--driver", ""], "--driver '': expected a driver URL"),
    (["simulate", "--config", ""], "croupier simulate: '': no such config file; give the path of a TOML file"),
    (["simulate", "--script", ""], "croupier simulate: '': no such script file; give the path of a shoe script"),
    (["run", "--driver", "mock://?script=", "--auto-next"], "croupier run: '': no such script file"),
    (["shoe-emulator", "--script", ""], "croupier shoe-emulator: '': no such script file"),
    (["shoe-emulator", "--seed", "1", "--no-checksum", "--bad-checksum", "0.5"],
     "croupier shoe-emulator: --bad-checksum 0.5: with --no-checksum the shoe sends no checksum to corrupt"),
    (["shoe-emulator", "--seed", "1", "--framing", "stx", "--no-checksum"],  # it dropped the CRC alone, silently
     "croupier shoe-emulator: --no-checksum: stx framing always ends its frames with a BCC; leave out --no-checksum "
     "(--no-crc leaves out the CRC)"),
    (["shoe-emulator", "--seed", "1", "--framing", "stx", "--terminator", "lf"],
     "croupier shoe-emulator: --terminator lf: stx framing ends its frames with ETX and a BCC, not a terminator"),
    (["shoe-emulator", "--script", str(ROOT / "docs/shoes/misdeal-drill.txt"), "--shoe", "2"],
     f"croupier shoe-emulator: --script {ROOT / 'docs/shoes/misdeal-drill.txt'}: --shoe would do nothing beside a "
     "script: the script gives every card; leave out --shoe"),
    (["shoe-emulator", "--script", str(ROOT / "docs/shoes/misdeal-drill.txt"), "--decks", "1", "--cut", "20"],
     "--decks, --cut would do nothing beside a script"),
    (["history", ""], "croupier history: '': no such journal file; give the path of a Croupier journal"),
    (["audit", "verify", ""], "croupier audit verify: '': no such journal file"),
    (["report", "dealers", ""], "croupier report dealers: '': no such journal;"),
    (["roads", "--events", ""], "croupier roads: cannot read events file '': No such file or directory"),
    (["roads", "--events", str(ROOT / "docs")], f"croupier roads: cannot read events file {str(ROOT / 'docs')!r}: Is a "
     "directory; give a file of table events, one JSON object a line ('-' for standard input)"),
    (["simulate", "--config", str(ROOT / "docs")], f"croupier simulate: {ROOT / 'docs'}: cannot read the config file "
     "(Is a directory); give the path of a readable TOML file"),
])
def test_bad_arguments_exit_2_with_a_clear_message(args: list[str], fragment: str) -> None:
    run = croupier(*args)
    assert run.returncode == 2
    assert fragment in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("command", [["simulate", "--rounds", "2"],
                                     ["run", "--driver", "mock://?seed=4", "--auto-next", "--rounds", "2"]])
def test_an_empty_journal_path_is_refused_instead_of_running_with_no_journal(tmp_path: Path,
                                                                              command: list[str]) -> None:
    """``--journal ""`` ran the table with no journal and said nothing; ``run`` took it for "not given" and used
    the config's ``[journal] path``."""
    config = tmp_path / "journal.toml"
    configured = tmp_path / "configured.journal"
    config.write_text(f'[journal]\npath = "{configured}"\n', encoding="utf-8")
    for journal in ("", "  "):
        refused = croupier(*command, "--config", str(config), "--journal", journal)
        assert refused.returncode == 2, refused
        assert refused.stdout == ""
        assert refused.stderr.splitlines() == [
            f"croupier {command[0]}: --journal {journal!r}: expected the path of a journal file, e.g. --journal "
            "table.journal"]
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["journal.toml"]


@pytest.mark.parametrize("command", [["simulate", "--rounds", "1", "--quiet"],
                                     ["run", "--driver", "mock://?seed=4", "--auto-next", "--rounds", "1", "--quiet"]])
def test_an_empty_scoreboard_address_is_refused_not_taken_for_the_configs(tmp_path: Path,
                                                                           command: list[str]) -> None:
    """``--scoreboard ""`` was taken for "not given": the config's [scoreboard] address was served, as --journal ""
    once ran the config's journal."""
    config = tmp_path / "board.toml"
    config.write_text('[scoreboard]\naddress = "127.0.0.1:0"\n', encoding="utf-8")
    refused = croupier(*command, "--config", str(config), "--scoreboard", "")
    assert refused.returncode == 2, refused
    assert refused.stderr.splitlines() == [
        f"croupier {command[0]}: scoreboard address '': expected HOST:PORT, e.g. 127.0.0.1:8080"]


def test_transcript_shows_dealer_instructions_and_summary() -> None:
    run = croupier("simulate", "--seed", "5", "--rounds", "3")
    assert run.returncode == 0
    assert "Card to PLAYER" in run.stdout
    assert "Card to BANKER" in run.stdout
    assert "Pays per unit" in run.stdout
    assert "Summary: 3 rounds" in run.stdout


def test_quiet_prints_only_the_summary() -> None:
    run = croupier("simulate", "--seed", "5", "--rounds", "500", "--quiet")
    assert run.returncode == 0
    assert run.stdout.startswith("Summary: 500 rounds")
    assert "Card to" not in run.stdout


def test_odds_json_contract() -> None:
    run = croupier("odds", "--decks", "8", "--json")
    assert run.returncode == 0
    data = json.loads(run.stdout)
    assert data["decks"] == 8
    probabilities = data["probabilities"]
    for key in ("banker", "player", "tie", "player_draws", "banker_draws", "natural", "player_pair"):
        assert set(probabilities[key]) == {"exact", "value"}
    assert probabilities["player_pair"]["exact"] == "31/415"
    assert round(probabilities["banker"]["value"], 6) == 0.458597


def test_diagram_checked_in_is_current() -> None:
    run = croupier("diagram", "--check", "--out", str(ROOT / "docs"))
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_script_is_delivered_whole_even_after_the_shoe_closes() -> None:
    run = croupier("simulate", "--no-burn", "--json", "--cards",
                   "3S KD 5H 9C @cut 3S KD 5H 9C 3S KD 5H 9C 4D")
    stream = events(run.stdout)
    assert [e["event"] for e in stream].count("shoe_closed") == 1
    misdeal = [e for e in stream if e["event"] == "misdeal"]
    assert misdeal and misdeal[0]["kind"] == "card_after_shoe_closed" and misdeal[0]["card"] == "4D"
    assert run.returncode == 4


def test_a_new_shoe_in_a_script_needs_the_dealers_confirmation() -> None:
    run = croupier("simulate", "--no-burn", "--json", "--cards",
                   "3S KD 5H 9C @cut 3S KD 5H 9C 3S KD 5H 9C @shoe 4D")
    stream = events(run.stdout)
    assert [e for e in stream if e["event"] == "card"][-1] == {"event": "card", "round": 4, "slot": "P1",
                                                               "card": "4D"}
    assert run.returncode == 3


def test_cut_card_event_names_the_round_it_affects() -> None:
    run = croupier("simulate", "--no-burn", "--json", "--manual-next", "--cards", "3S KD 5H 9C @cut")
    cut = next(e for e in events(run.stdout) if e["event"] == "cut_card")
    assert cut["round"] == 2 and cut["last_round"] == 3


# -- error paths: one clear line, never a traceback ----------------------------------------------------


def one_line_error(run: Completed | subprocess.CompletedProcess[str], status: int = 2) -> str:
    assert run.returncode == status, run
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    return lines[0]


def test_roads_events_that_are_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(b'{"event": "result"}\n\xff\xfe not text\n')
    line = one_line_error(croupier("roads", "--events", str(path)))
    assert line == (f"croupier roads: {path}: not UTF-8 text (byte 20 is 0xff): expected table events, "
                    "one JSON object a line")


def test_diagram_out_on_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "diagram.png"
    path.write_bytes(b"x")
    for check in ([], ["--check"]):
        line = one_line_error(croupier("diagram", "--out", str(path), *check))
        assert line == (f"croupier diagram: --out {path}: is a file; expected a directory to write "
                        "state-machine.mmd and state-machine.md to")
    assert path.read_bytes() == b"x"


def test_diagram_check_of_a_directory_that_does_not_exist(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    line = one_line_error(croupier("diagram", "--check", "--out", str(missing)))
    assert line == (f"croupier diagram: --out {missing}: no such directory; expected the directory that holds "
                    "state-machine.mmd and state-machine.md; give it, or write them there first: croupier diagram "
                    f"--out {missing}")
    assert not missing.exists()


def test_diagram_check_names_missing_files_apart_from_stale_ones(tmp_path: Path) -> None:
    assert croupier("diagram", "--out", str(tmp_path)).returncode == 0
    (tmp_path / "state-machine.mmd").unlink()
    (tmp_path / "state-machine.md").write_text("edited\n", encoding="utf-8")
    run = croupier("diagram", "--check", "--out", str(tmp_path))
    assert run.returncode == 1
    assert run.stdout.strip().splitlines() == [
        f"croupier diagram: {tmp_path / 'state-machine.mmd'} missing; {tmp_path / 'state-machine.md'} stale; "
        f"run `croupier diagram --out {tmp_path}`"]


def test_diagram_check_from_another_directory(tmp_path: Path) -> None:
    run = croupier_process("diagram", "--check", cwd=tmp_path)
    assert run.returncode == 0, run
    assert run.stdout.strip() == f"croupier diagram: {ROOT / 'docs'} is up to date"
    assert list(tmp_path.iterdir()) == []


def test_shoe_emulator_link_in_a_missing_directory(tmp_path: Path) -> None:
    link = tmp_path / "missing" / "shoe"
    line = one_line_error(croupier("shoe-emulator", "--seed", "1", "--link", str(link)))
    assert line == (f"croupier shoe-emulator: --link {link}: directory {str(link.parent)!r} does not exist; "
                    "create it or give another --link path")


def test_signing_out_cancels_a_pending_approval(tmp_path: Path) -> None:
    from config.loader import load_config
    from controller.core.inputs import Input, InputKind
    from controller.core.table import Table

    config = tmp_path / "auth.toml"
    config.write_text('[shoe]\nburn = "none"\n\n[auth]\nenabled = true\n'
                      'reader = "pcsc://?reader=Virtual PCD 00 01"\n\n'
                      '[auth.badges.04A1B2C3D4E5F6]\nname = "Alice Martin"\nrole = "dealer"\n',
                      encoding="utf-8")
    table = Table(load_config(config, environ={}))
    table.start()
    *_, (_, events) = one_by_one(table, "@badge 04A1B2C3D4E5F6 @shoe 3S @double @void")
    assert [e["action"] for e in events if e["event"] == "approval_required"] == ["void"]
    events = table.handle(Input(InputKind.SIGN_OUT, "signed out"))
    names = [e["event"] for e in events]
    assert names.index("approval_cancelled") < names.index("dealer_signed_out")
    cancelled = next(e for e in events if e["event"] == "approval_cancelled")
    assert cancelled["action"] == "void" and cancelled["reason"] == "the dealer signed out"
    assert table.pending_approval is None

"""The token script of ``--cards`` and script files: what it takes and what it refuses before anything is dealt."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.exceptions import ScriptError
from controller.core.inputs import Input, InputKind, parse_tokens
from tests.inprocess import croupier_in_process


def test_argument_tokens_take_the_next_word() -> None:
    assert parse_tokens("@manual 7H @badge 04A1B2 @ack A1") == [
        Input(InputKind.MANUAL, "7H"), Input(InputKind.BADGE, "04A1B2"), Input(InputKind.ACK, "A1")]


@pytest.mark.parametrize("script, refusal", [
    ("AS KD @manual @burn 5H",
     "--cards token 3 '@manual': expected a card code after @manual, e.g. '@manual 7H', not the token '@burn'"),
    ("@manual ??", "--cards token 1 '@manual': expected a card code after @manual, e.g. '@manual 7H', "
                   "not the token '??'"),
    ("AS @MANUAL @Void", "--cards token 2 '@MANUAL': expected a card code after @manual, e.g. '@manual 7H', "
                         "not the token '@Void'"),
    ("@badge @sign_out", "--cards token 1 '@badge': expected a badge UID in hex after @badge, "
                         "e.g. '@badge 04A1B2C3D4E5F6', not the token '@sign_out'"),
    ("@ack @ack A1", "--cards token 1 '@ack': expected an alert id after @ack, e.g. '@ack A1', not the token '@ack'"),
    ("@ack ??", "--cards token 1 '@ack': expected an alert id after @ack, e.g. '@ack A1', not the token '??'"),
    ("AS @manual", "--cards token 2 '@manual': expected a card code after @manual, e.g. '@manual 7H'"),
])
def test_an_argument_token_refuses_a_token_in_place_of_its_argument(script: str, refusal: str) -> None:
    """``@manual @burn`` took ``@burn`` for the card entered by hand: the dealer's burn was lost and the core saw
    an unknown card, so a drill did something else than what it said, with no word at parse time."""
    with pytest.raises(ScriptError) as refused:
        parse_tokens(script)
    assert str(refused.value) == refusal


def test_a_script_file_names_the_line_of_the_refused_token() -> None:
    with pytest.raises(ScriptError, match=r"^drill.txt line 2 token 1 '@badge': expected a badge UID in hex after "
                                          r"@badge, e.g. '@badge 04A1B2C3D4E5F6', not the token '@next'$"):
        parse_tokens("@badge @next", source="drill.txt line 2")


@pytest.mark.parametrize("command", ["simulate", "run"])
def test_the_command_refuses_the_script_with_exit_2(command: str, tmp_path: Path) -> None:
    script = tmp_path / "drill.txt"
    script.write_text("# a drill\nAS KD @manual @burn\n", encoding="utf-8")
    arguments = (["simulate", "--cards", "AS KD @manual @burn"] if command == "simulate"
                 else ["run", "--no-keyboard", "--journal", str(tmp_path / "j.jsonl"), "--driver",
                       f"mock://?script={script}"])
    done = croupier_in_process(*arguments)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done
    assert "token 3 '@manual': expected a card code after @manual, e.g. '@manual 7H', not the token '@burn'" \
        in done.stderr, done.stderr
    assert not done.stdout.strip(), "nothing is dealt before the script is refused"

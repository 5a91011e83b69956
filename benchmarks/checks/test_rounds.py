"""The core engine's benchmark measures what it says: its odds row runs ``croupier odds --decks 8`` itself."""

from __future__ import annotations

import subprocess
import sys

from benchmarks import rounds


def test_the_odds_row_times_the_command_itself_fresh_each_time() -> None:
    """The command's own code path (not a function it does not call), in a new interpreter each time, so that no
    cache of an earlier call makes it look faster than the command is."""
    seconds, printed = rounds.odds_in_process()
    command = subprocess.run([sys.executable, "-m", "controller.cli", "odds", "--decks", "8"], capture_output=True,
                             text=True, check=True, timeout=300)
    assert printed == command.stdout
    assert printed.startswith("Exact odds, 8 deck(s)")
    assert seconds > 0
    again, _ = rounds.odds_in_process()
    assert again > 0 and "compute_odds" not in rounds.ODDS_IN_PROCESS


def test_the_rounds_row_plays_every_round_through_the_runner() -> None:
    per_second, elapsed = rounds.rounds_per_second(200)
    assert per_second > 0 and elapsed > 0

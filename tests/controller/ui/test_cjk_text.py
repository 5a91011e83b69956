"""Full-width text in a terminal: cells counted right, nothing cut at 80 columns, glyphs from a real font."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from controller.core.events import CardEvent, decode_event
from controller.i18n.catalogue import builtin_po_path
from controller.i18n.languages import LANGUAGES
from controller.ui.bigtext import banner, can_render, cells, pad_cells, render_big, wrap_cells
from tests.inprocess import CROUPIER, ROOT
from tests.slowrule import require_slow

COLUMNS = 80


def catalogue_texts(language: str) -> list[str]:
    with builtin_po_path(language).open("rb") as handle:
        return [str(entry.string) for entry in read_po(handle, locale=language) if entry.id]


def test_wide_characters_take_two_cells() -> None:
    assert cells("플레이어") == 8
    assert cells("莊 閒") == 5
    assert cells("Carta a PUNTO") == 13
    assert cells("é") == 1 and cells("e\u0301") == 1
    assert pad_cells("뱅커 카드", 16) == "뱅커 카드" + " " * 7
    assert cells(pad_cells("プレイヤーへカード", 16)) == 18  # never cut to fit


def test_the_block_letters_are_unchanged_for_latin_text() -> None:
    assert banner("P1", COLUMNS) == render_big("P1", 2)
    assert banner("BANKER WINS", COLUMNS) == render_big("BANKER WINS", 1)  # 86 columns at scale 2, 43 at 1
    too_long = "BANKER WINS 7 TO 5 AND MORE"
    assert banner(too_long, COLUMNS) == [" ".join(too_long)]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_as_a_banner_fits_80_columns_and_loses_nothing(language: str) -> None:
    for text in catalogue_texts(language):
        shown = text.upper() if can_render(text.upper()) else text
        lines = banner(shown, COLUMNS)
        assert all(cells(line) <= COLUMNS for line in lines), (language, text)
        if not can_render(shown):
            assert "".join(lines).replace(" ", "") == shown.replace(" ", ""), (language, text)


def test_wrapping_breaks_between_wide_characters_when_a_word_is_too_long() -> None:
    text = "가" * 50
    lines = wrap_cells(text, COLUMNS)
    assert [cells(line) for line in lines] == [80, 20]
    assert "".join(lines) == text


def font_covering(text: str) -> str:
    """The fonts fontconfig has that hold every glyph of ``text`` ('' when none does)."""
    wide = sorted({f"{ord(char):x}" for char in text if ord(char) > 0x7F})
    if not wide:
        return "ascii"
    found = subprocess.run(["fc-list", f":charset={' '.join(wide)}", "family"], capture_output=True, text=True,
                           timeout=60, check=True)
    return found.stdout.strip()


def transcript(language: str) -> str:
    run = subprocess.run([*CROUPIER, "simulate", "--seed", "42", "--rounds", "5",
                          "--lang", language], capture_output=True, text=True, cwd=ROOT, timeout=120, check=True)
    return run.stdout


@pytest.mark.skipif(shutil.which("fc-list") is None, reason="fontconfig is not installed (.ci/setup installs it)")
@pytest.mark.parametrize("language", LANGUAGES)
def test_an_installed_font_has_every_glyph_of_the_transcript(language: str) -> None:
    text = transcript(language)
    assert font_covering(text), f"no installed font draws every character of the {language} transcript (tofu)"
    assert not font_covering("\U000f0001"), "fontconfig claims a glyph for a private-use codepoint"


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, timeout=60, check=True).stdout


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/setup --test installs it)")
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_transcript_in_an_80_column_terminal_is_not_cut(language: str, tmp_path: Path) -> None:
    require_slow("tmux")
    expected = [line for line in transcript(language).splitlines()[:40] if line.strip()]
    socket = str(tmp_path / "tmux.sock")
    done = tmp_path / "done"
    session = f"croupier-{uuid.uuid4().hex[:8]}"
    command = (f"cd {ROOT} && {sys.executable} -m controller.cli.main simulate --seed 42 --rounds 5 "
               f"--lang {language} | head -40; touch {done}; sleep 600")
    env_prefix = ["-S", socket]
    subprocess.run(["tmux", *env_prefix, "-u", "new-session", "-d", "-s", session, "-x", str(COLUMNS), "-y", "60",
                    command], check=True, timeout=60, env={**os.environ, "LANG": "C.UTF-8"})
    try:
        deadline = time.monotonic() + 120
        while not done.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert done.exists(), "the transcript did not finish in the terminal"
        screen = tmux(*env_prefix, "capture-pane", "-p", "-J", "-t", session)
        width = int(tmux(*env_prefix, "display-message", "-p", "-t", session, "#{pane_width}"))
        assert width == COLUMNS
    finally:
        subprocess.run(["tmux", *env_prefix, "kill-server"], capture_output=True, timeout=60)
    shown = [line.rstrip() for line in screen.splitlines() if line.strip()]
    assert len(shown) >= len(expected) > 20
    for line in expected:
        if cells(line) <= COLUMNS:
            assert line.rstrip() in shown, f"{line!r} is cut or misaligned in an {COLUMNS}-column terminal"


def test_the_plain_dealer_display_shows_korean_large_type_within_80_columns() -> None:
    import io

    from controller.core.events import Event
    from controller.i18n.catalogue import Catalogue
    from controller.ui.dealer_display import DealerDisplay
    from controller.ui.localise import Localiser

    stream = io.StringIO()
    words = Catalogue("ko")
    prompt: Event = decode_event({"event": "prompt", "round": 1, "slot": "P1", "to": "player", "say": "Card to PLAYER",
                     "say_id": "prompt.player", "say_params": {}})
    Localiser(words).wrap(DealerDisplay(stream, large=True, words=words))([prompt, CardEvent(
        round=1, slot="P1", card="9S")])
    lines = stream.getvalue().splitlines()
    assert "플 레 이 어   P 1" in lines
    assert any("플레이어 카드" in line and "9S" in line for line in lines)
    assert all(cells(line) <= COLUMNS for line in lines)

"""Large block letters for a terminal: a 3x5 pixel font drawn with block characters.

Used by the dealer console to show the next action in large type. Pure.
"""

from __future__ import annotations

from typing import Final

_FONT_ROWS: Final = {
    "A": ".#. #.# ### #.# #.#", "B": "##. #.# ##. #.# ##.", "C": ".## #.. #.. #.. .##",
    "D": "##. #.# #.# #.# ##.", "E": "### #.. ##. #.. ###", "F": "### #.. ##. #.. #..",
    "G": ".## #.. #.# #.# .##", "H": "#.# #.# ### #.# #.#", "I": "### .#. .#. .#. ###",
    "J": "..# ..# ..# #.# .#.", "K": "#.# #.# ##. #.# #.#", "L": "#.. #.. #.. #.. ###",
    "M": "#.# ### ### #.# #.#", "N": "##. #.# #.# #.# #.#", "O": ".#. #.# #.# #.# .#.",
    "P": "##. #.# ##. #.. #..", "Q": ".#. #.# #.# ##. .##", "R": "##. #.# ##. #.# #.#",
    "S": ".## #.. .#. ..# ##.", "T": "### .#. .#. .#. .#.", "U": "#.# #.# #.# #.# ###",
    "V": "#.# #.# #.# #.# .#.", "W": "#.# #.# ### ### #.#", "X": "#.# #.# .#. #.# #.#",
    "Y": "#.# #.# .#. .#. .#.", "Z": "### ..# .#. #.. ###",
    "0": "### #.# #.# #.# ###", "1": ".#. ##. .#. .#. ###", "2": "##. ..# .#. #.. ###",
    "3": "##. ..# .#. ..# ##.", "4": "#.# #.# ### ..# ..#", "5": "### #.. ##. ..# ##.",
    "6": ".## #.. ### #.# ###", "7": "### ..# .#. .#. .#.", "8": "### #.# ### #.# ###",
    "9": "### #.# ### ..# ##.", " ": "... ... ... ... ...", "-": "... ... ### ... ...",
    ".": "... ... ... ... .#.", ",": "... ... ... .#. #..", ":": "... .#. ... .#. ...",
    "!": ".#. .#. .#. ... .#.", "?": "##. ..# .#. ... .#.", "/": "..# ..# .#. #.. #..",
    "'": ".#. .#. ... ... ...", "(": "..# .#. .#. .#. ..#", ")": "#.. .#. .#. .#. #..",
    "+": "... .#. ### .#. ...", "=": "... ### ... ### ...", "#": "#.# ### #.# ### #.#",
}
FONT: Final = {char: tuple(row.replace(".", " ") for row in rows.split()) for char, rows in _FONT_ROWS.items()}
"""Each character's 5 pixel rows of 3 columns (``#`` = ink)."""

GLYPH_WIDTH: Final = 3
GLYPH_HEIGHT: Final = 5


def can_render(text: str) -> bool:
    """True when every character of ``text`` (upper-cased) has a glyph."""
    return all(char in FONT for char in text.upper())


def big_width(text: str, scale: int = 1) -> int:
    """Columns :func:`render_big` needs for ``text``."""
    return max(0, len(text) * (GLYPH_WIDTH + 1) - 1) * scale


def render_big(text: str, scale: int = 1) -> list[str]:
    """``text`` in block letters, one string per terminal row.

    ``scale`` 1 packs two pixel rows into one terminal row with half blocks
    (3 rows tall); ``scale`` 2 draws each pixel as two full blocks (5 rows tall); a larger ``scale``
    draws each pixel ``scale`` columns wide and ``scale - 1`` rows tall (for a large terminal).
    Characters without a glyph are drawn as blanks.
    """
    text = text.upper()
    blank = FONT[" "]
    pixel_rows = [
        " ".join(FONT.get(char, blank)[row] for char in text)
        for row in range(GLYPH_HEIGHT)
    ]
    if scale >= 2:
        return ["".join("█" * scale if pixel == "#" else " " * scale for pixel in row)
                for row in pixel_rows for _ in range(scale - 1)]
    pixel_rows.append(" " * len(pixel_rows[0]) if pixel_rows else "")
    lines = []
    for top, bottom in zip(pixel_rows[0::2], pixel_rows[1::2], strict=True):
        lines.append("".join(
            "█" if (up == "#" and down == "#") else "▀" if up == "#" else "▄" if down == "#" else " "
            for up, down in zip(top, bottom, strict=True)
        ))
    return lines

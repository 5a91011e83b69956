"""Large block letters for a terminal: a 3x5 pixel font drawn with block characters.

Used by the dealer console to show the next action in large type. Pure. Text the font has no glyphs for
(Korean, Chinese, Japanese, accented letters) gets :func:`banner`'s plain form, measured in terminal cells
(a full-width character takes two).
"""

from __future__ import annotations

import unicodedata
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
ACCENTED: Final = {
    "Á": ("..#", "A"), "É": ("..#", "E"), "Í": ("..#", "I"), "Ó": ("..#", "O"), "Ú": ("..#", "U"),
    "Ü": ("#.#", "U"), "Ñ": ("###", "N"),
    "¿": ("...", ".#. ... .#. #.. .##"), "¡": ("...", ".#. ... .#. .#. .#."),
}
"""Spanish capitals and marks: a mark row drawn above a glyph of :data:`FONT` (or the glyph's own 5 rows).
Text with one of them is drawn 6 pixel rows tall (3 terminal rows at the smallest size, as other text)."""

GLYPH_WIDTH: Final = 3
GLYPH_HEIGHT: Final = 5


def can_render(text: str) -> bool:
    """True when every character of ``text`` (upper-cased) has a glyph."""
    return all(char in FONT or char in ACCENTED for char in text.upper())


def _glyph(char: str, marked: bool) -> tuple[str, ...]:
    """``char``'s pixel rows: 5, or 6 with a mark row on top when ``marked`` (the text has an accent)."""
    if char in ACCENTED:
        mark, base = ACCENTED[char]
        rows = FONT[base] if base in FONT else tuple(row.replace(".", " ") for row in base.split())
        return (mark.replace(".", " "), *rows)
    rows = FONT.get(char, FONT[" "])
    return ("   ", *rows) if marked else rows


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
    marked = any(char in ACCENTED for char in text)
    glyphs = [_glyph(char, marked) for char in text]
    height = GLYPH_HEIGHT + 1 if marked else GLYPH_HEIGHT
    pixel_rows = [" ".join(glyph[row] for glyph in glyphs) for row in range(height)]
    if scale >= 2:
        return ["".join("█" * scale if pixel == "#" else " " * scale for pixel in row)
                for row in pixel_rows for _ in range(scale - 1)]
    if len(pixel_rows) % 2:
        pixel_rows.append(" " * len(pixel_rows[0]) if pixel_rows else "")
    lines = []
    for top, bottom in zip(pixel_rows[0::2], pixel_rows[1::2], strict=True):
        lines.append("".join(
            "█" if (up == "#" and down == "#") else "▀" if up == "#" else "▄" if down == "#" else " "
            for up, down in zip(top, bottom, strict=True)
        ))
    return lines


def wrap_big(text: str, width: int, scale: int = 1) -> list[str] | None:
    """``text`` split into lines that each fit ``width`` columns in block letters at ``scale``.

    It breaks between groups (two spaces apart, as a misdeal's keys ``"B BURN  V VOID"``), then
    between words; None when a single word is wider than ``width``.
    """
    lines: list[str] = []
    for group in text.split("  "):
        for word in group.split(" "):
            if big_width(word, scale) > width:
                return None
        if lines and big_width(f"{lines[-1]}  {group}", scale) <= width:
            lines[-1] = f"{lines[-1]}  {group}"
        elif big_width(group, scale) <= width:
            lines.append(group)
        else:
            for word in group.split(" "):
                if lines and big_width(f"{lines[-1]} {word}", scale) <= width:
                    lines[-1] = f"{lines[-1]} {word}"
                else:
                    lines.append(word)
    return lines


def char_cells(char: str) -> int:
    """Terminal cells ``char`` takes: 2 for East Asian wide and full-width characters, 0 for combining marks."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cells(text: str) -> int:
    """Terminal cells ``text`` takes (full-width characters count two)."""
    return sum(char_cells(char) for char in text)


def pad_cells(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` cells (``str.ljust`` counts a wide character as one)."""
    return text + " " * max(0, width - cells(text))


def wrap_cells(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken at spaces where it can be and between wide
    characters where it must; nothing is dropped (every character of ``text`` but the breaking spaces)."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if cells(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = ""
        for char in word:
            if cells(line + char) > width:
                lines.append(line)
                line = ""
            line += char
    if line or not lines:
        lines.append(line)
    return lines


def banner(text: str, columns: int) -> list[str]:
    """``text`` as large as fits in ``columns``: block letters when it has a glyph for every character and
    fits, else (CJK, accented letters) the text itself, letter-spaced when that fits, wrapped by cells."""
    for scale in (2, 1):
        if can_render(text) and big_width(text, scale) <= columns:
            return render_big(text, scale)
    spaced = " ".join(text)
    if cells(spaced) <= columns:
        return [spaced]
    return wrap_cells(text, columns)

"""Large type from an installed font, for the scripts the block font (:mod:`controller.ui.bigtext`) cannot draw:
Korean, Chinese and Japanese glyphs rasterised by Pillow from a font fontconfig finds (Noto Sans CJK, Debian's
``fonts-noto-cjk``, installed by ``.ci/setup``), drawn in half-block cells (one cell: two square pixels, one
above the other, ``▀▄█``).

Each glyph is rendered once per font and size (cached). Without Pillow, fontconfig or a font that holds every
character of the text, :func:`large_type` says so by returning None and the caller falls back to the text itself
(:func:`controller.ui.bigtext.banner`), which still shows every character.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import unicodedata
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from controller.i18n.message import Message, message
from controller.ui.bigtext import cells

if TYPE_CHECKING:
    from PIL.ImageFont import FreeTypeFont

PIXEL_SIZES: Final = (32, 28, 24, 20, 16, 14, 12, 10, 8)
"""The font sizes tried (pixels per em), largest first; 8 pixels (4 rows) is the smallest still legible."""
ROW_BUDGET: Final = {1: 4, 2: 5, 3: 10}
"""The terminal rows one line of font type may take at each of the block font's scales (1: the smallest,
3: a large terminal): about what block letters take there (one row more at the smallest: 8 pixels, the least
that stays legible)."""
FACES: Final = {"ja": "JP", "ko": "KR", "zh_Hans": "SC", "zh_Hant": "TC"}
"""The face of a CJK font collection that draws each language's forms (Noto Sans CJK JP, KR, SC, TC)."""

SAMPLES: Final = {"JP": "プレイヤー", "KR": "플레이어", "SC": "闲庄补牌", "TC": "閒莊補牌"}
"""Characters each face's language shows in large type, to find a font for it at start."""

Bitmap = tuple[tuple[bool, ...], ...]
"""Pixel rows, True for ink."""


def _face_of(text: str, language: str | None) -> str:
    if language in FACES:
        return FACES[language]
    names = [unicodedata.name(char, "") for char in text]
    if any(name.startswith("HANGUL") for name in names):
        return "KR"
    if any(name.startswith(("HIRAGANA", "KATAKANA")) for name in names):
        return "JP"
    return "SC"


@functools.cache
def font_for(characters: frozenset[str], face: str) -> tuple[str, int] | None:
    """The font file and face index that draw every one of ``characters`` (a bold sans-serif of ``face``'s forms
    first), from fontconfig; None when fontconfig is not installed or no font holds them all."""
    if shutil.which("fc-list") is None:
        return None
    wide = " ".join(sorted(f"{ord(char):x}" for char in characters if not char.isspace()))
    try:
        found = subprocess.run(["fc-list", "-f", "%{file}\t%{index}\t%{family}\t%{style}\n", f":charset={wide}"],
                               capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    fonts = [line.split("\t") for line in found.splitlines() if line.count("\t") == 3]
    if not fonts:
        return None

    def preference(font: list[str]) -> tuple[bool, bool, bool, bool, str, str]:
        _, _, family, style = font
        return ("Mono" in family, "Serif" in family, "Bold" not in style, face not in family, family, style)

    file, index, _, _ = min(fonts, key=preference)
    return file, int(index or 0)


@functools.lru_cache(maxsize=4096)
def glyph(char: str, font: tuple[str, int], pixels: int) -> Bitmap:
    """``char`` rendered in ``font`` at ``pixels`` per em, without smoothing: a cell as tall as the font's line and
    as wide as the glyph's advance."""
    from PIL import Image, ImageDraw

    face = _font(font, pixels)
    ascent, descent = face.getmetrics()
    width = max(1, round(face.getlength(char)))
    image = Image.new("1", (width, ascent + descent), 0)
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"
    draw.text((0, 0), char, font=face, fill=1)
    pixels_of = image.load()
    assert pixels_of is not None
    return tuple(tuple(bool(pixels_of[column, row]) for column in range(width)) for row in range(ascent + descent))


@functools.cache
def _font(font: tuple[str, int], pixels: int) -> FreeTypeFont:
    from PIL import ImageFont

    return ImageFont.truetype(font[0], pixels, index=font[1])


def _bitmap(text: str, font: tuple[str, int], pixels: int) -> Bitmap:
    """``text`` as one bitmap, blank rows and columns around the ink cut away."""
    glyphs = [glyph(char, font, pixels) for char in text]
    rows = [tuple(pixel for shape in glyphs for pixel in shape[row]) for row in range(len(glyphs[0]))]
    inked = [row for row in range(len(rows)) if any(rows[row])]
    columns = [column for column in range(len(rows[0])) if any(row[column] for row in rows)]
    if not inked or not columns:
        return ()
    return tuple(row[columns[0]:columns[-1] + 1] for row in rows[inked[0]:inked[-1] + 1])


def half_blocks(bitmap: Bitmap) -> list[str]:
    """``bitmap`` in terminal rows: two pixel rows a row (``▀`` the upper, ``▄`` the lower, ``█`` both)."""
    rows = list(bitmap)
    if len(rows) % 2:
        rows.append((False,) * len(rows[0]))
    return ["".join("█" if up and down else "▀" if up else "▄" if down else " " for up, down in zip(top, bottom,
                                                                                                strict=True))
            for top, bottom in zip(rows[0::2], rows[1::2], strict=True)]


def large_type_problem(language: str) -> Message | None:
    """Why large type in ``language`` would fall back to ordinary text on this machine: Pillow, fontconfig or a
    font for its characters missing (None when nothing is, or when the block font draws the language)."""
    face = FACES.get(language)
    if face is None:
        return None
    if not _can_draw():
        return message("console.large_type.no_pillow", "large type in {language} needs the Python package Pillow "
                       "(.ci/setup installs it); until then it is shown as ordinary text", language=language)
    if shutil.which("fc-list") is None:
        return message("console.large_type.no_fontconfig", "large type in {language} needs fontconfig and a CJK font "
                       "(Debian: fontconfig fonts-noto-cjk; .ci/setup installs them); until then it is shown as "
                       "ordinary text", language=language)
    if font_for(frozenset(SAMPLES[face]), face) is None:
        return message("console.large_type.no_font", "large type in {language} needs a font with its characters, "
                       "such as Noto Sans CJK (Debian: fonts-noto-cjk; .ci/setup installs it); until then it is "
                       "shown as ordinary text", language=language)
    return None


def _can_draw() -> bool:
    try:
        import PIL.ImageFont  # noqa: F401
    except ImportError:
        return False
    return True


def wrap(text: str, width: int, measure: Callable[[str], int]) -> list[str]:
    """``text`` in lines that each ``measure`` at most ``width``: broken between groups (two spaces apart), then
    words, then characters (CJK text has no spaces to break at); a character wider than ``width`` stays alone."""
    lines: list[str] = []
    for group in text.split("  "):
        if lines and measure(f"{lines[-1]}  {group}") <= width:
            lines[-1] = f"{lines[-1]}  {group}"
            continue
        line = ""
        for word in group.split(" "):
            candidate = f"{line} {word}" if line else word
            if measure(candidate) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            line = ""
            for char in word:
                if line and measure(line + char) > width:
                    lines.append(line)
                    line = ""
                line += char
        lines.append(line)
    return [line for line in lines if line.strip()]


def _stacked(lines: Sequence[str], font: tuple[str, int], pixels: int) -> list[str]:
    rows: list[str] = []
    for line in lines:
        if rows:
            rows.append("")
        rows += half_blocks(_bitmap(line, font, pixels))
    return rows


def large_type(text: str, width: int, scale: int, language: str | None = None) -> list[str] | None:
    """``text`` in an installed font's glyphs as large as ``width`` columns and the rows of the block font's
    ``scale`` (:data:`ROW_BUDGET`) allow: one line at the largest size that fits, else lines broken between
    words (or characters) at the smallest size, as block letters are. None when no font
    can draw it (see the module doc)."""
    if not text.strip() or not _can_draw():
        return None
    font = font_for(frozenset(text), _face_of(text, language))
    if font is None:
        return None
    budget = ROW_BUDGET.get(scale, ROW_BUDGET[1] if scale < 1 else ROW_BUDGET[3])
    sizes = [pixels for pixels in PIXEL_SIZES if pixels <= 2 * budget + 2]
    for pixels in sizes:
        rows = half_blocks(_bitmap(text, font, pixels))
        if len(rows) <= budget and max(map(cells, rows)) <= width:
            return rows
    smallest = sizes[-1]

    def measure(line: str) -> int:
        bitmap = _bitmap(line, font, smallest)
        return len(bitmap[0]) if bitmap else 0

    return _stacked(wrap(text, width, measure), font, smallest)

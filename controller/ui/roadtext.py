"""The roads as text for a terminal (``croupier roads``): grids whose cells never break, whatever the tie
count, pair and natural marks on the bead plate and the big road, and colours when the output is a terminal.

Pure: the caller says whether to colour (``croupier roads`` colours when stdout is a tty and ``NO_COLOR``
is unset).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.ui.bigtext import cells as cells_of
from controller.ui.bigtext import wrap_cells
from controller.ui.roads import (
    BANKER,
    DERIVED_ROADS,
    PLAYER,
    RED,
    ROWS,
    Roads,
    layout_derived,
    responsible_gaming_lines,
)

EMPTY: Final = "·"
RESET: Final = "\033[0m"
COLOURS: Final = {BANKER: "\033[1;31m", PLAYER: "\033[1;34m", "T": "\033[1;32m", "R": "\033[31m",
                  "b": "\033[34m", "mark": "\033[33m"}
"""ANSI colours: banker red, player blue, tie green (bold); derived roads red and blue; marks yellow."""
MARKS_LEGEND: Final = "marks: p player pair, b banker pair, n natural"
"""The marks' legend in English (``roads.marks`` in the catalogues)."""


def marks(player_pair: bool, banker_pair: bool, natural: bool) -> str:
    """The pair and natural marks of a cell: ``p`` player pair, ``b`` banker pair, ``n`` natural."""
    return ("p" if player_pair else "") + ("b" if banker_pair else "") + ("n" if natural else "")


def _paint(text: str, colour: bool) -> str:
    """``text`` (a cell: winner letter, tie count, marks) in its colours."""
    if not colour or not text or text == EMPTY:
        return text
    head = text[0]
    digits = "".join(ch for ch in text[1:] if ch.isdigit())
    rest = text[1 + len(digits):]
    painted = f"{COLOURS.get(head, '')}{head}{RESET}"
    if digits:
        painted += f"{COLOURS['T']}{digits}{RESET}"
    if rest:
        painted += f"{COLOURS['mark']}{rest}{RESET}"
    return painted


def grid(cells: Mapping[tuple[int, int], str], colour: bool, rows: int = ROWS, minimum: int = 2,
         width: int | None = None) -> list[str]:
    """Rows of a road grid: every column as wide as its widest cell plus a space, so no count breaks it; with
    ``width``, only the newest columns that fit in it (see :func:`fitted_grid`)."""
    return fitted_grid(cells, colour, rows, minimum, width)[0]


def fitted_grid(cells: Mapping[tuple[int, int], str], colour: bool, rows: int = ROWS, minimum: int = 2,
                width: int | None = None) -> tuple[list[str], int]:
    """(the rows of :func:`grid`, how many of the oldest columns were left out to fit ``width``)."""
    columns = max((col for col, _ in cells), default=-1) + 1
    column_width = max([minimum - 1, *(len(text) for text in cells.values())]) + 1
    first = 0
    if width is not None:
        first = max(0, columns - max(1, (width + 1) // column_width))
    lines = []
    for row in range(rows):
        line = ""
        for col in range(first, columns):
            text = cells.get((col, row), EMPTY)
            line += _paint(text, colour) + " " * (column_width - len(text))
        lines.append(line.rstrip())
    return lines, first


def render(roads: Roads, colour: bool = False, words: Catalogue = ENGLISH, width: int | None = None) -> str:
    """Every road of ``roads`` as a text grid (coloured for a terminal when ``colour``), the headings and
    legends in ``words``' language (the cells keep their letters: B, P, T, p, b, n, R). With ``width`` every
    line fits that many terminal cells: text wraps between words, and a road wider than that shows its newest
    columns, saying how many older ones it leaves out."""
    counts = roads.counts
    say = words.say
    legend = say("roads.marks", "marks: p player pair, b banker pair, n natural")
    lines = [say("roads.counts", "Rounds {rounds}: banker {banker}, player {player}, tie {tie}; banker pairs "
                 "{banker_pairs}, player pairs {player_pairs}, naturals {naturals}", rounds=counts.rounds,
                 banker=counts.banker, player=counts.player, tie=counts.tie, banker_pairs=counts.banker_pair,
                 player_pairs=counts.player_pair, naturals=counts.natural), ""]
    lines.append(say("roads.bead_plate", "Bead plate (B banker, P player, T tie; {marks}):", marks=legend))
    lines.extend(_fitted(words, *fitted_grid(
        {(bead.col, bead.row): bead.winner + marks(bead.player_pair, bead.banker_pair, bead.natural)
         for bead in roads.bead_plate}, colour, width=width)))
    lines.append("")
    lines.append(say("roads.big_road", "Big road (digits = ties marked on the cell; {marks}):", marks=legend))
    cells = {(entry.display_col, entry.display_row):
             entry.winner + (str(entry.ties) if entry.ties else "")
             + marks(entry.player_pair, entry.banker_pair, entry.natural)
             for entry in roads.big_road}
    lines.extend(_fitted(words, *fitted_grid(cells, colour, minimum=3, width=width)))
    if roads.leading_ties:
        lines.append(say("roads.leading_ties", "({ties} tie(s) before the first banker/player result, marked on the "
                         "first entry)", ties=roads.leading_ties))
    for name, _ in DERIVED_ROADS:
        colours = roads.derived(name)
        letters = ["R" if shade == RED else "b" for shade in colours]
        lines.append("")
        heading = say("roads.derived", "{road} (R red, b blue): ", road=derived_name(name, words))
        lines.append(heading + (_newest_letters(letters, colour, None if width is None else width - cells_of(heading))
                                or "-"))
        if colours:
            lines.extend(_fitted(words, *fitted_grid(dict(zip(layout_derived(colours), letters, strict=True)), colour,
                                                     width=width)))
    lines.append("")
    lines.append(" / ".join(text for _, text in responsible_gaming_lines([words])))
    if width is None:
        return "\n".join(lines)
    return "\n".join(part for line in lines for part in (wrap_cells(line, width) if "\033" not in line
                                                         and cells_of(line) > width else [line]))


def _fitted(words: Catalogue, rows: list[str], left_out: int) -> list[str]:
    """A grid's rows, after the line saying how many of its oldest columns did not fit (if any)."""
    if not left_out:
        return rows
    return [words.say("roads.older_columns", "(the {count} older columns are not shown at this width; "
                      "croupier roads --json gives them all)", count=left_out), *rows]


def _newest_letters(letters: list[str], colour: bool, width: int | None) -> str:
    """A derived road's letters, one space apart: the newest that fit ``width`` cells, after "…" if any is left
    out."""
    if width is not None and 2 * len(letters) - 1 > width:
        kept = max(1, (width - 1) // 2)
        return "… " + " ".join(_paint(letter, colour) for letter in letters[-kept:])
    return " ".join(_paint(letter, colour) for letter in letters)


def derived_name(name: str, words: Catalogue = ENGLISH) -> str:
    """A derived road's name (``big_eye_boy``: "Big eye boy") in ``words``' language."""
    names = {"big_eye_boy": words.say("roads.big_eye_boy", "Big eye boy"),
             "small_road": words.say("roads.small_road", "Small road"),
             "cockroach_pig": words.say("roads.cockroach_pig", "Cockroach pig")}
    return names.get(name, name.replace("_", " ").capitalize())

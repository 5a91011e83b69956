"""The roads on the dealer console, compact: bead plate and big road, then the three derived roads.

Readable at 80 columns and without colour: a bead's pair mark says which side had the pair
(``B`` banker pair, ``P`` player pair, ``2`` both) and the derived roads draw red and blue as
different shapes (``●`` red, ``○`` blue). The titles and the counts are in the table's language; a title
is fitted to its band by terminal cells (a full-width character takes two).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from rich.text import Text
from textual.geometry import Size
from textual.widget import Widget

from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.ui.bigtext import cells, pad_cells
from controller.ui.roads import DERIVED_ROADS, RED, ROWS, Roads, layout_derived
from controller.ui.scoreboard_words import PAGE_WORDS

WINNER_STYLES: Final = {"B": "bold red", "P": "bold dodger_blue1", "T": "bold green"}
DERIVED_MARKS: Final = {True: ("●", "red"), False: ("○", "dodger_blue1")}
"""A derived road's mark by colour (red first): a shape each, so the roads read without colour."""


def fit_cells(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` terminal cells (never half a wide character), then padded to them."""
    while cells(text) > width:
        text = text[:-1]
    return pad_cells(text, width)


def pair_mark(banker_pair: bool, player_pair: bool) -> str:
    """The bead's pair mark: which side had the pair (``2`` for both; blank for none)."""
    if banker_pair and player_pair:
        return "2"
    return "b" if banker_pair else "p" if player_pair else ""


class RoadsView(Widget):
    """The roads, compact: bead plate and big road, then the three derived roads; latest columns."""

    DEFAULT_CSS = "RoadsView { height: auto; width: 100%; }"

    def __init__(self, *, id: str | None = None, words: Catalogue = ENGLISH) -> None:
        super().__init__(id=id)
        self.words = words
        self.roads: Roads | None = None
        self.compact = False
        """No blank line between the bands (a small terminal)."""

    def show(self, roads: Roads) -> None:
        self.roads = roads
        self.refresh(layout=True)

    @staticmethod
    def _block(cells: Mapping[tuple[int, int], Text], columns: int, cell_width: int) -> list[Text]:
        last = max((col for col, _ in cells), default=-1)
        first = max(0, last - columns + 1)
        rows = []
        for row in range(ROWS):
            line = Text()
            for col in range(first, first + columns):
                cell = cells.get((col, row))
                if cell is None:
                    line.append("·".ljust(cell_width), style="dim")
                else:
                    line.append_text(cell)
                    line.append(" " * max(0, cell_width - cell.cell_len))
            rows.append(line)
        return rows

    @staticmethod
    def _join(title_blocks: list[tuple[str, list[Text], int]]) -> list[Text]:
        header = Text()
        for index, (title, _, width) in enumerate(title_blocks):
            if index:
                header.append(" │ ")
            header.append(fit_cells(title, width), style="bold underline")
        lines = [header]
        for row in range(ROWS):
            line = Text()
            for index, (_, block, _width) in enumerate(title_blocks):
                if index:
                    line.append(" │ ", style="dim")
                line.append_text(block[row])
            lines.append(line)
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """As many rows as the roads drawn for ``width`` (never wrapped)."""
        return len(self.draw(width).split())

    def render(self) -> Text:
        rows = self.content_size.height if self.styles.height is not None and self.styles.height.is_fraction else None
        return self.draw(self.content_size.width or self.size.width or 100, rows)

    def draw(self, width: int, rows: int | None = None) -> Text:
        """The roads drawn for ``width`` columns, in at most ``rows`` rows (None: all of them): all five roads
        when they fit, else the bead plate and the big road, else the counts alone."""
        roads = self.roads
        if roads is None:
            return Text(self.words.say("console.roads.none", "No results yet.") if rows is None or rows > 0 else "",
                        style="dim")
        width = max(40, width)
        bead_cols = max(4, (width - 3) // 3 // 3)
        big_cols = max(6, (width - 3 - bead_cols * 3) // 3)
        beads = {(bead.col, bead.row): Text(bead.winner + pair_mark(bead.banker_pair, bead.player_pair),
                                            style=WINNER_STYLES[bead.winner])
                 for bead in roads.bead_plate}
        big: dict[tuple[int, int], Text] = {}
        for entry in roads.big_road:
            cell = Text(entry.winner, style=WINNER_STYLES[entry.winner])
            if entry.ties:
                cell.append(str(min(entry.ties, 9)), style="bold green")
            big[(entry.display_col, entry.display_row)] = cell
        words = self.words
        band_one = self._join([
            (words.text(PAGE_WORDS["bead_plate"]), self._block(beads, bead_cols, 3), bead_cols * 3),
            (words.text(PAGE_WORDS["big_road"]), self._block(big, big_cols, 3), big_cols * 3),
        ])
        derived_cols = max(4, (width - 6) // 3 // 2)
        derived_blocks = []
        for name, _k in DERIVED_ROADS:
            colours = roads.derived(name)
            marks = {position: Text(*DERIVED_MARKS[colour == RED])
                     for colour, position in zip(colours, layout_derived(colours), strict=True)}
            derived_blocks.append((words.text(PAGE_WORDS[name]), self._block(marks, derived_cols, 2), derived_cols * 2))
        band_two = self._join(derived_blocks)
        counts = roads.counts
        summary = Text(words.say("console.roads.counts", "Banker {banker}  Player {player}  Tie {tie}  Banker pairs "
                                 "{banker_pairs}  Player pairs {player_pairs}  Naturals {naturals}",
                                 banker=counts.banker, player=counts.player, tie=counts.tie,
                                 banker_pairs=counts.banker_pair, player_pairs=counts.player_pair,
                                 naturals=counts.natural))
        gap = [] if self.compact else [Text("")]
        for lines in ([*band_one, *gap, *band_two, summary], [*band_one, summary], [summary], []):
            if rows is None or len(lines) <= rows:
                return Text("\n").join(lines)
        return Text("")



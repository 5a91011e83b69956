"""Baccarat scoreboard roads, recomputed exactly from the result history.

Pure: no I/O. Every road is a function of the ordered list of results of the
current shoe, so a voided round or a corrected result gives exactly the roads
the table would show had it never happened (see :func:`roads_from_events`).

Roads (see ``docs/roads.md`` for the rules with worked examples):

* **bead plate** — every result, ties included, 6 rows, filled column by column;
* **big road** — one column per run of the same winner (banker or player); ties
  are not entries but marks on the previous entry (``ties``). Ties that come
  before the first banker/player result are kept: they are counted on the
  first entry (``ties`` includes them, ``leading_ties`` says how many of them came
  before it). Each entry has a *logical* position (column = run, row = place in
  the run, unbounded) and a *display* position after the "dragon tail" turn;
* **big eye boy**, **small road**, **cockroach pig** — the derived roads for
  k = 1, 2, 3, as lists of ``"red"`` / ``"blue"``.

Nothing here predicts anything: past results do not predict the next one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from controller.core.events import EventLike, Readable
from controller.core.exceptions import RoadsInputError
from controller.i18n.message import message

if TYPE_CHECKING:
    from controller.i18n.catalogue import Catalogue

ROWS: Final = 6
"""Rows of every road grid."""

RED: Final = "red"
BLUE: Final = "blue"

BANKER: Final = "B"
PLAYER: Final = "P"
TIE: Final = "T"
WINNER_LETTERS: Final = (BANKER, PLAYER, TIE)

RESPONSIBLE_GAMING_LINE: Final = "Past results do not predict the next one."
RESPONSIBLE_GAMING_LINE_KO: Final = "지난 결과는 다음 결과를 예측하지 않습니다."
RESPONSIBLE_GAMING: Final = message("roads.responsible_gaming", "Past results do not predict the next one.")
"""The responsible-gaming line as a catalogue message (its Korean translation is :data:`RESPONSIBLE_GAMING_LINE_KO`)."""


def responsible_gaming_lines(catalogues: Sequence[Catalogue]) -> list[tuple[str, str]]:
    """The responsible-gaming line under the roads, as ``(language, text)`` pairs: in each of ``catalogues``'
    languages (the table's, or the board's); in English alone it keeps its Korean line under it, as it always had."""
    lines = [(words.language, words.text(RESPONSIBLE_GAMING)) for words in catalogues]
    if [language for language, _ in lines] == ["en"]:
        lines.append(("ko", RESPONSIBLE_GAMING_LINE_KO))
    return lines

DERIVED_ROADS: Final = (("big_eye_boy", 1), ("small_road", 2), ("cockroach_pig", 3))
"""The derived roads' names and their ``k`` (how many columns back they compare)."""

_EVENT_WINNERS: Final = {"banker": BANKER, "player": PLAYER, "tie": TIE,
                         "b": BANKER, "p": PLAYER, "t": TIE}

Colour = Literal["red", "blue"]


@dataclass(frozen=True, slots=True)
class Result:
    """One round's result: the winner and its side bets' flags.

    ``winner`` is ``"B"`` (banker), ``"P"`` (player) or ``"T"`` (tie); ``round``
    is the table's round number when known.
    """

    winner: str
    player_pair: bool = False
    banker_pair: bool = False
    natural: bool = False
    round: int | None = None
    player_total: int | None = None
    banker_total: int | None = None

    def __post_init__(self) -> None:
        if self.winner not in WINNER_LETTERS:
            raise RoadsInputError(f"winner {self.winner!r} is not a result: expected B, P or T")


@dataclass(frozen=True, slots=True)
class BeadEntry:
    """One bead-plate cell: result number ``index`` (0-based) at (``col``, ``row``)."""

    index: int
    col: int
    row: int
    winner: str
    player_pair: bool = False
    banker_pair: bool = False
    natural: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"col": self.col, "row": self.row, "winner": self.winner,
                "player_pair": self.player_pair, "banker_pair": self.banker_pair,
                "natural": self.natural}


@dataclass(frozen=True, slots=True)
class BigRoadEntry:
    """One big-road entry (a banker or player win).

    ``col``/``row`` is the logical position (column = run of one winner, row =
    place in that run, not capped at 6); ``display_col``/``display_row`` is where
    it is drawn on the 6-row grid after any dragon-tail turn. ``ties`` is the
    number of tie marks on the cell (ties that followed it, plus for the first
    entry the ``leading_ties`` that came before any banker/player result).
    The pair and natural flags are this entry's own result's.
    """

    index: int
    col: int
    row: int
    winner: str
    ties: int = 0
    leading_ties: int = 0
    display_col: int = 0
    display_row: int = 0
    player_pair: bool = False
    banker_pair: bool = False
    natural: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The command-line contract: exactly ``col``, ``row``, ``winner``, ``ties``."""
        return {"col": self.col, "row": self.row, "winner": self.winner, "ties": self.ties}

    def to_full_dict(self) -> dict[str, Any]:
        """Every field, for the scoreboard page."""
        return {"col": self.col, "row": self.row, "winner": self.winner, "ties": self.ties,
                "leading_ties": self.leading_ties, "display_col": self.display_col,
                "display_row": self.display_row, "player_pair": self.player_pair,
                "banker_pair": self.banker_pair, "natural": self.natural}


@dataclass(frozen=True, slots=True)
class Counts:
    """Shoe statistics: how many of each result, pairs and naturals."""

    rounds: int = 0
    banker: int = 0
    player: int = 0
    tie: int = 0
    player_pair: int = 0
    banker_pair: int = 0
    natural: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"rounds": self.rounds, "banker": self.banker, "player": self.player, "tie": self.tie,
                "player_pair": self.player_pair, "banker_pair": self.banker_pair,
                "natural": self.natural}


@dataclass(frozen=True, slots=True)
class Roads:
    """Every road of one result history; build it with :func:`compute_roads`."""

    results: tuple[Result, ...]
    bead_plate: tuple[BeadEntry, ...]
    big_road: tuple[BigRoadEntry, ...]
    leading_ties: int
    big_eye_boy: tuple[str, ...]
    small_road: tuple[str, ...]
    cockroach_pig: tuple[str, ...]
    counts: Counts = field(default_factory=Counts)

    def derived(self, name: str) -> tuple[str, ...]:
        """A derived road by name (``big_eye_boy``, ``small_road``, ``cockroach_pig``)."""
        value: tuple[str, ...] = getattr(self, name)
        return value

    def big_road_columns(self) -> list[list[BigRoadEntry]]:
        """The big road's logical columns, each a list of its entries top first."""
        columns: list[list[BigRoadEntry]] = []
        for entry in self.big_road:
            if entry.col == len(columns):
                columns.append([])
            columns[entry.col].append(entry)
        return columns

    def to_dict(self) -> dict[str, Any]:
        """The ``croupier roads --json`` object.

        ``bead_plate``, ``big_road`` (logical positions, each exactly ``col``,
        ``row``, ``winner``, ``ties``), ``big_eye_boy``, ``small_road`` and
        ``cockroach_pig`` are the contract; ``leading_ties``,
        ``big_road_display`` (each entry's drawn ``[col, row]``) and ``counts``
        are extra.
        """
        return {
            "bead_plate": [bead.to_dict() for bead in self.bead_plate],
            "big_road": [entry.to_dict() for entry in self.big_road],
            "big_eye_boy": list(self.big_eye_boy),
            "small_road": list(self.small_road),
            "cockroach_pig": list(self.cockroach_pig),
            "leading_ties": self.leading_ties,
            "big_road_display": [[entry.display_col, entry.display_row] for entry in self.big_road],
            "counts": self.counts.to_dict(),
        }

    def to_state(self) -> dict[str, Any]:
        """Everything a scoreboard draws: full big-road entries and laid-out derived roads."""
        return {
            "bead_plate": [bead.to_dict() for bead in self.bead_plate],
            "big_road": [entry.to_full_dict() for entry in self.big_road],
            "leading_ties": self.leading_ties,
            **{
                name: [{"colour": colour, "col": col, "row": row}
                       for colour, (col, row) in zip(self.derived(name),
                                                     layout_derived(self.derived(name)), strict=True)]
                for name, _ in DERIVED_ROADS
            },
            "counts": self.counts.to_dict(),
        }


# --------------------------------------------------------------------------- layout


def layout_runs(run_lengths: Sequence[int], rows: int = ROWS) -> list[list[tuple[int, int]]]:
    """Display positions ``(col, row)`` of runs laid out big-road style, with the dragon tail.

    Each run starts at the top of the first column after the previous run's
    starting column whose top cell is free. It goes down; when the next cell
    down is past the last row or already occupied (by an earlier run's tail) it
    turns right and stays on that row ("dragon tail"). Returns one list of
    positions per run.
    """
    occupied: set[tuple[int, int]] = set()
    laid: list[list[tuple[int, int]]] = []
    start = -1
    for length in run_lengths:
        col = start + 1
        while (col, 0) in occupied:
            col += 1
        start = col
        row = 0
        turned = False
        positions: list[tuple[int, int]] = []
        for step in range(length):
            if step > 0:
                if not turned and row + 1 < rows and (col, row + 1) not in occupied:
                    row += 1
                else:
                    turned = True
                    col += 1
                    while (col, row) in occupied:  # only when tails interleave pathologically
                        col += 1
            occupied.add((col, row))
            positions.append((col, row))
        laid.append(positions)
    return laid


def run_lengths(sequence: Iterable[str]) -> list[int]:
    """Lengths of the runs of equal items, in order (``"BBPB"`` → ``[2, 1, 1]``)."""
    lengths: list[int] = []
    previous: str | None = None
    for item in sequence:
        if lengths and item == previous:
            lengths[-1] += 1
        else:
            lengths.append(1)
        previous = item
    return lengths


def layout_derived(colours: Sequence[str], rows: int = ROWS) -> list[tuple[int, int]]:
    """Display positions of a derived road's marks: a new column when the colour changes."""
    return [position for run in layout_runs(run_lengths(colours), rows) for position in run]


# --------------------------------------------------------------------------- roads


def derived_road(column_lengths: Sequence[int], k: int) -> list[str]:
    """A derived road (``k`` = 1 big eye boy, 2 small road, 3 cockroach pig).

    ``column_lengths`` are the big road's logical column lengths. For each
    big-road entry at logical (c, r), in order, from the first entry at
    (k, 1) or (k + 1, 0) on:

    * r == 0 (a new column): columns c-1 and c-1-k of equal length → red, else blue;
    * r >= 1: column c-k has an entry at row r → red; its length is exactly r
      (it ended one row above) → blue; it is shorter than r → red.
    """
    if k < 1:
        raise ValueError(f"k must be 1, 2 or 3, got {k}")
    colours: list[str] = []
    for c, length in enumerate(column_lengths):
        for r in range(length):
            if c < k or (c == k and r == 0):
                continue
            if r == 0:
                colours.append(RED if column_lengths[c - 1] == column_lengths[c - 1 - k] else BLUE)
            else:
                compared = column_lengths[c - k]
                colours.append(BLUE if compared == r else RED)
    return colours


def compute_roads(results: Iterable[Result]) -> Roads:
    """Every road of a result history (oldest first)."""
    history = tuple(results)
    bead_plate = tuple(
        BeadEntry(index, index // ROWS, index % ROWS, result.winner,
                  result.player_pair, result.banker_pair, result.natural)
        for index, result in enumerate(history)
    )

    # Big road: logical positions and tie counts.
    raw: list[dict[str, Any]] = []
    leading_ties = 0
    col = -1
    row = 0
    for index, result in enumerate(history):
        if result.winner == TIE:
            if raw:
                raw[-1]["ties"] += 1
            else:
                leading_ties += 1
            continue
        if raw and raw[-1]["winner"] == result.winner:
            row += 1
        else:
            col += 1
            row = 0
        raw.append({"index": index, "col": col, "row": row, "winner": result.winner, "ties": 0,
                    "player_pair": result.player_pair, "banker_pair": result.banker_pair,
                    "natural": result.natural})
    if raw:
        raw[0]["ties"] += leading_ties
        raw[0]["leading_ties"] = leading_ties
    lengths = [0] * (col + 1)
    for item in raw:
        lengths[item["col"]] += 1
    display = [position for run in layout_runs(lengths) for position in run]
    big_road = tuple(
        BigRoadEntry(display_col=position[0], display_row=position[1], **item)
        for item, position in zip(raw, display, strict=True)
    )

    counts = Counts(
        rounds=len(history),
        banker=sum(1 for result in history if result.winner == BANKER),
        player=sum(1 for result in history if result.winner == PLAYER),
        tie=sum(1 for result in history if result.winner == TIE),
        player_pair=sum(1 for result in history if result.player_pair),
        banker_pair=sum(1 for result in history if result.banker_pair),
        natural=sum(1 for result in history if result.natural),
    )
    return Roads(
        results=history,
        bead_plate=bead_plate,
        big_road=big_road,
        leading_ties=leading_ties,
        big_eye_boy=tuple(derived_road(lengths, 1)),
        small_road=tuple(derived_road(lengths, 2)),
        cockroach_pig=tuple(derived_road(lengths, 3)),
        counts=counts,
    )


def parse_results(text: str) -> list[Result]:
    """Parse a string of result letters (``"BPPTB"``); case and whitespace are ignored.

    Raises :class:`RoadsInputError` naming the position (1-based, in ``text``)
    and the expected letters.
    """
    results: list[Result] = []
    for position, char in enumerate(text, start=1):
        if char.isspace():
            continue
        letter = char.upper()
        if letter not in WINNER_LETTERS:
            raise RoadsInputError(message("roads.bad_letter", "results position {position} is {char}: expected B "
                                          "(banker), P (player) or T (tie)", position=position, char=repr(char)))
        results.append(Result(letter))
    return results


def roads_from_results(text: str) -> Roads:
    """The roads of a letter string such as ``"BPPTB"``."""
    return compute_roads(parse_results(text))


# --------------------------------------------------------------------------- events


def result_from_event(event: EventLike) -> Result:
    """The :class:`Result` of a table ``result`` event.

    ``winner`` is ``"banker"``/``"player"``/``"tie"`` (or ``B``/``P``/``T``);
    ``natural``, ``player_pair`` and ``banker_pair`` default to False.
    """
    raw_winner = event.get("winner")
    winner = _EVENT_WINNERS.get(str(raw_winner).lower()) if raw_winner is not None else None
    if winner is None:
        raise RoadsInputError(message("roads.bad_winner", "result event for round {round} has winner {winner}: "
                                      "expected 'banker', 'player' or 'tie'", round=repr(event.get("round")),
                                      winner=repr(raw_winner)))
    round_number = event.get("round")
    return Result(
        winner,
        player_pair=bool(event.get("player_pair", False)),
        banker_pair=bool(event.get("banker_pair", False)),
        natural=bool(event.get("natural", False)),
        round=round_number if isinstance(round_number, int) else None,
        player_total=_hand_total(event.get("player")),
        banker_total=_hand_total(event.get("banker")),
    )


def _hand_total(hand: object) -> int | None:
    """A result's hand's total: the core's :class:`~controller.core.events.Hand`, or its JSON read back."""
    if isinstance(hand, Mapping | Readable):
        total = hand.get("total")
        if isinstance(total, int):
            return total
    return None


class ResultHistory:
    """The current shoe's results, kept exact under voids and corrections.

    Feed it table events with :meth:`apply`:

    * ``result`` appends the round's result; a second ``result`` for a round
      already recorded replaces it in place (a correction);
    * ``round_voided`` removes that round's result if it was recorded;
    * a new shoe clears the history: a ``shoe`` event with ``"status": "new"``
      (what the table core sends), a ``result`` whose ``shoe`` number differs
      from the recorded results' one, or ``new_shoe`` / ``shoe_started``;
    * after a ``shoe_closed`` the closed shoe's results stay shown until the
      next shoe begins: the next ``result`` or ``shoe`` event clears them.

    Other events are ignored. :meth:`roads` recomputes every road from the history.
    """

    def __init__(self) -> None:
        self._results: list[Result] = []
        self._shoe_closed = False
        self._shoe: object = None

    @property
    def results(self) -> tuple[Result, ...]:
        return tuple(self._results)

    def clear(self) -> None:
        """Forget the history (a new shoe)."""
        self._results.clear()
        self._shoe_closed = False
        self._shoe = None

    def apply(self, event: EventLike) -> bool:
        """Apply one table event; True when the history changed."""
        kind = event.get("event")
        if kind == "result":
            result = result_from_event(event)
            shoe = event.get("shoe")
            if self._shoe_closed or (shoe is not None and self._shoe is not None and shoe != self._shoe):
                self.clear()
            if shoe is not None:
                self._shoe = shoe
            if result.round is not None:
                for position, recorded in enumerate(self._results):
                    if recorded.round == result.round:
                        self._results[position] = result
                        return True
            self._results.append(result)
            return True
        if kind == "round_voided":
            round_number = event.get("round")
            before = len(self._results)
            self._results = [result for result in self._results if result.round != round_number]
            return len(self._results) != before
        if kind == "shoe_closed":
            self._shoe_closed = True
            return False
        if kind in ("new_shoe", "shoe_started") or (
                kind == "shoe" and (self._shoe_closed or event.get("status") == "new")):
            changed = bool(self._results)
            self.clear()
            if kind == "shoe" and event.get("shoe") is not None:
                self._shoe = event.get("shoe")
            return changed
        return False

    def roads(self) -> Roads:
        """Every road of the current history."""
        return compute_roads(self._results)


def roads_from_events(events: Iterable[EventLike]) -> Roads:
    """The roads of the current shoe from a stream of table events (see :class:`ResultHistory`)."""
    history = ResultHistory()
    for event in events:
        history.apply(event)
    return history.roads()


# --------------------------------------------------------------------------- text


def render_text(roads: Roads, colour: bool = False, words: Catalogue | None = None, width: int | None = None) -> str:
    """The roads as a readable text grid (what ``croupier roads`` prints without ``--json``), in ``words``'
    language (default English), fitting ``width`` terminal cells when given; see :mod:`controller.ui.roadtext`."""
    from controller.ui.roadtext import render

    return render(roads, colour, width=width) if words is None else render(roads, colour, words, width)

"""The width a terminal says it has, for text that wraps or fits it (the transcript, ``croupier roads``).

A terminal that reports 0 columns (``stty cols 0``, some serial consoles and containers), or ``COLUMNS=0``, does not
say its width: it is taken as :data:`DEFAULT_WIDTH`, as ``shutil.get_terminal_size`` takes it, never as a width of
0 (every line wrapped at the narrowest width)."""

from __future__ import annotations

import os

MIN_WIDTH = 20
"""The narrowest terminal text wraps for (a smaller width is taken as this)."""
DEFAULT_WIDTH = 80
"""The width of a terminal that does not say its own (0 columns, or it cannot be asked)."""


def columns_given() -> int | None:
    """``$COLUMNS`` when it is a width (a number above 0; at least :data:`MIN_WIDTH`); None when it is unset, not a
    number, or 0 (a width unknown, as a terminal's own 0 is)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        return None
    return max(MIN_WIDTH, columns) if columns > 0 else None


def terminal_columns(descriptor: int) -> int:
    """The width of the terminal open on ``descriptor``: ``$COLUMNS`` when it is a width, else the terminal's own,
    else :data:`DEFAULT_WIDTH` (it reports 0 columns, or cannot be asked)."""
    given = columns_given()
    if given is not None:
        return given
    try:
        columns = os.get_terminal_size(descriptor).columns
    except OSError:
        return DEFAULT_WIDTH
    return max(MIN_WIDTH, columns) if columns > 0 else DEFAULT_WIDTH

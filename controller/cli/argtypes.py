"""Argument types shared by the subcommands: each rejects a bad value with the range it expects."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from controller.i18n.languages import LANGUAGES


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An ``argparse`` type for a whole number in ``[low, high]`` (no upper bound when ``high`` is None)."""
    expected = f"{low}-{high}" if high is not None else f"{low} or more"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number ({expected}), got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {value}")
        return value

    return parse


def number(low: float, high: float, what: str = "a number") -> Callable[[str], float]:
    """An ``argparse`` type for a number in ``[low, high]``, described as ``what``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what} from {low:g} to {high:g}, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {what} from {low:g} to {high:g}, got {value:g}")
        return value

    return parse


seconds = number(0, 3600, "a number of seconds")
"""0-3600 seconds."""
rate = number(0, 1, "a rate")
"""A probability, 0-1."""


def add_lang_option(parser: argparse.ArgumentParser) -> None:
    """``--lang CODE``: the language of the text the command prints (default: ``[table] language``)."""
    parser.add_argument("--lang", choices=LANGUAGES, metavar="CODE",
                        help=f"the language of the text printed: {', '.join(LANGUAGES)} "
                             "(default: [table] language, else en; docs/languages.md)")

"""Argument types shared by the subcommands: each rejects a bad value with the range it expects."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from controller.cli.language import text as worded
from controller.i18n.languages import LANGUAGES
from controller.i18n.message import message


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An ``argparse`` type for a whole number in ``[low, high]`` (no upper bound when ``high`` is None)."""

    def parse(text: str) -> int:
        span = worded(message("argument.whole_range", "{low}-{high}", low=low, high=high)) if high is not None \
            else worded(message("argument.whole_from", "{low} or more", low=low))
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(worded(message(
                "argument.not_whole", "expected a whole number ({expected}), got {got}", expected=span,
                got=repr(text)))) from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(worded(message("argument.out_of_range", "expected {expected}, got {value}",
                                                            expected=span, value=value)))
        return value

    return parse


def number(low: float, high: float, what: str = "number") -> Callable[[str], float]:
    """An ``argparse`` type for a number in ``[low, high]``, described as ``what`` (``number``, ``seconds``,
    ``rate``)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(_expected_number(what, low, high, repr(text))) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(_expected_number(what, low, high, f"{value:g}"))
        return value

    return parse


def _expected_number(what: str, low: float, high: float, got: str) -> str:
    params: dict[str, str | int] = {"low": f"{low:g}", "high": f"{high:g}", "got": got}
    if what == "seconds":
        return worded(message("argument.seconds", "expected a number of seconds from {low} to {high}, got {got}",
                              **params))
    if what == "rate":
        return worded(message("argument.rate", "expected a rate from {low} to {high}, got {got}", **params))
    return worded(message("argument.number", "expected a number from {low} to {high}, got {got}", **params))


seconds = number(0, 3600, "seconds")
"""0-3600 seconds."""
rate = number(0, 1, "rate")
"""A probability, 0-1."""


def add_lang_option(parser: argparse.ArgumentParser) -> None:
    """``--lang CODE``: the language of the text the command prints (default: ``[table] language``)."""
    parser.add_argument("--lang", choices=LANGUAGES, metavar="CODE",
                        help=f"the language of the text printed: {', '.join(LANGUAGES)} "
                             "(default: [table] language, else en; docs/languages.md)")

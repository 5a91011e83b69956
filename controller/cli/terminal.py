"""Is there a terminal for the dealer console? Textual reads its keys from standard input and draws on standard
error (standard output keeps what a command prints after it: the summary), so both must be one. Without a terminal
the console would wait for keys that never come, saying nothing: ``run --console textual`` and ``simulate
--interactive`` are refused there, in one line, before anything is opened (exit 2)."""

from __future__ import annotations

import sys
from typing import TextIO

from controller.core.exceptions import CroupierError
from controller.i18n.message import Message


def is_terminal(stream: TextIO | None) -> bool:
    """Is ``stream`` open on a terminal?"""
    if stream is None or stream.closed:
        return False
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False


def console_terminal(stdin: TextIO | None, stderr: TextIO | None) -> bool:
    """Are the console's keys (``stdin``) and its screen (``stderr``) on a terminal?"""
    return is_terminal(stdin) and is_terminal(stderr)


def require_console_terminal(refusal: Message) -> None:
    """Refuse the console (``refusal``: the option, that it needs a terminal, what to do) without a terminal."""
    if not console_terminal(sys.stdin, sys.stderr):
        raise CroupierError(refusal)

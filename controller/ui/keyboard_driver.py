"""The terminal's keys as the Textual consoles read them: a byte that is not UTF-8 is a key they do not know.

Textual's Linux driver decodes the keyboard strictly: one byte that is not UTF-8 (a terminal set to Latin-1, a
keyboard-wedge scanner or badge reader, a dead key) raised in its input thread, and the console closed mid-shoe with
a traceback over the dealer's screen. :class:`KeyboardDriver` reads such a byte as U+FFFD, which no binding takes.
"""

from __future__ import annotations

import codecs
import functools
from typing import Any

from textual.driver import Driver
from textual.drivers import linux_driver


def _replacing(encoding: str) -> Any:
    """The incremental decoder class of ``encoding``, reading what it cannot decode as U+FFFD."""
    return functools.partial(codecs.getincrementaldecoder(encoding), errors="replace")


class KeyboardDriver(linux_driver.LinuxDriver):
    """Textual's Linux driver, its keyboard decoded with U+FFFD for what is not UTF-8."""

    def run_input_thread(self) -> None:
        """Textual's input loop, whose decoder (made once, as the loop starts) replaces what it cannot decode."""
        names = vars(linux_driver)  # the module's own name, looked up by the loop as it starts
        strict = names.get("getincrementaldecoder")
        if strict is None:  # a Textual that decodes otherwise: its own loop, as it is
            super().run_input_thread()
            return
        names["getincrementaldecoder"] = _replacing
        try:
            super().run_input_thread()
        finally:
            names["getincrementaldecoder"] = strict


def keyboard_driver(chosen: type[Driver]) -> type[Driver]:
    """The driver a console runs on: :class:`KeyboardDriver` where Textual chose its Linux driver, else its own
    (the headless driver of tests, a driver named in ``TEXTUAL_DRIVER``)."""
    return KeyboardDriver if chosen is linux_driver.LinuxDriver else chosen


__all__ = ["KeyboardDriver", "keyboard_driver"]

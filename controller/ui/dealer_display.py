"""The plain dealer display of ``croupier run``: the transcript with the next action in large type."""

from __future__ import annotations

from typing import TextIO

from controller.core.events import Event
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.ui.bigtext import banner, big_width, can_render, render_big
from controller.ui.fontglyphs import large_type
from controller.ui.transcript import Transcript

LARGE_COLUMNS = 80
"""The width the large type of a plain dealer display keeps within (a narrower terminal's own width)."""


class DealerDisplay(Transcript):
    """The transcript with the next action in large type on a terminal (block letters, or for text the block
    font cannot draw, such as Korean or Chinese, an installed font's glyphs; without one, the text
    letter-spaced), within 80 columns or the terminal's width when it is narrower (block letters that do not fit
    it are left out: the transcript's line says the same)."""

    def __init__(self, stream: TextIO, large: bool, words: Catalogue = ENGLISH, width: int | None = None) -> None:
        super().__init__(stream, show_next=True, words=words, width=width)
        self.large = large

    def render(self, event: Event) -> None:
        super().render(event)
        if self.large and event["event"] in ("prompt", "instruction", "result"):
            text = event["say"].upper()
            if event["event"] == "prompt":
                side = (self.words.say("side.player", "PLAYER") if event["to"] == "player"
                        else self.words.say("side.banker", "BANKER"))
                text = f"{side} {event['slot']}"
            columns = min(LARGE_COLUMNS, self.width) if self.width else LARGE_COLUMNS
            if can_render(text):
                if len(text) <= 24 and (not self.width or big_width(text) <= self.width):
                    self.line("\n".join(render_big(text)), wrap=False)
                return
            drawn = large_type(text, columns, 1, self.words.language)
            self.line("\n".join(drawn if drawn is not None else banner(text, columns)), wrap=False)

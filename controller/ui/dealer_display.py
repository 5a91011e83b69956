"""The plain dealer display of ``croupier run``: the transcript with the next action in large type."""

from __future__ import annotations

from typing import TextIO

from controller.core.events import Event
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.ui.bigtext import banner, can_render, render_big
from controller.ui.transcript import Transcript

LARGE_COLUMNS = 80
"""The width the large type of a plain dealer display keeps within."""


class DealerDisplay(Transcript):
    """The transcript with the next action in large type on a terminal (block letters, or for text the block
    font cannot draw, such as Korean or Chinese, the text letter-spaced within 80 columns)."""

    def __init__(self, stream: TextIO, large: bool, words: Catalogue = ENGLISH) -> None:
        super().__init__(stream, show_next=True, words=words)
        self.large = large

    def render(self, event: Event) -> None:
        super().render(event)
        if self.large and event["event"] in ("prompt", "instruction", "result"):
            text = event["say"].upper()
            if event["event"] == "prompt":
                side = (self.words.say("side.player", "PLAYER") if event["to"] == "player"
                        else self.words.say("side.banker", "BANKER"))
                text = f"{side} {event['slot']}"
            if can_render(text):
                if len(text) <= 24:
                    self.line("\n".join(render_big(text)))
            else:
                self.line("\n".join(banner(text, LARGE_COLUMNS)))

"""The dealer console fits its terminal: nothing to scroll, at any size and in any moment.

The roads take the rows the rest leaves (all five roads when they fit, else the bead plate and the big
road, else the counts). When the moments on screen (an alert, a shoe banner, a misdeal's keys) need more
rows than the terminal has even so, the console steps through :data:`LEVELS`, one layout at a time, until
its main area fits; each level gives up something less important than the moments:

1. borders, the result line, the status line and the last input sent (a refusal stays), and on a small terminal
   the burned and set-aside counts on the top line;
2. the roads, and the alert's and the banner's large type at its smallest size;
3. the next action's large type at its smallest size too.

The level starts again from 0 whenever the moments on screen or the terminal's size change.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final

from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import Screen

LEVELS: Final = 3
"""How many steps the console may give up (see the module doc)."""
CSS: Final = """
.fit-1 #action-box { border: none; }
.fit-1 .hand { border: none; }
.fit-1 #roads { border: none; }
.fit-1 #status-bar { display: none; }
.fit-1 #result { display: none; }
.fit-1 #sent { display: none; }
.fit-1 #sent.refused { display: block; }
.fit-2 #roads { display: none; }
"""
"""The console's style at each level (the classes ``fit-1`` ... on its main screen)."""


def level_of(node: DOMNode) -> int:
    """The fitting level of the screen ``node`` is on (0 when it is not on one)."""
    screen = node.screen if node.is_attached else None
    return int(getattr(screen, "fit_level", 0)) if screen is not None else 0


def overflows(screen: Screen[None]) -> bool:
    """Is the screen's main area taller than the rows it has (it would scroll)?"""
    main = screen.query_one("#main", VerticalScroll)
    return main.virtual_size.height > main.size.height


class Fitting:
    """One screen's fitting level, started again when what is on screen changes."""

    def __init__(self) -> None:
        self._shown: Hashable = None

    def shown(self, screen: Screen[None], what: Hashable) -> None:
        """The screen now shows ``what`` (its moments and size): back to level 0 if that changed."""
        if what != self._shown:
            self._shown = what
            self._set(screen, 0)

    def step(self, screen: Screen[None]) -> bool:
        """After a layout: give up one more level if the screen overflows; True when it did."""
        level = int(getattr(screen, "fit_level", 0))
        if level >= LEVELS or not overflows(screen):
            return False
        self._set(screen, level + 1)
        return True

    @staticmethod
    def _set(screen: Screen[None], level: int) -> None:
        if int(getattr(screen, "fit_level", 0)) == level:
            return
        screen.fit_level = level  # type: ignore[attr-defined]
        for number in range(1, LEVELS + 1):
            screen.set_class(level >= number, f"fit-{number}")
        for widget in screen.query("BigText"):
            widget.refresh(layout=True)
        screen.refresh(layout=True)

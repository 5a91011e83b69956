"""The dealer console fits its terminal: nothing to scroll, at any size and in any moment.

The roads take the rows the rest leaves (all five roads when they fit, else the bead plate and the big
road, else the counts). When the moments on screen (an alert, a shoe banner, a misdeal's keys) need more
rows than the terminal has even so, the console steps through :data:`LEVELS`, one layout at a time, until
its main area fits; each level gives up something less important than the moments:

1. borders, the result line, the status line and the last input sent (a refusal stays), and on a small terminal
   the burned and set-aside counts on the top line;
2. the roads, and the alert's and the banner's large type at its smallest size;
3. the next action's large type at its smallest size too.

The level starts again from 0 whenever the moments on screen or the terminal's size change. Each step reads a
layout of the level it steps from (:meth:`Fitting.laid_out` counts the screen's layouts): a check that runs before
the screen laid out the last level again (Textual may run several callbacks queued "after refresh" after one
layout) waits for the next layout instead of giving up another level on the old one, so the console gives up only
the levels it needs, the same whether the terminal started at its size or was resized to it.
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
        self._layouts = 0
        """How many layouts the screen has had (:meth:`laid_out`)."""
        self._set_at = 0
        """The value of :attr:`_layouts` when the level last changed: a layout since then shows that level."""

    def laid_out(self) -> None:
        """The screen has just been laid out again (its ``screen_layout_refresh_signal``, subscribed immediate)."""
        self._layouts += 1

    @property
    def current(self) -> bool:
        """Has the screen been laid out since its level last changed (is what it shows that level's layout)?"""
        return self._layouts > self._set_at

    def shown(self, screen: Screen[None], what: Hashable) -> None:
        """The screen now shows ``what`` (its moments and size): back to level 0 if that changed (and, at level 0
        already, the layout of what it showed before is not read either)."""
        if what != self._shown:
            self._shown = what
            self.set(screen, 0)
            self._set_at = self._layouts

    def step(self, screen: Screen[None]) -> bool:
        """After a layout of the current level: give up one more level if the screen overflows; True when it did.
        Before that layout (:attr:`current`) it gives up nothing: the layout it would read is the level before's."""
        level = int(getattr(screen, "fit_level", 0))
        if level >= LEVELS or not self.current or not overflows(screen):
            return False
        self.set(screen, level + 1)
        return True

    def set(self, screen: Screen[None], level: int) -> None:
        """Show ``screen`` at ``level`` (its ``fit-N`` classes), laid out again."""
        if int(getattr(screen, "fit_level", 0)) == level:
            return
        self._set_at = self._layouts
        screen.fit_level = level  # type: ignore[attr-defined]
        for number in range(1, LEVELS + 1):
            screen.set_class(level >= number, f"fit-{number}")
        for widget in screen.query("BigText"):
            widget.refresh(layout=True)
        screen.refresh(layout=True)

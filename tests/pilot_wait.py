"""Waiting on a Textual console by what it shows, not by how long it took."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

DEADLINE = 30.0
"""Seconds before a wait gives up (generous: a loaded machine may be slow, never wrong)."""


async def wait_until(pilot: Any, condition: Callable[[], bool], what: str, deadline: float = DEADLINE) -> None:
    """Pause ``pilot`` until ``condition()`` holds; fail naming ``what`` after ``deadline`` seconds."""
    end = time.monotonic() + deadline
    while not condition():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await pilot.pause(0.01)


async def shown_footer(pilot: Any, app: Any, deadline: float = DEADLINE) -> list[str]:
    """The descriptions of the keys the footer shows, once it shows those of the bindings now active (it draws
    them again after the bindings changed, a refresh later)."""
    from textual.widgets._footer import FooterKey

    def shown() -> list[str]:
        return [key.description for key in app.screen.query(FooterKey)]

    def active() -> set[str]:
        return {binding.description for _, binding, _, _ in app.screen.active_bindings.values() if binding.show}

    await wait_until(pilot, lambda: bool(shown()) and set(shown()) == active(), "the footer's keys", deadline)
    return shown()

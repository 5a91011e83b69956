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

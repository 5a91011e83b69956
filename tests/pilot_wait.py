"""Driving a Textual console in a test through Textual's public API: a key pressed, then waited on until the
console has handled it, and waits by what the console shows, never by how long it took.

Textual's own ``pilot.press`` and ``pilot.pause()`` wait for the process to look idle in 20 ms sleeps (twice a key):
most of a console test's time. :func:`press` and :func:`settle` wait instead until the app and every widget of its
screen have handled every message queued, and every message that queued in turn (a ``call_later`` mark behind
what each holds, and ``message_queue_size``): what a test checks after a key is then there, at once.
"""

from __future__ import annotations

import asyncio
import time
import unicodedata
from collections.abc import Callable
from typing import Any

from textual import events
from textual.geometry import Region
from textual.keys import KEY_NAME_REPLACEMENTS, key_to_character
from textual.widget import Widget
from textual.widgets import Footer

DEADLINE = 30.0
"""Seconds before a wait gives up (generous: a loaded machine may be slow, never wrong)."""


async def settle(pilot: Any, deadline: float = DEADLINE) -> None:
    """Wait until the app and the widgets of its screen have no message left to handle, then lay the screen out and
    draw it anew once (``pilot.pause(0)``), as Textual's ``pilot.pause()`` ends."""
    app = pilot.app
    end = time.monotonic() + deadline
    pumps: list[Any] = [app, *app.screen.walk_children(with_self=True)]  # all of them: the message in hand too
    while pumps:
        await _handled(pumps, end - time.monotonic())
        pumps = [pump for pump in (app, *app.screen.walk_children(with_self=True)) if pump.message_queue_size]
    await pilot.pause(0)


async def _handled(pumps: list[Any], seconds: float) -> None:
    """Wait until each of ``pumps`` has handled what it holds now (a mark queued behind it: ``call_later``)."""
    done = asyncio.Event()
    left = 0

    def marked() -> None:
        nonlocal left
        left -= 1
        if left == 0:
            done.set()

    for pump in pumps:
        left += pump.call_later(marked)
    if left:
        try:
            await asyncio.wait_for(done.wait(), max(seconds, 0.0))
        except TimeoutError:
            raise AssertionError("timed out waiting for the console to handle its messages") from None


def key_event(key: str) -> events.Key:
    """The key event a terminal gives for ``key``: a key name (``enter``, ``ctrl+q``) or a character (``y``,
    ``+``), named as Textual names it."""
    if len(key) == 1:
        name = key
        if not key.isalnum():
            name = unicodedata.name(key).lower().replace("-", "_").replace(" ", "_")
            name = KEY_NAME_REPLACEMENTS.get(name, name)
        return events.Key(name, key)
    return events.Key(key, key_to_character(key))


async def press(pilot: Any, *keys: str) -> None:
    """Press ``keys`` one after another, each handled before the next (:func:`settle`)."""
    for key in keys:
        pilot.app.post_message(key_event(key))
        await settle(pilot)


async def wait_until(pilot: Any, condition: Callable[[], bool], what: str, deadline: float = DEADLINE) -> None:
    """Pause ``pilot`` until ``condition()`` holds; fail naming ``what`` after ``deadline`` seconds."""
    end = time.monotonic() + deadline
    while not condition():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await pilot.pause(0.01)


async def shown_footer(pilot: Any, app: Any, deadline: float = DEADLINE) -> list[str]:
    """The descriptions of the keys the footer draws, once it draws those of the bindings now active and no other
    (it draws them again after the bindings changed, a refresh later)."""
    def active() -> set[str]:
        return {binding.description for _, binding, _, _ in app.screen.active_bindings.values() if binding.show}

    def drawn() -> list[str]:
        """The text of each key the footer draws (its key, then its description)."""
        footer = app.screen.query_one(Footer)
        return [" ".join(strip.text for strip in key.render_lines(Region(0, 0, key.size.width, 1))).strip()
                for key in footer.children]

    def described() -> list[str]:
        wanted = active()
        return [description for text in drawn() for description in wanted if text.endswith(description)]

    def shown() -> bool:
        texts = drawn()
        return bool(texts) and len(described()) == len(texts) and set(described()) == active()

    await wait_until(pilot, shown, "the footer's keys", deadline)
    return described()


def footer_keys(app: Any) -> list[tuple[str, Widget]]:
    """Each key the footer has, with the description of its binding: one key for each action of the bindings now
    active and shown, in their order (how Textual's footer lays them out); empty until it has them all."""
    actions: dict[str, str] = {}
    for _, binding, _, _ in app.screen.active_bindings.values():
        if binding.show:
            actions.setdefault(binding.action, binding.description)
    keys = list(app.screen.query_one(Footer).children)
    return list(zip(actions.values(), keys, strict=True)) if len(keys) == len(actions) else []

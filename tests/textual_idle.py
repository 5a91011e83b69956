"""Textual's idle wait, cut to short slices for the tests.

Textual's pilot waits for "idle" (``textual._wait.wait_for_idle``) by sleeping 20 ms slices until the process
used under 1 ms of CPU in one, twice for every key it presses and once for every ``pause()``: most of a
console test's wall time was these sleeps. The order of what a test sees does not rest on them:
``pilot.press`` and ``pilot.pause`` also wait until the app and every widget of the screen have processed what
was queued (``Pilot._wait_for_screen``). The slices here are 2 ms, and idle stays the same share of a slice
(under a twentieth of it on the CPU).
"""

from __future__ import annotations

SLICE_SECONDS = 1 / 500


def quicken() -> None:
    """Use :data:`SLICE_SECONDS` slices in Textual's idle wait (when Textual is installed)."""
    try:
        import textual._wait as wait
    except ImportError:
        return
    wait.SLEEP_GRANULARITY = SLICE_SECONDS
    wait.SLEEP_IDLE = SLICE_SECONDS / 20.0

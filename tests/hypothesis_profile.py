"""Hypothesis profiles: ``dev`` (the default, the quick loop) and ``ci`` (``.ci/test`` sets
``HYPOTHESIS_PROFILE=ci``). Property tests whose every example is a whole shoe take their example count
from :func:`examples`, so the quick loop runs half of what CI runs (never a handful)."""

from __future__ import annotations

import os

from hypothesis import settings

SHARES = {"dev": 0.5, "ci": 1.0}
"""Each profile's share of a heavy property test's full example count."""

settings.register_profile("dev", settings.get_profile("default"))
settings.register_profile("ci", settings.get_profile("default"), print_blob=True)


def profile() -> str:
    """The profile this run uses: ``HYPOTHESIS_PROFILE``, else ``dev``."""
    return os.environ.get("HYPOTHESIS_PROFILE", "dev")


def examples(full: int, least: int = 20) -> int:
    """The example count of a property test whose examples are whole shoes: ``full`` under ``ci``, its
    profile's share of it under another profile, never fewer than ``least`` (nor more than ``full``)."""
    return max(min(full, least), round(full * SHARES.get(profile(), 1.0)))


settings.load_profile(profile())

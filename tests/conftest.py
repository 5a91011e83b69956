"""Suite-wide rules: which tests are ``slow`` (docs/testing.md) and the hypothesis profiles.

A test is ``slow`` when it needs a real external service (pcscd, Mosquitto, PostgreSQL), a browser
(Chromium) or a terminal (tmux), or a long run. The service fixtures mark their tests slow here, at
collection; a test that drives Chromium or tmux without the mark fails (tests/slowrule.py).

Importing :mod:`tests.hypothesis_profile` loads the hypothesis profile (``dev`` unless
``HYPOTHESIS_PROFILE`` names another; ``.ci/test`` runs the whole suite with ``ci``). Textual's idle wait
takes short slices (:mod:`tests.textual_idle`), and the commands the tests start get Ctrl+C.
"""

from __future__ import annotations

import signal

import pytest

from tests import hypothesis_profile, slowrule, textual_idle

LOADED_PROFILE = hypothesis_profile.profile()
"""The hypothesis profile of this run (importing the module loaded it)."""
textual_idle.quicken()


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl+C reaches the commands the tests start, as on a terminal: a shell that starts the suite as a
    background job (``pytest ... &`` in a script) has SIGINT ignored, which every child would inherit, and
    the tests that stop a command with Ctrl+C (``badges watch``, a table's clean stop) would wait forever."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.hookimpl(tryfirst=True)  # before ``-m "not slow"`` deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark slow every test that uses a service fixture."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if slowrule.SERVICE_FIXTURES.intersection(fixtures) and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Remember whether the test about to run is slow, for :func:`tests.slowrule.require_slow`."""
    slowrule.running_slow_test = item.get_closest_marker("slow") is not None


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (pyproject's addopts) starts a worker per core, except for a run of one test file (or tests
    of one file): that runs in this process, which is quicker than starting workers (docs/testing.md)."""
    files = {arg.split("::")[0] for arg in config.args}
    return 0 if len(files) == 1 and next(iter(files)).endswith(".py") else None

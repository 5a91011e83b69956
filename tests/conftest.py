"""Suite-wide rules: which tests are ``slow`` (docs/testing.md) and the hypothesis profiles.

A test is ``slow`` when it needs a real external service (pcscd, Mosquitto, PostgreSQL), a browser
(Chromium) or a terminal (tmux), or a long run. The service fixtures mark their tests slow here, at
collection; a test that drives Chromium or tmux without the mark fails (tests/slowrule.py).

Before the tests, the install's own manifest is written again when the checkout changed since it was written
(:mod:`tests.integrity`: ``croupier run`` verifies against it). Importing :mod:`tests.hypothesis_profile` loads
the hypothesis profile (``dev`` unless ``HYPOTHESIS_PROFILE`` names another; ``.ci/test`` runs the whole suite with
``ci``). The commands the tests start get Ctrl+C.
"""

from __future__ import annotations

import gc
import os
import signal
import sys

import pytest

from tests import hypothesis_profile, integrity, slowrule

LOADED_PROFILE = hypothesis_profile.profile()
"""The hypothesis profile of this run (importing the module loaded it)."""
sys.dont_write_bytecode = False
"""The suite keeps its bytecode caches (pytest's rewritten test modules, the modules they import) even where
``PYTHONDONTWRITEBYTECODE`` is set: otherwise every worker of every run compiles some 270 test modules again
(about 2.5 s of CPU a worker)."""


for _inherited in ("COLUMNS", "LINES"):
    os.environ.pop(_inherited, None)
"""No terminal size leaks in from the shell or from pytest-xdist (whose workers set ``COLUMNS=80``): ``croupier
roads`` and the transcript fit ``$COLUMNS``, so a test that wants a width says so (``COLUMNS=...`` in its run's
environment)."""

for _inherited in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
    os.environ.pop(_inherited, None)
"""Every connection the tests make is to 127.0.0.1 (their own pages, brokers and databases, Chromium's too): no
proxy in the environment comes between."""


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl+C reaches the commands the tests start, as on a terminal: a shell that starts the suite as a
    background job (``pytest ... &`` in a script) has SIGINT ignored, which every child would inherit, and
    the tests that stop a command with Ctrl+C (``badges watch``, a table's clean stop) would wait forever.

    Last of all (a clean-up registered before pytest's own, so run after them, its last garbage collections
    and its report of exceptions raised in ``__del__`` included), what is left is frozen out of the
    collector's reach, as ``croupier``'s own exit does: the process's exit then does not walk it again."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    config.add_cleanup(gc.freeze)
    if not hasattr(config, "workerinput"):  # once, in the process that starts the workers
        integrity.approve_the_checkout()


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collecting the suite built (its modules, their imports, the test items) is frozen out of the
    garbage collector's reach, after one collection of its garbage: the collections during the tests then walk
    only what the tests made."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(tryfirst=True)  # before ``-m "not slow"`` deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``slow`` and ``services`` every test that uses a service fixture (``.ci/test`` runs those in one
    process, after the others)."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if slowrule.SERVICE_FIXTURES.intersection(fixtures):
            if item.get_closest_marker("slow") is None:
                item.add_marker(pytest.mark.slow)
            if item.get_closest_marker("services") is None:
                item.add_marker(pytest.mark.services)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Remember whether the test about to run is slow, for :func:`tests.slowrule.require_slow`."""
    slowrule.running_slow_test = item.get_closest_marker("slow") is not None


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (pyproject's addopts) starts a worker per core this process may use and one more, since a
    part of the tests waits on a pty or a child process while the others compute (``PYTEST_XDIST_AUTO_NUM_WORKERS``
    still decides when it is set); a run of one test file (or tests of one file) runs in this process, which is
    quicker than starting workers (docs/testing.md)."""
    files = {arg.split("::")[0] for arg in config.args}
    if len(files) == 1 and next(iter(files)).endswith(".py"):
        return 0
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own setting wins
    return len(os.sched_getaffinity(0)) + 1

"""A real Mosquitto and a real PostgreSQL for the floor tests, each started on a free port, stopped by PID.

``.ci/test`` starts both and exports where they are (``TESTS_MQTT=127.0.0.1:PORT``,
``TESTS_POSTGRES=postgresql://...``); run without it, the fixtures start their own. A missing
server skips the tests, except under CI (``CI`` set), where it fails them.
"""

from __future__ import annotations

import os

import pytest

from tests import servers
from tests.servers import free_port

__all__ = ["Mosquitto", "Postgres", "free_port", "unavailable"]


def unavailable(reason: str) -> None:
    """Skip, or fail under CI, where the floor tests must run."""
    if os.environ.get("CI"):
        pytest.fail(f"the floor tests must run under CI but {reason}")
    pytest.skip(reason)


class Mosquitto(servers.Mosquitto):
    """A Mosquitto of its own (:mod:`tests.servers`); one that is missing skips the test."""

    def start(self) -> None:
        try:
            super().start()
        except servers.ServerUnavailable as error:
            unavailable(str(error))


class Postgres(servers.Postgres):
    """A PostgreSQL of its own (:mod:`tests.servers`); one that is missing skips the test."""

    def start(self) -> None:
        try:
            super().start()
        except servers.ServerUnavailable as error:
            unavailable(str(error))

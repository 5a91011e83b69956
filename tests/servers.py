"""A real Mosquitto and a real PostgreSQL on free ports of 127.0.0.1, stopped by PID, for the floor tests
(``tests/controller/floor/services.py``, which skip a test when one is missing): those of ``croupier floor up``
(:mod:`controller.floor.localservers`). A server that is missing or does not start raises
:class:`ServerUnavailable` with what to install."""

from __future__ import annotations

from controller.floor.localservers import (
    MAX_QUEUED,
    PG_BIN,
    START_SECONDS,
    Mosquitto,
    Postgres,
    ServerUnavailable,
    free_port,
    stop_pid,
    wait_listening,
)

__all__ = ["MAX_QUEUED", "PG_BIN", "START_SECONDS", "Mosquitto", "Postgres", "ServerUnavailable", "free_port",
           "stop_pid", "wait_listening"]

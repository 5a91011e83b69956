"""The floor benchmark's Mosquitto and PostgreSQL: :mod:`controller.floor.localservers`, as ``croupier floor up``'s."""

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

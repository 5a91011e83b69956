"""Fixtures for the floor tests: a real broker and a real database (see ``services.py``)."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.controller.floor.services import Mosquitto, Postgres, unavailable  # noqa: E402


def _psycopg() -> object:
    try:
        import psycopg
    except ImportError:
        unavailable("psycopg is not installed (the floor extra: pip install -e '.[floor]')")
    return psycopg


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server's maintenance database (TESTS_POSTGRES, or our own)."""
    given = os.environ.get("TESTS_POSTGRES")
    if given:
        yield given
        return
    server = Postgres()
    try:
        server.start()
        yield server.url()
    finally:
        server.stop()


@pytest.fixture
def database(postgres_server: str) -> Iterator[str]:
    """A fresh, empty database of its own for one test; dropped afterwards."""
    psycopg = _psycopg()
    name = f"croupier_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as admin:  # type: ignore[attr-defined]
        admin.execute(f"CREATE DATABASE {name}")
    base = postgres_server.rsplit("/", 1)[0]
    yield f"{base}/{name}"
    with psycopg.connect(postgres_server, autocommit=True) as admin:  # type: ignore[attr-defined]
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """HOST:PORT of a running Mosquitto (TESTS_MQTT, or our own for the session)."""
    given = os.environ.get("TESTS_MQTT")
    if given:
        yield given
        return
    server = Mosquitto(tmp_path_factory.mktemp("mosquitto"))
    server.start()
    try:
        yield server.address
    finally:
        server.stop()


@pytest.fixture
def own_broker(tmp_path: Path) -> Iterator[Mosquitto]:
    """A Mosquitto of this test's own, which it may stop and start again."""
    server = Mosquitto(tmp_path / "mosquitto")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def site() -> str:
    """A site name no other test uses (the broker may be shared)."""
    return f"site{uuid.uuid4().hex[:8]}"

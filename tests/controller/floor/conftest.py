"""Fixtures of the floor tests: a real Mosquitto (the suite's, from .ci/test, or one of our own)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.controller.floor.mosquitto import Mosquitto


@pytest.fixture(scope="session")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """HOST:PORT of a running anonymous Mosquitto: ``CROUPIER_TEST_MQTT`` (.ci/test's) or one started here."""
    shared = os.environ.get("CROUPIER_TEST_MQTT")
    if shared:
        yield shared
        return
    own = Mosquitto(tmp_path_factory.mktemp("mosquitto"))
    own.start()
    try:
        yield own.address
    finally:
        own.stop()


@pytest.fixture
def own_broker(tmp_path: Path) -> Iterator[Mosquitto]:
    """A Mosquitto of this test's own, which the test may stop and start again."""
    own = Mosquitto(tmp_path / "mosquitto")
    own.start()
    try:
        yield own
    finally:
        own.stop()

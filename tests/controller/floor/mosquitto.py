"""A subscriber and retained-message reader for the floor tests; the broker itself is :mod:`services`'s.

``.ci/test`` starts one broker for the suite and exports ``TESTS_MQTT=127.0.0.1:PORT``;
tests that stop and restart the broker start their own (:class:`Mosquitto`). Without Mosquitto the
tests skip, except under CI (``CI`` set) where they fail.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import uuid
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tests.controller.floor.services import Mosquitto, free_port

__all__ = ["DEADLINE", "Mosquitto", "Subscriber", "free_port", "read_retained", "wait_for"]

DEADLINE = 60.0
"""Generous: the tests must pass on a loaded machine."""


def wait_for(predicate: Any, what: str, deadline: float = DEADLINE) -> None:
    """Poll ``predicate`` until true; fail naming ``what`` after ``deadline`` seconds."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {deadline} s waiting for {what}")


class Subscriber:
    """A QoS 1 subscriber with a persistent session (MQTT 5, session expiry 1 h), collecting every message."""

    def __init__(self, address: str, topic: str) -> None:
        host, port = address.rsplit(":", 1)
        self.messages: list[tuple[str, bytes, bool]] = []
        self.lock = threading.Lock()
        self.subscribed = threading.Event()
        self.topic = topic
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"test-{uuid.uuid4().hex[:12]}",
                                  protocol=mqtt.MQTTv5)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_subscribe = lambda *args: self.subscribed.set()
        self.client.reconnect_delay_set(min_delay=1, max_delay=2)
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = 3600
        self.client.connect_async(host, int(port), clean_start=False, properties=properties)
        self.client.loop_start()
        if not self.subscribed.wait(DEADLINE):
            raise AssertionError(f"could not subscribe to {topic} at {address}")

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if not flags.session_present:
            client.subscribe(self.topic, qos=1)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.messages.append((message.topic, bytes(message.payload), bool(message.retain)))

    def on(self, suffix: str) -> list[bytes]:
        """The payloads received on topics ending in ``/suffix``, in arrival order."""
        with self.lock:
            return [payload for topic, payload, _ in self.messages if topic.endswith("/" + suffix)]

    def json_on(self, suffix: str) -> list[dict[str, Any]]:
        return [json.loads(payload) for payload in self.on(suffix)]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.disconnect()
        self.client.loop_stop()


def read_retained(address: str, topic: str, deadline: float = 10.0) -> bytes | None:
    """The retained message on ``topic`` (None when there is none), read by a fresh clean subscriber."""
    host, port = address.rsplit(":", 1)
    got: list[bytes] = []
    done = threading.Event()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)

    def on_connect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        client.subscribe(topic, qos=1)

    def on_message(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if message.retain:
            got.append(bytes(message.payload))
        done.set()

    client.on_connect = on_connect
    client.on_message = on_message
    client.on_subscribe = lambda *args: threading.Timer(1.0, done.set).start()  # no retained message: none
    client.connect(host, int(port))
    client.loop_start()
    done.wait(deadline)
    client.disconnect()
    client.loop_stop()
    return got[-1] if got else None

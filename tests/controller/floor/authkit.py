"""Helpers for the security tests: ``croupier floor acl`` run as a process, a secured Mosquitto, a signed-in client."""

from __future__ import annotations

import contextlib
import subprocess
import threading
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from tests.controller.floor.mosquitto import DEADLINE, Mosquitto
from tests.inprocess import croupier_process


def floor_acl(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``croupier floor acl ARGS`` to its end."""
    return croupier_process("floor", "acl", *args)


def credentials(path: Path) -> dict[str, str]:
    """USER -> PASSWORD of a credentials file that ``croupier floor acl`` wrote."""
    pairs = (line.split() for line in path.read_text().splitlines() if line and not line.startswith("#"))
    return {fields[0]: fields[1] for fields in pairs}


def secured_broker(directory: Path, *tables: str, extra: str = "") -> tuple[Mosquitto, dict[str, str]]:
    """A Mosquitto (not started) using the files ``croupier floor acl --table ...`` wrote; and the passwords."""
    out = directory / "floor"
    arguments = [argument for table in tables for argument in ("--table", table)]
    made = floor_acl("--out", str(out), *arguments)
    assert made.returncode == 0, made.stderr
    config = (out / "mosquitto-floor.conf").read_text()
    # under the listener, as mosquitto-floor.conf says: each client's id is its account's user
    bind = "use_username_as_clientid true\n"
    return Mosquitto(directory / "mosquitto", extra=bind + config + extra), credentials(out / "credentials")


class Client:
    """An MQTT 5 client signed in as ``user`` (None: anonymous), recording what the broker said and sent."""

    def __init__(self, address: str, user: str | None, password: str | None, *,
                 will: tuple[str, str] | None = None, client_id: str | None = None, clean_start: bool = True,
                 session_expiry: int = 0) -> None:
        host, port = address.rsplit(":", 1)
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id or f"test-{uuid.uuid4().hex[:12]}",
                                  protocol=mqtt.MQTTv5)
        if user is not None:
            self.client.username_pw_set(user, password)
        if will is not None:
            self.client.will_set(will[0], will[1], qos=1, retain=True)
        self.connected = threading.Event()
        self.disconnected = threading.Event()
        self.connect_reason: str | None = None
        self.session_present = False
        self.messages: list[tuple[str, bytes]] = []
        self.acks: dict[int, str] = {}
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_publish = self._on_publish
        self.client.on_subscribe = self._on_subscribe
        self.client.on_disconnect = lambda *args: self.disconnected.set()
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = session_expiry
        self.client.connect(host, int(port), clean_start=clean_start, properties=properties)
        self.client.loop_start()
        if not self.connected.wait(DEADLINE):
            raise AssertionError(f"no CONNACK from {address} within {DEADLINE} s")

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.connect_reason = str(reason)
        self.session_present = bool(flags.session_present)
        self.connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self.changed:
            self.messages.append((message.topic, bytes(message.payload)))
            self.changed.notify_all()

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        with self.changed:
            self.acks[mid] = str(reason)
            self.changed.notify_all()

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, properties: Any) -> None:
        with self.changed:
            self.acks[mid] = ", ".join(str(reason) for reason in reasons)
            self.changed.notify_all()

    def _answer(self, mid: int) -> str:
        with self.changed:
            if not self.changed.wait_for(lambda: mid in self.acks, DEADLINE):
                raise AssertionError(f"the broker did not answer message {mid} within {DEADLINE} s")
            return self.acks[mid]

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> str:
        """Publish with QoS 1; returns the broker's PUBACK reason ("Success", "Not authorized", ...)."""
        return self._answer(self.client.publish(topic, payload, qos=1, retain=retain).mid)

    def subscribe(self, topic: str) -> str:
        """Subscribe with QoS 1; returns the broker's SUBACK reason."""
        result, mid = self.client.subscribe(topic, qos=1)
        assert result == mqtt.MQTT_ERR_SUCCESS and mid is not None
        return self._answer(mid)

    def wait_message(self, topic: str, payload: bytes) -> None:
        """Wait until ``payload`` arrived on ``topic``."""
        with self.changed:
            if not self.changed.wait_for(lambda: (topic, payload) in self.messages, DEADLINE):
                raise AssertionError(f"{payload!r} never arrived on {topic}: {self.messages}")

    def received(self) -> list[tuple[str, bytes]]:
        with self.lock:
            return list(self.messages)

    def disconnect_with_will(self) -> None:
        """Leave as if lost: MQTT 5 reason 0x04 makes the broker publish the Last Will."""
        self.client.disconnect(reasoncode=ReasonCode(PacketTypes.DISCONNECT, "Disconnect with will message"))
        self.client.loop_stop()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.disconnect()
        self.client.loop_stop()

"""The dashboard's MQTT 5 client: every table's retained ``state`` and ``status`` into a :class:`FloorBoard`.

It subscribes (QoS 1, a clean session: the retained messages are the whole story) to
``croupier/+/+/state``, ``croupier/+/+/status``, ``croupier/+/+/archived`` (the archive's word on each
table) and the archives' ``croupier-archive/+/health``; on every
(re)connection the broker sends each table's retained messages again, so the board rebuilds itself after a
restart of either side.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from controller.core.exceptions import FloorError
from controller.floor.board import FloorBoard
from controller.floor.mqttclient import connect_and_subscribe, new_client
from controller.floor.urls import Broker
from controller.i18n.message import Message, message

TOPICS = ("croupier/+/+/state", "croupier/+/+/status", "croupier/+/+/archived", "croupier-archive/+/health")
KEEPALIVE = 15


class FloorWatcher:
    """Follow the floor on ``broker`` into ``board`` until :meth:`close`."""

    def __init__(self, board: FloorBoard, broker: Broker, *, report: Callable[[str], None] = lambda line: None) -> None:
        self.board = board
        self.broker = broker
        self.report = report
        self.failure: str | None = None
        self._subscribed = threading.Event()
        self._said_lost = False
        self._closing = False
        self.client = self._client()

    def _client(self) -> mqtt.Client:
        client = new_client(self.broker, f"croupier-floor-{socket.gethostname()}-{os.getpid()}",
                            ca_file=self.broker.ca_file, ca_option="--ca-file", max_reconnect_delay=5)
        client.on_connect = self._on_connect
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_message
        client.on_disconnect = self._on_disconnect
        return client

    def start(self) -> None:
        """Connect and subscribe; raises :class:`FloorError` when the broker cannot be used."""
        self.failure = connect_and_subscribe(self.client, self.broker, self._subscribed, lambda: self.failure,
                                             error=FloorError, keepalive=KEEPALIVE, clean_start=True)
        if self.failure is not None:
            self.close()
            raise FloorError(self.failure)

    def close(self) -> None:
        """Disconnect from the broker."""
        self._closing = True
        self.client.disconnect()
        self.client.loop_stop()

    # -- callbacks (paho's network thread) ---------------------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self._refused(message("floor.broker_refused", "--broker {broker}: the broker refused the connection "
                                  "({reason}); check the user, the password and the ACL", broker=str(self.broker),
                                  reason=str(reason)))
            return
        client.subscribe([(topic, 1) for topic in TOPICS])

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: list[Any],
                      properties: Any) -> None:
        refused = [reason for reason in reasons if reason.is_failure]
        if refused:
            self._refused(message("floor.subscription_refused", "--broker {broker}: the broker refused the "
                                  "subscription to {topics} ({reason}); check the floor's ACL",
                                  broker=str(self.broker), topics=", ".join(TOPICS), reason=str(refused[0])))
            return
        if self._said_lost:
            self.report("floor: " + self.board.words.text(message("floor.reconnected", "connected to {broker} again",
                                                                  broker=str(self.broker))))
        self._said_lost = False
        self.board.set_connected(True)
        self._subscribed.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self.board.receive(message.topic, bytes(message.payload), retained=bool(message.retain))

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.board.set_connected(False)
        if self._subscribed.is_set() and not self._said_lost and not self._closing:
            self._said_lost = True
            self.report("floor: " + self.board.words.text(message(
                "floor.lost", "lost the broker {broker} ({reason}); the page shows the last known state and the "
                "dashboard reconnects by itself", broker=str(self.broker), reason=str(reason))))

    def _refused(self, why: Message) -> None:
        worded = self.board.words.text(why)
        if not self._subscribed.is_set():
            self.failure = worded
            self._subscribed.set()
        else:
            self.report(f"floor: {worded}")

"""A paho-mqtt client's network loop run in the caller's own thread, woken at once from any other thread.

paho's ``loop_start`` adds a network thread per client, and every ``publish`` from another thread
wakes it through a socket pair: a table would need two threads and a hand-off per message. With
paho's external-loop API (``socket``, ``loop_read``, ``loop_write``, ``loop_misc``) the feed's own
worker thread does the network itself: it waits in one ``select`` for the broker's socket and for
:meth:`ClientLoop.wake` (the table's commit), and reconnects with a back-off when the broker is away,
as ``loop_forever`` would. Callbacks (``on_connect``, ``on_publish`` ...) run in that thread.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import MQTTErrorCode

HOUSEKEEPING = 1.0
"""Longest wait without a look at the connection (keepalive pings, as paho's own loop)."""


class ClientLoop:
    """Drive ``client`` (already given ``connect_async``) from the thread calling :meth:`run_once`."""

    def __init__(self, client: mqtt.Client, *, min_delay: float = 1.0, max_delay: float = 2.0,
                 cannot_connect: Callable[[BaseException], None] = lambda problem: None) -> None:
        self.client = client
        self.min_delay = min_delay
        self.max_delay = max_delay
        self.cannot_connect = cannot_connect
        self._delay = min_delay
        self._retry_at = 0.0
        self._waker, self._wakee = socket.socketpair()
        self._waker.setblocking(False)
        self._wakee.setblocking(False)
        self._signalled = False

    def wake(self) -> None:
        """Make the running (or next) :meth:`run_once` return at once. Thread-safe, never blocks.

        A wake while the running one drains the wake-up socket sends nothing (that one is returning); one
        after the drain sends a byte the next wait sees."""
        if self._signalled:
            return
        self._signalled = True
        with contextlib.suppress(OSError):
            self._waker.send(b"w")

    def run_once(self, timeout: float | None) -> None:
        """Wait up to ``timeout`` seconds (None: :data:`HOUSEKEEPING`) for the broker or a wake, then do
        the network's work: read, write, keepalive, or reconnect when the broker is away."""
        sock = self._connection()
        wait = HOUSEKEEPING if timeout is None else min(timeout, HOUSEKEEPING)
        if sock is None:
            wait = max(0.0, min(wait, self._retry_at - time.monotonic()))
        elif getattr(sock, "pending", lambda: 0)():
            wait = 0.0  # TLS bytes already decrypted: no select would see them
        readers: list[Any] = [self._wakee] if sock is None else [self._wakee, sock]
        writers: list[Any] = [sock] if sock is not None and self.client.want_write() else []
        try:
            readable, writable, _ = select.select(readers, writers, [], wait)
        except (OSError, ValueError):  # the socket was closed under us: the connection is lost
            readable, writable = [], []
        if self._wakee in readable:
            with contextlib.suppress(OSError):
                self._wakee.recv(4096)
            self._signalled = False  # after the drain: a wake's byte sent before it is not taken unseen
        if sock is not None:
            self._serve(sock, sock in readable or bool(getattr(sock, "pending", lambda: 0)()), sock in writable)

    def _serve(self, sock: object, readable: bool, writable: bool) -> None:
        client = self.client
        status = MQTTErrorCode.MQTT_ERR_SUCCESS
        if readable:
            status = client.loop_read()
        if status == MQTTErrorCode.MQTT_ERR_SUCCESS and client.socket() is sock and (
                writable or client.want_write()):
            status = client.loop_write()
        if client.socket() is sock:
            client.loop_misc()
        if client.socket() is None or status not in (MQTTErrorCode.MQTT_ERR_SUCCESS,
                                                     MQTTErrorCode.MQTT_ERR_AGAIN):
            self._retry_at = time.monotonic() + self._delay

    def _connection(self) -> object | None:
        """The client's socket, connecting again first when it has none and the back-off has passed."""
        sock = self.client.socket()
        if sock is not None or time.monotonic() < self._retry_at:
            return sock
        try:
            self.client.reconnect()
        except Exception as problem:  # refused, unreachable, TLS failure: try again after the back-off
            self.cannot_connect(problem)
            self._retry_at = time.monotonic() + self._delay
            self._delay = min(self._delay * 2, self.max_delay)
            return None
        self._delay = self.min_delay
        return self.client.socket()

    def close(self) -> None:
        """Close the wake-up sockets (the client is the caller's to disconnect). Idempotent."""
        self._waker.close()
        self._wakee.close()

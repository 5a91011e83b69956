"""The floor's MQTT 5 clients (the table's feed, the archive, the pit dashboard), made one way.

Three helpers make paho-mqtt's work per message smaller where the archive receives a whole floor's
records (measured by ``benchmarks/floor_store.py``): :func:`share_property_tables` (paho builds the
same constant tables for every packet's properties), :class:`ReadBuffered` (paho reads a packet in three
or four ``recv`` calls: one read of the socket serves many packets) and :func:`acknowledge` (one write
for a whole batch's PUBACKs instead of one queued packet and one write each).
"""

from __future__ import annotations

import socket
import ssl
import struct
import threading
from collections.abc import Callable, Sequence
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt import properties as mqtt_properties
from paho.mqtt.enums import CallbackAPIVersion

from controller.core.exceptions import FloorError
from controller.floor.urls import Broker
from controller.i18n.message import Message, message

UNKNOWN_CA_CODES = frozenset({2, 18, 19, 20, 21})
"""OpenSSL's verify codes for a certificate no given CA signed (unknown issuer, self-signed, ...)."""
HOST_MISMATCH_CODE = 62


def new_client(broker: Broker, client_id: str, *, ca_file: str | None, ca_option: str, max_reconnect_delay: int,
               manual_ack: bool = False, error: type[FloorError] = FloorError) -> mqtt.Client:
    """An MQTT 5 client for ``broker``: its user and password, TLS trusting ``ca_file`` (None: the system's
    CAs) and reconnection backing off to ``max_reconnect_delay`` seconds.

    A CA file that is not a usable PEM file raises ``error`` naming ``ca_option``.
    """
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5,
                         manual_ack=manual_ack)
    if broker.username is not None:
        client.username_pw_set(broker.username, broker.password)
    if broker.tls:
        try:
            client.tls_set(ca_certs=ca_file, cert_reqs=ssl.CERT_REQUIRED)
        except (ssl.SSLError, OSError) as problem:
            raise error(f"{ca_option} {ca_file!r}: not a usable PEM CA file ({problem}); give the CA that "
                        "signed the broker's certificate") from None
    client.reconnect_delay_set(min_delay=1, max_delay=max_reconnect_delay)
    return client


def broker_problem(problem: BaseException, broker: Broker, ca_option: str = "--ca-file") -> Message | str:
    """Why the broker could not be reached, in one line: a TLS certificate refused names its reason (an
    unknown CA, a host name the certificate does not name), anything else its first line."""
    if isinstance(problem, ssl.SSLCertVerificationError):
        code, said = problem.verify_code, str(problem.verify_message or "")
        if code == HOST_MISMATCH_CODE or said.lower().startswith("hostname mismatch"):
            return message("tls.host_mismatch", "TLS: host name mismatch, the broker's certificate does not name "
                           "{host}; connect to a name it holds", host=broker.host)
        if code in UNKNOWN_CA_CODES:
            return message("tls.unknown_ca", "TLS: unknown CA, the broker's certificate is not signed by a CA "
                           "{option} trusts; give the CA that signed it", option=ca_option)
        return message("tls.refused", "TLS: the broker's certificate is refused ({reason})", reason=said or
                       type(problem).__name__)
    text = str(problem).strip().splitlines()
    return text[0] if text else type(problem).__name__


CONNECT_TIMEOUT = 30.0
"""Seconds a subscriber waits for its subscription to be granted at start-up."""


def connect_and_subscribe(client: mqtt.Client, broker: Broker, subscribed: threading.Event,
                          failure: Callable[[], str | None], *, error: type[FloorError],
                          **connect: Any) -> str | None:
    """Connect ``client`` to ``broker`` (``connect``: keepalive, clean_start, properties), start its network
    loop and wait for ``subscribed`` (set by its on_subscribe, or when it fails); why it cannot be used
    (``failure()``, or no subscription in time), or None.

    A broker that cannot be reached raises ``error``, one line naming ``--broker``.
    """
    try:
        client.connect(broker.host, broker.port, **connect)
    except (OSError, ssl.SSLError, ValueError) as problem:
        raise error(message("archive.cannot_connect", "--broker {broker}: cannot connect to the broker ({problem}); "
                            "check that it runs there and the URL", broker=str(broker),
                            problem=broker_problem(problem, broker))) from None
    client.loop_start()
    if not subscribed.wait(CONNECT_TIMEOUT) and failure() is None:
        return f"--broker {broker}: no subscription within {CONNECT_TIMEOUT:.0f} s"
    return failure()


PUBACK = 0x40
PUBACK_FRAME = struct.Struct("!BBH")
"""A PUBACK with reason Success and no properties: MQTT 5 lets both be left out (what paho's ack() sends)."""
READ_CHUNK = 65536


def acknowledge(client: mqtt.Client, mids: Sequence[int]) -> None:
    """Acknowledge the QoS 1 messages ``mids`` (``manual_ack``), all in one queued write."""
    if not mids:
        return
    queue_packet = getattr(client, "_packet_queue", None)
    if queue_packet is None:  # another paho: one at a time, as its public API does
        for mid in mids:
            client.ack(mid, 1)
        return
    queue_packet(PUBACK, b"".join(PUBACK_FRAME.pack(PUBACK, 2, mid) for mid in mids), 0, 1)


class ReadBuffered:
    """A connected socket whose ``recv`` is served from one larger read: paho reads each packet's fixed header
    a byte at a time. ``pending`` tells paho's loop that bytes wait here (so it does not sleep in ``select``)."""

    def __init__(self, raw: socket.socket | ssl.SSLSocket) -> None:
        self.raw = raw
        self._buffer = b""
        self._at = 0

    def recv(self, size: int) -> bytes:
        if self._at >= len(self._buffer):
            self._buffer, self._at = self.raw.recv(max(size, READ_CHUNK)), 0
            if not self._buffer:
                return b""
        out = self._buffer[self._at:self._at + size]
        self._at += len(out)
        return out

    def pending(self) -> int:
        waiting = len(self._buffer) - self._at
        raw_pending = getattr(self.raw, "pending", None)
        return waiting + (raw_pending() if raw_pending is not None else 0)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def buffer_reads(client: mqtt.Client) -> None:
    """Serve the client's reads from :class:`ReadBuffered` (call it in ``on_connect``: paho makes a new socket
    on every connection)."""
    raw = getattr(client, "_sock", None)
    if raw is not None and not isinstance(raw, ReadBuffered):
        client._sock = ReadBuffered(raw)


def share_property_tables() -> None:
    """paho's ``Properties()`` builds its constant tables (the property names, types and packets) anew for
    every packet; build them once and share them (paho only reads them)."""
    cls = mqtt_properties.Properties
    if getattr(cls, "_croupier_shared", False):
        return
    original = cls.__init__
    shared: dict[str, Any] = {}

    def __init__(self: Any, packetType: int) -> None:
        if not shared:
            original(self, packetType)  # type: ignore[no-untyped-call]
            shared.update(types=self.types, names=self.names, properties=self.properties)
            return
        object.__setattr__(self, "packetType", packetType)
        for name, table in shared.items():
            object.__setattr__(self, name, table)

    cls.__init__ = __init__  # type: ignore[method-assign]
    cls._croupier_shared = True  # type: ignore[attr-defined]

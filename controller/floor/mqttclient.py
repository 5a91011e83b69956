"""The floor's MQTT 5 clients (the table's feed, the archive, the pit dashboard), made one way."""

from __future__ import annotations

import ssl

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from controller.core.exceptions import FloorError
from controller.floor.urls import Broker


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

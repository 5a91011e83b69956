"""The feed's network loop never loses a wake-up: a commit that wakes it while it is taking the previous wake-up's
byte still wakes the next wait (else every later commit waits for the loop's housekeeping second)."""

from __future__ import annotations

import select
import socket
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from controller.floor.netloop import ClientLoop


class WokenWhileDrained:
    """The loop's wake-up socket, with a wake from "another thread" arriving just as the loop drains it."""

    def __init__(self, loop: ClientLoop, wakee: socket.socket) -> None:
        self.loop = loop
        self.wakee = wakee
        self.raced = False

    def recv(self, size: int) -> bytes:
        if not self.raced:
            self.raced = True
            self.loop.wake()
        return self.wakee.recv(size)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wakee, name)


def woken(loop: ClientLoop) -> bool:
    """Whether the loop's next wait would return at once (its wake-up socket holds a byte)."""
    readable, _, _ = select.select([loop._wakee], [], [], 0)
    return bool(readable)


def test_a_wake_that_races_the_drain_is_not_lost() -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2)  # never connected: the loop only waits and wakes
    loop = ClientLoop(client)
    try:
        loop.wake()
        racing = WokenWhileDrained(loop, loop._wakee)
        loop._wakee = racing  # type: ignore[assignment]
        loop.run_once(0.0)
        assert racing.raced
        loop._wakee = racing.wakee
        loop.wake()  # the next commit
        assert woken(loop)
        loop.run_once(0.0)
        assert not woken(loop)
        loop.wake()
        assert woken(loop)
    finally:
        loop.close()


def test_many_wakes_between_two_waits_leave_one_wake_up() -> None:
    loop = ClientLoop(mqtt.Client(CallbackAPIVersion.VERSION2))
    try:
        for _ in range(1000):
            loop.wake()
        assert woken(loop)
        loop.run_once(0.0)
        assert not woken(loop)
    finally:
        loop.close()

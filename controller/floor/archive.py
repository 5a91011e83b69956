"""``croupier archive``'s subscriber: every table's ``journal`` topic into the PostgreSQL archive.

The archive subscribes with QoS 1 to ``croupier/+/+/journal`` (a plain subscription, the default) or
to ``$share/GROUP/croupier/+/+/journal`` (an MQTT 5 shared subscription: several archive processes in
one group split the messages between them) in a persistent session, subscribing again on every
connect (a broker may not restore a shared subscription from its persistence). paho's network thread
only queues each message, by its table, for one of the archive's writers (a thread with a PostgreSQL
connection of its own; every table always goes to the same writer, so a table's records are stored in
the order they came); each writer stores its messages in batches (one transaction for up to
:data:`BATCH_LIMIT` messages: what arrived while its previous batch was committed and in the
:data:`BATCH_LINGER` after its first message) and
acknowledges a message only once its batch is committed, so a message in flight when the archive
stops is sent again. While one writer waits for its commit, another reads, judges or commits.
"""

from __future__ import annotations

import json
import queue
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
import psycopg
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from controller.core.exceptions import ArchiveError
from controller.floor.archive_store import (
    ArchiveStore,
    Decoded,
    Handled,
    Outcome,
    Rejection,
    database_failure,
)
from controller.floor.archive_timing import BatchStamps, TimingLog
from controller.floor.mqttclient import connect_and_subscribe, new_client
from controller.floor.urls import Broker
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import Message, message
from controller.journal.store import Record

JOURNAL_TOPIC = "croupier/+/+/journal"
FIELDS = ("seq", "kind", "at", "body", "prev", "hash")
SESSION_TAKEN_OVER = 142
BATCH_LIMIT = 500
"""The most messages stored in one PostgreSQL transaction."""
BATCH_LINGER = 0.01
"""How long a batch waits, after its first message, for more to arrive (seconds): on a busy floor a
transaction then stores the records of many tables at once, not three or four, which cut PostgreSQL's
CPU for the same rows by about a third at 200 tables; on a quiet one a record waits at most this long."""
WRITERS = 2
"""The writers of one archive process by default (``--writers``)."""


def receive_maximum(writers: int) -> int:
    """Unacknowledged messages the broker may send at once (MQTT 5 Receive Maximum): a batch's worth
    arrives while each writer commits one. (Mosquitto's default for a client that does not say is 20.)"""
    return min(65535, (writers + 1) * BATCH_LIMIT)


def decode_message(topic: str, payload: bytes) -> tuple[str, str, Record] | Rejection:
    """(site, table, record) of a ``croupier/SITE/TABLE/journal`` message, or why it is not one."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != "croupier" or parts[3] != "journal" or not all(parts[1:3]):
        return Rejection(None, None, None, f"topic {topic!r} is not croupier/SITE/TABLE/journal")
    site, table = parts[1], parts[2]
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return Rejection(site, table, None, "the message is not JSON")
    if not isinstance(data, dict):
        return Rejection(site, table, None, "the message is not a JSON object")
    seq = data.get("seq")
    number = seq if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1 else None
    if set(data) != set(FIELDS):
        return Rejection(site, table, number, f"a journal record has the fields {', '.join(FIELDS)} "
                                              f"(got {', '.join(sorted(data))})")
    if number is None or not all(isinstance(data[name], str) for name in FIELDS[1:]):
        return Rejection(site, table, number, "seq is a record number and kind, at, body, prev, hash are text")
    return site, table, Record(number, data["kind"], data["at"], data["body"], data["prev"], data["hash"])


@dataclass
class Counts:
    """What the archive did since it started."""

    stored: int = 0
    duplicates: int = 0
    pending: int = 0
    rejected: int = 0


class Archiver:
    """One archive process: a paho MQTT 5 client feeding one :class:`ArchiveStore` a writer (each its own
    database connection, used only by its writer's thread)."""

    def __init__(self, stores: Sequence[ArchiveStore], broker: Broker, *, client_id: str, group: str,
                 session_expiry: int, ca_file: str | None = None,
                 report: Callable[[str], None] | None = None, timing: TimingLog | None = None,
                 words: Catalogue = ENGLISH) -> None:
        self.stores = list(stores)
        self.words = words
        """The language of its notices and failures (the command's)."""
        self.timing = timing
        """Where each batch's stage times go (``--timing``), or None: nothing is stamped."""
        self.broker = broker
        self.group = group
        self.session_expiry = session_expiry
        self.counts = Counts()
        self.report = report or (lambda line: print(line, flush=True))
        self.failure: str | None = None
        """Set when the archive must stop (the database failed, the session was taken over)."""
        self.stopped = threading.Event()
        self._connected = threading.Event()
        self._subscribed = threading.Event()
        self._lock = threading.Lock()
        self._inboxes: list[queue.Queue[tuple[int, mqtt.MQTTMessage]]] = [queue.Queue() for _ in self.stores]
        self._connection = 0
        """Counts the connections: a message is acknowledged only on the connection it came on."""
        self._writers = [threading.Thread(target=self._store_loop, args=(store, inbox), name=f"archive-writer-{n}",
                                          daemon=True)
                         for n, (store, inbox) in enumerate(zip(self.stores, self._inboxes, strict=True), 1)]
        self.client = self._client(client_id, ca_file)

    @property
    def topic(self) -> str:
        """The subscription: plain without a group, else the group's shared subscription."""
        return f"$share/{self.group}/{JOURNAL_TOPIC}" if self.group else JOURNAL_TOPIC

    def _client(self, client_id: str, ca_file: str | None) -> mqtt.Client:
        client = new_client(self.broker, client_id, ca_file=ca_file, ca_option="--ca-file", max_reconnect_delay=10,
                            manual_ack=True, error=ArchiveError)
        client.on_connect = self._on_connect
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_message
        client.on_disconnect = self._on_disconnect
        return client

    # -- running -------------------------------------------------------------------
    def start(self) -> None:
        """Connect and subscribe; raises :class:`ArchiveError` when the broker cannot be used."""
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = self.session_expiry
        properties.ReceiveMaximum = receive_maximum(len(self._writers))
        for writer in self._writers:
            writer.start()
        self.failure = connect_and_subscribe(self.client, self.broker, self._subscribed, lambda: self.failure,
                                             error=ArchiveError, keepalive=30, clean_start=False,
                                             properties=properties)
        if self.failure is not None:
            self.close()
            raise ArchiveError(self.failure)

    def wait(self, timeout: float | None = None) -> None:
        """Block until :meth:`stop` is called or the archive fails."""
        self.stopped.wait(timeout)

    def stop(self) -> None:
        """Ask the archive to stop (e.g. from a signal handler)."""
        self.stopped.set()

    def close(self) -> None:
        """Finish the batches being stored, then disconnect (the session keeps what is not acknowledged)."""
        self.stopped.set()
        for writer in self._writers:
            if writer.is_alive():
                writer.join()
        self.client.disconnect()
        self.client.loop_stop()

    # -- callbacks (the paho network thread) -----------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self._fail(message("floor.broker_refused", "--broker {broker}: the broker refused the connection "
                               "({reason}); check the user, the password and the ACL", broker=str(self.broker),
                               reason=str(reason)))
            return
        with self._lock:
            self._connection += 1
        self._connected.set()
        # Every time, whatever session_present says: Mosquitto 2.0.11 restores a persistent session's
        # plain subscription after a restart, but not a shared one.
        client.subscribe(self.topic, options=SubscribeOptions(qos=1))

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: list[Any],
                      properties: Any) -> None:
        refused = [reason for reason in reasons if reason.is_failure]
        if refused:
            self._fail(message("archive.subscription_refused", "--broker {broker}: the broker refused the "
                               "subscription to {topic} ({reason}); check the archive's ACL",
                               broker=str(self.broker), topic=self.topic, reason=str(refused[0])))
            return
        if not self._subscribed.is_set():
            self.report(self.words.text(message("archive.archiving", "archiving {topic} from {broker}",
                                                topic=self.topic, broker=str(self.broker))))
        self._subscribed.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        if getattr(reason, "value", 0) == SESSION_TAKEN_OVER:
            self._fail(message("archive.taken_over", "another archive connected with the same --client-id "
                               "{client_id}; give each archive process its own",
                               client_id=repr(client._client_id.decode())))

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if self.failure is None:
            inboxes = self._inboxes
            inbox = inboxes[zlib.crc32(message._topic) % len(inboxes)] if len(inboxes) > 1 else inboxes[0]
            inbox.put((self._connection, message))

    # -- storing (the writers' threads) ---------------------------------------------------
    def _store_loop(self, store: ArchiveStore, inbox: queue.Queue[tuple[int, mqtt.MQTTMessage]]) -> None:
        while not self.stopped.is_set():
            batch = self._next_batch(inbox)
            if batch:
                try:
                    self._store(store, batch)
                except Exception as error:  # a bug must stop the archive, not leave it silently idle
                    self._fail(message("archive.store_failed", "the archive failed while storing ({error}); what "
                                       "was not committed is not acknowledged, so the broker sends it again on the "
                                       "next start", error=f"{type(error).__name__}: {error}"))

    @staticmethod
    def _next_batch(inbox: queue.Queue[tuple[int, mqtt.MQTTMessage]]) -> list[tuple[int, mqtt.MQTTMessage]]:
        """The first message to arrive (waiting a little for it), those that arrive in the
        :data:`BATCH_LINGER` after it and those already waiting then: at most :data:`BATCH_LIMIT`."""
        try:
            batch = [inbox.get(timeout=0.2)]
        except queue.Empty:
            return []
        deadline = time.monotonic() + BATCH_LINGER
        while len(batch) < BATCH_LIMIT:
            try:
                batch.append(inbox.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                break
        return batch

    def _store(self, store: ArchiveStore, batch: list[tuple[int, mqtt.MQTTMessage]]) -> None:
        stamps = BatchStamps() if self.timing is not None else None
        try:
            decoded = [self._decode(message) for _, message in batch]
            if stamps is not None:
                stamps("decoded")
            outcomes = store.receive_batch(decoded, stamp=stamps)
        except psycopg.Error as error:
            self._fail(database_failure(error).message or str(error))
            return
        except ArchiveError as error:
            self._fail(str(error))
            return
        with self._lock:
            current = self._connection
        for (connection, received), handled in zip(batch, outcomes, strict=True):
            if connection == current:  # an older connection's message comes again: stored, not acknowledged
                self.client.ack(received.mid, received.qos)
            self._count(handled)
        if stamps is not None and self.timing is not None:
            stamps("acknowledged")
            self.timing.batch([received.timestamp for _, received in batch], stamps)

    @staticmethod
    def _decode(message: mqtt.MQTTMessage) -> Decoded:
        payload = bytes(message.payload)
        return decode_message(message.topic, payload), payload.decode("utf-8", errors="replace")

    def _count(self, handled: Handled) -> None:
        with self._lock:
            counts = self.counts
            counts.stored += handled.stored
            counts.duplicates += handled.outcome is Outcome.DUPLICATE
            counts.pending += handled.outcome is Outcome.PENDING
            counts.rejected += len(handled.rejections)
        for rejection in handled.rejections:
            self.report(self.words.text(message("archive.rejected", "REJECTED {rejection}",
                                                rejection=str(rejection))))

    def _fail(self, why: Message | str) -> None:
        if self.failure is None:
            self.failure = self.words.text(why) if isinstance(why, Message) else why
        self._subscribed.set()
        self.stopped.set()

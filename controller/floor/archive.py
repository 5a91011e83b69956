"""``croupier archive``'s subscriber: every table's ``journal`` topic into the PostgreSQL archive.

The archive subscribes with QoS 1 to ``croupier/+/+/journal`` (a plain subscription, the default; or
``croupier/SITE/+/journal`` for each ``--site``) or to the MQTT 5 shared subscription ``$share/GROUP/...`` of it
(several archive processes in one group split the messages between them), in a persistent session, subscribing
again on every connect (a broker may not restore a shared subscription from its persistence). It also reads every
table's retained ``state`` (QoS 0) for the table's journal head; a state that is not one is refused alone, reported
(``REJECTED croupier/SITE/TABLE/state: why``) and counted with the refused records, never taken as a table
(:func:`decode_state`). paho's network thread only queues each message, by its table, for one of the archive's
writers (a thread with a PostgreSQL connection of its own; every table always goes to the same writer, so a table's
records are stored in the order they came); each writer stores its messages in batches (one transaction for up to
:data:`BATCH_LIMIT` messages: what arrived while its previous batch was committed and in the :data:`BATCH_LINGER`
after its first message) and acknowledges a message only once its batch is committed, so a message in flight when
the archive stops is sent again. While one writer waits for its commit, another reads, judges or commits.

After each batch the archive tells every table of it its archived head, and asks for what it misses
(:mod:`controller.floor.archive_book`); a table counts a record delivered only then. The archive is a
service: a lost database or broker is waited for (with a back-off) and reported, never a reason to stop;
a message that is not a good record is refused on its own (:mod:`controller.floor.archive_decode`); it
publishes its health on ``croupier-archive/NAME/health`` (retained; ``offline`` as its Last Will).
"""

from __future__ import annotations

import contextlib
import json
import math
import queue
import re
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
from controller.floor.archive_book import (
    GAP_GRACE,
    HEALTH_INTERVAL,
    Announcement,
    TableBook,
    archived_message,
    utc_now,
)
from controller.floor.archive_decode import StateRefusal, decode_message, decode_state, kept_text
from controller.floor.archive_store import (
    ArchiveStore,
    BatchResult,
    Decoded,
    Handled,
    Outcome,
    Rejection,
    first_line,
)
from controller.floor.archive_timing import BatchStamps, TimingLog
from controller.floor.mqttclient import (
    acknowledge,
    broker_problem,
    buffer_reads,
    new_client,
    share_property_tables,
)
from controller.floor.urls import NAME, Broker
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import Message, message

__all__ = ["BATCH_LIMIT", "BATCH_LINGER", "WRITERS", "Archiver", "Counts", "decode_message", "receive_maximum"]

JOURNAL_TOPIC = "croupier/+/+/journal"
STATE_TOPIC = "croupier/+/+/state"
HEALTH_ROOT = "croupier-archive"
SESSION_TAKEN_OVER = 142
BATCH_LIMIT = 500
"""The most messages stored in one PostgreSQL transaction."""
BATCH_LINGER = 0.01
"""How long a batch waits, after its first message, for more to arrive (seconds): on a busy floor a
transaction then stores the records of many tables at once, not three or four, which cut PostgreSQL's
CPU for the same rows by about a third at 200 tables; on a quiet one a record waits at most this long."""
WRITERS = 2
"""The writers of one archive process by default (``--writers``)."""
CONNECT_TIMEOUT = 30.0
"""Seconds after which a broker that accepted the connection but has not granted the subscription is said
to be stalled (the archive keeps waiting for it)."""
RETRY_FIRST, RETRY_LONGEST = 1.0, 30.0
"""The back-off between two attempts to reach the database again (seconds)."""
KEEPER_TICK = 1.0

StoreFactory = Callable[[], ArchiveStore]
Inbox = queue.SimpleQueue[tuple[int, mqtt.MQTTMessage]]
"""A writer's messages, as paho's thread hands them over (the connection each came on, and the message)."""


def receive_maximum(writers: int) -> int:
    """Unacknowledged messages the broker may send at once (MQTT 5 Receive Maximum): a batch's worth
    arrives while each writer commits one. (Mosquitto's default for a client that does not say is 20.)"""
    return min(65535, (writers + 1) * BATCH_LIMIT)


def health_name(broker: Broker, client_id: str) -> str:
    """The archive's name in its health topic: its broker user (one account a process), else its client id,
    as one topic level."""
    name = broker.username or client_id
    return name if NAME.fullmatch(name) else (re.sub(r"[^A-Za-z0-9_.-]", "-", name)[:64] or "archive")


@dataclass
class Counts:
    """What the archive did since it started."""

    stored: int = 0
    duplicates: int = 0
    pending: int = 0
    rejected: int = 0
    """Refused messages: journal records, and states that are not a table's."""
    deferred: int = 0


class Archiver:
    """One archive process: a paho MQTT 5 client feeding one :class:`ArchiveStore` a writer (each its own
    database connection, used only by its writer's thread)."""

    def __init__(self, stores: Sequence[ArchiveStore], broker: Broker, *, client_id: str, group: str,
                 session_expiry: int, ca_file: str | None = None, sites: Sequence[str] = (),
                 reconnect: StoreFactory | None = None,
                 report: Callable[[str], None] | None = None, timing: TimingLog | None = None,
                 words: Catalogue = ENGLISH) -> None:
        self.stores = list(stores)
        self.words = words
        """The language of its notices and failures (the command's)."""
        self.timing = timing
        """Where each batch's stage times go (``--timing``), or None: nothing is stamped."""
        self.broker = broker
        self.group = group
        self.sites = list(sites)
        """The sites this process archives (none: every site)."""
        self.session_expiry = session_expiry
        self.reconnect = reconnect
        """Opens a new store when a writer's database connection is lost (None: the archive stops)."""
        self.counts = Counts()
        self.book = TableBook()
        self.report = report or (lambda line: print(line, flush=True))
        self.failure: str | None = None
        """Set when the archive must stop (refused by the broker, the session taken over, a bug)."""
        self.name = health_name(broker, client_id)
        self.stopped = threading.Event()
        self._subscribed = threading.Event()
        self._lock = threading.Lock()
        self._inboxes: list[Inbox] = [queue.SimpleQueue() for _ in self.stores]
        self._connection = 0
        """Counts the connections: a message is acknowledged only on the connection it came on."""
        self._database_lost = 0
        """Writers waiting for the database."""
        self._database_back_at = -math.inf
        """When the database was last back after an outage (monotonic seconds)."""
        self._said_broker_lost = False
        self._batch_received: list[float | None] = [None] * len(self.stores)
        self._writers = [threading.Thread(target=self._store_loop, args=(number,), name=f"archive-writer-{number + 1}",
                                          daemon=True) for number in range(len(self.stores))]
        self._keeper = threading.Thread(target=self._keep, name="archive-keeper", daemon=True)
        self.client = self._client(client_id, ca_file)

    @property
    def topics(self) -> list[str]:
        """The journal subscriptions: plain without a group, else the group's shared subscription."""
        plain = [f"croupier/{site}/+/journal" for site in self.sites] or [JOURNAL_TOPIC]
        return [f"$share/{self.group}/{topic}" for topic in plain] if self.group else plain

    @property
    def topic(self) -> str:
        """The subscriptions, as the archive names them."""
        return ", ".join(self.topics)

    @property
    def health_topic(self) -> str:
        return f"{HEALTH_ROOT}/{self.name}/health"

    def _client(self, client_id: str, ca_file: str | None) -> mqtt.Client:
        share_property_tables()
        client = new_client(self.broker, client_id, ca_file=ca_file, ca_option="--ca-file", max_reconnect_delay=10,
                            manual_ack=True, error=ArchiveError)
        client.will_set(self.health_topic, self._health_payload("offline"), qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_message
        client.on_disconnect = self._on_disconnect
        return client

    # -- running -------------------------------------------------------------------
    def start(self) -> None:
        """Connect and subscribe; raises :class:`ArchiveError` when the broker cannot be used (unreachable,
        refused). A broker that accepts the connection but stalls is waited for (said once)."""
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = self.session_expiry
        properties.ReceiveMaximum = receive_maximum(len(self._writers))
        for writer in self._writers:
            writer.start()
        try:
            self.client.connect(self.broker.host, self.broker.port, keepalive=30, clean_start=False,
                                properties=properties)
        except Exception as problem:  # unreachable, TLS refused, a name that does not resolve
            self.close()
            raise ArchiveError(message("archive.cannot_connect", "--broker {broker}: cannot connect to the broker "
                                       "({problem}); check that it runs there and the URL", broker=str(self.broker),
                                       problem=broker_problem(problem, self.broker))) from None
        self.client.loop_start()
        self._wait_subscribed()
        if self.failure is not None:
            failure = self.failure
            self.close()
            raise ArchiveError(failure)
        self._keeper.start()

    def _wait_subscribed(self) -> None:
        started = time.monotonic()
        said = False
        while not self._subscribed.wait(0.5) and not self.stopped.is_set():
            if not said and time.monotonic() - started >= CONNECT_TIMEOUT:
                said = True
                self._say(message("archive.broker_stalled", "--broker {broker}: no subscription granted within "
                                  "{seconds} s; waiting for the broker", broker=str(self.broker),
                                  seconds=f"{CONNECT_TIMEOUT:.0f}"))

    def wait(self, timeout: float | None = None) -> None:
        """Block until :meth:`stop` is called or the archive fails."""
        self.stopped.wait(timeout)

    def stop(self) -> None:
        """Ask the archive to stop (e.g. from a signal handler)."""
        self.stopped.set()

    def close(self) -> None:
        """Finish the batches being stored, say ``offline``, then disconnect (the session keeps what is not
        acknowledged)."""
        self.stopped.set()
        for thread in (*self._writers, self._keeper):
            if thread.is_alive():
                thread.join()
        if self._subscribed.is_set():
            with contextlib.suppress(Exception):
                self.client.publish(self.health_topic, self._health_payload("offline"), qos=1,
                                    retain=True).wait_for_publish(2.0)
        self.client.disconnect()
        self.client.loop_stop()

    # -- callbacks (the paho network thread) -----------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self._fail(message("floor.broker_refused", "--broker {broker}: the broker refused the connection "
                               "({reason}); check the user, the password and the ACL", broker=str(self.broker),
                               reason=str(reason)))
            return
        buffer_reads(client)
        with self._lock:
            self._connection += 1
        # Every time, whatever session_present says: Mosquitto 2.0.11 restores a persistent session's
        # plain subscription after a restart, but not a shared one.
        client.subscribe([(topic, SubscribeOptions(qos=1)) for topic in self.topics])
        states = [f"croupier/{site}/+/state" for site in self.sites] or [STATE_TOPIC]
        client.subscribe([(topic, SubscribeOptions(qos=0)) for topic in states])
        if self._said_broker_lost:
            self._said_broker_lost = False
            self._say(message("archive.broker_back", "--broker {broker}: connected again", broker=str(self.broker)))
        for announcement in self.book.announcements():
            self._announce(announcement)

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
            self._publish_health()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        if getattr(reason, "value", 0) == SESSION_TAKEN_OVER:
            self._fail(message("archive.taken_over", "another archive connected with the same --client-id "
                               "{client_id}; give each archive process its own",
                               client_id=repr(client._client_id.decode())))
        elif self._subscribed.is_set() and not self.stopped.is_set() and not self._said_broker_lost:
            self._said_broker_lost = True
            self._say(message("archive.broker_lost", "--broker {broker}: lost the connection ({reason}); "
                              "reconnecting, nothing is lost meanwhile", broker=str(self.broker),
                              reason=str(reason)))

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if self.failure is not None:
            return
        topic = message._topic
        if topic.endswith(b"/state"):
            self._take_state(message.topic, bytes(message.payload))
            if message.qos:
                client.ack(message.mid, message.qos)
            return
        inboxes = self._inboxes
        inbox = inboxes[zlib.crc32(topic) % len(inboxes)] if len(inboxes) > 1 else inboxes[0]
        inbox.put((self._connection, message))

    def _take_state(self, topic: str, payload: bytes) -> None:
        """A table's retained ``state``: its journal head into the book, or, when it is not a table's state,
        refused alone, reported and counted (the book does not hear of it: it makes no table)."""
        found = decode_state(topic, payload)
        if isinstance(found, StateRefusal):
            with self._lock:
                self.counts.rejected += 1
            self.report(self.words.text(message("archive.rejected", "REJECTED {rejection}", rejection=str(found))))
            return
        place, head = found
        if head is not None:
            self.book.state(place, head)

    # -- storing (the writers' threads) ---------------------------------------------------
    def _store_loop(self, number: int) -> None:
        inbox = self._inboxes[number]
        while not self.stopped.is_set():
            batch = self._next_batch(inbox)
            if not batch:
                continue
            self._batch_received[number] = min(received.timestamp for _, received in batch)
            try:
                self._store(number, batch)
            except Exception as error:  # a bug must stop the archive, not leave it silently idle
                self._fail(message("archive.store_failed", "the archive failed while storing ({error}); what "
                                   "was not committed is not acknowledged, so the broker sends it again on the "
                                   "next start", error=f"{type(error).__name__}: {error}"))
            finally:
                self._batch_received[number] = None

    @staticmethod
    def _next_batch(inbox: Inbox | queue.Queue[tuple[int, mqtt.MQTTMessage]]) -> list[tuple[int, mqtt.MQTTMessage]]:
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

    def _store(self, number: int, batch: list[tuple[int, mqtt.MQTTMessage]]) -> None:
        stamps = BatchStamps() if self.timing is not None else None
        decoded = [self._decode(message) for _, message in batch]
        if stamps is not None:
            stamps("decoded")
        result = self._stored(number, decoded, stamps)
        if result is None:  # stopping while the database is away: nothing acknowledged, all sent again
            return
        with self._lock:
            current = self._connection
        # an older connection's message comes again: stored, not acknowledged
        acknowledge(self.client, [received.mid for connection, received in batch
                                  if connection == current and received.qos == 1])
        for (item, _), handled in zip(decoded, result.handled, strict=True):
            self._count(handled)
            if handled.outcome is Outcome.DEFERRED and not isinstance(item, Rejection):
                self.book.count((item[0], item[1]), deferred=1)
        for announcement in self.book.after_batch(result.progress):
            self._announce(announcement)
        if stamps is not None and self.timing is not None:
            stamps("acknowledged")
            self.timing.batch([received.timestamp for _, received in batch], stamps)

    def _stored(self, number: int, decoded: list[Decoded], stamps: BatchStamps | None) -> BatchResult | None:
        """Store one batch, through lost connections (waited for) and messages the database refuses (each
        kept apart alone); None when the archive stops before the database is back."""
        while True:
            store = self.stores[number]
            try:
                return store.store_batch(decoded, stamp=stamps)
            except (psycopg.OperationalError, psycopg.InterfaceError) as error:
                if not self._reopen(number, error):
                    return None
            except psycopg.Error:
                try:
                    return self._one_by_one(store, decoded)
                except (psycopg.OperationalError, psycopg.InterfaceError) as error:
                    if not self._reopen(number, error):
                        return None

    def _one_by_one(self, store: ArchiveStore, decoded: list[Decoded]) -> BatchResult:
        """A batch the database refused as a whole: each message in a transaction of its own, the one it
        refuses kept apart with the database's reason."""
        handled: list[Handled] = []
        progress = {}
        for item, text in decoded:
            try:
                result = store.store_batch([(item, text)])
            except (psycopg.OperationalError, psycopg.InterfaceError):
                raise
            except psycopg.Error as error:
                site, table, seq = ((None, None, None) if isinstance(item, Rejection) else
                                    (item[0], item[1], item[2].seq))
                rejection = Rejection(site, table, seq, f"the database refused it ({first_line(error)})")
                raw = text if isinstance(text, bytes) else text.encode("utf-8", errors="replace")
                result = store.store_batch([(rejection, kept_text(raw))])
            handled.extend(result.handled)
            progress.update(result.progress)
        return BatchResult(handled, progress)

    def _reopen(self, number: int, error: psycopg.Error) -> bool:
        """Wait for the database with a back-off and give the writer a new connection; False: stopping."""
        with self._lock:
            self._database_lost += 1
            first = self._database_lost == 1
        if first:
            self._say(message("archive.database_lost", "the archive database is unreachable ({reason}); "
                              "nothing is acknowledged until it is back, retrying", reason=first_line(error)))
            self._publish_health()
        with contextlib.suppress(Exception):
            self.stores[number].close()
        delay = RETRY_FIRST
        try:
            while not self.stopped.wait(delay):
                if self.reconnect is None:
                    self._fail(message("archive.database_failed", "the archive database failed ({reason}); what "
                                       "was not committed is not acknowledged, so the broker sends it again on the "
                                       "next start", reason=first_line(error)))
                    return False
                try:
                    self.stores[number] = self.reconnect()
                    return True
                except ArchiveError:
                    delay = min(delay * 2, RETRY_LONGEST)
            return False
        finally:
            with self._lock:
                self._database_lost -= 1
                back = self._database_lost == 0
            if back:
                self._database_back_at = time.monotonic()
            if back and not self.stopped.is_set():
                self._say(message("archive.database_back", "the archive database is reachable again"))

    @staticmethod
    def _decode(message: mqtt.MQTTMessage) -> Decoded:
        payload = bytes(message.payload)
        found = decode_message(message.topic, payload)
        return found, (kept_text(payload) if isinstance(found, Rejection) else payload)

    def _count(self, handled: Handled) -> None:
        with self._lock:
            counts = self.counts
            counts.stored += handled.stored
            counts.duplicates += handled.outcome is Outcome.DUPLICATE
            counts.pending += handled.outcome is Outcome.PENDING
            counts.deferred += handled.outcome is Outcome.DEFERRED
            counts.rejected += len(handled.rejections)
        for rejection in handled.rejections:
            if rejection.site is not None and rejection.table is not None:
                self.book.count((rejection.site, rejection.table), rejected=1)
            self.report(self.words.text(message("archive.rejected", "REJECTED {rejection}",
                                                rejection=str(rejection))))

    # -- telling the tables, and the floor ------------------------------------------------
    def _announce(self, announcement: Announcement) -> None:
        site, table = announcement.place
        with contextlib.suppress(Exception):  # not connected: told again on the next connection
            self.client.publish(f"croupier/{site}/{table}/archived",
                                archived_message(announcement.head, announcement.wants), qos=1, retain=True)

    def _keep(self) -> None:
        """The keeper: asks quiet tables for what is missing, publishes the health."""
        store: ArchiveStore | None = None
        health_at = 0.0
        while not self.stopped.wait(KEEPER_TICK):
            unknown = self.book.unknown_heads()
            if unknown and self.reconnect is not None:
                try:
                    store = store or self.reconnect()
                    self.book.heads_read(store.heads(unknown))
                except (ArchiveError, psycopg.Error):
                    with contextlib.suppress(Exception):
                        if store is not None:
                            store.close()
                    store = None
            if self._may_ask():
                for announcement in self.book.requests_due():
                    self._announce(announcement)
            if time.monotonic() - health_at >= HEALTH_INTERVAL:
                health_at = time.monotonic()
                self._publish_health()
        if store is not None:
            store.close()

    def _may_ask(self) -> bool:
        """The tables may be asked for what the archive misses: not while the database is away, nor in the
        :data:`GAP_GRACE` after it is back. Their records wait in the writers' inboxes and the broker's queue
        meanwhile, and asking would have each table send its whole backlog again every :data:`ASK_AGAIN` seconds,
        more and more as the outage lasts, until the broker's ``max_queued_messages`` drops records."""
        with self._lock:
            lost, back_at = self._database_lost, self._database_back_at
        return not lost and time.monotonic() - back_at >= GAP_GRACE

    def lag(self) -> float:
        """Seconds the oldest message of the batches being stored has waited since it arrived (0: none is)."""
        oldest = [at for at in self._batch_received if at is not None]
        return round(max(0.0, time.monotonic() - min(oldest)), 3) if oldest else 0.0

    def waiting(self) -> int:
        """Messages received and not yet taken into a batch."""
        return sum(inbox.qsize() for inbox in self._inboxes)

    def _health_payload(self, status: str) -> bytes:
        if status == "offline":
            return json.dumps({"archive": self.name, "status": "offline", "at": utc_now()}).encode()
        with self._lock:
            counts = self.counts
            totals = {"stored": counts.stored, "duplicates": counts.duplicates, "pending": counts.pending,
                      "deferred": counts.deferred, "rejected": counts.rejected}
            database = "lost" if self._database_lost else "connected"
        return json.dumps({"archive": self.name, "status": status, "at": utc_now(), "broker": str(self.broker),
                           "database": database, "lag": self.lag(), "waiting": self.waiting(),
                           "subscriptions": self.topics, **totals,
                           "tables": self.book.tables()}, separators=(",", ":")).encode()

    def _publish_health(self) -> None:
        with contextlib.suppress(Exception):
            self.client.publish(self.health_topic, self._health_payload("online"), qos=1, retain=True)

    def _say(self, notice: Message) -> None:
        self.report(self.words.text(notice))

    def _fail(self, why: Message | str) -> None:
        if self.failure is None:
            self.failure = self.words.text(why) if isinstance(why, Message) else why
        self._subscribed.set()
        self.stopped.set()

"""A table's feed: its journal published to an MQTT 5 broker, store and forward (docs/floor.md).

The journal is the outbox. A worker thread reads the journal's records on a connection of its own
and publishes each one (QoS 1) on ``journal``, its events on ``events`` (numbered 1, 2, 3 ... per
table, derived from the journal, so a restart continues the numbering), then the retained ``state``.
The table's loop only wakes the worker (:meth:`TableFeed.wake`, after each commit): publishing never
blocks it. The worker is the client's network loop too (:mod:`controller.floor.netloop`: one thread
per table, no hand-off per message). It reads the journal only when woken by a commit (or a
connection, or a window the broker's acknowledgements opened again), never on a timer.

While the broker is away nothing new is handed to the client (the records wait in the journal);
what was in flight is sent again by paho-mqtt on reconnection, in order. Delivery is proven by the
archive, not the broker: the feed reads the archive's retained ``archived`` head for its table
(:mod:`controller.floor.delivery`) and keeps the last record the archive confirmed in the journal
(``feed_acked``); it sends the journal again from the record the archive asks for, and a table killed
and restarted sends again from the confirmed mark (the events from the last record the broker
acknowledged, ``feed_published``): receivers may see a message twice, never a gap.
"""

from __future__ import annotations

import contextlib
import queue
import ssl
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.core.exceptions import FeedError
from controller.core.published import View
from controller.floor.delivery import Archived, Conflict, Delivery, conflict, parse_archived
from controller.floor.messages import TableState, event_message, journal_message, record_events
from controller.floor.mqttclient import broker_problem, new_client
from controller.floor.netloop import ClientLoop
from controller.floor.urls import FeedTarget
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import Message, message
from controller.journal.outbox import Outbox
from controller.journal.store import Record

QOS = 1
WINDOW = 1000
"""At most this many messages handed to the client and not yet acknowledged."""
BATCH = 200
"""Records read from the journal at a time."""
MARK_INTERVAL = 0.2
"""Seconds between two writes of the acknowledged mark (and on every stop)."""
KEEPALIVE = 15
JOIN_SECONDS = 15.0
"""How long a stop waits for the worker's step (a reconnection attempt may take paho's 5 s connect timeout)."""
OFFLINE_WAIT = 2.0
"""Seconds a clean stop waits for the broker to take the ``offline`` status (within the drain time)."""


class Acks:
    """Which records the broker has acknowledged in full, in order."""

    def __init__(self, acked: int) -> None:
        self.acked = acked
        self.waiting: OrderedDict[int, set[int]] = OrderedDict()
        """Record seq -> the message ids of it not yet acknowledged."""
        self.record_of: dict[int, int] = {}
        self.inflight = 0

    def sent(self, seq: int, mids: list[int]) -> None:
        """Record ``seq`` was handed to the client as messages ``mids``."""
        self.waiting[seq] = set(mids)
        for mid in mids:
            self.record_of[mid] = seq
        self.inflight += len(mids)
        self._advance()

    def extra(self, mid: int) -> None:
        """A message outside any record (``state``, ``status``) is in flight."""
        self.record_of[mid] = 0
        self.inflight += 1

    def acknowledged(self, mid: int) -> None:
        """The broker acknowledged message ``mid``."""
        seq = self.record_of.pop(mid, None)
        if seq is None:
            return
        self.inflight -= 1
        if seq:
            self.waiting.get(seq, set()).discard(mid)
            self._advance()

    def _advance(self) -> None:
        while self.waiting:
            seq, mids = next(iter(self.waiting.items()))
            if mids:
                return
            self.waiting.popitem(last=False)
            self.acked = seq

    @property
    def idle(self) -> bool:
        """Nothing in flight."""
        return self.inflight == 0 and not self.waiting


class TableFeed:
    """Publish the journal at ``journal_path`` to ``target``'s broker until :meth:`close`."""

    def __init__(self, target: FeedTarget, journal_path: str, *, will_delay: int = 10, drain_timeout: float = 10.0,
                 notice: Callable[[str], None] = lambda text: None, words: Catalogue = ENGLISH) -> None:
        self.target = target
        self.words = words
        """The language of its notices (the command's)."""
        self.journal_path = journal_path
        self.will_delay = will_delay
        self.drain_timeout = drain_timeout
        self.notice = notice
        self._pending = True
        """The journal may hold records not handed to the client yet (set by a commit, a connection, a
        window that opened again; cleared by the worker just before it reads)."""
        self._window_full = False
        """The worker stopped handing records over at :data:`WINDOW`: an acknowledgement wakes it."""
        self._stopping = threading.Event()
        self._connected = threading.Event()
        self._acks_in: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._said_unreachable = False
        self._said_refused = False
        self._thread: threading.Thread | None = None
        self._said_foreign = False
        self._said_anonymous = False
        self._said_not_archived = False
        """An ``archived`` message that was not the archive's head was said (once a run)."""
        self._archived: bytes | None = None
        """The latest ``archived`` payload, not taken yet."""
        self._subscription: int | None = None
        """This connection's SUBSCRIBE to ``archived`` (its message id)."""
        self._granted = False
        """The broker granted this connection's subscription to ``archived``."""
        self._barrier: int | None = None
        """This connection's ``online`` status (its message id), sent after that SUBSCRIBE, while not acknowledged."""
        self.listened = False
        """The broker granted the subscription to ``archived`` and then acknowledged a message sent after it,
        so its retained answer, if any, came in before: an archive that said nothing has not answered."""
        self.deaf = False
        """The broker refused the subscription to ``archived`` (its ACL): no archive's answer can come in."""
        self.client = self._client()
        self.loop = ClientLoop(self.client, max_delay=2, cannot_connect=self._cannot_connect)
        self.outbox: Outbox | None = None
        self.state = TableState(target.site, target.table)
        self.view_of: Callable[[], View] | None = None
        """Where the ``state`` message's table comes from (:meth:`follow`)."""
        self.acks = Acks(0)
        self.delivery = Delivery(0, 0, time.monotonic())
        self.resumed_end = 0
        """The journal's last record when the feed started."""
        self.cursor = 0
        self.marked = (0, 0)
        """The marks last kept in the journal: (archive-confirmed, broker-acknowledged)."""
        self._marked_at = 0.0

    # -- the client ----------------------------------------------------------------------
    def _client(self) -> mqtt.Client:
        target = self.target
        client = new_client(target.broker, target.client_id, ca_file=target.broker.ca_file,
                            ca_option="[feed] ca_file", max_reconnect_delay=2, error=FeedError)
        will = Properties(PacketTypes.WILLMESSAGE)  # type: ignore[no-untyped-call]
        will.WillDelayInterval = self.will_delay
        client.will_set(target.topic("status"), "offline", qos=QOS, retain=True, properties=will)
        client.max_inflight_messages_set(WINDOW)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        client.on_subscribe = self._on_subscribe
        return client

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self._unreachable(message("feed.table_refused", "the broker refused the table ({reason})",
                                      reason=str(reason)))
            return
        self._granted = False
        self._subscription = client.subscribe(self.target.topic("archived"), qos=QOS)[1]
        info = client.publish(self.target.topic("status"), "online", qos=QOS, retain=True)
        self._barrier = info.mid  # the broker answers in order: SUBACK, the retained answer, then this PUBACK
        self._acks_in.put(-info.mid)  # the worker counts it in flight
        if self.cursor:  # the broker may have lost the retained state: the archive reads the head from it
            info = client.publish(self.target.topic("state"), self._state_message(), qos=QOS, retain=True)
            self._acks_in.put(-info.mid)
        self._connected.set()
        self._said_unreachable = False
        self._say(message("feed.connected", "connected to {broker} as {site}/{table}",
                          broker=self.target.broker.address, site=self.target.site, table=self.target.table))
        if self.target.broker.username is None and not self._said_anonymous:
            self._said_anonymous = True
            self._say(message("feed.anonymous", "connected without an account (anonymous): anyone who can reach the "
                              "broker may publish on {topic}, so the archive's confirmation of delivery cannot be "
                              "trusted; give the table an account of its own on a broker with the floor's ACL "
                              "(croupier floor acl) for the proof", topic=self.target.topic("archived")))
        self._pending = True

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._connected.clear()
        if not self._stopping.is_set():
            self._unreachable(message("feed.connection_lost", "the connection was lost ({reason})",
                                      reason=str(reason)))

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: list[Any],
                      properties: Any) -> None:
        if mid != self._subscription:
            return
        if any(reason.is_failure for reason in reasons):
            self.deaf = True
        else:
            self._granted = True
            self._heard_out()

    def _heard_out(self) -> None:
        """Granted, and the barrier acknowledged: the broker's retained answer, if any, came in before."""
        if self._granted and self._barrier is None:
            self.listened = True

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        if mid == self._barrier:
            self._barrier = None
            self._heard_out()
        if getattr(reason, "is_failure", False):  # e.g. "Not authorized": the ACL does not let it publish there
            self._refused(reason)
            return  # never counted as delivered: the mark stays before it, the next start sends it again
        self._acks_in.put(mid)
        if self._window_full:
            self._pending = True

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if message.topic == self.target.topic("archived"):
            self._archived = bytes(message.payload)

    def _take_archived(self) -> None:
        """The archive's latest word on this table: its confirmed head, and what it asks for again."""
        payload, self._archived = self._archived, None
        told = parse_archived(payload) if payload is not None else None
        if told is None and payload and not self._said_not_archived:  # empty: a retained answer cleared, no word
            self._said_not_archived = True
            self._say(message("feed.not_archived_head", "ignored a message on {topic}: not the archive's head (a "
                              "JSON object with seq, hash and wants; {size} bytes); nothing counts as delivered by it",
                              topic=self.target.topic("archived"), size=len(payload)))
        if told is None or self.outbox is None:
            return
        mine = self.outbox.hash_at(told.seq) if told.seq else None
        resending = self.delivery.resending
        self.delivery.archived(told, mine, self.cursor, time.monotonic())
        if self.delivery.foreign is not None and not self._said_foreign:
            self._said_foreign = True
            self._say_conflict(told, mine)
        if self.delivery.resending and not resending:
            self._pending = True

    def _say_conflict(self, told: Archived, mine: str | None) -> None:
        """Say once a run that the archive's head ``told`` is not this journal's record (``mine``: the journal's
        hash of it): what the archive's chain is to this journal, and what to do."""
        assert self.outbox is not None
        site, table = self.target.site, self.target.table
        kind = conflict(told.seq, mine, self.resumed_end, self.delivery.mark)
        if kind is Conflict.OLDER_COPY:
            self._say(message("feed.older_copy", "this journal is an older copy than the one the archive holds for "
                              "{site}/{table} (restored from a backup, or cut): this journal ended at record {last} "
                              "when the table started, the archive's head is record {seq}; the records dealt on it "
                              "are not archived (the archive keeps its own chain and refuses them) and none counts "
                              "as delivered: restore the table's newest journal, or call the supervisor",
                              site=site, table=table, last=self.resumed_end, seq=told.seq))
        elif kind is Conflict.FORKED:
            self._say(message("feed.forked", "the archive holds another journal as {site}/{table}, a chain that does "
                              "not continue this journal: its record {seq} has hash {archived}..., this journal's "
                              "record {seq} has hash {mine}...; this journal's records are not counted as delivered "
                              "and the archive refuses them, keeping its own: give this table a name of its own, or "
                              "compare both with croupier audit verify --archive", site=site, table=table,
                              seq=told.seq, archived=str(told.hash)[:16], mine=str(mine)[:16]))
        else:
            self._say(message("feed.archive_ahead", "the archive holds another journal as {site}/{table}, or a "
                              "longer copy of this one (its record {seq} is past this journal's last record "
                              "{last}: this journal may have been cut or restored from an older copy); this "
                              "journal's records are not archived: give this table a name of its own, or compare "
                              "both with croupier audit verify --archive", seq=told.seq, site=site, table=table,
                              last=self.outbox.last_seq()))

    def _cannot_connect(self, problem: BaseException | None = None) -> None:
        """Said once an outage: a certificate refused names its reason (unknown CA, host name mismatch)."""
        if isinstance(problem, ssl.SSLCertVerificationError):
            self._unreachable(message("feed.cannot_connect_because", "cannot connect ({problem})",
                                      problem=broker_problem(problem, self.target.broker, "[feed] ca_file")))
        else:
            self._unreachable(message("feed.cannot_connect", "cannot connect"))

    def _refused(self, reason: Any) -> None:
        if not self._said_refused:
            self._said_refused = True
            self._say(message("feed.messages_refused", "broker {broker} refused the table's messages on {topic} "
                              "({reason}); check that the table's broker user may publish there (croupier floor "
                              "acl); the journal keeps every record until the broker takes it",
                              broker=self.target.broker.address, topic=self.target.topic(""), reason=str(reason)))

    def _unreachable(self, why: Message) -> None:
        if not self._said_unreachable:
            self._said_unreachable = True
            self._say(message("feed.unreachable", "broker {broker}: {why}; the table deals on and the journal "
                              "keeps every record until the broker takes it", broker=self.target.broker.address,
                              why=why))

    def _say(self, notice: Message) -> None:
        self.notice("feed: " + self.words.text(notice))

    def follow(self, view: Callable[[], View]) -> None:
        """Read the table's view (:attr:`controller.core.table.Table.view`) for each ``state`` message: what the
        core says, never folded from the events here."""
        self.view_of = view

    def _state_message(self) -> bytes:
        if self.view_of is not None:
            self.state.show(self.view_of())
        return self.state.message()

    # -- running -------------------------------------------------------------------------
    def start(self) -> None:
        """Open the journal's outbox, follow it to the acknowledged mark, connect and start publishing."""
        self.outbox = Outbox(self.journal_path)
        last = self.resumed_end = self.outbox.last_seq()
        confirmed = min(self.outbox.acked(), last)
        published = min(max(confirmed, self.outbox.published()), last)
        for record in self.outbox.records_upto(published):
            self.state.apply_record(record, record_events(record))
        self.acks = Acks(published)
        self.delivery = Delivery(confirmed, published, time.monotonic())
        self.cursor = published
        self.marked = (confirmed, published)
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = max(self.will_delay, 60)
        broker = self.target.broker
        self.client.connect_async(broker.host, broker.port, keepalive=KEEPALIVE, clean_start=False,
                                  properties=properties)
        self._thread = threading.Thread(target=self._work, name="croupier-feed", daemon=True)
        self._thread.start()

    def wake(self, events: object = None) -> None:
        """New records are in the journal (a sink: takes the events and ignores them)."""
        self._pending = True
        self.loop.wake()

    def _work(self) -> None:
        try:
            while not self._stopping.is_set():
                self._step()
        except Exception as error:  # the table deals on; what is left goes out on the next start
            self._say(message("feed.stopped", "stopped publishing ({error}); the journal keeps the records, they "
                              "go out on the next start", error=f"{type(error).__name__}: {error}"))

    def _step(self) -> bool:
        """Take acknowledgements, publish what the window allows, keep the mark, serve the network until
        woken (by a commit, the broker, or the mark falling due); False when there was nothing to publish."""
        self._take_acks()
        self._take_archived()
        published = self._publish_some()
        self._keep_mark()
        self.loop.run_once(0.0 if published else self._mark_due())
        return published

    def _mark_due(self) -> float | None:
        """Seconds until the mark should be kept again (None: nothing in flight, wait for a commit)."""
        if self.acks.idle and self._acks_in.empty() and self._marks() == self.marked:
            return None
        return max(0.01, MARK_INTERVAL - (time.monotonic() - self._marked_at))

    def _take_acks(self) -> None:
        while True:
            try:
                mid = self._acks_in.get_nowait()
            except queue.Empty:
                return
            if mid < 0:
                self.acks.extra(-mid)
            else:
                self.acks.acknowledged(mid)

    def _publish_some(self) -> bool:
        """Hand the records the archive asked for again, then the next records, to the client while connected
        and within the window."""
        assert self.outbox is not None
        if not (self._pending or self.delivery.resending) or not self._connected.is_set():
            return False
        self._window_full = self.acks.inflight >= WINDOW
        if self._window_full:
            return False
        if self._resend_some():
            return True
        self._pending = False
        records = self.outbox.records_after(self.cursor, BATCH)
        for record in records:
            if self.acks.inflight >= WINDOW:
                self._window_full = self._pending = True
                break
            self._publish_record(record)
        if len(records) == BATCH:
            self._pending = True
        if records:
            info = self.client.publish(self.target.topic("state"), self._state_message(), qos=QOS, retain=True)
            self.acks.extra(info.mid)
        return bool(records)

    def _resend_some(self) -> bool:
        """Hand over again (their ``journal`` messages only) records the archive asked for; False: none."""
        assert self.outbox is not None
        delivery = self.delivery
        if not delivery.resending:
            return False
        records = self.outbox.records_after(delivery.resend_next - 1, BATCH)
        for record in records:
            if record.seq > delivery.resend_end or self.acks.inflight >= WINDOW:
                break
            self.acks.extra(self.client.publish(self.target.topic("journal"), journal_message(record), qos=QOS).mid)
            delivery.resent(record.seq)
        else:
            if len(records) < BATCH:
                delivery.resend_next = 0  # the journal ends before: nothing more to send again
        return True

    def _publish_record(self, record: Record) -> None:
        events = record_events(record)
        first = self.state.events + 1
        self.state.apply_record(record, events)
        topic = self.target.topic
        mids = [self.client.publish(topic("journal"), journal_message(record), qos=QOS).mid]
        for number, event in enumerate(events, start=first):
            payload = event_message(event, self.target.site, self.target.table, number)
            mids.append(self.client.publish(topic("events"), payload, qos=QOS).mid)
        self.acks.sent(record.seq, mids)
        self.cursor = record.seq

    def _marks(self) -> tuple[int, int]:
        return min(self.delivery.mark, self.cursor), self.acks.acked

    def _keep_mark(self, now: bool = False) -> None:
        assert self.outbox is not None
        marks = self._marks()
        if marks == self.marked:
            return
        if (now or time.monotonic() - self._marked_at >= MARK_INTERVAL) and self.outbox.mark(*marks):
            self.marked = marks
            self._marked_at = time.monotonic()

    # -- stopping ------------------------------------------------------------------------
    def close(self) -> None:
        """Deliver what is pending (up to the drain timeout), say ``offline``, disconnect. Idempotent."""
        if self._thread is None or self.outbox is None:
            return
        self._stopping.set()
        self.loop.wake()
        self._thread.join(timeout=JOIN_SECONDS)
        self._thread = None
        deadline = time.monotonic() + self.drain_timeout
        self._drain(deadline)
        self._say_offline(min(deadline, time.monotonic() + OFFLINE_WAIT) if self.drain_timeout else 0.0)
        with contextlib.suppress(Exception):
            self.client.disconnect()
        self.loop.close()
        self._take_acks()
        self._take_archived()
        self._keep_mark(now=True)
        self._say_what_is_left()
        self.outbox.close()
        self.outbox = None

    def _say_what_is_left(self) -> None:
        """One line at a stop when records are not delivered, from the first of them: not acknowledged by the
        broker, or not confirmed by the archive (the next start sends them again)."""
        assert self.outbox is not None
        left = self.outbox.records_after(self.acks.acked, 1)
        unconfirmed = self.outbox.records_after(self.delivery.confirmed, 1)
        if left and not (unconfirmed and unconfirmed[0].seq < left[0].seq):
            self._say(message("feed.not_acknowledged", "records from {seq} on were not acknowledged by {broker} "
                              "before the drain timeout; the journal keeps them and they go out on the next start",
                              seq=left[0].seq, broker=self.target.broker.address))
        elif unconfirmed and (self.delivery.heard or not self.listened):  # no word yet, or it never listened
            self._say(message("feed.not_confirmed", "records from {seq} on are not confirmed by the archive yet; "
                              "the journal keeps them and the next start sends them again", seq=unconfirmed[0].seq))
        elif unconfirmed:
            self._say(message("feed.no_archive", "no archive confirmed records from {seq} on (none answered on "
                              "{topic}); the journal keeps them and the next start sends them again",
                              seq=unconfirmed[0].seq, topic=self.target.topic("archived")))

    def _drain(self, deadline: float) -> None:
        """Publish and wait for acknowledgements until all records are taken and the archive had its say, or
        ``deadline``; a table that ends before its feed connected connects first (the loop does)."""
        assert self.outbox is not None
        while time.monotonic() < deadline:
            self._take_acks()
            self._take_archived()
            self._pending = True
            self._publish_some()
            self._keep_mark()
            taken = not self.outbox.records_after(self.acks.acked, 1) and self.acks.idle
            if taken and self._archive_settled():
                return
            self.loop.run_once(0.05)

    def _archive_settled(self) -> bool:
        """Nothing more to wait for from the archive: it confirmed every record, or holds another journal, or
        none answered once the feed had listened (or could not listen) on ``archived``."""
        assert self.outbox is not None
        if self.delivery.foreign is not None or not self.outbox.records_after(self.delivery.confirmed, 1):
            return True
        return not self.delivery.heard and (self.listened or self.deaf)

    def _say_offline(self, deadline: float) -> None:
        """The clean stop's ``offline`` status and state (the Last Will says it when the table dies)."""
        if not self._connected.is_set():
            return
        self.state.status = "offline"
        topic = self.target.topic
        self.client.publish(topic("state"), self._state_message(), qos=QOS, retain=True)
        info = self.client.publish(topic("status"), "offline", qos=QOS, retain=True)
        while not info.is_published() and self._connected.is_set() and time.monotonic() < deadline:
            self.loop.run_once(0.05)

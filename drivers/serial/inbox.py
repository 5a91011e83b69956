"""The controller's inbox on a serial line: the shoe's messages turned into reader inputs, and answered.

:class:`Inbox` decodes the receive buffer with the line's framer, answers
rejected frames (NAK) and messages (ACK) as its framing says
(:class:`~drivers.serial.framing.Framer`), drops retransmissions by sequence
number and notices a shoe that restarted. The acknowledgement of an input is
held until the controller comes back for more (it has then journaled the
input): see :meth:`drivers.serial.driver.SerialShoe.journaled`.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable

from controller.core.inputs import Input, InputKind
from controller.core.misdeals import SHOE_RESTARTED, sequence_gap
from drivers.serial import framing as fr
from drivers.serial.link import CONTROLLER_KINDS, input_of

LOG = logging.getLogger("croupier.serial")

NOISE = frozenset({"garbage", "overlong"})
"""Rejections that are no message at all, warned about once per run (:meth:`Inbox._on_noise`)."""

SEQ_WRAP_FROM = 9999
"""A shoe may start its sequence numbers again at 0 or 1 only after this one (the emulator wraps here)."""
SEQ_WRAP_GAP_MAX = 100
"""After :data:`SEQ_WRAP_FROM` or more, a number from 2 to this one is a wrap whose first messages never arrived (a
``sequence_gap``); a larger one that falls back is a restarted shoe."""


class Inbox:
    """Bytes from the shoe in, reader inputs out; ``write`` sends the answers."""

    def __init__(self, url: str, framer: fr.Framer, write: Callable[[bytes], bool]) -> None:
        self.url = url
        self.framer = framer
        self._write = write
        self.duplicates = 0
        """Messages dropped because they repeated the previous sequence number."""
        self.status: str | None = None
        """The last status text the shoe sent, if any."""
        self.features: frozenset[str] = frozenset()
        """What the shoe announced after the hello (``V,crc16``): empty for a shoe from before CRC."""
        self.last_seq: int | None = None
        """The sequence number of the shoe's last message taken (None: none yet, or the shoe restarted)."""
        self.last_frame: fr.Frame | None = None
        """The shoe's last numbered message taken, when this inbox saw it (None after a resume): a message with its
        number and other content is no retransmission."""
        self._buffer = bytearray()
        self._deferred: deque[fr.Frame] = deque()
        self._held_ack: bytes | None = None
        self._noise_bytes: int | None = None  # bytes of the noise run going on (warned about once), else None

    def feed(self, data: bytes) -> None:
        """Bytes read from the line."""
        self._buffer += data

    def next_input(self) -> Input | None:
        """The next input in what was received, or None until more bytes come."""
        while self._deferred:
            item = self._on_frame(self._deferred.popleft())
            if item is not None:
                return item
        return self._decode_buffered()

    def forget_ack(self) -> None:
        """The line failed: the held acknowledgement is not sent (the shoe resends its message)."""
        self._held_ack = None

    def drop_unfinished(self) -> None:
        """The line failed and every whole frame received before is out: drop the rest."""
        if self._buffer:
            LOG.warning("%s: dropped %d byte(s) of an unfinished frame when the line failed: %r",
                        self.url, len(self._buffer), bytes(self._buffer[:40]))
            self._buffer.clear()
        self.framer.line_failed()
        self._end_noise()

    def release_ack(self) -> None:
        """Send the acknowledgement held for the last input: the controller has it for good."""
        held, self._held_ack = self._held_ack, None
        if held is not None:
            self._write(held)

    def _decode_buffered(self) -> Input | None:
        """Decode frames from the receive buffer until one gives an input."""
        while self._buffer:
            used, frame = self.framer.decode(bytes(self._buffer))
            if used == 0:
                return None
            rejected = self.framer.rejected
            del self._buffer[:used]
            if rejected is not None:
                self._on_rejected(rejected)
            if frame is not None:
                self._end_noise()
                item = self._on_frame(frame)
                if item is not None:
                    return item
        return None

    def _on_rejected(self, rejected: fr.Rejection) -> None:
        if rejected.reason in NOISE:
            self._on_noise(rejected)
            return
        self._end_noise()
        if rejected.reason == "bad_checksum":
            LOG.warning("%s: bad checksum, message dropped%s: %s", self.url,
                        " and NAKed" if self.framer.acks else "", rejected.describe())
            nak = self.framer.nak()
            if nak is not None:
                self._write(nak)
        elif rejected.reason == "bad_message":
            LOG.warning("%s: well-framed but unknown message, acknowledged and dropped: %s",
                        self.url, rejected.describe())
            answer = self.framer.bad_message_answer()
            if answer is not None:
                self._write(answer)

    def _on_noise(self, rejected: fr.Rejection) -> None:
        """Garbage or an overlong frame: one warning for the whole run of such bytes up to the next message, however
        many pieces the line hands them over in; the rest of the run is counted and logged at debug level."""
        if self._noise_bytes is not None:
            self._noise_bytes += len(rejected.raw)
            LOG.debug("%s: more of the same noise dropped: %s", self.url, rejected.describe())
            return
        self._noise_bytes = len(rejected.raw)
        what = "overlong frame discarded" if rejected.reason == "overlong" else "garbage skipped"
        advice = "" if rejected.hint else ("; if it goes on, check that the URL's framing options (or its profile) "
                                           "and baud rate are the shoe's, and the cable")
        LOG.warning("%s: %s: %s; expected %s%s; more of it up to the shoe's next message is dropped without another "
                    "warning", self.url, what, rejected.describe(), self.framer.expected(), advice)

    def _end_noise(self) -> None:
        """A message (or a line failure) ends a run of noise: the next noise is warned about again."""
        if self._noise_bytes is not None and self._noise_bytes > 0:
            LOG.info("%s: the noise ended after %d byte(s) in all", self.url, self._noise_bytes)
        self._noise_bytes = None

    def _on_frame(self, frame: fr.Frame) -> Input | None:
        if frame.kind in CONTROLLER_KINDS:
            LOG.debug("%s: ignored a controller message from the line (an echo?): %s", self.url, frame)
            return None
        answer = self.framer.ack(frame)
        item: Input | None = None
        if self._retransmission(frame):
            self.duplicates += 1
            LOG.info("%s: duplicate message (retransmission) dropped: %s", self.url, frame.body())
        else:
            broken = self._broken_sequence(frame) if frame.seq is not None else None
            if broken is not None:
                self._deferred.append(frame)  # taken once the table has the news: it takes no lost one's place
                return broken
            if frame.seq is not None:
                self.last_seq = frame.seq
                self.last_frame = frame
            item = input_of(frame)
            if item is None:
                self._on_news(frame)
        if item is not None and answer is not None:
            # acknowledged once the controller has it for good: see journaled() and _recv()
            self._held_ack = answer
        elif answer is not None:
            self._write(answer)
        return item

    def _retransmission(self, frame: fr.Frame) -> bool:
        """Does ``frame`` repeat the last message taken (its number, and its content when this inbox saw it)?"""
        if frame.seq is None or frame.seq != self.last_seq:
            return False
        return self.last_frame is None or self.last_frame == frame

    def _broken_sequence(self, frame: fr.Frame) -> Input | None:
        """The news when ``frame``'s sequence number does not follow the last one: the shoe restarted (it fell
        back) or messages were lost (it skipped); None when it follows. The sequence starts again from ``frame``."""
        last, seq = self.last_seq, frame.seq
        if last is None or seq is None:
            return None
        if seq == last:
            LOG.error("%s: the shoe restarted: its message %d is now %s where it was %s, so it is no retransmission "
                      "and the shoe may report cards already dealt again; halting the table for the supervisor",
                      self.url, seq, frame.body(), self.last_frame.body() if self.last_frame else "?")
            self._restart_sequence_at(seq)
            return Input(InputKind.OFFLINE, SHOE_RESTARTED)
        if self._restarted(seq):
            LOG.error("%s: the shoe restarted: its sequence number fell from %s to %d, so it may report cards "
                      "already dealt again; halting the table for the supervisor", self.url, last, seq)
            self._restart_sequence_at(seq)
            return Input(InputKind.OFFLINE, SHOE_RESTARTED)
        if seq > last + 1 or self._wrapped_past(last, seq):
            LOG.error("%s: the shoe's sequence numbers went from %d to %d: the message(s) in between never "
                      "arrived; halting the table for the supervisor", self.url, last, seq)
            self._restart_sequence_at(seq)
            return Input(InputKind.OFFLINE, sequence_gap(last, seq))
        return None

    def _restart_sequence_at(self, seq: int) -> None:
        """The sequence starts again from message ``seq``, which follows the news of the break: until it is taken,
        the position is the number before it, which the journal stores with the news, so that a controller killed
        then resumes checking the sequence from there (None before 1: a shoe that numbers from 0)."""
        self.last_seq = seq - 1 if seq > 0 else None
        self.last_frame = None

    def _on_news(self, frame: fr.Frame) -> None:
        """A message that is no reader input: the shoe's features or status (a heartbeat says only 'here')."""
        if frame.kind == fr.FEATURES:
            self.features = frozenset(frame.data.split("+"))
            if fr.CRC16 in self.features:
                self.framer.require_crc = True
            LOG.info("%s: the shoe announces %s%s", self.url, frame.data,
                     "; every message of it must carry a right CRC-16" if self.framer.require_crc else "")
        elif frame.kind == fr.STATUS:
            if frame.data != self.status:
                LOG.info("%s: shoe status: %s", self.url, frame.data)
            self.status = frame.data

    def _restarted(self, seq: int) -> bool:
        """Does ``seq`` fall back below the previous one, other than by wrapping after 9999 or more (to 0 or 1, or
        to a number up to :data:`SEQ_WRAP_GAP_MAX` when the first ones were lost)?"""
        last = self.last_seq
        return last is not None and seq < last and not (last >= SEQ_WRAP_FROM and seq <= SEQ_WRAP_GAP_MAX)

    @staticmethod
    def _wrapped_past(last: int, seq: int) -> bool:
        """Did the numbers wrap after ``last`` (9999 or more) to ``seq`` past 1: the messages from 1 were lost?"""
        return last >= SEQ_WRAP_FROM and 1 < seq <= SEQ_WRAP_GAP_MAX

"""The port under a :class:`~drivers.serial.driver.SerialShoe`: opened, read, written, reopened with backoff.

Built on :func:`serial.serial_for_url`, so it is a device (``/dev/ttyUSB0``),
a TCP serial server (``socket://host:port``) or pyserial's ``loop://``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from typing import Any

import serial as pyserial

LOG = logging.getLogger("croupier.serial")

BACKOFF_FIRST = 0.1
BACKOFF_MAX = 2.0
WRITE_TIMEOUT = 1.0
LINE_ERRORS = (pyserial.SerialException, OSError)
"""What a failing line raises from a read or a write."""
OPEN_ERRORS = (pyserial.SerialException, OSError, ValueError)
"""What opening a port that is not there (or is held, or misnamed) raises."""


class Port:
    """One serial port, open or waiting to be reopened after a failure.

    ``name`` is what pyserial opens; a ``local`` device is opened exclusively, so a
    second controller on the same shoe is refused rather than interleaved.
    """

    def __init__(self, url: str, name: str, baudrate: int, local: bool) -> None:
        self.url = url
        self.name = name
        self.baudrate = baudrate
        self.local = local
        self.reconnects = 0
        """How many times the port was reopened after a failure."""
        self.reopen_at = 0.0
        """When the next reopening is due (after a failure)."""
        self._serial: Any = None
        self._timeout: float | None = -1.0
        self._backoff = BACKOFF_FIRST
        self._failures = 0

    @property
    def is_open(self) -> bool:
        """True while the port is open (False after a failure, until it is reopened)."""
        return self._serial is not None

    def open(self) -> None:
        """Open the port; raises one of :data:`OPEN_ERRORS`."""
        port = pyserial.serial_for_url(self.name, do_not_open=True)
        port.baudrate = self.baudrate
        port.timeout = 0
        port.write_timeout = WRITE_TIMEOUT
        if self.local and os.name == "posix":
            port.exclusive = True
        port.open()
        self._serial = port
        self._timeout = 0

    def read(self, wait: float) -> bytes:
        """What the port has within ``wait`` seconds (b"" for nothing); raises one of :data:`LINE_ERRORS`."""
        port = self._serial
        if self._timeout != wait:
            port.timeout = wait
            self._timeout = wait
        data: bytes = port.read(1)
        if data:
            waiting = port.in_waiting
            if waiting:
                data += port.read(waiting)
        return data

    def write(self, data: bytes) -> bool:
        """Write ``data``; False when the port is closed or the shoe does not read it in time.

        A failing line raises one of :data:`LINE_ERRORS`.
        """
        if self._serial is None:
            return False
        try:
            self._serial.write(data)
        except pyserial.SerialTimeoutException:
            LOG.warning("%s: the shoe is not reading; could not write %r within %.1fs, dropped it",
                        self.url, data, WRITE_TIMEOUT)
            return False
        return True

    def failed(self, error: BaseException, reconnect: bool) -> None:
        """The line died: close the port and, with ``reconnect``, schedule reopening it."""
        self.close()
        self.reopen_at = time.monotonic() + BACKOFF_FIRST
        self._backoff = BACKOFF_FIRST
        self._failures = 0
        if reconnect:
            LOG.warning("%s: line to %s failed (%s); reader offline, reconnecting with backoff",
                        self.url, self.name, error)
        else:
            LOG.error("%s: line to %s failed (%s); reader offline, reconnect=0 so giving up",
                      self.url, self.name, error)

    def reopen(self) -> bool:
        """Try to reopen the port; on failure back off (doubling, up to :data:`BACKOFF_MAX`) and say False."""
        try:
            self.open()
        except OPEN_ERRORS as error:
            self._failures += 1
            log = LOG.warning if self._failures in (1, 10) or self._failures % 100 == 0 else LOG.debug
            log("%s: reconnect attempt %d to %s failed (%s); retrying in %.1fs",
                self.url, self._failures, self.name, error, self._backoff)
            self.reopen_at = time.monotonic() + self._backoff
            self._backoff = min(BACKOFF_MAX, self._backoff * 2)
            return False
        self.reconnects += 1
        LOG.warning("%s: reopened %s after %d failed attempt(s); reader online", self.url, self.name, self._failures)
        return True

    def close(self) -> None:
        """Close the port, if open."""
        port, self._serial = self._serial, None
        if port is not None:
            with contextlib.suppress(*LINE_ERRORS):
                port.close()

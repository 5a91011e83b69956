"""The card-source base class: a template method in the style of python-can's BusABC.

A driver implements only :meth:`CardSource._recv` (one raw read, with a time
limit) and, if it holds resources, :meth:`CardSource._close`. The base owns the
timeout loop, the context manager and an idempotent :meth:`close`.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from types import TracebackType
from typing import ClassVar
from urllib.parse import parse_qs, urlsplit

from controller.core.exceptions import DriverError, DriverURLError
from controller.core.inputs import Input


class CardSource(ABC):
    """A source of reader inputs: a card-reading shoe, a PC/SC reader or the mock.

    Use as a context manager, or call :meth:`close` (safe to call twice).
    """

    scheme: ClassVar[str] = ""
    """URL scheme this driver serves (``mock``, ``serial``, ``pcsc``)."""

    options: ClassVar[dict[str, str]] = {}
    """Query options this driver accepts, each with a one-line description."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._closed = False

    # -- the template method -------------------------------------------------
    def recv(self, timeout: float | None = None) -> Input | None:
        """Return the next input, or None when ``timeout`` seconds pass without one.

        ``timeout=None`` waits for ever (until :attr:`exhausted`); ``0`` polls.
        """
        if self._closed:
            raise DriverError(f"{self.url}: the card source is closed; open it again to read")
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            item = self._recv(remaining)
            if item is not None:
                return item
            if self.exhausted:
                return None
            if deadline is not None and time.monotonic() >= deadline:
                return None

    @abstractmethod
    def _recv(self, timeout: float | None) -> Input | None:
        """Read at most one input, waiting at most ``timeout`` seconds (None: block)."""

    @property
    def exhausted(self) -> bool:
        """True when the source will never give another input (a script ran out)."""
        return False

    def indicate(self, what: str) -> None:
        """Tell the source what the table expects next.

        ``what`` is ``player``, ``banker``, ``burn``, ``hold`` or ``new_shoe``. Shoes
        with lights show it; the mock and the emulator start the next shoe on
        ``new_shoe``. The default does nothing.
        """

    # -- lifecycle ----------------------------------------------------------
    def close(self) -> None:
        """Release the source. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._close()

    def _close(self) -> None:
        """Release driver resources; called once by :meth:`close`."""

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> CardSource:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- URL helpers for drivers --------------------------------------------
    @classmethod
    def expected_form(cls) -> str:
        opts = "&".join(f"{name}=..." for name in cls.options)
        return f"{cls.scheme}://...?{opts}" if opts else f"{cls.scheme}://"

    @classmethod
    def parse_query(cls, url: str) -> tuple[str, dict[str, str]]:
        """Split ``url`` into its location and query options, rejecting unknown ones."""
        parts = urlsplit(url)
        query = parse_qs(parts.query, keep_blank_values=True)
        values: dict[str, str] = {}
        for name, given in query.items():
            if name not in cls.options:
                known = ", ".join(f"{key} ({text})" for key, text in cls.options.items())
                raise DriverURLError(
                    f"{url}: unknown option {name!r} for {cls.scheme}://; "
                    f"expected {cls.expected_form()} with options: {known or 'none'}"
                )
            if len(given) != 1:
                raise DriverURLError(f"{url}: option {name!r} given {len(given)} times; give it once")
            values[name] = given[0]
        location = parts.netloc + parts.path
        return location, values

    @classmethod
    def int_option(cls, url: str, values: dict[str, str], name: str, default: int,
                   low: int, high: int) -> int:
        """Read an integer option in ``[low, high]``, naming the URL on error."""
        if name not in values:
            return default
        text = values[name]
        try:
            number = int(text)
        except ValueError:
            raise DriverURLError(
                f"{url}: option {name}={text!r} is not a whole number; expected {low}-{high}"
            ) from None
        if not low <= number <= high:
            raise DriverURLError(f"{url}: option {name}={number} is out of range; expected {low}-{high}")
        return number

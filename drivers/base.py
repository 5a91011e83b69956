"""The card-source contract: a template method in the style of python-can's BusABC.

A driver declares the URL schemes it serves (:attr:`CardSource.schemes`) and
its URL options (:attr:`CardSource.options`, one :class:`Option` each), and
implements :meth:`CardSource._recv` (one raw read, with a time limit) and, if
it holds resources, :meth:`CardSource._close` and :meth:`CardSource._indicate`.
The base owns the timeout loop, option validation, the context manager and an
idempotent :meth:`close`. A source that keeps its place for journal recovery
says so by also deriving from :class:`Resumable`.
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from enum import StrEnum
from types import TracebackType
from typing import Any, ClassVar, Self
from urllib.parse import parse_qs, urlsplit

import msgspec

from controller.core.exceptions import DriverError, DriverURLError
from controller.core.inputs import Input
from controller.i18n.message import message

LOGGER = "croupier.drivers"
"""The logger the drivers warn on (:mod:`logging` is imported only to warn: most commands never do)."""


class Delivery(StrEnum):
    """How a source gives its inputs, which decides what the controller must pace and who plays the dealer."""

    DEALT = "dealt"
    """A dealer draws each card from a real shoe: the inputs come when they come (the default)."""
    SHUFFLED = "shuffled"
    """The cards of shuffled shoes, each there whenever it is read; the dealer's own inputs (confirm the shoe,
    start a round) are not among them (a seeded mock shoe)."""
    SCRIPTED = "scripted"
    """Every input, the dealer's own included, there whenever it is read (a script)."""


class Indication(StrEnum):
    """What the table expects next; the value is what a shoe is sent (``I,<value>``)."""

    PLAYER = "player"
    BANKER = "banker"
    HOLD = "hold"
    BURN = "burn"
    NEW_SHOE = "new_shoe"


_INDICATIONS: dict[str, Indication] = {indication.value: indication for indication in Indication}
"""Each indication by its value (and by itself: a :class:`~enum.StrEnum` member is found as its value); the table
indicates after every input, and a dictionary finds it far quicker than ``Indication(what)``."""


def one_of(words: tuple[str, ...] | list[str]) -> str:
    """``a, b or c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


class Option(msgspec.Struct, frozen=True):
    """One URL query option of a driver: its type, default, range or choices, and help.

    ``type`` is ``int``, ``float``, ``bool`` (a flag written ``0`` or ``1``) or
    ``str``; a ``str`` option with ``choices`` accepts only those words. ``range``
    bounds a number (inclusive); ``unit`` names what a float counts (``seconds``).
    """

    help: str
    type: type[int] | type[float] | type[bool] | type[str] = str
    default: Any = None
    range: tuple[int, int] | None = None
    choices: tuple[str, ...] = ()
    unit: str = ""

    def parse(self, url: str, name: str, text: str, *, high: int | None = None) -> Any:
        """The value of ``name=text`` in ``url``; :class:`DriverURLError` saying what was expected.

        ``high`` lowers the declared upper bound (a bound that depends on another option).
        """
        if self.type is bool:
            if text not in ("0", "1"):
                raise DriverURLError(message("driver.not_flag", "{url}: option {name}={value} is not a flag; expected "
                                             "0 or 1", url=url, name=name, value=repr(text)))
            return text == "1"
        if self.type is str:
            if self.choices and text not in self.choices:
                raise DriverURLError(message("driver.unknown_choice", "{url}: option {name}={value} is unknown; "
                                             "expected {choices}", url=url, name=name, value=repr(text),
                                             choices=one_of(self.choices)))
            return text
        return self._number(url, name, text, high)

    def _number(self, url: str, name: str, text: str, high: int | None) -> int | float:
        low, top = self.range if self.range is not None else (None, None)
        if high is not None:
            top = high
        bounds = f"{low}-{top}" if low is not None and top is not None else ""
        unit = f" {self.unit}" if self.unit else ""
        number: int | float
        try:
            number = int(text) if self.type is int else float(text)
            if math.isnan(number) or (top is None and math.isinf(number)):  # no bound for an infinity to be out of
                raise ValueError(text)
        except ValueError:
            what = "a whole number" if self.type is int else f"a number{' of ' + self.unit if self.unit else ''}"
            expected = bounds if self.type is int else "e.g. 3"
            raise DriverURLError(f"{url}: option {name}={text!r} is not {what}; expected {expected}") from None
        if (low is not None and number < low) or (top is not None and number > top):
            raise DriverURLError(message("driver.out_of_range", "{url}: option {name}={number} is out of range; "
                                         "expected {bounds}{unit}", url=url, name=name, number=str(number),
                                         bounds=bounds, unit=unit))
        return number


class CardSource(ABC):
    """A source of reader inputs: a card-reading shoe, a PC/SC reader or the mock.

    Use as a context manager, or call :meth:`close` (safe to call twice).
    """

    schemes: ClassVar[tuple[str, ...]] = ()
    """URL schemes this driver serves (``("serial", "socket", "loop")``); the first is its own."""

    scheme: ClassVar[str] = ""
    """The first of :attr:`schemes` (set for each subclass that declares them)."""

    options: ClassVar[Mapping[str, Option]] = {}
    """Query options this driver accepts, each declared once."""

    simulated: ClassVar[bool] = False
    """The source deals no real cards (the mock shoe, a script): a table on it is a simulation, never live play
    (its journal says ``simulation``)."""

    shows_expecting: ClassVar[bool] = True
    """The source shows or acts on what the table expects after each input (a shoe's lights, a shoe that waits for
    the table): it is told after every input. A source that acts only on ``new_shoe`` (the mock shoe) says False
    and is told only that."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "schemes" in cls.__dict__ and cls.schemes:
            cls.scheme = cls.schemes[0]

    def __init__(self, url: str) -> None:
        self.url = url
        self._closed = False

    # -- the template method -------------------------------------------------
    def recv(self, timeout: float | None = None) -> Input | None:
        """Return the next input, or None when ``timeout`` seconds pass without one.

        ``timeout=None`` waits for ever (until :attr:`exhausted`); ``0`` polls.
        """
        if self._closed:
            raise DriverError(message("driver.closed", "{url}: the card source is closed; open it again to read",
                                      url=self.url))
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

    def indicate(self, what: Indication | str) -> None:
        """Tell the source what the table expects next (an :class:`Indication` or its value).

        Shoes with lights show it; the mock and the emulator start the next shoe on
        ``new_shoe``. A word that is no indication is logged and not passed on.
        """
        indication = _INDICATIONS.get(what)
        if indication is None:
            import logging

            logging.getLogger(LOGGER).warning("%s: unknown indication %r not sent; expected one of %s",
                                              self.url, what, ", ".join(Indication))
            return
        self._indicate(indication)

    def _indicate(self, what: Indication) -> None:
        """Act on an indication; the default does nothing."""

    def settle(self) -> None:
        """The controller applied every input it took and reads no more: answer what is still unanswered (a
        serial shoe's acknowledgement of the last input is otherwise held until the next read). The default
        does nothing."""

    @property
    def resumable(self) -> Resumable | None:
        """The source that keeps the reader's place for the journal: this one, a wrapped one, or None."""
        return self if isinstance(self, Resumable) else None

    @property
    def delivery(self) -> Delivery:
        """How this source gives its inputs (:class:`Delivery`); a driver with no dealer's hand on it, which gives
        its next card whenever it is read, says so here: the controller then draws only while a card is due."""
        return Delivery.DEALT

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
        """True once :meth:`close` was called."""
        return self._closed

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- URL options ----------------------------------------------------------
    @classmethod
    def expected_form(cls) -> str:
        """The URL form, with every option, that error messages show."""
        opts = "&".join(f"{name}=..." for name in cls.options)
        return f"{cls.scheme}://...?{opts}" if opts else f"{cls.scheme}://"

    @classmethod
    def parse_query(cls, url: str) -> tuple[str, dict[str, str]]:
        """Split ``url`` into its location and query options, rejecting unknown and repeated ones."""
        parts = urlsplit(url)
        query = parse_qs(parts.query, keep_blank_values=True)
        values: dict[str, str] = {}
        scheme = parts.scheme if parts.scheme in cls.schemes else cls.scheme  # loop:// is named loop://
        for name, given in query.items():
            if name not in cls.options:
                known = ", ".join(f"{key} ({option.help})" for key, option in cls.options.items())
                raise DriverURLError(message(
                    "driver.unknown_option", "{url}: unknown option {name} for {scheme}://; expected {form} with "
                    "options: {known}", url=url, name=repr(name), scheme=scheme, form=cls.expected_form(),
                    known=known or "none"))
            if len(given) != 1:
                raise DriverURLError(message("driver.option_repeated", "{url}: option {name} given {times} times; "
                                             "give it once", url=url, name=repr(name), times=len(given)))
            values[name] = given[0]
        location = parts.netloc + parts.path
        return location, values

    @classmethod
    def check_url(cls, url: str) -> None:
        """Refuse ``url`` as this driver's constructor would for its form or its options (:class:`DriverURLError`),
        opening and reading nothing: what it names (a device, a reader, a file) need not be there. The default
        checks each option given; a driver with more to check of its URL extends it.

        The config checks every layer's ``[driver] url`` with it, the one used and those overridden alike."""
        _, values = cls.parse_query(url)
        for name in values:
            cls.option_value(url, values, name)

    @classmethod
    def option_value(cls, url: str, values: Mapping[str, str], name: str, *,
                     default: Any = None, high: int | None = None) -> Any:
        """Option ``name`` as its declared type: its default when not given (``default`` overrides it).

        ``high`` lowers the declared upper bound, for a bound that depends on another option.
        """
        option = cls.options[name]
        if name not in values:
            return option.default if default is None else default
        return option.parse(url, name, values[name], high=high)

    @classmethod
    def int_option(cls, url: str, values: dict[str, str], name: str, default: int,
                   low: int, high: int) -> int:
        """Read an integer option in ``[low, high]``, naming the URL on error."""
        number: int = Option("", int, default, (low, high)).parse(url, name, values[name]) \
            if name in values else default
        return number


class Resumable(CardSource):
    """A card source that keeps its place, so a restarted controller resumes where the journal ends.

    The journal records :attr:`position` with each input the source gave, calls
    :meth:`journaled` once that input is durable, and on recovery calls
    :meth:`seek` with the last position it recorded.
    """

    @property
    @abstractmethod
    def position(self) -> tuple[int, int]:
        """``(shoe, offset)``: where the source is, as :meth:`seek` takes it."""

    @abstractmethod
    def seek(self, shoe: int, offset: int) -> None:
        """Continue from a :attr:`position` recorded earlier."""

    def journaled(self, item: Input) -> None:
        """``item``, which this source gave, is durable in the journal. The default does nothing."""

    def resumed_offline(self) -> None:
        """Called on resume, after :meth:`seek`, when the journal ends with the reader offline (its last
        ``OFFLINE`` not followed by an ``ONLINE``). A source whose line is its own (a serial shoe) gives ``ONLINE``
        once its line is open, as after a reconnect; a source that replays its inputs (the mock) gives its own
        ``@online`` and does nothing here, the default."""


__all__ = ["CardSource", "Indication", "Option", "Resumable", "one_of"]

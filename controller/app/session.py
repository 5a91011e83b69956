"""A session: the runner, where its events go, and its declared stages, played to the end and closed.

A :class:`Session` is made by :func:`controller.app.builder.build_session`. Its parts are declared: the
:class:`Opening` that begins the table's events (fresh, or from a journal, resuming it), and the :class:`Stage`
objects beside it (the feed, the scoreboard, the property watch, the badge reader, the displays and the
summary), each of which joins the session before the events begin and is closed when it ends.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

import msgspec

from controller.app.runner import Runner
from controller.core.auth import AuthSettings
from controller.core.events import Event
from controller.core.table import Table
from controller.i18n.catalogue import Catalogue
from controller.terms import Mode
from drivers.base import CardSource

if TYPE_CHECKING:
    import threading

    from controller.journal.journaled import EventSink
    from controller.ui.console import DealerConsole
    from drivers.merged import MergedSource


def fan_out(sinks: list[EventSink], events: list[Event]) -> None:
    """Give ``events`` to every sink."""
    for sink in sinks:
        sink(events)


class Outputs(msgspec.Struct):
    """Where a table's events go.

    ``replay`` are the sinks that must also see the events a resumed journal
    replays (they were printed before, so the stream itself does not get them).
    """

    notice: Callable[[str], None]
    sinks: list[EventSink] = msgspec.field(default_factory=list)
    replay: list[EventSink] = msgspec.field(default_factory=list)
    earlier: list[Callable[[Mapping[str, int]], None]] = msgspec.field(default_factory=list)
    """Those that count the whole game: given the totals of the events a resume did not replay to them."""

    def add(self, sink: EventSink, replayed: bool = True,
            earlier: Callable[[Mapping[str, int]], None] | None = None) -> None:
        self.sinks.append(sink)
        if replayed:
            self.replay.append(sink)
        if earlier is not None:
            self.earlier.append(earlier)

    def add_earlier(self, totals: Mapping[str, int]) -> None:
        """Give the totals of the events not replayed (a resume from a checkpoint) to those who count."""
        for restore in self.earlier:
            restore(totals)

    def emit(self, events: list[Event]) -> None:
        fan_out(self.sinks, events)

    def replayed(self, events: list[Event]) -> None:
        """Give the events a resume replayed to the sinks that must see them."""
        fan_out(self.replay, events)


class Stage(Protocol):
    """A declared part of a session: it joins before the table's events begin (its sinks on the outputs, its hooks
    on the runner, :meth:`Session.when_begun` and :meth:`Session.at_end`), and is closed when the session ends,
    the stages in the reverse order of joining (closing one that never joined does nothing)."""

    def join(self, session: Session) -> None: ...

    def close(self) -> None: ...


class Opening(Protocol):
    """How the table's events begin: the header and the table's start, or a journal (new, or resumed)."""

    def open(self, session: Session) -> bool:
        """Begin the events; True when a journal was resumed."""

    def close(self) -> None: ...


class Driver(Protocol):
    """What runs the table once its events began: the runner itself, or the runner beside the dealer console."""

    def drive(self, runner: Runner, resumed: bool) -> int:
        """Run the table to its end; returns the exit status."""


class Unattended:
    """The runner runs the table by itself until its source ends or its rounds are played."""

    def drive(self, runner: Runner, resumed: bool) -> int:
        return runner.run()


class Session(msgspec.Struct):
    """A table ready to play: its runner (table and source), its outputs, its opening, its stages."""

    runner: Runner
    outputs: Outputs
    opening: Opening
    words: Catalogue
    driver: Driver = msgspec.field(default_factory=Unattended)
    _closing: contextlib.ExitStack = msgspec.field(default_factory=contextlib.ExitStack)
    _begun: list[Callable[[], None]] = msgspec.field(default_factory=list)
    _ended: list[Callable[[], None]] = msgspec.field(default_factory=list)

    def __post_init__(self) -> None:
        self._closing.callback(self.opening.close)  # closed last: a feed drains the journal before it closes
        self._closing.callback(self.runner.source.close)

    @property
    def table(self) -> Table:
        return self.runner.table

    @property
    def source(self) -> CardSource:
        return self.runner.source

    def join(self, stages: list[Stage]) -> None:
        """Join ``stages`` in order; if one cannot, close everything (the source too) and raise."""
        for stage in stages:
            self._closing.callback(stage.close)
        try:
            for stage in stages:
                stage.join(self)
        except BaseException:
            self.close()
            raise

    def when_begun(self, start: Callable[[], None]) -> None:
        """Call ``start`` once the table's events have begun (the journal open, a resume replayed)."""
        self._begun.append(start)

    def at_end(self, report: Callable[[], None]) -> None:
        """Call ``report`` once the session is over and closed (a summary printed)."""
        self._ended.append(report)

    def play(self) -> int:
        """Begin the table's events (or resume them), run it to its end, close everything, report; returns the
        exit status."""
        with self._closing:
            resumed = self.opening.open(self)
            for start in self._begun:
                start()
            with self.runner.source:
                status = self.driver.drive(self.runner, resumed)
        for report in self._ended:
            report()
        ending = self.runner.ending_message(self.words.text)
        if ending:
            self.outputs.notice(ending)
        return status

    def close(self) -> None:
        """Close every stage and the source (a session that is not played: ``croupier train`` deals from its
        table and source)."""
        self._closing.close()


class ConsoleRun(msgspec.Struct):
    """The runner in a thread beside the dealer console, wired together (see :func:`console_run`)."""

    runner: Runner
    source: MergedSource
    console: DealerConsole
    status: int | None = None
    error: BaseException | None = None
    thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the runner's thread (the console is run by the caller)."""
        def work() -> None:
            try:
                self.status = self.runner.run()
            except BaseException as error:  # reported after the console closes
                self.error = error
                if self.console.is_running:
                    self.console.call_from_thread(self.console.exit)

        import threading

        self.thread = threading.Thread(target=work, name="croupier-runner", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Stop the table where it is now: no further input is read (the dealer quit)."""
        self.runner.stopped = True
        self.source.keep_open = False

    def finish(self) -> int:
        """Stop, wait for the runner and return its exit status (or raise what it raised)."""
        self.stop()
        if self.thread is not None:
            self.thread.join(timeout=5)
        if self.error is not None:
            raise self.error
        return self.status if self.status is not None else self.runner.exit_status()


def console_run(runner: Runner, source: MergedSource, history: list[Event], resumed: bool = False,
                mode: Mode = "live") -> ConsoleRun:
    """Wire ``runner`` to a new dealer console: it shows every event and its keys go to ``source``.

    While the console asks whether to quit mid-round the source is held (no card is read), and once
    the dealer says yes the runner stops before reading another, so the exit status is the one of the
    round the dealer quit (3 mid-round). The console speaks the table's language (``[table] language``) and
    shows a ``mode`` that is not live (SIMULATION, TRAINING) for its whole life.
    """
    from controller.ui.console import DealerConsole
    from controller.ui.localise import table_catalogue

    console = DealerConsole(on_input=source.put, events=history, resumed=resumed, on_hold=source.hold,
                            words=table_catalogue(runner.table.settings),
                            reveal_total=runner.table.settings.table.reveal_confirm == "total", mode=mode,
                            table=runner.table.view)
    run = ConsoleRun(runner, source, console)
    console.on_quit = run.stop
    previous_sink = runner.sink

    def sink(events: list[Event]) -> None:
        previous_sink(events)
        console.apply_batch(events, runner.table.view)

    runner.sink = sink
    source.keep_open = True
    runner.poll = 0.1
    return run


def run_console_app(run: ConsoleRun) -> None:
    """Run the console on the terminal until the dealer quits."""
    run.console.run()


def run_with_console(runner: Runner, source: MergedSource, history: list[Event], resumed: bool = False,
                     run_app: Callable[[ConsoleRun], None] = run_console_app, mode: Mode = "live") -> int:
    """Run ``runner`` in a thread while the Textual dealer console owns the terminal.

    The console shows every event; its key bindings send dealer inputs to
    ``source``. The run ends when the dealer quits the console (Ctrl+Q); the
    console stays up after the last round so the dealer can read it (``resumed``: the history was
    replayed from a journal, which the console says). ``run_app`` runs the console (on the terminal;
    a test runs it headless). Returns the runner's exit status.
    """
    try:
        import controller.ui.console  # noqa: F401
    except ImportError as error:  # pragma: no cover - depends on the optional extra
        from controller.core.exceptions import CroupierError, install_hint
        from controller.i18n.message import message

        raise CroupierError(message("console.needs_textual", "the dealer console needs Textual ({error}); {install}; "
                                    "or use --console plain", error=str(error),
                                    install=install_hint("console"))) from None
    run = console_run(runner, source, history, resumed, mode)
    run.start()
    run_app(run)
    return run.finish()


def start_badge_feed(settings: AuthSettings, source: MergedSource,
                     complain: Callable[[str], None]) -> Callable[[], None]:
    """Watch the ``[auth]`` badge reader and send its badges to the table as inputs.

    A presented badge becomes a BADGE input stamped with the time it was presented (the core counts refused badges
    over ``[auth] lockout_window_seconds`` by it), a removed one BADGE_REMOVED; an
    unreadable badge or a reader outage is reported (an outage also counts as
    the badge being removed, so nobody stays signed in on a dead reader).
    Returns the function that stops watching.
    """
    import time

    from controller.core.inputs import Input, InputKind
    from drivers.pcsc.badges import BadgeReader

    reader = BadgeReader.from_settings(settings)
    cards = source.primary
    if getattr(cards, "scheme", None) == "pcsc" and getattr(cards, "reader", None) == reader.reader:
        # Every badge would be read as a card (an unreadable one: a misdeal) and every card as a refused badge.
        reader.close()
        from controller.core.exceptions import DriverError
        from controller.i18n.message import message

        raise DriverError(message(
            "auth.reader_is_card_reader", "[auth] reader {url}: reader {reader} is also the card reader ({cards}): "
            "every badge would be read as a card and every card as a badge; give [auth] reader and the driver two "
            "different readers", url=settings.reader or "pcsc://", reader=repr(reader.reader), cards=cards.url))

    def pump() -> None:
        for event in reader.events():
            if event.kind == "presented":
                source.put(Input(InputKind.BADGE, event.uid, at=time.time()))
            elif event.kind == "removed":
                source.put(Input(InputKind.BADGE_REMOVED, event.uid))
            elif event.kind == "offline":
                complain(event.message or f"badge reader {event.reader} offline")
                source.put(Input(InputKind.BADGE_REMOVED, event.uid))
            else:
                complain(event.message or f"badge reader {event.reader}: {event.kind}")

    import threading

    threading.Thread(target=pump, name="croupier-badges", daemon=True).start()
    return reader.close

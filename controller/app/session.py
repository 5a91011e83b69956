"""What simulate and run share around the runner: the sinks, the web scoreboard, the dealer console,
the journal, and running the table to its end."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from controller.app.runner import Runner
from controller.core.auth import AuthSettings
from controller.core.events import Event, TableEvent
from controller.i18n.message import Message, message
from controller.terms import Mode
from drivers.merged import MergedSource

if TYPE_CHECKING:
    from config.schema import ScoreboardSettings, Settings
    from controller.floor.feed import TableFeed
    from controller.ui.console import DealerConsole

Sink = Callable[[list[Event]], None]


def fan_out(sinks: list[Sink], events: list[Event]) -> None:
    """Give ``events`` to every sink."""
    for sink in sinks:
        sink(events)


@dataclass
class Outputs:
    """Where a table's events go, and what must be closed when it stops.

    ``replay`` are the sinks that must also see the events a resumed journal
    replays (they were printed before, so the stream itself does not get them).
    """

    notice: Callable[[str], None]
    sinks: list[Sink] = field(default_factory=list)
    replay: list[Sink] = field(default_factory=list)
    closers: list[Callable[[], None]] = field(default_factory=list)
    earlier: list[Callable[[Mapping[str, int]], None]] = field(default_factory=list)
    """Those that count the whole game: given the totals of the events a resume did not replay to them."""

    def add(self, sink: Sink, replayed: bool = True,
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

    def add_scoreboard(self, address: str, settings: ScoreboardSettings | None = None,
                       languages: list[str] | None = None, messages_dir: str = "",
                       text: Callable[[Message], str] = Message.english, mode: Mode = "live") -> None:
        """Serve the web scoreboard at ``HOST:PORT`` and feed it (its table name and limits from ``settings``;
        its ``languages``, default ``settings.languages``, with ``messages_dir``'s house words; a ``mode`` that
        is not live across its top); the notice of its address in the language of ``text``."""
        from controller.ui.scoreboard import parse_address, start_scoreboard

        host, port = parse_address(address)
        if languages is None:
            languages = (list(settings.languages) if settings else []) or ["en"]
        board = start_scoreboard(host, port, settings.table_name if settings else "",
                                 settings.limits if settings else "", languages, messages_dir, mode)
        self.add(board.publish_many)
        self.closers.append(board.close)
        self.notice(text(message("board.serving", "scoreboard at {url}", url=board.url)))


def board_languages(settings: Settings) -> list[str]:
    """The scoreboard's languages: ``[scoreboard] languages`` when it is set (file, environment), else the
    table's language (``[table] language``, ``--lang``)."""
    section = settings.scoreboard
    return list(section.languages) or [settings.table.language]


def scoreboard_for(outputs: Outputs, address: str, settings: Settings, mode: Mode = "live") -> None:
    """Serve the table's scoreboard at ``address`` in its languages (:func:`board_languages`), with the house's
    words of ``[table] messages_dir``, showing ``mode`` when it is not live."""
    from controller.ui.localise import table_catalogue

    outputs.add_scoreboard(address, settings.scoreboard, board_languages(settings), settings.table.messages_dir,
                           table_catalogue(settings).text, mode)


def play(runner: Runner, outputs: Outputs, header: list[Event], journal_path: str | None, journal_key: Any,
         console_history: list[Event] | None = None, feed: TableFeed | None = None,
         run_app: Callable[[ConsoleRun], None] | None = None, live: bool = False,
         software: Mapping[str, Any] | None = None) -> int:
    """Start the table (or resume it from ``journal_path``), run it to its end, close everything.

    With ``console_history`` the Textual dealer console shows the table (the
    runner's source must then be a :class:`MergedSource`). With ``feed`` (which
    needs the journal) the journal is published to the floor's broker; it is
    started once the journal is open and closed (drained) before it.
    ``run_app`` runs the console (default: on the terminal). A ``live`` table's journal has its WAL
    written up front (:data:`~controller.journal.files.WAL_RESERVE`), so no card's commit grows a file.
    A new journal's start record states the mode of the header's ``table`` event and ``software`` (what
    :func:`controller.integrity.software.journal_software` gives), and the console shows a mode that is not
    live for its whole life. Returns the exit status.
    """
    resumed: list[str] = []
    mode = mode_of(header)
    start: dict[str, Any] = {"mode": mode} if mode else {}
    if software is not None:
        start["software"] = dict(software)
    try:
        if journal_path:
            from controller.journal.files import WAL_RESERVE
            from controller.journal.replay import attach_journal

            def notice(text: str) -> None:
                resumed.append(text)
                outputs.notice(text)

            journal = attach_journal(runner, journal_path, argv_key=journal_key, header_events=header,
                                     replayed=lambda events: fan_out(outputs.replay, events),
                                     notice=notice, earlier=outputs.add_earlier,
                                     reserve=WAL_RESERVE if live else 0, start=start)
            outputs.closers.append(journal.close)
            if feed is not None:
                feed.start()
                outputs.closers.insert(0, feed.close)
                outputs.add(feed.wake, replayed=False)
        else:
            outputs.emit(header)
            outputs.emit(runner.table.start())
        with runner.source:
            if console_history is None:
                return runner.run()
            assert isinstance(runner.source, MergedSource)
            return run_with_console(runner, runner.source, console_history, resumed=bool(resumed),
                                    run_app=run_app or run_console_app, mode=mode or "live")
    finally:
        for close in outputs.closers:
            close()


def mode_of(header: list[Event]) -> Mode | None:
    """The mode the header's ``table`` event states (None: it has none)."""
    return next((event.mode for event in header if isinstance(event, TableEvent)), None)


@dataclass
class ConsoleRun:
    """The runner in a thread beside the dealer console, wired together (see :func:`console_run`)."""

    runner: Runner
    source: MergedSource
    console: DealerConsole
    outcome: dict[str, Any] = field(default_factory=dict)
    thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the runner's thread (the console is run by the caller)."""
        def work() -> None:
            try:
                self.outcome["status"] = self.runner.run()
            except BaseException as error:  # reported after the console closes
                self.outcome["error"] = error
                if self.console.is_running:
                    self.console.call_from_thread(self.console.exit)

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
        if "error" in self.outcome:
            raise self.outcome["error"]
        status: int = self.outcome.get("status", self.runner.exit_status())
        return status


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
                            reveal_total=runner.table.settings.table.reveal_confirm == "total", mode=mode)
    run = ConsoleRun(runner, source, console)
    console.on_quit = run.stop
    previous_sink = runner.sink

    def sink(events: list[Event]) -> None:
        previous_sink(events)
        for event in events:
            console.apply(event)

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
        from controller.core.exceptions import CroupierError

        raise CroupierError(
            f"the dealer console needs Textual ({error}); install it with .ci/setup in a Croupier checkout "
            f"(or pip install 'croupier[console]' where croupier came from a package), or use --console plain"
        ) from None
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

    threading.Thread(target=pump, name="croupier-badges", daemon=True).start()
    return reader.close

"""The declared parts of a session (:class:`~controller.app.session.Stage`, :class:`~controller.app.session.Opening`,
:class:`~controller.app.session.Driver`), each made ready by :func:`controller.app.builder.build_session`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from controller.app.runner import Runner
from controller.app.session import ConsoleRun, Session, run_console_app, run_with_console, start_badge_feed
from controller.core.auth import AuthSettings
from controller.core.events import Event
from controller.i18n.catalogue import Catalogue
from controller.terms import Mode

if TYPE_CHECKING:
    from config.schema import Settings
    from controller.app.clock_watch import ClockWatch
    from controller.app.property_watch import PropertyWatch
    from controller.floor.feed import TableFeed
    from controller.journal.journaled import EventSink
    from controller.journal.store import Journal
    from controller.ui.oddscompare import OddsComparison
    from controller.ui.scoreboard import Scoreboard
    from controller.ui.transcript import Summary
    from drivers.merged import MergedSource


# -- how the events begin -------------------------------------------------------------------------


class FreshStart(msgspec.Struct):
    """No journal: the header, then the table's start, to every output."""

    header: list[Event]

    def open(self, session: Session) -> bool:
        session.outputs.emit(self.header)
        session.outputs.emit(session.table.start())
        return False

    def close(self) -> None:
        """Nothing to close."""


class JournalStage(msgspec.Struct):
    """The journal at ``path``: every input committed with its events before they are shown; an existing journal
    (made with the same ``key`` and settings) is resumed. A ``live`` table's journal has its WAL written up front
    (:data:`~controller.journal.files.WAL_RESERVE`), so that no card's commit grows a file. ``start`` is what a new
    journal's start record states beside its events (the mode, the software); a resume under other software
    notes the change."""

    path: str
    key: object
    header: list[Event]
    live: bool = False
    start: Mapping[str, Any] | None = None
    device: str | None = None
    """The table's id its records carry (:func:`~controller.app.builder.device_id`)."""
    journal: Journal | None = None

    def open(self, session: Session) -> bool:
        from controller.journal.files import WAL_RESERVE
        from controller.journal.replay import attach_journal

        resumed: list[str] = []
        outputs = session.outputs

        def notice(text: str) -> None:
            resumed.append(text)
            outputs.notice(text)

        self.journal = attach_journal(session.runner, self.path, argv_key=self.key, header_events=self.header,
                                      replayed=outputs.replayed, notice=notice, earlier=outputs.add_earlier,
                                      reserve=WAL_RESERVE if self.live else 0, start=self.start, device=self.device)
        return bool(resumed)

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()


# -- stages ---------------------------------------------------------------------------------------


class FeedStage(msgspec.Struct):
    """The journal published to the floor's broker: started once the journal is open, woken by each batch of
    events, closed (drained) before the journal."""

    feed: TableFeed

    def join(self, session: Session) -> None:
        table = session.table

        def start() -> None:
            self.feed.follow(lambda: table.view)
            self.feed.start()
            session.outputs.add(self.feed.wake, replayed=False)

        session.when_begun(start)

    def close(self) -> None:
        self.feed.close()


def board_languages(settings: Settings) -> list[str]:
    """The scoreboard's languages: ``[scoreboard] languages`` when it is set (file, environment), else the
    table's language (``[table] language``, ``--lang``)."""
    section = settings.scoreboard
    return list(section.languages) or [settings.table.language]


class ScoreboardStage(msgspec.Struct):
    """The web scoreboard at ``address`` (``HOST:PORT``, port 0: a free one), in the table's board languages
    (:func:`board_languages`) with the house's words of ``[table] messages_dir``; it sees the events a resume
    replays. Its address is said (in the language of ``words``) once it listens. A ``mode`` that is not live is
    shown across its top for its whole life."""

    address: str
    settings: Settings
    words: Catalogue
    mode: Mode = "live"
    board: Scoreboard | None = None
    host: str = ""
    """Set from ``address`` (a bad address is refused when the stage is made)."""
    port: int = 0

    def __post_init__(self) -> None:
        from controller.ui.scoreboard import parse_address

        self.host, self.port = parse_address(self.address)  # a bad address is refused before anything starts

    def join(self, session: Session) -> None:
        from controller.i18n.message import message
        from controller.ui.scoreboard import start_scoreboard

        section = self.settings.scoreboard
        self.board = start_scoreboard(self.host, self.port, section.table_name, section.limits,
                                      board_languages(self.settings), self.settings.table.messages_dir, self.mode)
        board, table = self.board, session.table

        def publish(events: list[Event]) -> None:
            board.publish_shown(events, table.view)

        session.outputs.add(publish)
        session.outputs.notice(self.words.text(message("board.serving", "scoreboard at {url}", url=self.board.url)))

    def close(self) -> None:
        if self.board is not None:
            self.board.close()


class WatchStage(msgspec.Struct):
    """The property check beside the runner (:class:`~controller.app.property_watch.PropertyWatch`)."""

    watch: PropertyWatch

    def join(self, session: Session) -> None:
        session.runner.watch = self.watch

    def close(self) -> None:
        self.watch.close()


class BadgeStage(msgspec.Struct):
    """The ``[auth]`` badge reader: its badges go to the table as inputs; the runner polls, so that an idle dealer
    is signed out after ``idle_signout_seconds``."""

    settings: AuthSettings
    source: MergedSource
    stop: Callable[[], None] | None = None

    def join(self, session: Session) -> None:
        self.stop = start_badge_feed(self.settings, self.source, session.outputs.notice)
        session.runner.poll = 0.5
        session.runner.idle_signout = self.settings.idle_signout_seconds

    def close(self) -> None:
        if self.stop is not None:
            self.stop()


class ClockStage(msgspec.Struct):
    """The host clock's readings, given to the table once its events have begun (so the journal keeps each):
    at start, every ``[journal] clock_every`` seconds and at each jump (:mod:`controller.app.clock_watch`)."""

    every: float
    source: MergedSource
    watch: ClockWatch | None = None

    def join(self, session: Session) -> None:
        from controller.app.clock_watch import ClockWatch

        self.watch = ClockWatch(self.source.put, self.every)
        session.when_begun(self.watch.start)

    def close(self) -> None:
        if self.watch is not None:
            self.watch.close()


class DisplayStage(msgspec.Struct):
    """What prints the events as they come (the JSON lines, the transcript, the dealer display, the progress
    bar); it does not see the events a resume replays (they were printed before). ``finish``: said at the end
    (the progress bar's last line)."""

    sink: EventSink
    finish: Callable[[], None] = lambda: None

    def join(self, session: Session) -> None:
        session.outputs.add(self.sink, replayed=False)

    def close(self) -> None:
        self.finish()


class SummaryStage(msgspec.Struct):
    """The counts of the whole game (a resume's earlier totals included), printed at the end when ``printed``: the
    table's own totals (:attr:`~controller.core.published.View.totals`), taken once at the end."""

    summary: Summary
    words: Catalogue
    printed: bool

    def join(self, session: Session) -> None:
        if self.printed:
            from controller.ui.transcript import fitted

            table = session.table

            def report() -> None:
                self.summary.take(table.view.totals)
                print(fitted(self.summary.text(self.words)))

            session.at_end(report)

    def close(self) -> None:
        """Nothing to close."""


class OddsStage(msgspec.Struct):
    """The observed frequencies and nets beside the exact odds, printed at the end when ``printed`` and drawn to
    ``plot`` when given."""

    comparison: OddsComparison
    words: Catalogue
    printed: bool
    plot: str | None = None

    def join(self, session: Session) -> None:
        session.outputs.add(self.comparison, earlier=self.comparison.restore)
        session.at_end(self._report)

    def _report(self) -> None:
        if self.printed:
            from controller.ui.transcript import fitted

            print(fitted(self.comparison.text(self.words)))
        if self.plot is not None:
            from controller.ui.oddsplot import write_plot

            write_plot(self.comparison, self.plot, self.words)

    def close(self) -> None:
        """Nothing to close."""


class ConsoleStage(msgspec.Struct):
    """The Textual dealer console: it is given every event so far when it opens (a resume's replayed ones
    included), then shows each as it comes, and its keys go to ``source``. It drives the session: the runner runs
    in a thread beside it until the dealer quits. ``run_app`` runs it (on the terminal; a test runs it headless)."""

    source: MergedSource
    run_app: Callable[[ConsoleRun], None] = run_console_app
    history: list[Event] = msgspec.field(default_factory=list)
    mode: Mode = "live"
    """Shown across the console's top for its whole life when it is not live (SIMULATION)."""

    def join(self, session: Session) -> None:
        session.outputs.add(self.history.extend)
        session.driver = self

    def drive(self, runner: Runner, resumed: bool) -> int:
        return run_with_console(runner, self.source, self.history, resumed=resumed, run_app=self.run_app,
                                mode=self.mode)

    def close(self) -> None:
        """The console closed when the dealer quit."""

"""The one composition root: a ready :class:`~controller.app.session.Session` from typed options.

``croupier run``, ``croupier simulate`` (its full path) and ``croupier train`` each describe the session they
want (:class:`SessionOptions`: the settings, the card source, live or simulated, what is shown, the journal, the
feed, the scoreboard, the property watch, the console ...) and :func:`build_session` makes it: the card source
wrapped as the session needs it (the dealer's keyboard, a dealer's pace), the runner with the simulated dealer's
part, and the declared stages (:mod:`controller.app.stages`) joined in order. The command line keeps the parsing
of its arguments, its one-line errors and its exit statuses.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal, TextIO

import msgspec

from config.schema import Settings
from controller.app.runner import Runner
from controller.app.session import ConsoleRun, Opening, Outputs, Session, Stage, run_console_app
from controller.app.stages import (
    BadgeStage,
    ClockStage,
    ConsoleStage,
    DisplayStage,
    FeedStage,
    FreshStart,
    JournalStage,
    OddsStage,
    ScoreboardStage,
    SummaryStage,
    WatchStage,
)
from controller.core.events import Event, TableEvent
from controller.core.exceptions import CroupierError
from controller.core.table import Table
from controller.i18n.catalogue import Catalogue
from controller.i18n.message import message
from controller.terms import Mode as PlayMode
from controller.ui.localise import Localiser, table_catalogue
from drivers.base import CardSource, Delivery

if TYPE_CHECKING:
    from controller.app.property_watch import PropertyWatch
    from controller.floor.feed import TableFeed
    from drivers.merged import MergedSource
    from drivers.mock import MockShoe

TRANSCRIPT_LIMIT = 200
"""Above this many rounds a simulated table's transcript gives way to a progress bar and the summary."""
MOCK_DEALER_PACE = 0.5
"""Seconds between two cards of a shuffled source dealt by hand at a live table (``run`` without --auto-next)."""
INTERACTIVE_PACE = 1.0
"""Seconds between two cards of a simulated table at the dealer console, unless a pace is given."""

Mode = Literal["live", "simulation"]
"""A live table (``run``: a reader, the dealer's inputs typed) or a simulated one (``simulate``, ``train``)."""


class Display(StrEnum):
    """What the session prints as the events come, and at the end."""

    TRANSCRIPT = "transcript"
    """Readable lines (a live table's dealer display; a long simulation's progress bar), then the summary."""
    JSON = "json"
    """One JSON event per line, nothing else."""
    SUMMARY = "summary"
    """Only the summary at the end."""
    NONE = "none"
    """Nothing: the caller reads the table itself (``train``)."""


class MockDeal(msgspec.Struct, frozen=True):
    """What the mock shoe deals: the seeded shoes of ``seed``, or exactly the inputs of ``cards`` (``--cards``
    tokens) or of a ``script`` file."""

    seed: int
    cards: str | None = None
    script: str | None = None

    @property
    def scripted(self) -> bool:
        return self.cards is not None or self.script is not None

    def url(self, settings: Settings) -> str:
        """The mock's URL: the seed, the decks and the cut card of ``settings``."""
        return f"mock://?seed={self.seed}&decks={settings.table.decks}&cut={settings.shoe.cut_card_from_end}"

    def shown(self, settings: Settings) -> str:
        """How the table's header names the source."""
        if self.cards is not None:
            return "mock:// (--cards)"
        if self.script is not None:
            return f"mock://?script={self.script}"
        return self.url(settings)

    def open(self, settings: Settings) -> MockShoe:
        from controller.core.inputs import parse_tokens
        from drivers.mock import MockShoe, read_script

        url = self.url(settings)
        if self.cards is not None:
            return MockShoe(url, inputs=parse_tokens(self.cards))
        if self.script is not None:
            return MockShoe(url, inputs=read_script(self.script))
        return MockShoe(url)


def open_card_source(url: str, settings: Settings) -> CardSource:
    """Open the driver ``url`` names, with the ``[serial]`` defaults for a serial URL's options it leaves out, and the
    table's decks and cut card for a seeded ``mock://`` shoe's (as ``simulate`` deals it).
    Raises :class:`~controller.core.exceptions.DriverURLError`."""
    from drivers import open_source
    from drivers.mock import mock_url
    from drivers.serial.url import serial_url

    completed = mock_url(serial_url(url, settings.serial), settings.table.decks, settings.shoe.cut_card_from_end)
    return open_source(completed)


class JournalOptions(msgspec.Struct, frozen=True):
    """The journal at ``path``, tied to ``key`` (the command and its card source) besides the settings."""

    path: str
    key: object


class SessionOptions(msgspec.Struct, frozen=True):
    """What a session is made of. ``source`` is given opened, or as the mock's deal."""

    settings: Settings
    source: CardSource | MockDeal
    mode: Mode = "simulation"
    display: Display = Display.NONE
    notice: Callable[[str], None] = lambda text: None
    """Says one line to the person at the table (stderr, prefixed with the command)."""
    driver: str | None = None
    """How the table's header (and an error) names the source; default its URL."""
    seed: int | None = None
    """The shuffle seed the header names (None: live, or the cards were given)."""
    auto_next: bool = True
    """The controller plays the dealer's part: starts each next round (a live table: confirms each shoe too)."""
    rounds: int = 0
    """Stop after this many rounds (0: a simulated table stops when the shoe closes, a live one runs on)."""
    journal: JournalOptions | None = None
    feed: TableFeed | None = None
    """The journal published to the floor (needs ``journal``)."""
    scoreboard: str | None = None
    """The web scoreboard's ``HOST:PORT`` (None: ``[scoreboard] address``, if set)."""
    watch: PropertyWatch | None = None
    console: bool = False
    """The Textual dealer console shows the table and takes the dealer's keys."""
    run_console: Callable[[ConsoleRun], None] = run_console_app
    """Runs the console (on the terminal; a test runs it headless)."""
    keyboard: TextIO | None = None
    """A live table's dealer inputs, one per line (stdin)."""
    pace: float | None = None
    """Seconds between two cards of a source that gives them on demand (None: the mode's own)."""
    plot: str | None = None
    """Also draw the summary's comparison with the exact odds to this file (a simulated table)."""
    software: Mapping[str, Any] | None = None
    """The software a new journal's start record keeps (:mod:`controller.integrity.check`)."""


def play_mode(options: SessionOptions, primary: CardSource) -> PlayMode:
    """What the table's play counts as: a simulated session, or a live one on a source that only simulates a shoe
    (``mock://``, a script), is a ``simulation``; only a live session on a real reader is ``live``."""
    return "live" if options.mode == "live" and not primary.simulated else "simulation"


def build_session(options: SessionOptions) -> Session:
    """The session ``options`` describe, every stage joined: ready to :meth:`~controller.app.session.Session.play`.

    Raises :class:`~controller.core.exceptions.CroupierError` (one line) when it cannot be made; whatever it
    opened or started by then is closed again (the source, a scoreboard ...).
    """
    settings = options.settings
    words = table_catalogue(settings)
    primary = options.source if isinstance(options.source, CardSource) else options.source.open(settings)
    with _closed_on_error(primary, options):
        _check_dealer(options, primary)
        merged = _merged(options, primary, words)
        outputs = Outputs(notice=options.notice)
        runner = _runner(options, Table(settings), merged or primary, primary.delivery, outputs)
        session = Session(runner, outputs, _opening(options, primary), words)
    session.join(_stages(options, merged, words, play_mode(options, primary)))
    if options.console:
        _say_large_type_problem(options, words)
    return session


def _say_large_type_problem(options: SessionOptions, words: Catalogue) -> None:
    """Large type that this machine cannot draw in the table's language is said once, at start."""
    from controller.ui.fontglyphs import large_type_problem

    problem = large_type_problem(words.language)
    if problem is not None:
        options.notice(words.text(problem))


@contextlib.contextmanager
def _closed_on_error(primary: CardSource, options: SessionOptions) -> Iterator[None]:
    try:
        yield
    except BaseException:
        primary.close()
        if options.watch is not None:
            options.watch.close()
        raise


def _named(options: SessionOptions, primary: CardSource) -> str:
    return options.driver if options.driver is not None else primary.url


def _dealt_by_hand(options: SessionOptions, primary: CardSource) -> bool:
    """A live table's shuffled source without the controller as the dealer: a person confirms each shoe and
    starts each round, and the cards come at a dealer's pace."""
    return options.mode == "live" and primary.delivery is Delivery.SHUFFLED and not options.auto_next


def _check_dealer(options: SessionOptions, primary: CardSource) -> None:
    if _dealt_by_hand(options, primary) and options.keyboard is None and not options.console:
        raise CroupierError(message(
            "run.no_dealer", "{url}: a seeded mock shoe without --auto-next waits for the dealer to confirm the "
            "shoe and start each round, but --no-keyboard leaves no dealer; give --auto-next, or use "
            "croupier simulate --interactive", url=_named(options, primary)))


def _merged(options: SessionOptions, primary: CardSource, words: Catalogue) -> MergedSource | None:
    """The source the runner reads when it is not ``primary`` itself: a live table's reader merged with the
    dealer's keyboard (a source with no dealer's hand on it read only while a card is due); a simulated table's
    shoe at a pace or at the console."""
    if options.mode == "live":
        from controller.ui.keyboard import keyboard_parser
        from drivers.merged import MergedSource

        return MergedSource(primary, options.keyboard, keyboard_parser(words, options.keyboard), options.notice,
                            pace=MOCK_DEALER_PACE if _dealt_by_hand(options, primary) else 0.0,
                            hold_when_idle=primary.delivery is not Delivery.DEALT and not options.auto_next)
    pace = options.pace if options.pace is not None else (INTERACTIVE_PACE if options.console else 0.0)
    if options.console or pace:
        from drivers.merged import MergedSource

        return MergedSource(primary, pace=pace, hold_when_idle=options.console)
    return None


def _runner(options: SessionOptions, table: Table, source: CardSource, delivery: Delivery,
            outputs: Outputs) -> Runner:
    """The runner, with the simulated dealer's part: a live table's as asked (``auto_next``); a simulated one's
    whole part but at the console, a script delivered to its end."""
    if options.mode == "live":
        return Runner(table, source, outputs.emit, auto_next=options.auto_next, auto_shoe=options.auto_next,
                      rounds=options.rounds, new_shoes=True)
    scripted = delivery is Delivery.SCRIPTED
    return Runner(table, source, outputs.emit, auto_next=options.auto_next, rounds=options.rounds,
                  new_shoes=not scripted and (options.rounds > 0 or options.console),
                  auto_shoe=not options.console, deliver_all=scripted,
                  auto_reveal=options.auto_next and not options.console,
                  auto_count=options.auto_next and not options.console)


def _opening(options: SessionOptions, primary: CardSource) -> Opening:
    settings = options.settings
    mode = play_mode(options, primary)
    header: list[Event] = [TableEvent(decks=settings.table.decks, variant=settings.table.variant,
                                      driver=_named(options, primary), seed=options.seed, mode=mode)]
    journal = options.journal
    if journal is None:
        return FreshStart(header)
    start: dict[str, Any] = {"mode": mode}
    if options.software is not None:
        start["software"] = dict(options.software)
    return JournalStage(journal.path, journal.key, header, live=options.mode == "live", start=start,
                        device=device_id(options))


def device_id(options: SessionOptions) -> str:
    """The table's id in its journal's records: ``[table] id``, else the SITE/TABLE of its feed (``--feed`` or
    ``[feed]``), else the host's name."""
    settings = options.settings
    if settings.table.id:
        return settings.table.id
    if options.feed is not None:
        return f"{options.feed.target.site}/{options.feed.target.table}"
    section = settings.feed
    if section.url:
        from controller.core.exceptions import CroupierError
        from controller.floor.urls import parse_feed

        try:
            target = parse_feed(section.url, section.site, section.table)
        except CroupierError:
            pass
        else:
            return f"{target.site}/{target.table}"
    import socket

    return socket.gethostname()


def _stages(options: SessionOptions, merged: MergedSource | None, words: Catalogue, mode: PlayMode) -> list[Stage]:
    """The stages in the order they join (and see each batch of events); they close in the reverse order. The
    console and the badge reader put their inputs into the ``merged`` source (every console or live table's); the
    console and the scoreboard show a ``mode`` that is not live."""
    settings = options.settings
    stages: list[Stage] = _shown(options, words)
    if options.console and merged is not None:
        stages.append(ConsoleStage(merged, options.run_console, mode=mode))
    address = settings.scoreboard.address if options.scoreboard is None else options.scoreboard
    if address or options.scoreboard is not None:  # --scoreboard "" is refused by the stage, not taken for unset
        stages.append(ScoreboardStage(address, settings, words, mode))
    if options.watch is not None:
        stages.append(WatchStage(options.watch))
    if options.mode == "live" and settings.auth.enabled and merged is not None:
        stages.append(BadgeStage(settings.auth, merged))
    if options.mode == "live" and merged is not None:
        stages.append(ClockStage(settings.journal.clock_every, merged))
    if options.feed is not None:
        stages.append(FeedStage(options.feed))
    return stages


def _shown(options: SessionOptions, words: Catalogue) -> list[Stage]:
    """The summary (and a simulated table's comparison with the exact odds, when it is printed or drawn: the JSON
    stream alone prints neither), and what prints the events."""
    from controller.ui.transcript import Summary

    if options.display is Display.NONE:
        return []
    settings = options.settings
    printed = options.display is not Display.JSON
    stages: list[Stage] = [SummaryStage(Summary(), words, printed)]
    if options.mode == "simulation" and (printed or options.plot is not None):
        from controller.ui.oddscompare import OddsComparison

        comparison = OddsComparison(settings.table.decks, settings.table.variant, settings.bets)
        stages.append(OddsStage(comparison, words, printed, options.plot))
    display = _display(options, words)
    if display is not None:
        stages.append(display)
    return stages


def _display(options: SessionOptions, words: Catalogue) -> DisplayStage | None:
    from controller.ui.transcript import JsonLines, Progress, Transcript

    localiser = Localiser(words)
    if options.display is Display.JSON:
        return DisplayStage(localiser.wrap(JsonLines()))
    if options.display is not Display.TRANSCRIPT:
        return None
    if options.mode == "live":
        from controller.ui.dealer_display import DealerDisplay

        large = sys.stdout.isatty()
        if large:
            _say_large_type_problem(options, words)
        return DisplayStage(localiser.wrap(DealerDisplay(sys.stdout, large=large, words=words)))
    if options.rounds > TRANSCRIPT_LIMIT:
        progress = Progress(options.rounds)
        return DisplayStage(progress, progress.finish)
    return DisplayStage(localiser.wrap(Transcript(show_next=not options.auto_next, words=words)))

"""The table scoreboard: a web page that shows the roads, live.

One ``websockets`` asyncio server, on its own thread, answers both:

* plain HTTP: ``GET /`` the page, ``GET /state.json`` the current state, ``GET /words.json`` the page's
  words in the board's languages (:mod:`controller.ui.scoreboard_words`);
* WebSocket on ``/ws``: the full state on connect, then the full state again
  after every change.

The controller feeds it table events with :meth:`Scoreboard.publish` (thread
safe). The state is recomputed from the result history each time, so a void
or a correction is exact, a page that reloads gets the exact state, and a
controller that restarts and republishes its history shows the same board.
Messages are coalesced: a burst of events (a replayed history) gives one
message per connected page with the latest state.

Use::

    board = start_scoreboard("127.0.0.1", 8080)
    print(board.url)
    board.publish({"event": "result", "round": 1, "winner": "banker", ...})
    board.close()
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from typing import Any

from config.schema import parse_host_port
from config.typed import worded_problem
from controller.core.exceptions import CroupierError, ScoreboardError, install_hint
from controller.core.published import View
from controller.i18n.catalogue import Catalogue, CatalogueError
from controller.i18n.message import message
from controller.terms import Mode
from controller.ui.livepage import LivePageServer, Route
from controller.ui.scoreboard_words import words_message
from controller.ui.tableview import TableView, ViewEvent

log = logging.getLogger(__name__)

START_TIMEOUT = 10.0
"""Seconds to wait for the server to bind."""
RESEND_AFTER = 2.0
"""Seconds after which a page that was sent nothing gets the state again: the page takes 5 s of silence for a lost
connection (a pulled cable closes no socket), says the controller is offline and connects again."""



def parse_address(text: str) -> tuple[str, int]:
    """Parse ``HOST:PORT`` (``[::1]:8080`` for IPv6; port 0 = any free port)."""
    try:
        return parse_host_port(text)
    except ValueError as error:
        raise ScoreboardError(message("board.address", "scoreboard address {address}: {problem}",
                                      address=repr(text), problem=worded_problem(error))) from None


def page_html() -> bytes:
    """The scoreboard's web page, ``controller/ui/static/scoreboard.html``.

    The page opens a WebSocket to ``/ws`` on its own host, draws every state
    message it gets (a message older than the one it shows is ignored) and
    reconnects by itself when the socket closes. It draws only what the server
    sends, so a reload shows the same board. Element ids the tests read:
    ``#bead-plate``, ``#big-road``, ``#big-eye-boy``, ``#small-road``,
    ``#cockroach-pig`` (cells with ``data-col``/``data-row``), ``#last-results``,
    ``#stats`` and ``#status``; ``body[data-seq]`` is the state shown. It first reads its words from
    ``/words.json`` (the first language, the second under it: ``.second``); English is only its fallback.
    """
    return resources.files("controller.ui").joinpath("static", "scoreboard.html").read_bytes()


class Scoreboard(LivePageServer):
    """A running scoreboard server; make one with :func:`start_scoreboard`.

    ``url`` is the page's address, ``host``/``port`` the bound ones.
    """

    server_header = "croupier-scoreboard"
    thread_name = "croupier-scoreboard"
    not_found = "Not found: the scoreboard is at /\n"
    resend_after = RESEND_AFTER

    def __init__(self, host: str, port: int, table_name: str = "", limits: str = "",
                 languages: Sequence[Catalogue] = (), mode: Mode = "live") -> None:
        super().__init__(host, port)
        self.table_name = table_name
        self.limits = limits
        self.mode = mode
        """Not ``live``: the page shows SIMULATION or TRAINING across its top for its whole life (D1, D2)."""
        self.words_text = json.dumps(words_message(list(languages) or [Catalogue()]), ensure_ascii=False)
        """``/words.json``: the page's words in each board language."""
        self._view = TableView()
        self._seq = 0
        self._state_seq = -1
        self._state_text = ""
        self._closed = False

    # ------------------------------------------------------------------ public

    @property
    def ws_url(self) -> str:
        """The WebSocket's address."""
        return self.url.replace("http://", "ws://", 1) + "ws"

    def publish(self, event: ViewEvent) -> None:
        """Feed one table event; thread safe, never blocks on the network.

        An event the board cannot understand is logged and skipped: a display
        must never stop the table.
        """
        with self._lock:
            if self._closed:
                return
            try:
                changed = self._view.apply(event)
            except (CroupierError, ValueError, TypeError, AttributeError) as error:
                log.warning("scoreboard: skipped event %r: %s", event, error)
                return
            if not changed:
                return
            self._seq += 1
        self.changed()

    def publish_many(self, events: Iterable[ViewEvent]) -> None:
        """Feed many events (a replayed history)."""
        for event in events:
            self.publish(event)

    def publish_shown(self, events: Iterable[ViewEvent], table: View) -> None:
        """Feed the events of one input and then the table's own view after them as one change (thread safe, never
        blocks on the network): no page is sent a state made of the events alone, which counts no card a misdeal
        holds, before the view corrects it."""
        with self._lock:
            if self._closed:
                return
            for event in events:
                try:
                    self._view.apply(event)
                except (CroupierError, ValueError, TypeError, AttributeError) as error:
                    log.warning("scoreboard: skipped event %r: %s", event, error)
            self._view.show(table)
            self._seq += 1
        self.changed()

    def show(self, table: View) -> None:
        """Take the table's own view (after the events published so far): the shoe's counters, the cut card and
        the layout as the table says them (:meth:`TableView.show`). Thread safe, never blocks on the network."""
        with self._lock:
            if self._closed:
                return
            self._view.show(table)
            self._seq += 1
        self.changed()

    def state(self) -> dict[str, Any]:
        """The current state message, as a dict."""
        result: dict[str, Any] = json.loads(self.snapshot()[0])
        return result

    def close(self) -> None:
        """Stop the server and its thread; connected pages see the socket close."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        super().close()

    def __enter__(self) -> Scoreboard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ the page

    def snapshot(self) -> tuple[str, int]:
        """The state message as JSON, and its seq."""
        with self._lock:
            if self._state_seq != self._seq:
                state = self._view.scoreboard_state()
                state["seq"] = self._seq
                self._number_games(state)
                self._state_text = json.dumps(state, ensure_ascii=False)
                self._state_seq = self._seq
            return self._state_text, self._state_seq

    def _number_games(self, state: dict[str, Any]) -> None:
        """Add the table's name, limits and mode, and each result's game number in its shoe (from 1)."""
        games = len(self._view.history.results)
        latest = state["last_results"]
        for number, result in enumerate(latest, start=games - len(latest) + 1):
            result["game"] = number
        state["shoe"]["games"] = games
        state["table"] = {"name": self.table_name, "limits": self.limits}
        state["mode"] = self.mode

    def routes(self) -> Mapping[str, Route]:
        """``/`` the page, ``/state.json`` the state message, ``/words.json`` the page's words."""
        def page() -> tuple[bytes, str]:
            return page_html(), "text/html; charset=utf-8"

        def state() -> tuple[bytes, str]:
            return self.snapshot()[0].encode("utf-8"), "application/json; charset=utf-8"

        def words() -> tuple[bytes, str]:
            return self.words_text.encode("utf-8"), "application/json; charset=utf-8"

        return {"/": page, "/index.html": page, "/state.json": state, "/words.json": words}


def board_catalogues(languages: Sequence[str], messages_dir: str = "") -> list[Catalogue]:
    """The catalogues of the board's ``languages`` (``[scoreboard] languages``, with ``[table] messages_dir``'s
    overrides); :class:`ScoreboardError` naming a language or house file that cannot be used."""
    try:
        return [Catalogue(language, messages_dir or None) for language in languages]
    except CatalogueError as error:
        raise ScoreboardError(message("board.languages", "[scoreboard] languages: {problem}",
                                      problem=error.message or str(error))) from None


def start_scoreboard(host: str, port: int, table_name: str = "", limits: str = "",
                     languages: Sequence[str] = ("en",), messages_dir: str = "", mode: Mode = "live") -> Scoreboard:
    """Start a scoreboard on ``host:port`` (port 0: a free one) and return it once it listens; it shows
    ``table_name`` and ``limits`` (``[scoreboard]``) in its header, its words in ``languages`` (one or
    two, the first on top; :func:`board_catalogues`), and a ``mode`` that is not live across its top.

    Raises :class:`ScoreboardError` when it cannot listen there, or when the
    ``websockets`` package is missing (:func:`~controller.core.exceptions.install_hint`).
    """
    try:
        import websockets.asyncio.server  # noqa: F401
    except ImportError as error:
        raise ScoreboardError(message("scoreboard.needs_websockets", "the scoreboard needs the websockets package, "
                                      "13 or newer ({error}); {install}", error=str(error),
                                      install=install_hint("scoreboard"))) from None
    board = Scoreboard(host, port, table_name, limits, board_catalogues(languages, messages_dir), mode)
    failure = board.start(START_TIMEOUT)
    if isinstance(failure, TimeoutError):
        raise ScoreboardError(f"the scoreboard did not start on {host}:{port} within {START_TIMEOUT:.0f} s")
    if failure is not None:
        reason = getattr(failure, "strerror", None) or str(failure)
        raise ScoreboardError(f"the scoreboard cannot listen on {host}:{port}: {reason}") from failure
    return board

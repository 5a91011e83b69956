"""The table scoreboard: a web page that shows the roads, live.

One ``websockets`` asyncio server, on its own thread, answers both:

* plain HTTP: ``GET /`` the page, ``GET /state.json`` the current state;
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

import asyncio
import contextlib
import http
import json
import logging
import threading
from collections.abc import Iterable
from importlib import resources
from typing import Any

from config.schema import parse_host_port
from controller.core.exceptions import CroupierError, ScoreboardError
from controller.ui.tableview import TableView, ViewEvent

log = logging.getLogger(__name__)

START_TIMEOUT = 10.0
"""Seconds to wait for the server to bind."""

CLOSE_TIMEOUT = 1.0
"""Seconds a closing connection (or the whole server, on close) may take."""


def parse_address(text: str) -> tuple[str, int]:
    """Parse ``HOST:PORT`` (``[::1]:8080`` for IPv6; port 0 = any free port)."""
    try:
        return parse_host_port(text)
    except ValueError as error:
        raise ScoreboardError(f"scoreboard address {text!r}: {error}") from None


def page_html() -> bytes:
    """The scoreboard's web page, ``controller/ui/static/scoreboard.html``.

    The page opens a WebSocket to ``/ws`` on its own host, draws every state
    message it gets (a message older than the one it shows is ignored) and
    reconnects by itself when the socket closes. It draws only what the server
    sends, so a reload shows the same board. Element ids the tests read:
    ``#bead-plate``, ``#big-road``, ``#big-eye-boy``, ``#small-road``,
    ``#cockroach-pig`` (cells with ``data-col``/``data-row``), ``#last-results``,
    ``#stats`` and ``#status``; ``body[data-seq]`` is the state shown.
    """
    return resources.files("controller.ui").joinpath("static", "scoreboard.html").read_bytes()


class Scoreboard:
    """A running scoreboard server; make one with :func:`start_scoreboard`.

    ``url`` is the page's address, ``host``/``port`` the bound ones.
    """

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self._view = TableView()
        self._lock = threading.Lock()
        self._seq = 0
        self._state_seq = -1
        self._state_text = ""
        self._sent: dict[Any, int] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: Any = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._closed = False
        self._flush_pending = False
        self._tasks: set[asyncio.Future[None]] = set()
        self._thread = threading.Thread(target=self._run, name="croupier-scoreboard", daemon=True)

    # ------------------------------------------------------------------ public

    @property
    def url(self) -> str:
        """The page's address, e.g. ``http://127.0.0.1:8080/``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

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
            if self._flush_pending or self._loop is None:
                return
            self._flush_pending = True
            loop = self._loop
        with contextlib.suppress(RuntimeError):  # the loop is closing
            loop.call_soon_threadsafe(self._flush)

    def publish_many(self, events: Iterable[ViewEvent]) -> None:
        """Feed many events (a replayed history)."""
        for event in events:
            self.publish(event)

    def state(self) -> dict[str, Any]:
        """The current state message, as a dict."""
        result: dict[str, Any] = json.loads(self._snapshot()[0])
        return result

    def close(self) -> None:
        """Stop the server and its thread; connected pages see the socket close."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        self._thread.join(timeout=10)

    def __enter__(self) -> Scoreboard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ state

    def _snapshot(self) -> tuple[str, int]:
        with self._lock:
            if self._state_seq != self._seq:
                state = self._view.scoreboard_state()
                state["seq"] = self._seq
                self._state_text = json.dumps(state, ensure_ascii=False)
                self._state_seq = self._seq
            return self._state_text, self._state_seq

    def _flush(self) -> None:
        """On the loop: send the latest state to every page that has an older one."""
        with self._lock:
            self._flush_pending = False
        text, seq = self._snapshot()
        for connection, sent in list(self._sent.items()):
            if sent >= seq:
                continue
            self._sent[connection] = seq
            task = asyncio.ensure_future(self._send(connection, text))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _send(connection: Any, text: str) -> None:
        with contextlib.suppress(Exception):  # a page that went away
            await connection.send(text)

    # ------------------------------------------------------------------ server

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as error:  # reported to start()
            self._error = error
            self._ready.set()

    async def _main(self) -> None:
        from websockets.asyncio.server import serve

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await serve(self._handler, self.host, self.port, process_request=self._process_request,
                             server_header="croupier-scoreboard", ping_interval=20, ping_timeout=20,
                             close_timeout=CLOSE_TIMEOUT, logger=log)
        self._server = server
        sockets = list(server.sockets)
        if sockets:
            self.port = int(sockets[0].getsockname()[1])
        self._ready.set()
        await self._stop.wait()
        server.close()
        # A client that keeps an HTTP connection open must not hold the controller up:
        # what is still open after the timeout is dropped when the loop ends.
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.wait_closed(), CLOSE_TIMEOUT)

    def _process_request(self, connection: Any, request: Any) -> Any:
        from websockets.datastructures import Headers
        from websockets.http11 import Response

        path = request.path.split("?", 1)[0]
        if path == "/ws":
            return None  # the WebSocket handshake goes on
        if path in ("/", "/index.html"):
            body, content_type = page_html(), "text/html; charset=utf-8"
        elif path == "/state.json":
            body, content_type = self._snapshot()[0].encode("utf-8"), "application/json; charset=utf-8"
        elif path == "/favicon.ico":
            return Response(204, "No Content", Headers([("Content-Length", "0")]), b"")
        else:
            return connection.respond(http.HTTPStatus.NOT_FOUND, "Not found: the scoreboard is at /\n")
        headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))),
                           ("Cache-Control", "no-store")])
        return Response(200, "OK", headers, body)

    async def _handler(self, connection: Any) -> None:
        text, seq = self._snapshot()
        self._sent[connection] = seq
        try:
            await connection.send(text)
            async for _message in connection:
                pass  # pages send nothing the server needs
        except Exception:  # a page that went away mid-send
            log.debug("scoreboard page disconnected", exc_info=True)
        finally:
            self._sent.pop(connection, None)


def start_scoreboard(host: str, port: int) -> Scoreboard:
    """Start a scoreboard on ``host:port`` (port 0: a free one) and return it once it listens.

    Raises :class:`ScoreboardError` when it cannot listen there, or when the
    ``websockets`` package is missing (``pip install 'croupier[scoreboard]'``).
    """
    try:
        import websockets.asyncio.server  # noqa: F401
    except ImportError as error:
        raise ScoreboardError(
            "the scoreboard needs the websockets package (13 or newer): "
            "pip install 'croupier[scoreboard]'"
        ) from error
    board = Scoreboard(host, port)
    board._thread.start()
    if not board._ready.wait(START_TIMEOUT):
        board.close()
        raise ScoreboardError(f"the scoreboard did not start on {host}:{port} within {START_TIMEOUT:.0f} s")
    failure = board._error
    if failure is not None:
        reason = getattr(failure, "strerror", None) or str(failure)
        raise ScoreboardError(f"the scoreboard cannot listen on {host}:{port}: {reason}") from failure
    return board

"""The pit dashboard's web server: the page, ``/tables.json`` and a WebSocket that pushes every change.

One ``websockets`` asyncio server on its own thread (the scoreboard's approach, controller/ui/scoreboard.py)
answers plain HTTP (``GET /`` the page, ``GET /tables.json`` the board's snapshot) and WebSocket on ``/ws``:
the snapshot on connect, then again after every change. Changes are coalesced: a burst of retained
states (the dashboard subscribing afresh) gives each page one message with the latest snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import logging
import threading
from importlib import resources
from typing import Any

from controller.core.exceptions import FloorError
from controller.floor.board import FloorBoard

log = logging.getLogger(__name__)

LISTEN_FORM = "HOST:PORT, e.g. 127.0.0.1:8090 ([::1]:8090 for IPv6; port 0: any free port)"
START_TIMEOUT = 10.0
CLOSE_TIMEOUT = 1.0


def parse_listen(text: str, option: str = "--listen") -> tuple[str, int]:
    """``HOST:PORT`` as (host, port); raises :class:`FloorError` naming ``option`` otherwise."""
    host, separator, port_text = text.strip().rpartition(":")
    host = host.strip("[]")
    if not separator or not host:
        raise FloorError(f"{option} {text!r}: no HOST:PORT; expected {LISTEN_FORM}")
    if not port_text.isdigit() or int(port_text) > 65535:
        raise FloorError(f"{option} {text!r}: the port {port_text!r} is not a number from 0 to 65535; "
                         f"expected {LISTEN_FORM}")
    return host, int(port_text)


def page_html() -> bytes:
    """The dashboard's page, ``controller/floor/static/floor.html``.

    It opens a WebSocket to ``/ws`` on its own host, draws every snapshot it gets (an older one than it
    shows is ignored), ticks the time since each table's last card every second and reconnects by
    itself. What the tests read: ``body[data-seq]`` (the snapshot shown), ``#connection``, ``#counts``,
    one ``.tile`` per table with ``data-site``, ``data-table``, ``data-status``, ``data-head``,
    ``data-updated`` (the ``updated_at`` shown) and the class ``attention`` when halted or offline;
    in a tile ``.status``, ``.misdeal``, ``.shoe``, ``.round``, ``.slot-due``, ``.results`` (one
    ``.result`` per winner), ``.last-result``, ``.dealer``, ``.alerts``, ``.cards-left`` and ``.since-card``.
    """
    return resources.files("controller.floor").joinpath("static", "floor.html").read_bytes()


class Dashboard:
    """A running dashboard server for ``board``; make one with :func:`start_dashboard`."""

    def __init__(self, board: FloorBoard, host: str, port: int) -> None:
        self.board = board
        self.host = host
        self.port = port
        self._pages: dict[Any, int] = {}
        """Each open WebSocket and the seq of the snapshot it was sent last."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._flush_pending = False
        self._lock = threading.Lock()
        self._tasks: set[asyncio.Future[None]] = set()
        self._thread = threading.Thread(target=self._run, name="croupier-floor-web", daemon=True)

    @property
    def url(self) -> str:
        """The page's address, e.g. ``http://127.0.0.1:8090/``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def changed(self) -> None:
        """The board changed: push its snapshot to every page (thread safe, coalesced, never blocks)."""
        with self._lock:
            if self._flush_pending or self._loop is None:
                return
            self._flush_pending = True
            loop = self._loop
        with contextlib.suppress(RuntimeError):  # the loop is closing
            loop.call_soon_threadsafe(self._flush)

    def close(self) -> None:
        """Stop the server and its thread; open pages see their socket close."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        self._thread.join(timeout=10)

    # -- pushing -------------------------------------------------------------------------
    def _flush(self) -> None:
        with self._lock:
            self._flush_pending = False
        text, seq = self.board.snapshot_json(), self.board.seq
        for page, sent in list(self._pages.items()):
            if sent >= seq:
                continue
            self._pages[page] = seq
            task = asyncio.ensure_future(self._send(page, text))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _send(page: Any, text: str) -> None:
        with contextlib.suppress(Exception):  # a page that went away
            await page.send(text)

    # -- serving -------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as error:  # reported by start_dashboard()
            self._error = error
            self._ready.set()

    async def _main(self) -> None:
        from websockets.asyncio.server import serve

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await serve(self._handler, self.host, self.port, process_request=self._process_request,
                             server_header="croupier-floor", ping_interval=20, ping_timeout=20,
                             close_timeout=CLOSE_TIMEOUT, logger=log)
        sockets = list(server.sockets)
        if sockets:
            self.port = int(sockets[0].getsockname()[1])
        self._ready.set()
        await self._stop.wait()
        server.close()
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
        elif path == "/tables.json":
            body, content_type = self.board.snapshot_json().encode("utf-8"), "application/json; charset=utf-8"
        elif path == "/favicon.ico":
            return Response(204, "No Content", Headers([("Content-Length", "0")]), b"")
        else:
            return connection.respond(http.HTTPStatus.NOT_FOUND,
                                      "Not found: the dashboard is at / and its data at /tables.json\n")
        headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))),
                           ("Cache-Control", "no-store")])
        return Response(200, "OK", headers, body)

    async def _handler(self, page: Any) -> None:
        self._pages[page] = self.board.seq
        try:
            await page.send(self.board.snapshot_json())
            async for _message in page:
                pass  # pages send nothing the server needs
        except Exception:  # a page that went away mid-send
            log.debug("floor page disconnected", exc_info=True)
        finally:
            self._pages.pop(page, None)


def start_dashboard(board: FloorBoard, host: str, port: int, option: str = "--listen") -> Dashboard:
    """Serve ``board`` on ``host:port`` (port 0: a free one); raises :class:`FloorError` when it cannot."""
    dashboard = Dashboard(board, host, port)
    dashboard._thread.start()
    if not dashboard._ready.wait(START_TIMEOUT):
        dashboard.close()
        raise FloorError(f"{option} {host}:{port}: the dashboard did not start within {START_TIMEOUT:.0f} s")
    failure = dashboard._error
    if failure is not None:
        reason = getattr(failure, "strerror", None) or str(failure)
        raise FloorError(f"{option} {host}:{port}: cannot listen there ({reason}); give a free HOST:PORT "
                         "of this machine") from None
    return dashboard

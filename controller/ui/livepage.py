"""A live web page: plain HTTP routes and a ``/ws`` WebSocket that pushes the latest snapshot.

One ``websockets`` asyncio server on its own thread answers ``GET`` for the routes a subclass
declares and, on ``/ws``, sends the snapshot on connect and again after every change. Changes are
coalesced: a burst of them gives each page one message with the latest snapshot. The web
scoreboard (:mod:`controller.ui.scoreboard`) and the pit dashboard (:mod:`controller.floor.dashboard`)
are such pages.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import http
import logging
import secrets
import threading
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

log = logging.getLogger(__name__)

CLOSE_TIMEOUT = 1.0
"""Seconds a closing connection (or the whole server, on close) may take."""

Route = Callable[[], tuple[bytes, str]]
"""A ``GET`` route: the body and its content type."""



def websockets_missing() -> str | None:
    """Why the ``websockets`` package (13 or newer, the ``scoreboard`` extra) cannot serve a page here, or None
    when it can: a page server started without it would fail as if its address were unusable."""
    try:
        import websockets.asyncio.server  # noqa: F401
    except ImportError as error:
        return str(error)
    return None

class LivePageServer:
    """The server of one live page; a subclass gives :meth:`snapshot` and :meth:`routes`."""

    server_header: ClassVar[str] = "croupier"
    thread_name: ClassVar[str] = "croupier-web"
    not_found: ClassVar[str] = "Not found\n"
    same_origin_only: ClassVar[bool] = False
    """Refuse a WebSocket opened by a page of another origin (its ``Origin`` is not this server)."""
    realm: ClassVar[str] = "croupier"
    resend_after: ClassVar[float | None] = None
    """Seconds after which a page that was sent nothing is sent the snapshot again (None: never). A pulled cable
    closes no socket: a page that hears nothing for longer than this knows its connection is lost."""

    def __init__(self, host: str, port: int, password: str | None = None) -> None:
        self.host = host
        self.port = port
        self.password = password
        """None: anyone may read the page; else HTTP Basic with this password (any user name), and a cookie
        the page's WebSocket carries."""
        self._cookie = secrets.token_urlsafe(24)
        self._lock = threading.Lock()
        self._sent: dict[Any, int] = {}
        """Each open WebSocket and the seq of the snapshot it was sent last."""
        self._sent_at: dict[Any, float] = {}
        """Each open WebSocket and when (the loop's clock) it was sent a snapshot last."""
        self._sending: dict[Any, int] = {}
        """The WebSockets with sends under way, and how many (a page that does not take its messages is not sent
        the snapshot again)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._flush_pending = False
        self._tasks: set[asyncio.Future[None]] = set()
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)

    # -- what a page serves ------------------------------------------------------------
    def snapshot(self) -> tuple[str, int]:
        """The latest snapshot as JSON text, and its seq (a larger seq is newer)."""
        raise NotImplementedError

    def routes(self) -> Mapping[str, Route]:
        """The ``GET`` paths served besides ``/ws`` and ``/favicon.ico``."""
        raise NotImplementedError

    # -- public -------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """The page's address, e.g. ``http://127.0.0.1:8080/``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def start(self, timeout: float) -> BaseException | None:
        """Start serving; wait until it listens. Returns why it cannot (None: it serves).

        A server that did not start within ``timeout`` seconds is closed and reported as a
        :class:`TimeoutError`.
        """
        self._thread.start()
        if not self._ready.wait(timeout):
            self.close()
            return TimeoutError(f"did not start within {timeout:.0f} s")
        return self._error

    def changed(self) -> None:
        """The snapshot changed: push it to every page (thread safe, coalesced, never blocks)."""
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

    # -- pushing ----------------------------------------------------------------------
    def _flush(self) -> None:
        """On the loop: send the latest snapshot to every page that has an older one."""
        with self._lock:
            self._flush_pending = False
        text, seq = self.snapshot()
        for page, sent in list(self._sent.items()):
            if sent >= seq:
                continue
            self._push(page, text, seq)

    def _push(self, page: Any, text: str, seq: int) -> None:
        """On the loop: send ``page`` the snapshot ``text`` (of ``seq``) without waiting for it."""
        self._sent[page] = seq
        if self._loop is not None:
            self._sent_at[page] = self._loop.time()
        self._sending[page] = self._sending.get(page, 0) + 1
        task = asyncio.ensure_future(self._send(page, text, self._sending))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _resend_quiet(self, after: float) -> None:
        """On the loop: send the snapshot again to every page that was sent nothing for ``after`` seconds."""
        assert self._loop is not None
        while True:
            await asyncio.sleep(after / 4)
            now = self._loop.time()
            quiet = [page for page, at in list(self._sent_at.items())
                     if now - at >= after and page in self._sent and page not in self._sending]
            if quiet:
                text, seq = self.snapshot()
                for page in quiet:
                    self._push(page, text, seq)

    @staticmethod
    async def _send(page: Any, text: str, sending: dict[Any, int]) -> None:
        try:
            with contextlib.suppress(Exception):  # a page that went away
                await page.send(text)
        finally:
            left = sending.pop(page, 1) - 1
            if left:
                sending[page] = left

    # -- serving ----------------------------------------------------------------------
    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as error:  # reported by start()
            self._error = error
            self._ready.set()

    async def _main(self) -> None:
        from websockets.asyncio.server import serve

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await serve(self._handler, self.host, self.port, process_request=self._process_request,
                             server_header=self.server_header, ping_interval=20, ping_timeout=20,
                             close_timeout=CLOSE_TIMEOUT, logger=log)
        sockets = list(server.sockets)
        if sockets:
            self.port = int(sockets[0].getsockname()[1])
        self._ready.set()
        resending = asyncio.ensure_future(self._resend_quiet(self.resend_after)) if self.resend_after else None
        await self._stop.wait()
        if resending is not None:
            resending.cancel()
        server.close()
        # A client that keeps an HTTP connection open must not hold the caller up:
        # what is still open after the timeout is dropped when the loop ends.
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.wait_closed(), CLOSE_TIMEOUT)

    def _process_request(self, connection: Any, request: Any) -> Any:
        from websockets.datastructures import Headers
        from websockets.http11 import Response

        path = request.path.split("?", 1)[0]
        refused = self._refused(connection, request, path)
        if refused is not None:
            return refused
        if path == "/ws":
            return None  # the WebSocket handshake goes on
        if path == "/favicon.ico":
            return Response(204, "No Content", Headers([("Content-Length", "0")]), b"")
        route = self.routes().get(path)
        if route is None:
            return connection.respond(http.HTTPStatus.NOT_FOUND, self.not_found)
        body, content_type = route()
        headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))),
                           ("Cache-Control", "no-store")])
        if self.password is not None:
            headers["Set-Cookie"] = f"croupier_page={self._cookie}; Path=/; HttpOnly; SameSite=Strict"
        return Response(200, "OK", headers, body)

    def _refused(self, connection: Any, request: Any, path: str) -> Any:
        """The answer to a request this page refuses (None: it is served): a WebSocket from another origin, or a
        request without the password (or the page's cookie) when one is set."""
        from websockets.datastructures import Headers
        from websockets.http11 import Response

        headers = request.headers
        if path == "/ws" and self.same_origin_only:
            origin, host = headers.get("Origin"), headers.get("Host", "")
            if origin is not None and origin.lower() not in (f"http://{host}".lower(), f"https://{host}".lower()):
                return connection.respond(http.HTTPStatus.FORBIDDEN, "Forbidden: a page of another origin\n")
        if self.password is None or self._authorized(headers):
            return None
        body = b"A password is needed to see this page\n"
        return Response(401, "Unauthorized", Headers([
            ("WWW-Authenticate", f'Basic realm="{self.realm}", charset="UTF-8"'),
            ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))]), body)

    def _authorized(self, headers: Any) -> bool:
        assert self.password is not None
        cookies = [part.strip() for value in headers.get_all("Cookie") for part in value.split(";")]
        if any(hmac.compare_digest(cookie, f"croupier_page={self._cookie}") for cookie in cookies):
            return True
        scheme, _, encoded = headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "basic":
            return False
        try:
            given = base64.b64decode(encoded, validate=True).decode("utf-8").partition(":")[2]
        except (ValueError, UnicodeDecodeError):
            return False
        return hmac.compare_digest(given.encode(), self.password.encode())

    async def _handler(self, page: Any) -> None:
        text, seq = self.snapshot()
        self._sent[page] = seq
        self._sent_at[page] = asyncio.get_running_loop().time()
        try:
            await page.send(text)
            async for _message in page:
                pass  # pages send nothing the server needs
        except Exception:  # a page that went away mid-send
            log.debug("%s: a page disconnected", self.thread_name, exc_info=True)
        finally:
            self._sent.pop(page, None)
            self._sent_at.pop(page, None)

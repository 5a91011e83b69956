"""The pit dashboard's web server: the page, ``/tables.json`` and a WebSocket that pushes every change.

A :class:`~controller.ui.livepage.LivePageServer` (one ``websockets`` server on its own thread, as the scoreboard)
answers plain HTTP (``GET /`` the page, ``GET /tables.json`` the board's snapshot) and WebSocket on ``/ws``:
the snapshot on connect, then again after every change. Changes are coalesced: a burst of retained
states (the dashboard subscribing afresh) gives each page one message with the latest snapshot.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources

from controller.core.exceptions import FloorError
from controller.floor.board import FloorBoard
from controller.floor.dashboard_words import words_message
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.ui.livepage import LivePageServer, Route

LISTEN_FORM = "HOST:PORT, e.g. 127.0.0.1:8090 ([::1]:8090 for IPv6; port 0: any free port)"
START_TIMEOUT = 10.0


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
    ``.result`` per winner), ``.last-result``, ``.dealer``, ``.alerts``, ``.cards-left``, ``.since-card`` and
    ``.archived`` (``data-head``: the archived head; ``behind`` when no archive has it, it lags or has refused
    records); ``#archives``, one ``.archive`` per archive (``data-archive``, ``lost`` when offline or without
    its database).
    """
    return resources.files("controller.floor").joinpath("static", "floor.html").read_bytes()


class Dashboard(LivePageServer):
    """A running dashboard server for ``board``; make one with :func:`start_dashboard`."""

    server_header = "croupier-floor"
    thread_name = "croupier-floor-web"
    not_found = "Not found: the dashboard is at / and its data at /tables.json\n"
    same_origin_only = True
    realm = "croupier floor"

    def __init__(self, board: FloorBoard, host: str, port: int, words: Catalogue = ENGLISH,
                 password: str | None = None) -> None:
        super().__init__(host, port, password)
        self.board = board
        self.words_text = json.dumps(words_message(words), ensure_ascii=False)

    def snapshot(self) -> tuple[str, int]:
        """The board's snapshot as JSON, and its seq."""
        return self.board.snapshot_json(), self.board.seq

    def routes(self) -> Mapping[str, Route]:
        """``/`` the page, ``/tables.json`` the board's snapshot, ``/words.json`` the page's words."""
        def page() -> tuple[bytes, str]:
            return page_html(), "text/html; charset=utf-8"

        def tables() -> tuple[bytes, str]:
            return self.board.snapshot_json().encode("utf-8"), "application/json; charset=utf-8"

        def words() -> tuple[bytes, str]:
            return self.words_text.encode("utf-8"), "application/json; charset=utf-8"

        return {"/": page, "/index.html": page, "/tables.json": tables, "/words.json": words}


def start_dashboard(board: FloorBoard, host: str, port: int, option: str = "--listen",
                    words: Catalogue = ENGLISH, password: str | None = None) -> Dashboard:
    """Serve ``board`` on ``host:port`` (port 0: a free one), its page's words in ``words``' language, behind
    ``password`` when one is given; raises :class:`FloorError` when it cannot."""
    dashboard = Dashboard(board, host, port, words, password)
    failure = dashboard.start(START_TIMEOUT)
    if isinstance(failure, TimeoutError):
        raise FloorError(f"{option} {host}:{port}: the dashboard did not start within {START_TIMEOUT:.0f} s")
    if failure is not None:
        reason = getattr(failure, "strerror", None) or str(failure)
        raise FloorError(f"{option} {host}:{port}: cannot listen there ({reason}); give a free HOST:PORT "
                         "of this machine") from None
    return dashboard

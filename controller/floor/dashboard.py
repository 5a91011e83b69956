"""The pit dashboard's web server: the page, ``/tables.json`` and a WebSocket that pushes every change.

A :class:`~controller.ui.livepage.LivePageServer` (one ``websockets`` server on its own thread, as the scoreboard)
answers plain HTTP (``GET /`` the page, ``GET /tables.json`` the board's snapshot) and WebSocket on ``/ws``:
the snapshot on connect, then again after every change. Changes are coalesced: a burst of retained
states (the dashboard subscribing afresh) gives each page one message with the latest snapshot.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from config.schema import ADDRESS_PORT, parse_host_port
from config.typed import Worded
from controller.core.exceptions import FloorError, install_hint
from controller.core.misdeals import instruction
from controller.floor.board import FloorBoard
from controller.floor.dashboard_words import words_message
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import Message, message
from controller.ui.livepage import LivePageServer, Route
from controller.ui.localise import Localiser

LISTEN_FORM = "HOST:PORT, e.g. 127.0.0.1:8090 ([::1]:8090 for IPv6; port 0: any free port)"
START_TIMEOUT = 10.0
RESEND_AFTER = 2.0
"""Seconds after which a page that was sent nothing gets the floor again (its ages counted anew): the page takes 5 s
of silence for a lost connection (a dark network closes no socket), says the dashboard is unreachable and connects
again."""


def needs_websockets(error: str) -> Message:
    """The dashboard cannot serve its page: the websockets package cannot be imported (``error``)."""
    return message("floor.needs_websockets", "the pit dashboard needs the websockets package, 13 or newer ({error}); "
                   "{install}", error=error, install=install_hint("floor,scoreboard"))


def parse_listen(text: str, option: str = "--listen") -> tuple[str, int]:
    """``HOST:PORT`` as (host, port), read as the scoreboard's address is (:func:`~config.schema.parse_host_port`);
    raises :class:`FloorError` naming ``option`` otherwise."""
    try:
        return parse_host_port(text.strip())
    except Worded as error:
        if error.problem is ADDRESS_PORT:
            port_text = text.strip().rpartition(":")[2]
            raise FloorError(f"{option} {text!r}: the port {port_text!r} is not a number from 0 to 65535; "
                             f"expected {LISTEN_FORM}") from None
        raise FloorError(f"{option} {text!r}: no HOST:PORT; expected {LISTEN_FORM}") from None


def page_html() -> bytes:
    """The dashboard's page, ``controller/floor/static/floor.html``.

    It opens a WebSocket to ``/ws`` on its own host, draws every snapshot it gets (an older one than it
    shows is ignored), ticks the time since each table's last card every second and reconnects by
    itself. What the tests read: ``body[data-seq]`` (the snapshot shown), ``#connection``, ``#counts``,
    one ``.tile`` per table with ``data-site``, ``data-table``, ``data-status``, ``data-head``,
    ``data-updated`` (the ``updated_at`` shown), ``data-critical``, ``data-warnings`` and the classes
    ``attention`` (halted, offline or a critical alert), ``critical``, ``lost``, ``mid-round`` and ``idle``;
    in a tile ``.status``, ``.critical-badge``, ``.misdeal``, ``.critical-alerts``, ``.ended`` (how an offline
    table ended), ``.summary``, ``.shoe``, ``.round``, ``.slot-due``, ``.results`` (one ``.result`` per winner),
    ``.last-result``, ``.dealer``, ``.alerts`` (the warnings' count), ``.cards-left``, ``.since-card``
    (``stale`` when idle) and ``.archived`` (``data-head``: the archived head; ``behind`` when no archive has
    it, it lags or has refused records); ``#alert-counts`` (``.critical`` and ``.warning``, ``data-count``);
    ``#archive-health`` with ``#archives``, one ``.archive`` per archive (``data-archive``, ``lost`` when
    offline, silent or without its database); ``#tiles[data-level]``, the tile size the page chose to fit the
    screen (``full``, ``compact``, ``mini``, ``micro``).
    """
    return resources.files("controller.floor").joinpath("static", "floor.html").read_bytes()


def table_texts(tile: dict[str, Any], localiser: Localiser) -> dict[str, Any]:
    """What the table said, in the page's language: its last result (``last_result``), its misdeal's detail and
    instruction (``misdeal``, ``instruction``) and each open alert's detail (``alerts``, by id), worded from the
    message ids the table published with them (its English text when it gave none, or the id is unknown)."""
    texts: dict[str, Any] = {"last_result": None, "misdeal": None, "instruction": None, "alerts": {}}
    last = tile.get("last_result")
    if isinstance(last, dict):
        texts["last_result"] = _worded(localiser, last.get("say_id"), last.get("say_params"), last.get("say"))
    misdeal = tile.get("misdeal")
    if isinstance(misdeal, dict):
        texts["misdeal"] = _worded(localiser, misdeal.get("detail_id"), misdeal.get("detail_params"),
                                   misdeal.get("detail"))
        resolutions = misdeal.get("resolutions")
        texts["instruction"] = misdeal.get("instruction")
        if isinstance(resolutions, list) and resolutions:
            with contextlib.suppress(KeyError):  # a resolution this version does not know: the table's own words
                texts["instruction"] = instruction([str(r) for r in resolutions], localiser.catalogue.text)
    for alert in tile.get("alerts") or []:
        if isinstance(alert, dict) and isinstance(alert.get("id"), str):
            texts["alerts"][alert["id"]] = _worded(localiser, alert.get("say_id"), alert.get("say_params"),
                                                   alert.get("detail"))
    return texts


def _worded(localiser: Localiser, msg_id: object, params: object, fallback: object) -> str | None:
    english = fallback if isinstance(fallback, str) else None
    if not isinstance(msg_id, str):
        return english
    try:
        return localiser.text(msg_id, params if isinstance(params, dict) else {}, english or "")
    except (KeyError, IndexError, ValueError):  # parameters that do not fit the message: the table's own words
        return english


class Dashboard(LivePageServer):
    """A running dashboard server for ``board``; make one with :func:`start_dashboard`."""

    server_header = "croupier-floor"
    thread_name = "croupier-floor-web"
    not_found = "Not found: the dashboard is at / and its data at /tables.json\n"
    same_origin_only = True
    realm = "croupier floor"
    resend_after = RESEND_AFTER

    def __init__(self, board: FloorBoard, host: str, port: int, words: Catalogue = ENGLISH,
                 password: str | None = None) -> None:
        super().__init__(host, port, password)
        self.board = board
        self.words_text = json.dumps(words_message(words), ensure_ascii=False)
        self.localiser = Localiser(words)

    def snapshot(self) -> tuple[str, int]:
        """The board's snapshot as JSON, the tables' texts in the page's language, and the seq of that snapshot
        (not the board's seq now: a change meanwhile must still reach the pages)."""
        snapshot = self.worded_snapshot()
        return json.dumps(snapshot, ensure_ascii=False), snapshot["seq"]

    def snapshot_json(self) -> str:
        """:meth:`worded_snapshot` as JSON text."""
        return json.dumps(self.worded_snapshot(), ensure_ascii=False)

    def worded_snapshot(self) -> dict[str, Any]:
        """The board's snapshot, each tile with its ``texts`` in the page's language (:func:`table_texts`)."""
        snapshot = self.board.snapshot()
        for tile in snapshot["tables"]:
            tile["texts"] = table_texts(tile, self.localiser)
        return snapshot

    def routes(self) -> Mapping[str, Route]:
        """``/`` the page, ``/tables.json`` the board's snapshot, ``/words.json`` the page's words."""
        def page() -> tuple[bytes, str]:
            return page_html(), "text/html; charset=utf-8"

        def tables() -> tuple[bytes, str]:
            return self.snapshot_json().encode("utf-8"), "application/json; charset=utf-8"

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
    if isinstance(failure, ImportError):
        raise FloorError(needs_websockets(str(failure))) from None
    if failure is not None:
        reason = getattr(failure, "strerror", None) or str(failure)
        raise FloorError(f"{option} {host}:{port}: cannot listen there ({reason}); give a free HOST:PORT "
                         "of this machine") from None
    return dashboard

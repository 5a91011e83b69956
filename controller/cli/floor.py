"""``croupier floor --broker mqtt://... --listen HOST:PORT``: the pit dashboard, one tile per table.

::

    croupier floor --broker mqtt://127.0.0.1:1883 --listen 127.0.0.1:8090
    croupier floor --broker mqtts://floor:SECRET@broker.floor:8883 --ca-file ca.pem --listen 0.0.0.0:8090

Follows every table's retained ``croupier/SITE/TABLE/state`` and ``status`` and serves a live web page
(``/``) and its data (``/tables.json``); docs/floor.md, "The pit dashboard". Runs until SIGTERM or
Ctrl+C. Exit status: 0 stopped, 2 a bad option, or a broker or address that cannot be used.

``croupier floor`` takes optional subcommands of its own (``croupier floor SUBCOMMAND ...``): each is
registered by :func:`register_floor_subcommands`, the one place to add them.
"""

from __future__ import annotations

import argparse
import dataclasses
import signal
import sys
import threading
from types import FrameType
from typing import Any

from controller.cli.argtypes import add_lang_option
from controller.cli.language import words
from controller.core.exceptions import CroupierError, install_hint
from controller.i18n.message import message

EXIT_STOPPED = 0
DEFAULT_LISTEN = "127.0.0.1:8090"


def register(subparsers: Any) -> None:
    """Add the ``floor`` subcommand (and its own subcommands)."""
    parser = subparsers.add_parser(
        "floor", help="serve the pit dashboard: every table of the floor, live, from the MQTT broker",
        description="Follow every table's retained croupier/SITE/TABLE/state and status on the MQTT broker and "
                    "serve the pit dashboard: a web page with one tile per table (GET /) and the same data as "
                    "JSON (GET /tables.json), updated live. Runs until SIGTERM or Ctrl+C. Exit status: 0 "
                    "stopped, 2 bad option, broker unusable or address unavailable.",
    )
    parser.add_argument("--broker", metavar="URL",
                        help="the MQTT 5 broker: mqtt://[USER:PASSWORD@]HOST:PORT, or mqtts:// for TLS (required "
                             "to serve)")
    parser.add_argument("--listen", default=DEFAULT_LISTEN, metavar="HOST:PORT",
                        help=f"where to serve the page (default {DEFAULT_LISTEN}; port 0: any free port)")
    parser.add_argument("--ca-file", metavar="PATH", help="the CA certificate that signed the broker's (mqtts://)")
    parser.add_argument("--password-file", metavar="PATH",
                        help="a file whose first line is the broker password of the --broker URL's user (written "
                             "mqtt://USER@HOST:PORT), so that no password is on the command line; default: "
                             "CROUPIER_MQTT_PASSWORD, then the file CROUPIER_MQTT_PASSWORD_FILE names")
    parser.add_argument("--web-password-file", metavar="PATH",
                        help="ask for the password on this file's first line before showing the page or its data "
                             "(HTTP Basic, any user name; default: CROUPIER_FLOOR_WEB_PASSWORD, else no password)")
    add_lang_option(parser)
    parser.set_defaults(handler=floor)
    subcommands = parser.add_subparsers(dest="floor_command", required=False, metavar="[SUBCOMMAND]",
                                        help="a floor tool (none: serve the dashboard)")
    register_floor_subcommands(subcommands)


def register_floor_subcommands(subparsers: Any) -> None:
    """The hook for ``croupier floor SUBCOMMAND``: register each subcommand's parser here.

    A subcommand sets its own ``handler`` with ``set_defaults``; without one, ``croupier floor`` serves
    the dashboard.
    """
    from controller.cli import floor_acl, floor_up

    floor_acl.register(subparsers)
    floor_up.register(subparsers)


def floor(args: argparse.Namespace) -> int:
    """Serve the dashboard until a signal stops it; returns the exit status."""
    from controller.floor.dashboard import needs_websockets, parse_listen
    from controller.floor.urls import parse_broker_url
    from controller.ui.livepage import websockets_missing

    if args.broker is None:
        raise CroupierError(message("floor.no_broker", "--broker is missing: the dashboard needs the floor's "
                                    "broker, e.g. --broker mqtt://127.0.0.1:1883"))
    broker = parse_broker_url(args.broker, password_file=args.password_file)
    if args.ca_file is not None and not broker.tls:
        raise CroupierError(message("floor.ca_file_plain", "--ca-file is for an mqtts:// broker; use mqtts:// or "
                                    "leave --ca-file out"))
    broker = dataclasses.replace(broker, ca_file=args.ca_file)
    host, port = parse_listen(args.listen)
    missing = websockets_missing()
    if missing is not None:
        raise CroupierError(needs_websockets(missing))
    try:
        from controller.floor.board import FloorBoard
        from controller.floor.dashboard import start_dashboard
        from controller.floor.watcher import FloorWatcher
    except ImportError as error:
        raise CroupierError(message("floor.needs_floor", "the dashboard needs the floor extra ({error}); {install}",
                                    error=str(error), install=install_hint("floor"))) from None
    board = FloorBoard(broker.address, report=_say, words=words())
    dashboard = start_dashboard(board, host, port, words=words(), password=_web_password(args.web_password_file))
    try:
        board.changed = dashboard.changed
        watcher = FloorWatcher(board, broker, report=_say)
        watcher.start()
        print("floor: " + words().say("floor.serving", "serving {url} (data {url}tables.json) from {broker}",
                                      url=dashboard.url, broker=str(broker)), flush=True)
        try:
            _wait_for_signal()
        finally:
            watcher.close()
    finally:
        dashboard.close()
    return EXIT_STOPPED


WEB_PASSWORD_ENV = "CROUPIER_FLOOR_WEB_PASSWORD"


def _web_password(path: str | None) -> str | None:
    """The page's password: ``--web-password-file``'s first line, else :data:`WEB_PASSWORD_ENV` (None: none)."""
    import os

    if path is None:
        return os.environ.get(WEB_PASSWORD_ENV) or None
    from controller.floor.urls import LongLine, first_line, unread_reason

    try:
        password = first_line(path)
    except (OSError, UnicodeDecodeError, LongLine) as error:
        raise CroupierError(message("floor.web_password_file", "--web-password-file {path}: cannot be read "
                                    "({reason}); give a readable file whose first line is the page's password",
                                    path=repr(path), reason=unread_reason(error))) from None
    if not password:
        raise CroupierError(message("floor.web_password_empty", "--web-password-file {path}: its first line is "
                                    "empty; it is the page's password", path=repr(path)))
    return password


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _wait_for_signal() -> None:
    stopped = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopped.set()

    previous = {number: signal.signal(number, stop) for number in (signal.SIGTERM, signal.SIGINT)}
    try:
        while not stopped.wait(1.0):
            pass
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)

"""``croupier badges watch``: show staff badges as they are presented to the badge reader.

Used to enrol badges: present one, copy its UID into ``[auth.badges.<UID>]``
(docs/pcsc.md). ``--json`` prints one JSON line per event::

    {"event": "badge_presented", "uid": "04A1B2C3D4E5F6", "reader": "...", "known": false}
    {"event": "badge_removed", "uid": "04A1B2C3D4E5F6", "reader": "...", "known": false}

and, when they happen, ``badge_unreadable``, ``reader_offline`` (both with a
``message``) and ``reader_online``. Runs until Ctrl-C (exit 0), or until
``--count N`` events have been printed.

pyscard is imported only when the command runs (via :mod:`drivers.pcsc.badges`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any

from controller.cli.argtypes import add_lang_option, whole_number
from controller.cli.language import error_text, of_args
from controller.core.auth import AuthSettings
from controller.core.events import (
    BadgeReaderOfflineEvent,
    BadgeReaderOnlineEvent,
    BadgeSeenEvent,
    BadgeUnreadableEvent,
    BadgeWatchEvent,
    to_builtins,
)
from controller.core.exceptions import DriverError
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import message

if TYPE_CHECKING:
    from drivers.pcsc.badges import BadgeEvent


def register(subparsers: Any) -> None:
    """Add ``croupier badges watch``."""
    parser = subparsers.add_parser(
        "badges",
        help="staff badges on the PC/SC badge reader",
        description="Staff badges on the PC/SC badge reader ([auth] in the config, docs/pcsc.md).",
    )
    commands = parser.add_subparsers(dest="badges_command", required=True, metavar="SUBCOMMAND")
    watch_parser = commands.add_parser(
        "watch",
        help="show badges as they are presented and removed",
        description="Show badges as they are presented to and removed from the badge reader, with their "
                    "UID and whether the config knows them. Runs until Ctrl-C (exit 0). Exit status 2: "
                    "bad config, pcscd not running, or no such reader (the message lists the readers).",
    )
    watch_parser.add_argument("--reader", metavar="NAME",
                              help="PC/SC reader name (or a unique part of it, or pcsc://?reader=NAME); "
                                   "default: [auth] reader, or the only reader present")
    watch_parser.add_argument("--json", action="store_true", help="one JSON object per event on stdout")
    watch_parser.add_argument("--config", metavar="FILE",
                              help="TOML config file whose [auth] section names the reader and the badges")
    watch_parser.add_argument("--count", type=whole_number(1), metavar="N", help="exit after N events")
    add_lang_option(watch_parser)
    watch_parser.set_defaults(handler=watch)


def load_auth_settings(path: str | None) -> AuthSettings:
    """``[auth]`` from the config file (the embedded default when ``path`` is None)."""
    from config.loader import load_config

    return load_config(path).auth


def event_dict(event: BadgeEvent, settings: AuthSettings) -> BadgeWatchEvent:
    """The JSON form of a badge event."""
    if event.kind in ("presented", "removed"):
        assert event.uid is not None
        return BadgeSeenEvent(event="badge_presented" if event.kind == "presented" else "badge_removed",
                              uid=event.uid, reader=event.reader, known=settings.badge(event.uid) is not None)
    if event.kind == "unreadable":
        return BadgeUnreadableEvent(event="badge_unreadable", reader=event.reader, message=event.message)
    if event.kind == "offline":
        return BadgeReaderOfflineEvent(event="reader_offline", reader=event.reader, message=event.message)
    return BadgeReaderOnlineEvent(event="reader_online", reader=event.reader)


def event_line(event: BadgeEvent, settings: AuthSettings, words: Catalogue = ENGLISH) -> str:
    """The human form of a badge event, in ``words``' language (the reader's own message as given)."""
    say = words.say
    stamp = time.strftime("%H:%M:%S")
    if event.kind in ("presented", "removed"):
        assert event.uid is not None
        badge = settings.badge(event.uid)
        who = (f"{badge.name} ({badge.role})" if badge else
               say("badges.unknown", "unknown badge: enrol it as [auth.badges.{uid}]", uid=event.uid))
        verb = (say("badges.presented", "presented") if event.kind == "presented" else
                say("badges.removed", "removed  "))
        return f"{stamp}  {verb}  {event.uid}  {who}"
    if event.kind == "unreadable":
        return f"{stamp}  " + say("badges.unreadable", "unreadable badge: {reason}", reason=event.message or "")
    if event.kind == "offline":
        return f"{stamp}  " + say("badges.offline", "reader offline: {reason}; waiting for it to come back",
                                  reason=event.message or "")
    return f"{stamp}  " + say("badges.online", "reader {reader} is back online", reader=repr(event.reader))


def watch(args: argparse.Namespace) -> int:
    """Print badge events until Ctrl-C or ``--count``; returns the exit status."""
    settings = load_auth_settings(args.config)

    from drivers.pcsc.badges import BadgeReader, reader_from_url

    reader = args.reader
    if reader is not None and reader.startswith("pcsc:"):
        reader = reader_from_url(reader)

    try:
        opened = BadgeReader.from_settings(settings, reader)
    except DriverError as error:
        if reader is None and settings.reader is None and "?reader=NAME" in str(error):
            raise DriverError(message("badges.name_the_reader", "{error} (give --reader NAME, or reader = "
                                      "\"pcsc://?reader=NAME\" in [auth] of the --config file)",
                                      error=error_text(error))) from None
        raise
    printed = 0
    words = of_args(args)
    try:
        with opened as badges:
            if not args.json:
                print(words.say("badges.watching", "watching badge reader {reader}; present a badge (Ctrl-C to "
                                "stop)", reader=repr(badges.reader)), file=sys.stderr, flush=True)
            for event in badges.events():
                if args.json:
                    print(json.dumps(to_builtins(event_dict(event, settings))), flush=True)
                else:
                    print(event_line(event, settings, words), flush=True)
                printed += 1
                if args.count is not None and printed >= args.count:
                    break
    except KeyboardInterrupt:
        pass
    return 0

"""``--feed`` for ``croupier run`` and ``croupier simulate``: the table's journal published to the floor."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from config.schema import Settings
from controller.cli.language import words
from controller.core.exceptions import FeedError
from controller.i18n.message import message

if TYPE_CHECKING:
    from controller.floor.feed import TableFeed

FEED_HELP = ("publish the journal to an MQTT 5 broker: mqtt://[USER:PASSWORD@]HOST:PORT/SITE/TABLE or mqtts://... "
             "(needs --journal; default: [feed] url; docs/floor.md)")


def add_feed_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--feed URL``."""
    parser.add_argument("--feed", metavar="URL", help=FEED_HELP)


def config_label(settings: Settings) -> str:
    """How an error names ``[feed] url`` (with where the settings came from)."""
    return f"{settings.source}: [feed] url"


def check_feed_url(settings: Settings) -> None:
    """Refuse a bad ``[feed] url`` even where no feed uses it (``--feed`` given, or a run that deals without
    publishing): raises :class:`FeedError`."""
    section = settings.feed
    if section.url:
        from controller.floor.urls import parse_feed

        parse_feed(section.url, section.site, section.table, section.ca_file, label=config_label(settings))


def check_feed_form(url: object) -> None:
    """Refuse a config layer's ``[feed] url`` that has no feed URL's form, even where another layer's URL or
    ``--feed`` is the one used: raises :class:`FeedError` (the floor's URL parser is imported only for a layer
    that sets one)."""
    if url == "":  # no feed
        return
    from controller.floor.urls import check_feed_form as check

    check(str(url), label="[feed] url")


def feed_from_args(args: argparse.Namespace, settings: Settings, journal: str | None,
                   notice: Callable[[str], None]) -> TableFeed | None:
    """The table's feed from ``--feed`` or ``[feed] url`` (None: no feed). Raises :class:`FeedError`
    for a bad URL or a feed without a journal (the journal is the feed's outbox)."""
    given = getattr(args, "feed", None)
    section = settings.feed
    check_feed_url(settings)
    if given is None and not section.url:
        return None
    from controller.floor.urls import parse_feed

    label = "--feed" if given is not None else config_label(settings)
    target = parse_feed(given if given is not None else section.url, section.site, section.table,
                        section.ca_file, label=label)
    if not journal:
        raise FeedError(message("feed.needs_journal", "{label}: a feed needs a journal (the journal is its outbox: "
                                "nothing is lost while the broker is away); give --journal PATH (or [journal] path "
                                "for croupier run)", label=label))
    try:
        from controller.floor.feed import TableFeed
    except ImportError as error:  # pragma: no cover - depends on the optional extra
        raise FeedError(message("feed.needs_paho", "{label}: the feed needs paho-mqtt ({error}); install it with "
                                ".ci/setup in the Croupier checkout (or .venv/bin/pip install -e '.[floor]' there)",
                                label=label,
                                error=str(error))) from None
    return TableFeed(target, journal, will_delay=section.will_delay, drain_timeout=section.drain_timeout,
                     notice=notice, words=words())

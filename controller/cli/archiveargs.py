"""``--archive`` for ``croupier run`` and ``croupier simulate``: the property check against the floor archive."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from config.schema import Settings
from controller.core.exceptions import CroupierError
from controller.core.property_check import PropertyShoe

if TYPE_CHECKING:
    from controller.app.property_watch import PropertyWatch
    from controller.floor.feed import TableFeed

ARCHIVE_HELP = ("compare each shoe, as it is dealt, with the shoes of every other table in the floor archive too: "
                "postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DB (default: [protection] archive; "
                "docs/game-protection.md)")


def add_archive_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--archive URL``."""
    parser.add_argument("--archive", metavar="URL", help=ARCHIVE_HELP)


def property_watch_from_args(args: argparse.Namespace, settings: Settings, feed: TableFeed | None,
                             notice: Callable[[str], None]) -> PropertyWatch | None:
    """The property check from ``--archive`` or ``[protection] archive`` (None: none asked for).

    This table's own shoes are left out by its floor name (the feed's site and table, else ``[feed] site``
    and ``table``). Raises :class:`CroupierError` for a URL that is not a PostgreSQL URL; a database that
    cannot be reached is said by the watch in one line, and the table deals on.
    """
    given = getattr(args, "archive", None)
    url = given if given is not None else settings.protection.archive
    if not url:
        return None
    label = "--archive" if given is not None else f"{settings.source}: [protection] archive"
    try:
        from controller.app.property_watch import PropertyWatch
        from controller.floor.property_orders import PropertyOrders
        from controller.floor.urls import check_database_url
    except ImportError as error:  # pragma: no cover - depends on the optional extra
        raise CroupierError(f"{label}: the property check needs the floor extra ({error}); install it: "
                            "pip install 'croupier[floor]'") from None
    check_database_url(url, label)
    if not settings.protection.sequence_check:
        raise CroupierError(f"{label}: the property check compares what the sequence check counts, but "
                            "[protection] sequence_check is false; set it to true or give no archive")
    site, table = (feed.target.site, feed.target.table) if feed is not None else (settings.feed.site,
                                                                                 settings.feed.table)
    orders = PropertyOrders(url, frozenset({(site, table)}) if site and table else frozenset(), option=label)

    def load() -> list[PropertyShoe]:
        shoes = orders.shoes()
        for problem in orders.problems():
            notice(f"{label}: {problem}")
        return shoes

    return PropertyWatch(load, notice, close=orders.close)

"""A table's clean stop drains its feed (docs/floor.md, "Store and forward"): even a table started again that
ends at once connects first, hears the archive's retained word and keeps the mark it confirms.

Real parts only: a Mosquitto of the test's own, PostgreSQL, ``croupier simulate --journal --feed`` and
``croupier archive`` processes.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.cable import Cable
from tests.controller.floor.floorkit import Archive, archived_keys, holds_every_record, journal_records, publish
from tests.controller.floor.mosquitto import read_retained, wait_for
from tests.controller.floor.services import Mosquitto
from tests.inprocess import croupier_process

croupier = functools.partial(croupier_process, timeout=240)
ROUNDS = "3"
DRAIN = "30"
"""Seconds of ``[feed] drain_timeout``: generous, and the same for both runs of a table (a setting changed
would add a note to its journal)."""
HOLD = 2.0
"""Seconds a slow link holds the broker's first bytes of each connection (the CONNACK, the SUBACK, the retained
messages all come late): far less than the drain timeout."""


def _mark(journal: Path, table: str) -> int:
    with sqlite3.connect(journal) as connection:
        row = connection.execute(f"SELECT seq FROM {table} WHERE id = 1").fetchone()
    return int(row[0]) if row else 0


def _archived_head(address: str, topic: str) -> int:
    payload = read_retained(address, topic)
    return int(json.loads(payload)["seq"]) if payload else 0


def _simulate(journal: Path, feed: str, drain: str) -> subprocess.CompletedProcess[str]:
    """``croupier simulate`` of its ROUNDS rounds; started again, its journal holds them: it ends at once."""
    return croupier("simulate", "--seed", "71", "--rounds", ROUNDS, "--quiet", "--journal", str(journal),
                    "--feed", feed, CROUPIER_FEED_DRAIN_TIMEOUT=drain)


def _published_whole_before_any_archive(journal: Path, feed: str, drain: str) -> int:
    """A table that ran its rounds with no archive: every record acknowledged by the broker, none confirmed."""
    first = _simulate(journal, feed, drain)
    assert first.returncode == 0, first.stderr
    last = len(journal_records(journal))
    assert _mark(journal, "feed_published") == last, first.stderr
    assert _mark(journal, "feed_acked") == 0, "no archive ran: nothing may count as confirmed"
    return last


def _only_the_restart_noted(journal: Path, last: int) -> bool:
    """The journal gained one record since ``last``: the restart's ``resumed`` note (docs/journal.md)."""
    records = journal_records(journal)
    return len(records) == last + 1 and records[-1]["kind"] == "note" and '"resumed"' in str(records[-1]["body"])


@pytest.mark.parametrize("link", ["direct", "slow"])
def test_a_restart_that_ends_at_once_hears_the_archive_before_it_stops(
        tmp_path: Path, own_broker: Mosquitto, database: str, site: str, link: str) -> None:
    slow = Cable(own_broker.port, hold=HOLD) if link == "slow" else None
    journal = tmp_path / "w1.journal"
    feed = f"mqtt://{slow.address if slow else own_broker.address}/{site}/w1"
    archive = None
    try:
        last = _published_whole_before_any_archive(journal, feed, DRAIN)
        archive = Archive(own_broker.address, database, group="")
        records = journal_records(journal)
        publish(own_broker.address, site, "w1", records)  # the archive stores them all ...
        wait_for(lambda: holds_every_record(database, site, "w1", records), "the journal archived", 90)
        # ... and says so, retained, on the table's archived topic
        wait_for(lambda: _archived_head(own_broker.address, f"croupier/{site}/w1/archived") == last,
                 "the archive's retained head", 90)
        again = _simulate(journal, feed, DRAIN)
    finally:
        if archive is not None:
            archive.stop()
        if slow is not None:
            slow.close()
    assert again.returncode == 0, again.stderr
    assert _only_the_restart_noted(journal, last), "the restart ended at once: only its resumed note is new"
    assert "feed: connected" in again.stderr, again.stderr
    assert "none answered" not in again.stderr, again.stderr
    assert "not confirmed" not in again.stderr, again.stderr
    acked = _mark(journal, "feed_acked")
    assert acked == last + 1, f"the archive confirmed the note {last + 1}; the journal's mark: {acked}: {again.stderr}"
    stored = dict(archived_keys(database, site, "w1"))
    assert all(stored.get(int(record["seq"])) == record["hash"] for record in journal_records(journal)[:acked])


def test_a_restart_whose_broker_is_away_stops_within_the_drain_timeout_and_claims_no_silence(
        tmp_path: Path, own_broker: Mosquitto) -> None:
    journal = tmp_path / "w1.journal"
    feed = f"mqtt://{own_broker.address}/site-away/w1"
    last = _published_whole_before_any_archive(journal, feed, "3")
    own_broker.stop()
    started = time.monotonic()
    again = _simulate(journal, feed, "3")
    assert again.returncode == 0, again.stderr
    assert time.monotonic() - started < 60, "an unreachable broker holds the stop only for the drain timeout"
    assert _only_the_restart_noted(journal, last), "the restart ended at once: only its resumed note is new"
    assert "feed: connected" not in again.stderr, again.stderr
    # it never listened on the archived topic: it cannot say that no archive answered there
    assert "none answered" not in again.stderr, again.stderr
    assert "feed: records from 1 on are not confirmed by the archive yet" in again.stderr, again.stderr
    assert _mark(journal, "feed_acked") == 0

"""A broker or database URL, or a broker password, whose bytes are not UTF-8 (a mistyped or wrongly encoded command
line or environment: Python holds the bytes as surrogate escapes) is refused in one line naming it, never with a
traceback from the client library that could not encode it, and never printing the password."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.inprocess import croupier_process

SECRET = "SECRETPW42"


def _assert_refused(run: subprocess.CompletedProcess[str], *fragments: str) -> None:
    stdout, stderr, status = run.stdout, run.stderr, run.returncode
    assert status == 2, stdout + stderr
    assert "Traceback" not in stderr and SECRET not in stdout + stderr, stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    for fragment in fragments:
        assert fragment in stderr, stderr


@pytest.mark.parametrize("url, shown", [("postgresql://127.0.0.1\udcff/db", "'postgresql://127.0.0.1\\xff/db'"),
                                        (f"postgresql://u:{SECRET}\udcff@127.0.0.1/db",
                                         "'postgresql://u:***@127.0.0.1/db'")])
def test_a_database_url_that_is_not_utf8_is_refused_by_simulate_archive(url: str, shown: str) -> None:
    run = croupier_process("simulate", "--seed", "1", "--rounds", "1", "--quiet", "--archive", url,
                           without="CROUPIER_")
    _assert_refused(run, f"croupier simulate: --archive {shown}: it holds bytes that are not UTF-8 text "
                         "(shown as \\xNN); expected postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE")


def test_a_database_url_that_is_not_utf8_is_refused_by_the_dealers_report() -> None:
    run = croupier_process("report", "dealers", "postgresql://127.0.0.1\udcff/db", without="CROUPIER_")
    _assert_refused(run, "croupier report dealers: PATH 'postgresql://127.0.0.1\\xff/db': it holds bytes that are not "
                         "UTF-8 text")


@pytest.mark.parametrize("url, shown", [("mqtt://broker\udcff:1883/pit/t1", "'mqtt://broker\\xff:1883/pit/t1'"),
                                        (f"mqtt://u:{SECRET}\udcff@broker:1883/pit/t1",
                                         "'mqtt://u:***@broker:1883/pit/t1'")])
def test_a_feed_url_that_is_not_utf8_is_refused_before_the_table_deals(url: str, shown: str, tmp_path: Path) -> None:
    journal = tmp_path / "t.journal"
    run = croupier_process("simulate", "--seed", "1", "--rounds", "1", "--quiet", "--journal", str(journal),
                           "--feed", url, without="CROUPIER_")
    _assert_refused(run, f"croupier simulate: --feed {shown}: it holds bytes that are not UTF-8 text (shown as \\xNN)")
    assert not journal.exists()


def test_a_broker_password_from_the_environment_that_is_not_utf8_is_refused_unshown(tmp_path: Path) -> None:
    run = croupier_process("simulate", "--seed", "1", "--rounds", "1", "--quiet", "--journal",
                           str(tmp_path / "t.journal"), "--feed", "mqtt://table@127.0.0.1:1/pit/t1",
                           without="CROUPIER_", CROUPIER_MQTT_PASSWORD=SECRET + "\udcff")
    _assert_refused(run, "croupier simulate: --feed: the password in CROUPIER_MQTT_PASSWORD is not UTF-8 text")


@pytest.mark.parametrize("host", ["broker 1", "broker\t1", "broker\x07"])
def test_a_feed_host_with_a_space_or_control_character_is_refused_before_the_table_deals(host: str,
                                                                                          tmp_path: Path) -> None:
    """Such a host was taken: the table dealt on, its feed never connected, and the run ended saying only that the
    broker could not be reached. No host name or address holds one: it is refused as a malformed --feed is."""
    journal = tmp_path / "t.journal"
    run = croupier_process("simulate", "--seed", "1", "--rounds", "1", "--quiet", "--journal", str(journal),
                           "--feed", f"mqtt://{host}:1883/pit/t1", without="CROUPIER_")
    _assert_refused(run, f"croupier simulate: --feed 'mqtt://{host}:1883/pit/t1'".encode("unicode_escape").decode(),
                    f"its HOST {host!r} is not a host name or address (no spaces or control characters)")
    assert not journal.exists()

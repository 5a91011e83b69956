"""No command prints a password (issue 27 item 6): malformed URLs, error paths and tracebacks; passwords from the
environment or a file instead of argv; TLS failures named; the dashboard refuses other origins and can ask for a
password. Commands run as processes; the secured broker is a real Mosquitto with ``croupier floor acl``'s files."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.controller.floor.authkit import secured_broker
from tests.controller.floor.floorkit import Archive, archived, journal_records, wait_for
from tests.controller.floor.mosquitto import free_port
from tests.controller.floor.tlskit import throwaway_ca
from tests.inprocess import ROOT

SECRET = "SECRETPW42"
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def croupier(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    clean = {key: value for key, value in os.environ.items() if not key.startswith("CROUPIER_MQTT")}
    return subprocess.run([sys.executable, "-m", "controller.cli.main", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout, env={**clean, **(env or {})})


MALFORMED = [
    f"u:{SECRET}@127.0.0.1:1883/s/t",  # no scheme: urlsplit reads "u" as the scheme
    f"mqtt://u:{SECRET}@[::1/s/t",  # an IPv6 address not closed
    f"mqtt://u:{SECRET}@127.0.0.1:abc/s/t",
    f"http://u:{SECRET}@127.0.0.1/s/t",
    f"mqtt://u:{SECRET}@/s/t",
    f"mqtts://u:{SECRET}@127.0.0.1:8883/s/t?x=1",
]
DATABASES = [
    f"u:{SECRET}@127.0.0.1/db",
    f"postgresql://u:{SECRET}@127.0.0.1:abc/db",
    f"postgresql://u:{SECRET}@[::1/db",
    f"mysql://u:{SECRET}@127.0.0.1/db",
    f"postgresql://u:p%zz{SECRET}@127.0.0.1:1/db",  # libpq itself quotes the token it cannot decode
    f"postgresql://u@127.0.0.1:1/db?password={SECRET}&sslmode=bogus",
]


def _entry_points(url: str, tmp_path: Path) -> list[tuple[list[str], dict[str, str]]]:
    journal = str(tmp_path / "t.journal")
    broker = url.rsplit("/s/t", 1)[0] if "/s/t" in url else url
    return [(["simulate", "--seed", "1", "--rounds", "1", "--journal", journal, "--feed", url], {}),
            (["simulate", "--seed", "1", "--rounds", "1", "--journal", journal], {"CROUPIER_FEED_URL": url}),
            (["archive", "--broker", broker, "--db", "postgresql://127.0.0.1:1/x"], {}),
            (["floor", "--broker", broker, "--listen", "127.0.0.1:0"], {})]


def _assert_one_line_without_the_secret(run: subprocess.CompletedProcess[str], what: object) -> None:
    said = run.stdout + run.stderr
    assert run.returncode == 2, (what, said)
    assert SECRET not in said and "Traceback" not in said, (what, said)
    assert len(run.stderr.strip().splitlines()) == 1, (what, run.stderr)


@pytest.mark.parametrize("url", MALFORMED)
def test_no_malformed_broker_url_prints_its_password(url: str, tmp_path: Path) -> None:
    for args, env in _entry_points(url, tmp_path):
        _assert_one_line_without_the_secret(croupier(*args, env=env), (args, env))


@pytest.mark.parametrize("url", DATABASES)
def test_no_malformed_database_url_prints_its_password(url: str, tmp_path: Path) -> None:
    journal = tmp_path / "t.journal"
    made = croupier("simulate", "--seed", "1", "--rounds", "1", "--quiet", "--journal", str(journal))
    assert made.returncode == 0, made.stderr
    for args in (["audit", "verify", str(journal), "--archive", url],
                 ["simulate", "--seed", "1", "--rounds", "1", "--archive", url],
                 ["archive", "--broker", "mqtt://127.0.0.1:1", "--db", url],
                 ["archive", "import", str(journal), "--db", url]):
        run = croupier(*args)
        said = run.stdout + run.stderr
        assert SECRET not in said and "Traceback" not in said, (args, said)
        assert run.returncode in (0, 2), (args, said)  # simulate --archive deals on when the archive is unusable


def test_a_user_without_a_password_names_where_to_give_it() -> None:
    run = croupier("archive", "--broker", "mqtt://archive@127.0.0.1:1883", "--db", "postgresql://127.0.0.1:1/x")
    assert run.returncode == 2
    assert "a user needs a password: in the URL (USER:PASSWORD@), or from CROUPIER_MQTT_PASSWORD, " \
           "CROUPIER_MQTT_PASSWORD_FILE or --password-file" in run.stderr, run.stderr
    missing = croupier("floor", "--broker", "mqtt://pit@127.0.0.1:1883", "--password-file", "/nonexistent/pw")
    assert missing.returncode == 2 and "the password file '/nonexistent/pw' (--password-file) cannot be read" \
        in missing.stderr, missing.stderr


def test_a_traceback_never_shows_a_password_given_on_the_command_line_or_in_the_environment() -> None:
    program = ("import sys, threading\n"
               "from controller.cli.secrecy import guard\n"
               f"guard(['--broker', 'mqtt://u:{SECRET}@h:1'])\n"
               f"thread = threading.Thread(target=lambda: (_ for _ in ()).throw(RuntimeError('x {SECRET}x')))\n"
               "thread.start(); thread.join()\n"
               f"raise RuntimeError('lost mqtt://u:{SECRET}@h:1 and ' + {('ENV' + SECRET)!r})\n")
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT, timeout=60,
                         env={**os.environ, "CROUPIER_MQTT_PASSWORD": "ENV" + SECRET})
    assert run.returncode == 1 and run.stderr.count("Traceback") == 2, run.stderr
    assert SECRET not in run.stderr and "mqtt://u:***@h:1" in run.stderr, run.stderr


@pytest.mark.slow
def test_the_archive_and_a_table_take_their_passwords_from_a_file_or_the_environment(
        tmp_path: Path, site: str, database: str) -> None:
    broker, passwords = secured_broker(tmp_path, f"{site}/A")
    broker.start()
    try:
        secret_file = tmp_path / "archive.password"
        secret_file.write_text(passwords["archive"] + "\n")
        archive = Archive(f"archive@{broker.address}", database, "--password-file", str(secret_file), group="")
        try:
            with open(f"/proc/{archive.process.pid}/cmdline", "rb") as cmdline:
                assert passwords["archive"].encode() not in cmdline.read(), "ps would show the password"
            table_file = tmp_path / "table.password"
            table_file.write_text(passwords[f"{site}-A"])
            journal = tmp_path / "a.journal"
            done = croupier("simulate", "--seed", "3", "--rounds", "4", "--quiet", "--journal", str(journal), "--feed",
                            f"mqtt://{site}-A@{broker.address}/{site}/A",
                            env={"CROUPIER_MQTT_PASSWORD_FILE": str(table_file)})
            assert done.returncode == 0, done.stderr
            records = journal_records(journal)
            wait_for(lambda: archived(database, site, "A") == records, "table A archived")
            pit = subprocess.Popen([sys.executable, "-m", "controller.cli.main", "floor", "--broker",
                                    f"mqtt://floor@{broker.address}", "--listen", "127.0.0.1:0"], cwd=ROOT,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env={**os.environ, "CROUPIER_MQTT_PASSWORD": passwords["floor"]})
            try:
                assert pit.stdout is not None and pit.stdout.readline().startswith("floor: serving "), \
                    pit.stderr.read() if pit.stderr else ""
            finally:
                pit.terminate()
                pit.communicate(timeout=60)
        finally:
            status, rest, stderr = archive.stop()
        assert status == 0, stderr
        assert all(password not in rest + stderr + "\n".join(archive.output) for password in passwords.values())
    finally:
        broker.stop()


@pytest.mark.slow
def test_tls_failures_name_their_reason(tmp_path: Path, site: str, database: str) -> None:
    ca, cert, key = throwaway_ca(tmp_path)  # the certificate names 127.0.0.1 only
    tls_port = free_port()
    broker, passwords = secured_broker(tmp_path, f"{site}/A", extra=f"listener {tls_port} 127.0.0.1\ncafile {ca}\n"
                                       f"certfile {cert}\nkeyfile {key}\n")
    broker.start()
    try:
        (tmp_path / "other").mkdir()
        other, _, _ = throwaway_ca(tmp_path / "other")
        user = f"archive:{passwords['archive']}"
        for host, ca_file, said in (("127.0.0.1", other, "TLS: unknown CA, the broker's certificate is not signed by "
                                     "a CA --ca-file trusts"),
                                    ("localhost", ca, "TLS: host name mismatch, the broker's certificate does not "
                                     "name localhost")):
            run = croupier("archive", "--broker", f"mqtts://{user}@{host}:{tls_port}", "--db", database, "--ca-file",
                           str(ca_file))
            assert run.returncode == 2 and said in run.stderr, run.stderr
            assert passwords["archive"] not in run.stderr and len(run.stderr.strip().splitlines()) == 1
        table = croupier("simulate", "--seed", "1", "--rounds", "1", "--quiet", "--journal", str(tmp_path / "t.j"),
                         "--feed", f"mqtts://{site}-A:{passwords[f'{site}-A']}@localhost:{tls_port}/{site}/A",
                         env={"CROUPIER_FEED_CA_FILE": str(ca), "CROUPIER_FEED_DRAIN_TIMEOUT": "1"})
        assert table.returncode == 0, table.stderr
        assert "cannot connect (TLS: host name mismatch, the broker's certificate does not name localhost" \
            in table.stderr, table.stderr
    finally:
        broker.stop()


@pytest.mark.slow
def test_the_dashboard_refuses_other_origins_and_can_ask_for_a_password(broker: str, tmp_path: Path) -> None:
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect
    from websockets.typing import Origin

    pit = subprocess.Popen([sys.executable, "-m", "controller.cli.main", "floor", "--broker", f"mqtt://{broker}",
                            "--listen", "127.0.0.1:0"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env={**os.environ, "CROUPIER_FLOOR_WEB_PASSWORD": SECRET})
    try:
        assert pit.stdout is not None
        url = pit.stdout.readline().split()[2]
        address = url.removeprefix("http://").rstrip("/")
        with pytest.raises(urllib.error.HTTPError) as refused:
            NO_PROXY.open(url + "tables.json", timeout=10)
        assert refused.value.code == 401
        request = urllib.request.Request(url, headers={"Authorization": "Basic " + base64.b64encode(
            f"pit:{SECRET}".encode()).decode()})
        with NO_PROXY.open(request, timeout=10) as page:
            cookie = page.headers["Set-Cookie"].split(";", 1)[0]
        with connect(f"ws://{address}/ws", origin=Origin(f"http://{address}"), additional_headers={"Cookie": cookie},
                     proxy=None) as socket:
            assert '"tables"' in str(socket.recv(timeout=10))
        for headers, origin in (({"Cookie": cookie}, "http://evil.example"), ({}, f"http://{address}")):
            with pytest.raises(InvalidStatus) as status:
                connect(f"ws://{address}/ws", origin=Origin(origin), additional_headers=headers, proxy=None)
            assert status.value.response.status_code in (401, 403)
    finally:
        pit.terminate()
        _, stderr = pit.communicate(timeout=60)
    assert SECRET not in stderr


def test_a_password_file_saved_with_a_byte_order_mark_gives_its_password(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A BOM an editor wrote went into the password: the broker or the page refused the right one, unexplained."""
    from controller.cli.floor import _web_password
    from controller.floor.urls import PASSWORD_ENV, PASSWORD_FILE_ENV, password_from_environment

    path = tmp_path / "password"
    path.write_bytes(b"\xef\xbb\xbfs3cret\r\n")
    monkeypatch.delenv(PASSWORD_ENV, raising=False)
    monkeypatch.delenv(PASSWORD_FILE_ENV, raising=False)
    assert password_from_environment("--broker", str(path)) == "s3cret"
    assert _web_password(str(path)) == "s3cret"

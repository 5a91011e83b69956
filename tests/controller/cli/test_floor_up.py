"""``croupier floor up``: a whole floor in one command, and nothing left running after Ctrl+C (issue 27 item 9).

The command runs as a process with its real Debian Mosquitto and PostgreSQL; the test reads the dashboard's
``/tables.json`` until every table's records are archived, sends SIGINT (what Ctrl+C sends), and then finds
no process of the floor alive, no port of it open and no file of it left.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.controller.floor.services import unavailable

ROOT = Path(__file__).resolve().parents[3]
DEADLINE = 120.0
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _processes_naming(text: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmdline:
                found.append(f"{entry.name}: {cmdline}")
    return found


def _open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _tables(url: str) -> list[dict[str, Any]]:
    with NO_PROXY.open(url + "tables.json", timeout=10) as reply:
        tables: list[dict[str, Any]] = json.loads(reply.read())["tables"]
    return tables


@pytest.mark.slow
def test_floor_up_starts_a_whole_floor_and_ctrl_c_leaves_nothing_running() -> None:
    up = subprocess.Popen([sys.executable, "-m", "controller.cli.main", "floor", "up", "--tables", "2", "--pace",
                           "0.2"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert up.stdout is not None
    said: list[str] = []
    try:
        for line in up.stdout:
            said.append(line.strip())
            if "Ctrl+C stops everything" in line:
                break
        if up.poll() is not None and up.returncode == 2:
            unavailable(up.stderr.read() if up.stderr else "floor up could not start")
        text = "\n".join(said)
        services = re.search(r"Mosquitto mqtt://127\.0\.0\.1:(\d+) \(PID (\d+)\), PostgreSQL postgresql://\S+:(\d+)/"
                             r"floor \(PID (\d+)\), files in (\S+)", text)
        assert services, text
        broker_port, broker_pid, pg_port, pg_pid = (int(services.group(n)) for n in (1, 2, 3, 4))
        directory = services.group(5)
        parts = [int(pid) for pid in re.findall(r"(?:archive|dashboard|table t\d) (\d+)", text)]
        assert len(parts) == 4, text
        url = re.search(r"the dashboard is at (http://127\.0\.0\.1:(\d+)/)", text)
        assert url, text
        dashboard_port = int(url.group(2))
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            tables = _tables(url.group(1))
            if len(tables) == 2 and all(tile["status"] == "online" and (tile["archive"] or {}).get("head", 0) > 20
                                        for tile in tables):
                break
            time.sleep(0.5)
        else:
            raise AssertionError(f"two tables dealing and archived: {tables}")
        up.send_signal(signal.SIGINT)  # Ctrl+C
        rest, stderr = up.communicate(timeout=DEADLINE)
    finally:
        if up.poll() is None:
            up.kill()
            up.communicate()
    assert up.returncode == 0, stderr
    assert "floor up: stopped; nothing is left running" in rest, rest
    assert [pid for pid in (broker_pid, pg_pid, *parts) if _alive(pid)] == []
    assert _processes_naming(directory) == []
    assert [port for port in (broker_port, pg_port, dashboard_port) if _open(port)] == []
    assert not Path(directory).exists()


def test_floor_up_refuses_a_bad_option_in_one_line() -> None:
    run = subprocess.run([sys.executable, "-m", "controller.cli.main", "floor", "up", "--listen", "nowhere"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.startswith("croupier floor up: --listen 'nowhere': no HOST:PORT"), run.stderr
    assert len(run.stderr.strip().splitlines()) == 1

"""A real headless Chromium for the web pages' tests, driven over the DevTools protocol.

``with browser(url) as page:`` opens ``url`` in a fresh profile; ``page.evaluate(js)``,
``page.wait_for(js)`` and ``page.screenshot(path)`` read it. Without Chromium the test skips, and
fails under CI or with ``TESTS_REQUIRE_CHROMIUM=1``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from tests.slowrule import require_slow


def chromium_binary() -> str | None:
    """The Chromium on the PATH, if any."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


NAVIGATING = ("Inspected target navigated or closed", "Execution context was destroyed",
              "Cannot find default execution context")


class Navigating(AssertionError):
    """The page went away under an evaluation: it is loading anew (a reload or a navigation)."""


class DevTools:
    """A tiny DevTools-protocol client for one page target."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.next_id = 0

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=10))
            if message.get("id") == self.next_id:
                if "error" in message:
                    if any(words in message["error"].get("message", "") for words in NAVIGATING):
                        raise Navigating(f"{method}: {message['error']}")
                    raise AssertionError(f"{method}: {message['error']}")
                result: dict[str, Any] = message["result"]
                return result

    def evaluate(self, expression: str) -> Any:
        reply = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return reply["result"].get("value")

    def screenshot(self, path: Path, width: int = 1920, height: int = 1080) -> Path:
        """Save the page, ``width`` x ``height`` CSS pixels, as a PNG at ``path``."""
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)
        shot = self.call("Page.captureScreenshot", format="png",
                         clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def wait_for(self, expression: str, timeout: float = 10.0) -> Any:
        """The first true value of ``expression``, evaluated every 0.1 s; a page loading meanwhile is not yet."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(Navigating):
                value = self.evaluate(expression)
                if value:
                    return value
            time.sleep(0.1)
        raise AssertionError(f"the page never satisfied {expression!r}")

    def reload(self, timeout: float = 10.0) -> None:
        """Load the page anew and wait until the new document has loaded (never the old one still showing)."""
        self.evaluate("window.croupierOldDocument = true")
        self.call("Page.reload", ignoreCache=True)
        self.wait_for("!window.croupierOldDocument && document.readyState === 'complete'", timeout)


@contextlib.contextmanager
def browser(url: str, window: tuple[int, int] | None = None) -> Iterator[DevTools]:
    """A headless Chromium showing ``url`` (in a window of ``window`` pixels when given); only in a test
    marked slow (docs/testing.md)."""
    require_slow("Chromium")
    size = [f"--window-size={window[0]},{window[1]}"] if window else []
    binary = chromium_binary()
    if binary is None:
        missing = "chromium is not installed (.ci/setup --test installs the Debian package)"
        if os.environ.get("CI") or os.environ.get("TESTS_REQUIRE_CHROMIUM") == "1":
            pytest.fail(f"the browser tests must run here (CI or TESTS_REQUIRE_CHROMIUM=1) "
                        f"but {missing}")
        pytest.skip(missing)
    # Chromium's helper processes may still write to the profile for a moment after it exits: the
    # profile's removal must not fail a test that has passed.
    with tempfile.TemporaryDirectory(prefix="croupier-chromium-", ignore_cleanup_errors=True) as profile:
        process = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage", "--no-proxy-server", "--remote-debugging-address=127.0.0.1",
             "--remote-debugging-port=0", *size, f"--user-data-dir={profile}", url],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "LANG": "C.UTF-8"},
            start_new_session=True,
        )
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + 20
            while not (port_file.exists() and port_file.read_text().strip()):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("chromium did not start its DevTools endpoint")
                time.sleep(0.1)
            port = int(port_file.read_text().split()[0])
            target = None
            while target is None:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as reply:
                    targets = json.loads(reply.read())
                target = next((t for t in targets if t.get("type") == "page"), None)
                if target is None:
                    if time.monotonic() > deadline:
                        raise AssertionError("chromium opened no page")
                    time.sleep(0.1)
            with connect(target["webSocketDebuggerUrl"], max_size=None, open_timeout=10) as ws:
                yield DevTools(ws)
        finally:
            _stop_group(process)




def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """Stop Chromium and every helper process it started (its own session), waiting for the main one."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # helpers that outlived the browser

"""A vendor's shoe driver plugs in through the ``croupier.drivers`` entry-point group.

The plugin is a real distribution: a tiny package built and installed by pip
into a directory of its own, found by :mod:`importlib.metadata` through its
``entry_points.txt``, opened by its scheme and held to the driver contract.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest

import drivers
from controller.core.exceptions import DriverURLError
from drivers import ENTRY_POINT_GROUP, driver_class, open_source
from drivers.base import CardSource
from tests.drivers.contract import CardSourceContract, MakeSource
from tests.inprocess import CROUPIER

REPO = Path(__file__).resolve().parents[2]

VENDOR_SHOE = '''
"""A vendor's shoe: replays the reader tokens given in its URL (vendor://?cards=AS+KD)."""

from collections.abc import Mapping
from typing import ClassVar

from controller.core.inputs import Input, parse_tokens
from drivers.base import CardSource, Option


class VendorShoe(CardSource):
    schemes = ("vendor",)
    options: ClassVar[Mapping[str, Option]] = {"cards": Option("reader tokens, separated by spaces", default="")}

    def __init__(self, url: str) -> None:
        super().__init__(url)
        _, values = self.parse_query(url)
        self._queue: list[Input] = parse_tokens(self.option_value(url, values, "cards"), source=url)

    def _recv(self, timeout: float | None) -> Input | None:
        return self._queue.pop(0) if self._queue else None

    @property
    def exhausted(self) -> bool:
        return not self._queue
'''


def build_wheel(directory: Path) -> Path:
    """The ``vendor-shoe`` wheel, written by hand: the machine has no wheel builder, pip installs it as any other."""
    dist_info = "vendor_shoe-1.0.dist-info"
    files = {
        "vendor_shoe.py": VENDOR_SHOE,
        f"{dist_info}/METADATA": "Metadata-Version: 2.1\nName: vendor-shoe\nVersion: 1.0\n",
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: croupier-tests\nRoot-Is-Purelib: true\n"
                              "Tag: py3-none-any\n",
        f"{dist_info}/entry_points.txt": f"[{ENTRY_POINT_GROUP}]\nvendor = vendor_shoe:VendorShoe\n",
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    files[f"{dist_info}/RECORD"] = "\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n"
    wheel = directory / "vendor_shoe-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the installed ``vendor-shoe`` distribution (module and dist-info)."""
    wheel = build_wheel(tmp_path_factory.mktemp("vendor-shoe-src"))
    target = tmp_path_factory.mktemp("vendor-shoe-installed")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                           "--target", str(target), str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    installed = target / "vendor_shoe-1.0.dist-info"
    assert (installed / "entry_points.txt").is_file() and (installed / "INSTALLER").read_text().strip() == "pip"
    return target


@pytest.fixture
def installed(plugin_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The plugin on this process's path, the registry looking again."""
    monkeypatch.syspath_prepend(str(plugin_path))
    drivers.plugins.cache_clear()
    yield plugin_path
    monkeypatch.undo()
    drivers.plugins.cache_clear()
    sys.modules.pop("vendor_shoe", None)


def vendor_url(tokens: list[str]) -> str:
    return "vendor://?" + urlencode({"cards": " ".join(tokens)})


def child_env(plugin_path: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_path), str(REPO)])}


def test_a_subprocess_opens_the_plugin_by_its_scheme_and_reads_a_card(plugin_path: Path) -> None:
    code = textwrap.dedent("""
        import drivers
        with drivers.open_source("vendor://?cards=AS+KD") as source:
            print(type(source).__module__, type(source).__name__, source.recv(1).token(), source.recv(1).token())
        print(drivers.schemes())
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                          env=child_env(plugin_path), timeout=60)
    assert done.returncode == 0, done.stderr
    first, schemes = done.stdout.splitlines()
    assert first == "vendor_shoe VendorShoe AS KD"
    assert schemes.endswith("'pcsc', 'vendor']")


def test_croupier_run_deals_from_the_plugin(plugin_path: Path) -> None:
    cards = "3S 9C 5H 9D"  # P 3 + 5 = 8, B 9 + 9 = 8: a natural tie, a round from four cards
    done = subprocess.run(
        [*CROUPIER, "run", "--driver", vendor_url(cards.split()), "--json",
         "--auto-next", "--no-burn", "--rounds", "1"],
        capture_output=True, text=True, cwd=REPO, env=child_env(plugin_path), stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    dealt = [event["card"] for event in events if event["event"] == "card"]
    assert dealt == cards.split()
    assert [event["winner"] for event in events if event["event"] == "result"] == ["tie"]


def test_without_the_plugin_the_scheme_is_unknown_and_named() -> None:
    drivers.plugins.cache_clear()
    with pytest.raises(DriverURLError, match=r"unknown driver scheme 'vendor'; expected one of mock://"):
        driver_class("vendor://?cards=AS")


class TestVendorPluginContract(CardSourceContract):
    @pytest.fixture
    def make_source(self, installed: Path) -> Iterator[MakeSource]:
        opened: list[CardSource] = []

        def make(tokens: list[str]) -> CardSource:
            source = open_source(vendor_url(tokens))
            opened.append(source)
            return source

        yield make
        for source in opened:
            source.close()

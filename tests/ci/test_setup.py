"""``.ci/setup`` (the README's set-up) from a clean copy of the checkout: it installs what every documented command
needs and says what it installs and how far it is (issue 28 items 16 and 19)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETUP = (ROOT / ".ci" / "setup").read_text(encoding="utf-8")


def runtime_extras() -> set[str]:
    """The extras ``.ci/setup`` without ``--test`` installs."""
    found = re.search(r'^extras="\[([a-z,]+)\]"$', SETUP, re.MULTILINE)
    assert found, "no runtime extras line in .ci/setup"
    return set(found.group(1).split(","))


def test_the_runtime_set_up_installs_every_extra_a_documented_command_needs() -> None:
    """``croupier floor`` needs websockets (the scoreboard extra) besides paho-mqtt; ``--plot`` needs
    matplotlib; ``--scoreboard`` websockets. Only PC/SC (a badge reader and pcscd) is installed apart."""
    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
                 ["optional-dependencies"])
    assert runtime_extras() == extras - {"test", "pcsc"}


def checkout_copy(destination: Path) -> Path:
    """The files of this checkout that git knows (tracked or not ignored), as they are now: a clean clone of
    the work in progress."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, subprocess.CompletedProcess[str]]]:
    """A clean copy of the checkout and what its first ``.ci/setup`` said."""
    clone = checkout_copy(tmp_path_factory.mktemp("clone") / "croupier")
    env = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    done = subprocess.run([str(clone / ".ci" / "setup")], cwd=clone, capture_output=True, text=True, timeout=900,
                          env=env)
    yield clone, done


@pytest.mark.slow
def test_a_first_set_up_says_what_it_installs_and_how_far_it_is(
        fresh: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    clone, done = fresh
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    steps = [line for line in lines if re.match(r"setup: \[\d/\d\] ", line)]
    assert steps, done.stderr
    assert any("Python packages" in line and "console" in line and "scoreboard" in line for line in steps), steps
    assert any(re.match(r"setup:\s+\d+ collected: ", line) for line in lines), done.stderr
    assert any(re.match(r"setup:\s+installing \d+ packages", line) for line in lines), done.stderr
    assert lines[-1].startswith("setup: ready"), done.stderr
    again = subprocess.run([str(clone / ".ci" / "setup")], cwd=clone, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and again.stderr == "", again.stderr  # set up already: nothing to say


@pytest.mark.slow
def test_the_documented_floor_commands_find_every_module_after_the_set_up(
        fresh: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    clone, done = fresh
    assert done.returncode == 0, done.stderr
    helped = subprocess.run([str(clone / ".ci" / "croupier"), "floor", "--help"], cwd=clone, capture_output=True,
                            text=True, timeout=300)
    assert helped.returncode == 0 and "--broker" in helped.stdout, helped
    serving = subprocess.Popen([str(clone / ".ci" / "croupier"), "floor", "--broker", "mqtt://127.0.0.1:1",
                                "--listen", "127.0.0.1:0"], cwd=clone, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert serving.stdout is not None
        first = serving.stdout.readline()  # "floor: serving ..." while it waits for the broker; "" once it gave up
    finally:
        serving.send_signal(signal.SIGTERM)
        out, err = serving.communicate(timeout=60)
    said = first + out + err
    assert "No module named" not in said and "needs the" not in said, said
    # every module imported: it got as far as the broker, which nothing serves on port 1
    assert "--broker mqtt://127.0.0.1:1: cannot connect to the broker" in said, said
    plotted = subprocess.run([str(clone / ".venv" / "bin" / "python"), "-c", "import matplotlib, websockets, textual,"
                              " paho.mqtt, psycopg"], capture_output=True, text=True, timeout=120)
    assert plotted.returncode == 0, plotted.stderr

"""``[driver] url`` is refused wherever it is written, even where another layer's URL is the one used
(docs/config.md): its scheme must be a driver's and its form and options that driver's. Only the URL is
checked, never what it names (a device, a reader, a script file): a good URL of a device this machine lacks,
overridden, stays allowed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.inprocess import croupier_in_process

KNOWN = "expected one of mock://, serial://, socket://, loop://, pcsc://"
RUN = ["--auto-next", "--rounds", "1", "--no-keyboard", "--json"]
"""``croupier run`` on the layers' URL."""
RUN_DRIVER = ["--driver", "mock://?seed=1", *RUN]
"""``croupier run`` on a good URL of its own: the layers' URLs are not the one used."""
SIMULATE = ["--seed", "1", "--rounds", "1", "--quiet"]
ARGV = {"simulate": SIMULATE, "run": RUN, "run --driver": RUN_DRIVER}


def environ(**variables: str) -> dict[str, str]:
    """This process's environment with no ``CROUPIER_*`` setting but ``variables``."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}, **variables}


def config_file(tmp_path: Path, url: str | None) -> list[str]:
    if url is None:
        return []
    path = tmp_path / "table.toml"
    path.write_text(f'[driver]\nurl = "{url}"\n', encoding="utf-8")
    return ["--config", str(path)]


@pytest.mark.parametrize("command, file_url, env_url, said", [
    ("simulate", None, "bogus", f"environment: [driver] url: 'bogus': unknown driver scheme ''; {KNOWN}"),
    ("simulate", None, "mock://?sed=1", "environment: [driver] url: mock://?sed=1: unknown option 'sed' for mock://"),
    ("simulate", "nosuch://x", None, f"table.toml: [driver] url: 'nosuch://x': unknown driver scheme 'nosuch'; "
                                     f"{KNOWN}"),
    ("simulate", "mock://?decks=9", None, "table.toml: [driver] url: mock://?decks=9: option decks=9 is out of range; "
                                          "expected 1-8"),
    ("simulate", "mock://?decks=1&cut=40", None, "table.toml: [driver] url: mock://?decks=1&cut=40: option cut=40 is "
                                                 "out of range; expected 12-26"),
    ("simulate", "mock://table", None, "table.toml: [driver] url: mock://table: mock:// takes no host or path "
                                       "('table')"),
    ("simulate", None, "serial:///dev/ttyUSB0?baudrate=fast", "environment: [driver] url: "
                                                              "serial:///dev/ttyUSB0?baudrate=fast: option "
                                                              "baudrate='fast' is not a whole number"),
    ("simulate", None, "serial://?baudrate=9600", "environment: [driver] url: serial://?baudrate=9600: no device "
                                                  "path"),
    ("simulate", None, "socket://shoe", "environment: [driver] url: socket://shoe: expected socket://HOST:PORT"),
    ("simulate", None, "serial:///dev/ttyUSB0?framing=morse", "environment: [driver] url: "
                                                              "serial:///dev/ttyUSB0?framing=morse: option "
                                                              "framing='morse' is unknown"),
    ("simulate", None, "serial:///dev/ttyUSB0?heartbeat=3&timeout=3", "environment: [driver] url: "
                                                                      "serial:///dev/ttyUSB0?heartbeat=3&timeout=3: "
                                                                      "give heartbeat or timeout, not both"),
    ("simulate", None, "serial:///dev/ttyUSB0?pattern=CARD", "environment: [driver] url: "
                                                             "serial:///dev/ttyUSB0?pattern=CARD: option "
                                                             "pattern='CARD' has no named group 'card'"),
    ("simulate", None, "pcsc://?reader=R&poll=1", "environment: [driver] url: pcsc://?reader=R&poll=1: option "
                                                  "poll=1 is out of range; expected 10-10000"),
    ("simulate", None, "pcsc://?apdu=FFB0&map=cards.toml", "environment: [driver] url: "
                                                           "pcsc://?apdu=FFB0&map=cards.toml: give apdu=HEX or "
                                                           "map=FILE, not both"),
    ("run --driver", "nosuch://x", None, f"table.toml: [driver] url: 'nosuch://x': unknown driver scheme "
                                         f"'nosuch'; {KNOWN}"),
    ("run --driver", None, "mock://?sed=1", "environment: [driver] url: mock://?sed=1: unknown option 'sed' for mock://"),
    ("run", "mock://?seed=-1", "mock://?seed=2", "table.toml: [driver] url: mock://?seed=-1: option seed=-1 is out "
                                                 "of range"),
], ids=["simulate: env, no scheme", "simulate: env, unknown option", "simulate: file, unknown scheme",
        "simulate: file, decks out of range", "simulate: file, cut below the back half", "simulate: file, mock path",
        "simulate: env, serial baudrate", "simulate: env, serial without device", "simulate: env, socket without port",
        "simulate: env, unknown framing", "simulate: env, heartbeat and timeout", "simulate: env, pattern without card",
        "simulate: env, pcsc poll", "simulate: env, pcsc apdu and map",
        "run --driver: file, unknown scheme", "run --driver: env, unknown option",
        "run: file overridden by the environment"])
def test_a_bad_driver_url_is_refused_in_whichever_layer_it_is(
        tmp_path: Path, command: str, file_url: str | None, env_url: str | None, said: str) -> None:
    variables = {"CROUPIER_DRIVER_URL": env_url} if env_url is not None else {}
    name = command.split()[0]
    done = croupier_in_process(name, *config_file(tmp_path, file_url), *ARGV[command], env=environ(**variables))
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"croupier {name}: {said.replace('table.toml', str(tmp_path / 'table.toml'))}"), \
        lines[0]


@pytest.mark.parametrize("command, file_url, env_url", [
    ("run --driver", "serial:///dev/croupier-no-such-shoe?baudrate=19200&framing=stx", None),
    ("run --driver", "pcsc://?reader=No%20such%20reader&map=/no/such/cards.toml", "socket://127.0.0.1:9?framing=stx"),
    ("simulate", None, "serial:///dev/croupier-no-such-shoe"),
    ("simulate", "loop://?framing=stx", "mock://?script=/no/such/shoe.txt"),
], ids=["run --driver over a serial file URL", "run --driver over pcsc and socket URLs",
        "simulate with a serial environment URL", "simulate with loop and a script not there"])
def test_a_good_driver_url_overridden_stays_allowed_though_what_it_names_is_not_there(
        tmp_path: Path, command: str, file_url: str | None, env_url: str | None) -> None:
    variables = {"CROUPIER_DRIVER_URL": env_url} if env_url is not None else {}
    done = croupier_in_process(command.split()[0], *config_file(tmp_path, file_url), *ARGV[command],
                               env=environ(**variables))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""

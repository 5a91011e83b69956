"""Running ``croupier`` in the tests, the one place that knows how.

:func:`croupier_in_process` runs it inside the test process: the same ``main(argv)`` the console script
calls, with its stdout, stderr and exit status captured, for tests that only read what a command prints (no
start-up cost). Tests of what a separate process does (exit statuses through a real process, signals, a
terminal, start-up itself) spawn one: :func:`croupier_process` runs it to its end, :data:`CROUPIER` is its
command for :class:`subprocess.Popen`. :func:`environment` is this process's environment less the variables
a test must not inherit, plus its own.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
"""The checkout: where a spawned ``croupier`` runs."""
CROUPIER = [sys.executable, "-m", "controller.cli"]
"""``croupier`` as a process of its own (``python -m controller.cli``: the console script's entry point)."""
DEADLINE = 120.0
"""Seconds a spawned command may take (generous: a loaded machine may be slow, never wrong)."""


def environment(env: Mapping[str, str] | None = None, without: str = "", /,
                **variables: str) -> dict[str, str] | None:
    """The environment of a run: ``env`` (default this process's) without the variables whose names begin with
    ``without`` (e.g. ``CROUPIER_``: no setting a developer exported leaks in), plus ``variables``; None (this
    process's, untouched) when none of them is given."""
    if env is None and not without and not variables:
        return None
    base = os.environ if env is None else env
    kept = {name: value for name, value in base.items() if not (without and name.startswith(without))}
    return {**kept, **variables}


@dataclass
class Completed:
    """What a run of ``croupier`` left: like :class:`subprocess.CompletedProcess` with text output."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    if env is None:
        yield
        return
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _stdin(text: str) -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


def croupier_in_process(*argv: str, env: Mapping[str, str] | None = None, stdin: str = "", without: str = "",
                        **variables: str) -> Completed:
    """Run ``croupier ARGV`` here, reading ``stdin``; the environment for the run is :func:`environment`'s."""
    out, err = io.StringIO(), io.StringIO()
    with (_environment(environment(env, without, **variables)), _stdin(stdin), contextlib.redirect_stdout(out),
          contextlib.redirect_stderr(err)):
        try:
            status = main(list(argv))
        except SystemExit as exit_:  # argparse's usage errors and --help
            code = exit_.code
            status = code if isinstance(code, int) else (0 if code is None else 1)
            if isinstance(code, str):
                err.write(code + "\n")
    return Completed(list(argv), status, out.getvalue(), err.getvalue())


def croupier_process(*argv: str, env: Mapping[str, str] | None = None, stdin: str | None = None,
                     timeout: float = DEADLINE, before: Sequence[str] = (), python: Sequence[str] = (),
                     cwd: Path = ROOT, without: str = "", **variables: str) -> subprocess.CompletedProcess[str]:
    """Run ``croupier ARGV`` as a process of its own in ``cwd`` (the checkout), to its end, reading ``stdin``
    (None: an empty input); the environment is :func:`environment`'s; ``before`` comes first on the command line
    (``runuser -u USER --``), ``python`` are the interpreter's own options (``-W always``)."""
    return subprocess.run([*before, sys.executable, *python, *CROUPIER[1:], *argv], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout, env=environment(env, without, **variables), input=stdin or "")


def croupier_process_bytes(*argv: str, timeout: float = DEADLINE) -> subprocess.CompletedProcess[bytes]:
    """:func:`croupier_process` with the output as bytes (what a killed process printed may end mid-line)."""
    return subprocess.run([*CROUPIER, *argv], capture_output=True, cwd=ROOT, timeout=timeout, input=b"")


def start_croupier(*argv: str, env: Mapping[str, str] | None = None, stdin: bool = False, without: str = "",
                   **variables: str) -> subprocess.Popen[str]:
    """Start ``croupier ARGV`` as a process of its own in the checkout, its output piped as text (and its input,
    with ``stdin``); the environment is :func:`environment`'s. The test waits for it, or stops it."""
    return subprocess.Popen([*CROUPIER, *argv], stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env=environment(env, without, **variables))

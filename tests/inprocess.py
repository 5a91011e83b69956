"""Run ``croupier`` inside the test process: the same ``main(argv)`` the console script calls, with its
stdout, stderr and exit status captured, for tests that only read what a command prints (no start-up
cost). Tests of what a separate process does (signals, a terminal, start-up itself) spawn one."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from controller.cli.main import main


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


def croupier_in_process(*argv: str, env: Mapping[str, str] | None = None, stdin: str = "") -> Completed:
    """Run ``croupier ARGV`` here, reading ``stdin``; ``env`` replaces the environment for the run."""
    out, err = io.StringIO(), io.StringIO()
    with (_environment(env), _stdin(stdin), contextlib.redirect_stdout(out),
          contextlib.redirect_stderr(err)):
        try:
            status = main(list(argv))
        except SystemExit as exit_:  # argparse's usage errors and --help
            code = exit_.code
            status = code if isinstance(code, int) else (0 if code is None else 1)
            if isinstance(code, str):
                err.write(code + "\n")
    return Completed(list(argv), status, out.getvalue(), err.getvalue())

"""The ``croupier`` command line.

Each subcommand lives in ``controller.cli.<name>`` and exposes
``register(subparsers)``, which adds its parser and sets ``handler``. Errors
raised on purpose (:class:`CroupierError`) print one clear line and exit 2.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import io
import sys
from collections.abc import Callable, Sequence
from typing import Any

from controller import __version__

COMMANDS: dict[str, tuple[str, str]] = {
    "simulate": ("controller.cli.simulate", "run a simulated table on the mock shoe"),
    "run": ("controller.cli.run", "run the live table from a card reader"),
    "odds": ("controller.cli.odds", "exact probabilities and house edges of every bet"),
    "study": ("controller.cli.study", "side-bet risk study: what a counter wins per shoe, and the alert threshold "
              "to set"),
    "diagram": ("controller.cli.diagram", "write the round state machine as Mermaid (and PNG with Graphviz)"),
    "roads": ("controller.cli.roads",
              "print the scoreboard roads (bead plate, big road, derived roads) of a result history"),
    "shoe-emulator": ("controller.cli.shoe_emulator", "play a card-reading shoe on a pseudo-terminal or TCP port"),
    "badges": ("controller.cli.badges", "staff badges on the PC/SC badge reader"),
    "audit": ("controller.cli.audit", "check a journal for tampering"),
    "history": ("controller.cli.history",
                "print the rounds of a journal: cards, results, settlement, misdeals, approvals, alerts"),
    "archive": ("controller.cli.archive", "store every table's journal from the MQTT broker in PostgreSQL"),
    "floor": ("controller.cli.floor",
              "serve the pit dashboard: every table of the floor, live, from the MQTT broker"),
    "train": ("controller.cli.train", "drill the dealer's calls (draw, stand, winner, pays) on the mock shoe"),
    "report": ("controller.cli.report", "reports from journals: dealers and game pace"),
    "verify": ("controller.cli.verify", "the software's signature against its signed manifest, and the seeded HMAC"),
    "recall": ("controller.cli.recall",
               "game recall: the last rounds of a journal step by step (cards, decisions, result, pays)"),
}
"""Each command: the module that registers its parser, and its one-line help (``croupier --help`` lists these
without importing the modules; a test checks they match what the modules register)."""

COMMAND_MODULES = [module for module, _ in COMMANDS.values()]

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
"""Ctrl+C (SIGINT): 128 + its number."""
STOPPED_BY_SIGNALS = frozenset({"run", "simulate", "study", "train"})
"""Commands that SIGTERM and SIGHUP stop as Ctrl+C does (:mod:`controller.cli.stopping`): a table, a study, a
drill; each ends in order, with what it has done so far."""
EDGE_COMMANDS = frozenset({"simulate", "run", "odds", "study", "train", "audit", "history", "report"})
"""Commands that may compute the live edge: they say once, in one line, when it is computed without the compiled
kernel (:mod:`controller.core.bets.kernel`)."""


def version() -> str:
    """The installed package's version (the source tree's when it is not installed)."""
    from importlib import metadata

    try:
        return metadata.version("croupier")
    except metadata.PackageNotFoundError:
        return __version__


class VersionAction(argparse.Action):
    """``--version``: print ``croupier VERSION`` and exit 0 (the version is looked up only then)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(f"croupier {version()}")
        parser.exit()


def build_parser(only: str | None = None, listing: bool = True) -> argparse.ArgumentParser:
    """The ``croupier`` parser; with ``only``, just that command's module is imported (the others are listed
    by name and help, enough for ``croupier --help`` and for argparse's choice of command; without ``listing``
    not even that: a command line that begins with its command never reads the listing)."""
    parser = argparse.ArgumentParser(
        prog="croupier",
        description="Controller for a live Punto Banco table: card reader in, dealer instructions out.",
    )
    parser.add_argument("--version", action=VersionAction, help="print the version and exit")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        if only is None or name == only:
            importlib.import_module(module_name).register(subparsers)
        elif listing:
            subparsers.add_parser(name, help=help_text, add_help=False)
    return parser


def _command_named(argv: Sequence[str]) -> str:
    """The command ``argv`` names (its first word that is not an option), or "" when it names none."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else ""
    return ""


def main(argv: Sequence[str] | None = None, *, started: Callable[[], None] | None = None) -> int:
    """Run ``croupier``; returns the exit status. ``started`` is called once the command's modules are imported and
    its arguments parsed, before it runs."""
    words = list(sys.argv[1:] if argv is None else argv)
    if argv is None:
        from controller.cli.secrecy import guard

        guard(words)  # no traceback prints a password given on the command line or in the environment
        _legible_stdin()
    named = _command_named(words)
    if not named:
        return _run(words, named, started, argv is None)
    from controller.cli import language

    language.use(language.choose(words))  # the errors' language, before argparse reads --lang
    try:
        return _run(words, named, started, argv is None)
    finally:
        language.reset()


def _legible_stdin() -> None:
    """Read standard input's bytes that are not UTF-8 as U+FFFD: a refusal then shows them legibly (not as
    Python's surrogate escapes, nor as a traceback under a strict locale) and no JSON output carries a lone
    surrogate. Commands that read raw bytes (``roads -``) read ``sys.stdin.buffer``, untouched."""
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")


def _run(words: list[str], named: str, started: Callable[[], None] | None = None, process: bool = False) -> int:
    from controller.core.exceptions import CroupierError

    parser = build_parser(only=named, listing=not named or words[0] != named)  # an option first may be --help
    args = parser.parse_args(words)
    if started is not None:
        started()
    command = " ".join(name for name in (args.command, getattr(args, "floor_command", None),
                                         getattr(args, "archive_command", None),
                                         getattr(args, "report_command", None)) if name)
    if args.command in EDGE_COMMANDS:
        _notice_without_kernel(command)
    try:
        status: int = _handle(args, process)
    except CroupierError as error:
        from controller.cli.language import error_text
        from controller.cli.secrecy import scrub

        print(scrub(f"croupier {command}: {error_text(error)}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt as interrupt:
        return _interrupted(command, interrupt)
    except BrokenPipeError:
        return 0
    return status


def _handle(args: argparse.Namespace, process: bool) -> int:
    """Run the command's handler; a table, a study or a drill stops on SIGTERM and SIGHUP as on Ctrl+C (``process``:
    the command is the process's whole work, so after such a stop a second signal is ignored until it exits)."""
    if args.command not in STOPPED_BY_SIGNALS:
        status: int = args.handler(args)
        return status
    from controller.cli.stopping import stopped_by_signals

    with stopped_by_signals(until_exit=process):
        status = args.handler(args)
    return status


def _interrupted(command: str, interrupt: KeyboardInterrupt) -> int:
    """Say that Ctrl+C, or the signal that stops a table as it does, stopped the command; its exit status."""
    import contextlib

    from controller.cli.language import text
    from controller.cli.stopping import SignalStop
    from controller.i18n.message import message

    if isinstance(interrupt, SignalStop):
        said, status = text(message("cli.stopped_by_signal", "stopped by {signal}", signal=interrupt.name)), \
            interrupt.status
    else:
        said, status = text(message("cli.interrupted", "interrupted")), EXIT_INTERRUPTED
    with contextlib.suppress(OSError):  # a terminal hung up (SIGHUP) takes no more words
        print(f"croupier {command}: {said}", file=sys.stderr, flush=True)
    return status


def _notice_without_kernel(command: str) -> None:
    """Have the live edge say, the first time it is computed without the compiled kernel, why and what it
    costs: one line on stderr."""
    from controller.core.bets import kernel

    if kernel.compiled():
        return

    def notice(reason: str) -> None:
        from controller.cli.language import text
        from controller.i18n.message import message

        print(f"croupier {command}: " + text(message(
            "kernel.unavailable", "note: the compiled live-edge kernel is not available ({reason}); every bet's exact "
            "edge is computed in pure Python instead, the same fractions about 20 times slower; run .ci/setup, or "
            "reinstall croupier where a C compiler and the Python headers are installed", reason=reason)),
            file=sys.stderr, flush=True)

    kernel.fallback_notice = notice


def entry() -> int:
    """The ``croupier`` executable (and ``python -m controller.cli``): :func:`main`, the cyclic garbage collector
    held off while the command's modules are imported (they allocate much and free next to nothing: some 35
    collections, about 4 ms of ``simulate --rounds 1``); once they are, what they made is frozen out of its reach
    and it runs as usual for the command itself. After the command every object left is frozen too, so that the
    interpreter's exit does not walk them all once more (about 10 ms of a short command); the operating system
    frees the process. Every command closes what it opens (files, journals, sockets) before it returns."""
    gc.disable()
    status = main(started=_collect_from_now)
    gc.freeze()
    return status


def _collect_from_now() -> None:
    """The imports are done: what they made stays (frozen out of the collector's reach), and collection resumes."""
    gc.freeze()
    gc.enable()


if __name__ == "__main__":
    sys.exit(entry())

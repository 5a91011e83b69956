"""The ``croupier`` command line.

Each subcommand lives in ``controller.commands.<name>`` and exposes
``register(subparsers)``, which adds its parser and sets ``handler``. Errors
raised on purpose (:class:`CroupierError`) print one clear line and exit 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from importlib import metadata

from controller import __version__
from controller.core.exceptions import CroupierError

COMMAND_MODULES = [
    "controller.cli.simulate",
    "controller.cli.run",
    "controller.cli.odds",
    "controller.cli.diagram",
    "controller.cli.roads",
    "controller.cli.shoe_emulator",
    "controller.cli.badges",
    "controller.cli.audit",
    "controller.cli.history",
    "controller.cli.archive",
    "controller.cli.floor",
    "controller.cli.train",
    "controller.cli.report",
]

EXIT_BAD_INPUT = 2


def version() -> str:
    """The installed package's version (the source tree's when it is not installed)."""
    try:
        return metadata.version("croupier")
    except metadata.PackageNotFoundError:
        return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="croupier",
        description="Controller for a live Punto Banco table: card reader in, dealer instructions out.",
    )
    parser.add_argument("--version", action="version", version=f"croupier {version()}",
                        help="print the version and exit")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``croupier``; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    command = " ".join(name for name in (args.command, getattr(args, "floor_command", None),
                                         getattr(args, "report_command", None)) if name)
    try:
        status: int = args.handler(args)
    except CroupierError as error:
        print(f"croupier {command}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"croupier {command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())

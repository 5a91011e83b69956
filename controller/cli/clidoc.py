"""Generate docs/cli.md from the argument parsers, so the CLI reference cannot drift.

``python -m controller.cli.clidoc`` rewrites it; a test fails when it is stale.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from controller.cli.main import build_parser

CLI_DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _walk(parser: argparse.ArgumentParser, name: str, out: list[str], level: int) -> None:
    out.append(f"{'#' * level} `{name}`\n\n```\n{parser.format_help().rstrip()}\n```\n")
    for child_name, child in _subparsers(parser).items():
        _walk(child, f"{name} {child_name}", out, level + 1)


def render() -> str:
    """The CLI reference as Markdown."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps the help at this width; given back below (roads and the
    try:                           # transcript fit $COLUMNS)
        return _render()
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def _render() -> str:
    parser = build_parser()
    out = [
        "# Command-line reference\n\n"
        "Generated from the argument parsers by `python -m controller.cli.clidoc`; do not edit by hand.\n"
        "Exit status 2 means bad arguments or config, with a one-line message on stderr.\n"
        "`croupier --version` prints the version (`croupier X.Y.Z`) and exits 0.\n"
    ]
    for name, child in _subparsers(parser).items():
        _walk(child, f"croupier {name}", out, 2)
    return "\n".join(out)


def main() -> int:
    text = render()
    if "--check" in sys.argv[1:]:
        current = CLI_DOC.read_text(encoding="utf-8") if CLI_DOC.exists() else ""
        if current != text:
            print(f"{CLI_DOC} is stale; run python -m controller.cli.clidoc")
            return 1
        return 0
    CLI_DOC.write_text(text, encoding="utf-8")
    print(f"wrote {CLI_DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

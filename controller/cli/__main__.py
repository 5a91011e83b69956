"""``python -m controller.cli``: the croupier command."""

from controller.cli.main import entry

raise SystemExit(entry())

"""``python -m controller.cli``: the croupier command."""

from controller.cli.main import main

raise SystemExit(main())

"""One module per ``croupier`` subcommand; each exposes ``register(subparsers)``."""

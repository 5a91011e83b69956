"""``croupier floor acl``: the broker's accounts for a floor, as a Mosquitto password file and ACL.

::

    croupier floor acl --out /etc/mosquitto/floor --table casino/t1 --table casino/t2
    croupier floor acl --out /etc/mosquitto/floor --tables tables.txt --archive archive --floor pit

Writes into ``--out``: ``passwd`` (Mosquitto's ``password_file``), ``acl`` (its ``acl_file``),
``mosquitto-floor.conf`` (the lines that make Mosquitto use them) and ``credentials`` (or
``--credentials PATH``): each user's password, mode 0600, for the installer to hand out. Passwords
already in the credentials file are kept. Exit status: 0 written, 2 bad input (one line says which).

:func:`register` adds the ``acl`` action to the ``croupier floor`` command's subparsers; ``python -m
controller.cli.floor_acl ARGS`` runs it on its own.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.cli.argtypes import add_lang_option
from controller.cli.language import error_text, of_args
from controller.core.exceptions import CroupierError

EXIT_WRITTEN = 0
EXIT_BAD_INPUT = 2


def register(subparsers: Any) -> None:
    """Add the ``acl`` action to ``subparsers`` (those of ``croupier floor``) and set its handler."""
    parser = subparsers.add_parser(
        "acl", help="write the broker's password file and ACL: one account per table, read-only archive and pit",
        description="Write a Mosquitto password file and ACL for the floor: each table's user may publish only "
                    "its own croupier/SITE/TABLE/ journal, events, state and status and read only its archived "
                    "head; each archive user reads every table's journal and state and publishes only their "
                    "archived heads and its health; the pit dashboard's users read every table's topics and "
                    "publish nothing; anonymous clients get nothing. The broker settings bind each client id to "
                    "its user and limit a message's size. Passwords are generated, or kept from the credentials "
                    "file. Exit status: 0 written, 2 bad input.",
    )
    add_arguments(parser)
    parser.set_defaults(handler=floor_acl)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``croupier floor acl``."""
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="the directory to write passwd, acl, mosquitto-floor.conf and credentials into "
                             "(created when missing)")
    parser.add_argument("--table", action="append", default=[], metavar="SITE/TABLE[=USER]",
                        help="a table, and its broker user (default SITE-TABLE); repeat for each table")
    parser.add_argument("--tables", metavar="FILE",
                        help="a file of tables, one SITE/TABLE[=USER] a line (# comments)")
    parser.add_argument("--archive", action="append", metavar="USER",
                        help="a user for croupier archive: reads every table's journal and state, publishes their "
                             "archived heads (default: archive); repeatable: one per archive process")
    parser.add_argument("--floor", action="append", metavar="USER",
                        help="a user for the pit dashboard (croupier floor): reads every table's topics "
                             "(default: floor); repeatable: one per dashboard process")
    add_lang_option(parser)
    parser.add_argument("--credentials", metavar="PATH",
                        help="the credentials file, USER PASSWORD ROLE [SITE/TABLE] a line, mode 0600 (default "
                             "DIR/credentials); the passwords it already holds are kept, the others generated")


def floor_acl(args: argparse.Namespace) -> int:
    """Write the floor's broker files; print what was written; returns the exit status."""
    from controller.floor.acl import (
        BIND_CLIENT_IDS,
        BROKER_CONFIG,
        parse_place,
        plan_accounts,
        read_credentials,
        read_tables_file,
        write_floor_files,
    )

    directory = Path(args.out)
    tables = [parse_place(text, f"--table {text!r}") for text in args.table]
    if args.tables is not None:
        tables.extend(read_tables_file(args.tables))
    credentials = Path(args.credentials) if args.credentials else directory / "credentials"
    accounts = plan_accounts(tables, args.archive or ["archive"], args.floor or ["floor"],
                             read_credentials(credentials))
    written = write_floor_files(directory, accounts, credentials)
    table_count = sum(account.role == "table" for account in accounts)
    say = of_args(args).say
    print(say("floor_acl.wrote", "wrote {accounts} accounts ({tables} tables): {files}", accounts=len(accounts),
              tables=table_count, files=", ".join(str(path) for path in written)))
    print(say("floor_acl.mosquitto", "Mosquitto: include_dir {directory} (or copy {config}'s lines into "
              "mosquitto.conf); hand each table its line of {credentials} (mode 0600)",
              directory=str(directory.resolve()), config=BROKER_CONFIG, credentials=str(credentials)))
    print(say("floor_acl.listener", "Mosquitto: and {setting} under each listener line of mosquitto.conf, so that "
              "each client id is its account's user (a restart applies it)", setting=BIND_CLIENT_IDS))
    return EXIT_WRITTEN


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``croupier floor acl`` on its own (``python -m controller.cli.floor_acl ARGS``)."""
    parser = argparse.ArgumentParser(prog="croupier floor acl", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return floor_acl(args)
    except CroupierError as error:
        print(f"croupier floor acl: {error_text(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())

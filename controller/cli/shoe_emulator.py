"""``croupier shoe-emulator``: play a card-reading shoe on a pseudo-terminal or a TCP port.

Usage contract::

    croupier shoe-emulator --seed N [--decks D] [--framing line|stx] [--interval SECONDS]

prints ``PTY <path>`` as the first line of stdout, then serves until the shoe is
out or it is killed. Point the controller at ``serial://<path>?framing=...``.
The protocol and the handshake are in ``docs/serial-protocol.md``.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
import tempfile
from typing import Any

from config.schema import DEFAULT_CUT_FROM_END, MIN_CUT_FROM_END, max_cut_from_end
from controller.cli.argtypes import number, rate, seconds, whole_number
from controller.cli.language import text
from controller.core.exceptions import CroupierError, DriverError
from controller.core.inputs import Input
from controller.core.undecodable import undecodable
from controller.i18n.message import message
from drivers.mock import read_script as read_mock_script
from drivers.serial.emulator import (
    EmulatorOptions,
    Endpoint,
    PtyEndpoint,
    ShoeEmulator,
    TcpEndpoint,
    check_script,
    scripted_shoe,
    seeded_shoes,
)
from drivers.serial.framing import TERMINATORS, framing_names


def _host_port(given: str) -> tuple[str, int]:
    host, sep, port = given.rpartition(":")
    if not sep or not port.isdecimal() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, e.g. 127.0.0.1:4001 (port 0: any), got {given!r}")
    legible = undecodable(host)
    if legible is not None:  # no socket could bind it: refused here, legibly
        raise argparse.ArgumentTypeError(text(message(
            "emulator.tcp_not_utf8", "expected HOST:PORT, e.g. 127.0.0.1:4001 (port 0: any), with a HOST of UTF-8 "
            "text, got {given}", given=f"'{legible}:{port}'")))
    return host or "127.0.0.1", int(port)


def read_script(path: str) -> list[Input]:
    """Reader tokens of a shoe script file (see docs/scripts.md), checked for the emulator."""
    return check_script(read_mock_script(path), path)


def register(subparsers: Any) -> None:
    """Add the ``shoe-emulator`` subcommand."""
    parser = subparsers.add_parser(
        "shoe-emulator",
        help="play a card-reading shoe on a pseudo-terminal or TCP port",
        description="Play the shoe side of the serial protocol on a new pseudo-terminal (prints "
                    "'PTY <path>' first) or a TCP port (prints 'TCP host:port'), dealing a seeded shoe "
                    "(the same cards as mock:// with the same seed) or a script. Waits for the "
                    "controller's hello before sending. Serves until the shoe is out or it is killed.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--seed", type=whole_number(0, 2**63 - 1), metavar="N", help="shuffle seed")
    source.add_argument("--script", metavar="FILE", help="send the reader tokens of a shoe script instead")
    parser.add_argument("--decks", type=whole_number(1, 8), metavar="D", help="decks (1-8, default 8)")
    parser.add_argument("--shoe", type=whole_number(1, 1_000_000), metavar="N",
                        help="first shoe number, from 1 (as mock://?shoe=N)")
    parser.add_argument("--cut", type=whole_number(MIN_CUT_FROM_END, 100), metavar="N",
                        help=f"cards below the cut card (default {DEFAULT_CUT_FROM_END})")
    parser.add_argument("--framing", choices=framing_names(), default="line", help="framing (default line)")
    parser.add_argument("--terminator", choices=sorted(TERMINATORS), default=None,
                        help="line framing's terminator (default crlf)")
    parser.add_argument("--no-checksum", action="store_true",
                        help="line framing: send no checksum at all (no *XX, no CRC)")
    parser.add_argument("--no-crc", action="store_true",
                        help="behave like a shoe from before CRC: announce no V,crc16, protect messages with "
                             "the XOR checksum only")
    parser.add_argument("--interval", type=seconds, default=0.0, metavar="SECONDS",
                        help="seconds between cards; 0 (default): each as soon as the previous is acknowledged")
    parser.add_argument("--key", action="store_true", help="send one card per Enter pressed on stdin")
    parser.add_argument("--follow-table", action="store_true",
                        help="deal only while the controller shows a slot or a burn (give the controller "
                             "?indicator=1): a dealer who waits for the table; for manual dealing")
    parser.add_argument("--tcp", type=_host_port, metavar="HOST:PORT",
                        help="serve on a TCP port (socket://HOST:PORT) instead of a pseudo-terminal")
    parser.add_argument("--link", metavar="PATH",
                        help="keep a symlink PATH to the current pty (it survives --unplug-after)")
    parser.add_argument("--heartbeat", type=seconds, default=1.0, metavar="SECONDS",
                        help="send H when idle this long (default 1; 0: never)")
    parser.add_argument("--ack-timeout", type=number(0.01, 3600, "seconds"), default=1.0, metavar="SECONDS",
                        help="retransmit an unacknowledged message after this long (default 1)")
    parser.add_argument("--garbage", type=rate, default=0.0, metavar="RATE",
                        help="fault: send noise before this fraction of messages")
    parser.add_argument("--bad-checksum", type=rate, default=0.0, metavar="RATE",
                        help="fault: corrupt the checksum of this fraction of messages")
    parser.add_argument("--unplug-after", type=whole_number(0, 10_000), default=0, metavar="N",
                        help="fault: pull the plug right after sending the Nth card")
    parser.add_argument("--replug-after", type=seconds, default=1.0, metavar="SECONDS",
                        help="seconds an unplug lasts (default 1)")
    parser.add_argument("--linger", type=seconds, default=0.0, metavar="SECONDS",
                        help="after the shoe is out, keep serving this long (for a new_shoe indication)")
    parser.add_argument("--verbose", "-v", action="count", default=0, help="log to stderr (-vv: every frame)")
    parser.set_defaults(handler=shoe_emulator)


def _announce(line: str) -> None:
    print(line, flush=True)


def _log_to(verbose: int) -> None:
    """Where the emulator's messages go: standard error, except at a terminal without ``-v``, where it is often
    run in the background (``&``) of the terminal a dealer console then takes: a log file, named once here."""
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    if verbose or not sys.stderr.isatty():
        logging.basicConfig(level=level, stream=sys.stderr, format="shoe-emulator: %(message)s")
        return
    log = os.path.join(tempfile.gettempdir(), f"croupier-shoe-emulator-{os.getpid()}.log")
    logging.basicConfig(level=level, filename=log, format="%(asctime)s shoe-emulator: %(message)s")
    print(text(message("emulator.log_file", "shoe-emulator: its messages go to {log}", log=log)), file=sys.stderr,
          flush=True)


def _refuse_options_that_do_nothing(args: argparse.Namespace) -> None:
    """A fault or a framing detail asked for that the options given leave out is refused, not dropped."""
    if args.bad_checksum > 0 and args.no_checksum:
        raise CroupierError(message("emulator.nothing_to_corrupt", "--bad-checksum {rate}: with --no-checksum the "
                                    "shoe sends no checksum to corrupt; leave out one of them",
                                    rate=format(args.bad_checksum, "g")))
    if args.no_checksum and args.framing == "stx":
        raise CroupierError(message("emulator.stx_no_checksum", "--no-checksum: stx framing always ends its frames "
                                    "with a BCC; leave out --no-checksum (--no-crc leaves out the CRC)"))
    if args.terminator is not None and args.framing == "stx":
        raise CroupierError(message("emulator.stx_terminator", "--terminator {terminator}: stx framing ends its "
                                    "frames with ETX and a BCC, not a terminator; leave out --terminator",
                                    terminator=args.terminator))


def shoe_emulator(args: argparse.Namespace) -> int:
    """Run the emulator; returns the exit status."""
    _log_to(args.verbose)
    if args.script is not None:
        unused = [option for option, value in (("--decks", args.decks), ("--cut", args.cut), ("--shoe", args.shoe))
                  if value is not None]
        if unused:  # the script gives every card, and is one shoe: they were dropped (--shoe 2 sent nothing)
            names = ", ".join(unused)
            raise CroupierError(message("driver.script_options", "{url}: {names} would do nothing beside a script: "
                                        "the script gives every card; leave out {names}",
                                        url=f"--script {args.script}", names=names))
        shoes = scripted_shoe(read_script(args.script))
        seed = 0
    else:
        decks = 8 if args.decks is None else args.decks
        cut = DEFAULT_CUT_FROM_END if args.cut is None else args.cut
        if cut > max_cut_from_end(decks):
            raise CroupierError(message("emulator.cut_too_deep", "--cut {cut}: expected at most {deepest} cards from "
                                        "the bottom of a {decks}-deck shoe (the back half)", cut=cut,
                                        deepest=max_cut_from_end(decks), decks=decks))
        shoes = seeded_shoes(args.seed, decks, cut)
        seed = args.seed
    _refuse_options_that_do_nothing(args)
    options = EmulatorOptions(
        framing=args.framing, terminator=TERMINATORS[args.terminator or "crlf"], checksum=not args.no_checksum,
        crc=not args.no_crc, interval=args.interval, key=args.key, follow_table=args.follow_table,
        heartbeat=args.heartbeat,
        ack_timeout=args.ack_timeout,
        garbage=args.garbage, bad_checksum=args.bad_checksum, unplug_after=args.unplug_after,
        replug_after=args.replug_after, linger=args.linger, fault_seed=seed,
    )
    if args.link and not args.tcp:
        directory = os.path.dirname(args.link) or "."
        if not os.path.isdir(directory):
            raise CroupierError(message("emulator.no_link_directory", "--link {link}: directory {directory} does not "
                                        "exist; create it or give another --link path", link=args.link,
                                        directory=repr(directory)))
        if os.path.lexists(args.link) and not is_a_pty_link(args.link):
            raise CroupierError(message("emulator.link_taken", "--link {link}: the path is taken by a file that is "
                                        "not a link to a pseudo-terminal; give a free path (or the link an emulator "
                                        "left there)", link=args.link))
    endpoint: Endpoint
    try:
        endpoint = TcpEndpoint(_announce, *args.tcp) if args.tcp else PtyEndpoint(_announce, args.link)
    except OSError as error:
        where = (message("emulator.where_tcp", "TCP {host}:{port}", host=args.tcp[0], port=args.tcp[1]) if args.tcp
                 else message("emulator.where_pty", "a pseudo-terminal (link {link})", link=str(args.link)))
        raise DriverError(message("emulator.cannot_serve", "cannot serve on {where}: {reason}", where=where,
                                  reason=str(error))) from None
    emulator = ShoeEmulator(endpoint, shoes, options, shoe_index=0 if args.shoe is None else args.shoe - 1,
                            keys=sys.stdin if args.key else None)
    try:
        return emulator.run()
    finally:
        emulator.close()


PTY_PATH = re.compile(r"/dev/(pts/[0-9]+|ttys[0-9]+)")
"""What a pseudo-terminal's slave is called (Linux, macOS): a link to one is an emulator's, which another may take."""


def is_a_pty_link(path: str) -> bool:
    """Is ``path`` a symlink to a pseudo-terminal (perhaps one gone), as ``--link`` makes?"""
    return os.path.islink(path) and PTY_PATH.fullmatch(os.readlink(path)) is not None


def main(argv: list[str] | None = None) -> int:
    """Run ``shoe-emulator`` alone (``python -m controller.cli.shoe_emulator ...``)."""
    from controller.cli.main import main as croupier

    return croupier(["shoe-emulator", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())

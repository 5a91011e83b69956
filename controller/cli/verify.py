"""``croupier verify``: the software's signature, checked against its signed manifest; the seeded HMAC a lab asks for.

::

    croupier verify                          # "croupier 0.1.0 signature 3f2a...: matches the manifest ..." (exit 0)
    croupier verify --write-manifest         # approve what is installed: the signed manifest (docs/integrity.md)
    croupier verify --seed 00112233445566778899aabbccddeeff   # the seeded HMAC-SHA256 (64 hex digits)

Exit status: 0 the software is what the manifest lists (or there is no manifest to compare with and nothing a
distribution records has changed), 1 it is not (each file or part named), 2 bad arguments or config.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from config.loader import load_config
from controller.cli.argtypes import add_lang_option
from controller.cli.language import of_args
from controller.core.exceptions import CroupierError, IntegrityError
from controller.i18n.catalogue import Catalogue
from controller.i18n.message import message
from controller.integrity.check import Verdict, effective_config, must_check, verify_software
from controller.integrity.manifest import place_of, write_manifest
from controller.integrity.software import survey

EXIT_OK = 0
EXIT_FAILED = 1
SEED_FORM = re.compile(r"(?:[0-9a-fA-F]{2}){1,64}")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify", help="the software's signature against its signed manifest, and the seeded HMAC",
        description="Survey everything that runs (the project's files, its dependencies' files as their "
                    "distributions record them, the interpreter, the effective config), print its signature and "
                    "compare it with the signed manifest (--write-manifest writes it once the install is approved). "
                    "Exit status: 0 it matches (or there is no manifest and nothing recorded changed), 1 it does "
                    "not (each file named), 2 bad arguments or config.",
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write-manifest", action="store_true",
                        help="approve what is installed: write the signed manifest (with --config, the config is "
                             "pinned too)")
    action.add_argument("--seed", metavar="HEX",
                        help="print the HMAC-SHA256 keyed by this seed (hex, 1-64 bytes) over every file's bytes "
                             "(GAT style)")
    parser.add_argument("--config", metavar="FILE", help="TOML config file (default: the embedded default)")
    parser.add_argument("--manifest", metavar="PATH",
                        help="the manifest (default: [integrity] manifest, croupier-manifest.json in the install's "
                             "prefix)")
    parser.add_argument("--key", metavar="FILE", help="the manifest's key file (default: [integrity] key, the "
                                                      "manifest's path with .key)")
    add_lang_option(parser)
    parser.set_defaults(handler=verify)


def seed_bytes(text: str) -> bytes:
    """The seed given in hex; a one-line error naming it otherwise."""
    if not SEED_FORM.fullmatch(text.strip()):
        raise CroupierError(message("verify.bad_seed", "--seed {seed}: expected 1 to 64 bytes in hex, e.g. "
                                    "00112233445566778899aabbccddeeff", seed=repr(text)))
    return bytes.fromhex(text.strip())


def verify(args: argparse.Namespace) -> int:
    words = of_args(args)
    settings = load_config(args.config)
    config = effective_config(args.config)
    if args.seed is not None:
        seed = seed_bytes(args.seed)
        print(survey(config).seeded(seed))
        return EXIT_OK
    place = place_of(settings.integrity, args.manifest, args.key)
    if args.write_manifest:
        return _write(args, words, config, place)
    verdict = verify_software(config, place)
    print(_verdict_line(verdict, words))
    for problem in verdict.problems:
        print(words.say("verify.failed_line", "FAILED: {problem}", problem=words.text(problem.why)))
    return EXIT_OK if verdict.ok else EXIT_FAILED


def _verdict_line(verdict: Verdict, words: Catalogue) -> str:
    surveyed = verdict.survey
    project = surveyed.component("croupier")
    head = words.say("verify.signature", "croupier {version} signature {signature}",
                     version=project.version if project is not None else "?", signature=surveyed.signature)
    place = verdict.place
    if not verdict.ok:
        return head + words.say("verify.does_not_match", ": NOT VERIFIED: {count} problem(s)",
                                count=len(verdict.problems))
    if verdict.compared and place is not None:
        return head + words.say("verify.matches", ": matches the manifest {path} (written {written}; {files} files "
                                "in {components} parts)", path=place.manifest, written=verdict.written,
                                files=surveyed.files, components=len(surveyed.components))
    if place is None:
        return head + words.say("verify.not_compared", ": not compared with a manifest ([integrity] manifest = "
                                "\"none\")")
    return head + words.say("verify.no_manifest_yet", ": no manifest at {path} to compare with (croupier verify "
                            "--write-manifest writes one)", path=place.manifest)


def _write(args: argparse.Namespace, words: Catalogue, config: bytes, place: Any) -> int:
    if place is None:
        raise CroupierError(message("verify.write_none", "[integrity] manifest = \"none\": give --manifest PATH to "
                                    "write one"))
    surveyed = survey(config)
    try:
        made = write_manifest(surveyed, place, pin_config=args.config is not None)
    except IntegrityError:
        if not surveyed.problems:
            raise
        for problem in surveyed.problems:
            print(words.say("verify.failed_line", "FAILED: {problem}", problem=words.text(problem.why)))
        print(words.say("verify.not_written_line", "the manifest is not written: reinstall what changed, then write "
                        "it"), file=sys.stderr)
        return EXIT_FAILED
    project = surveyed.component("croupier")
    print(words.say("verify.written", "wrote {path}: croupier {version} signature {signature}, {files} files in "
                    "{components} parts, config {pinned}; signed with the key {key}{made}", path=place.manifest,
                    version=project.version if project is not None else "?", signature=surveyed.signature,
                    files=surveyed.files, components=len(surveyed.components),
                    pinned=words.say("verify.pinned", "pinned") if args.config is not None
                    else words.say("verify.not_pinned", "not pinned"),
                    key=place.key, made=words.say("verify.key_made", " (made now)") if made else ""))
    return EXIT_OK


__all__ = ["must_check", "register", "seed_bytes", "verify"]

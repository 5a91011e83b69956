"""Checking what runs before play, and the software a journal records (``croupier run``, ``simulate``, ``train``;
docs/integrity.md).

:func:`verify_software` reads every byte and compares it with the manifest; :func:`recorded_software` gives what a
journal's start record keeps when nothing is verified, from the install's known hashes (only the files that changed
since they were last hashed are read again: :mod:`.cache`), once per process.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from config.loader import load_config
from config.schema import Settings
from controller.core.exceptions import IntegrityError
from controller.i18n.message import message
from controller.integrity.cache import KnownHashes
from controller.integrity.manifest import Place, approved_caches, compare, place_of, read_manifest
from controller.integrity.software import Problem, Survey, config_bytes, program, survey, with_config

VERIFIED = "verified"
NOT_VERIFIED = "none"
FAILED = "failed"


@dataclass
class Verdict:
    """What the check of what runs found."""

    survey: Survey
    place: Place | None
    compared: bool = False
    """Compared with a manifest."""
    problems: list[Problem] = field(default_factory=list)
    written: str = ""
    """When the manifest compared with was written."""

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> dict[str, Any]:
        """What a journal's start record keeps (its ``manifest``: verified, none, or failed)."""
        return self.survey.summary(FAILED if self.problems else VERIFIED if self.compared else NOT_VERIFIED)


def effective_config(config_file: str | None) -> bytes:
    """The effective config (``config_file`` and the environment, no command-line option) as the survey signs it."""
    return config_bytes(load_config(config_file))


def must_check(place: Place | None) -> bool:
    """Is there a manifest to check against: one named in the config (it must be there), or the install's own?"""
    return place is not None and (place.required or os.path.exists(place.manifest))


def verify_software(config: bytes, place: Place | None) -> Verdict:
    """Survey every byte of what runs, with ``config``, and compare it with the manifest at ``place`` when there is
    one to check (:func:`must_check`)."""
    if place is None or not must_check(place):
        surveyed = survey(config)
        return Verdict(surveyed, place, problems=list(surveyed.problems))
    try:
        body = read_manifest(place)
    except IntegrityError as error:
        surveyed = survey(config)
        problem = Problem(place.manifest, error.message or message("verify.manifest_problem", "{problem}",
                                                                   problem=str(error)))
        return Verdict(surveyed, place, True, [*surveyed.problems, problem])
    surveyed = survey(config, approved=approved_caches(body))
    return Verdict(surveyed, place, True, [*surveyed.problems, *compare(surveyed, body)],
                   str(body.get("written", "")))


def start_check(settings: Settings, config_file: str | None) -> Verdict:
    """The check ``croupier run`` makes before it opens the reader: against the manifest when there is one to check
    (every byte read), else the software surveyed from the install's known hashes; either way a changed file a
    distribution records, or a bytecode cache that does not hold its source's code, is a problem."""
    config = effective_config(config_file)
    place = place_of(settings.integrity)
    if must_check(place):
        return verify_software(config, place)
    surveyed = with_config(_known_program(), config)
    return Verdict(surveyed, place, problems=list(surveyed.problems))


_PROGRAM: list[Survey] = []
"""The program surveyed from known hashes, once per process."""


def _known_program() -> Survey:
    if not _PROGRAM:
        hashes = KnownHashes()
        _PROGRAM.append(program(hashes))
        hashes.save()
    return _PROGRAM[0]


def recorded_software(config_file: str | None) -> Mapping[str, Any]:
    """The software a journal's start record keeps when nothing is verified (``manifest: none``)."""
    return with_config(_known_program(), effective_config(config_file)).summary(NOT_VERIFIED)

"""The suite runs the checkout as it is: ``croupier run`` verifies the software against the install's manifest
(``.ci/setup`` writes one, docs/integrity.md), so a manifest older than the checkout's files is written again for
what is there, once, before the tests start. The tests of the verification itself work on copies of their own
(``tests/controller/cli/test_verify.py``)."""

from __future__ import annotations

from config.loader import load_config
from config.schema import IntegritySettings
from controller.core.exceptions import IntegrityError
from controller.integrity.check import must_check, verify_software
from controller.integrity.manifest import place_of, write_manifest
from controller.integrity.software import config_bytes


def approve_the_checkout() -> str:
    """Write the install's own manifest again when it does not match the checkout; what was done, in words."""
    place = place_of(IntegritySettings())
    if place is None or not must_check(place):
        return "no manifest"
    verdict = verify_software(config_bytes(load_config(None, environ={})), place)
    if verdict.ok:
        return "the manifest matches"
    try:
        write_manifest(verdict.survey, place, pin_config=False)
    except IntegrityError as error:
        return f"the manifest is stale and cannot be written again: {error}"
    return f"the manifest was written again ({len(verdict.problems)} difference(s))"

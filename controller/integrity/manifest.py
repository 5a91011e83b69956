"""The signed manifest: what was approved, file by file, and the check of what runs against it (docs/integrity.md).

``croupier verify --write-manifest`` writes it once the install is approved: every surveyed file's path, SHA-256 and
place, each component's version and digest, the software's signature, and (when written with ``--config``) the
effective config's digest, which is then pinned. It is signed with HMAC-SHA256 under a key kept in a file of its
own (made at the first write, 32 random bytes in hex, readable by its owner only): an edited manifest, or one
signed with another key, is refused. The key proves that whoever wrote the manifest could read the key file; keep
both where the table's account can read but not write them.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from config.schema import IntegritySettings
from controller.core.exceptions import IntegrityError
from controller.i18n.message import Message, message
from controller.integrity.software import Problem, Survey

FORMAT = "croupier-manifest"
VERSION = 1
DEFAULT_NAME = "croupier-manifest.json"
NONE = "none"
MANIFEST_LIMIT = 64 * 2**20
"""The most bytes a manifest is read for (a whole install's is about 1.3 MB)."""
KEY_LIMIT = 64 * 2**10
"""The most bytes a key file is read for (its 32 bytes in hex are 65 characters)."""
"""``[integrity] manifest = "none"``: no verification (every journal's ``software`` says ``manifest: none``)."""


@dataclass(frozen=True)
class Place:
    """Where the manifest and its key are, and whether the manifest must be there."""

    manifest: str
    key: str
    required: bool
    """Named in ``[integrity] manifest``: a manifest that is not there is a fault (the install's own default place
    is checked only when a manifest is there)."""


def place_of(settings: IntegritySettings, manifest: str | None = None, key: str | None = None) -> Place | None:
    """The manifest's place (``manifest`` and ``key`` given on the command line win), or None for ``none``."""
    named = manifest if manifest is not None else settings.manifest
    if named == NONE:
        return None
    path = os.path.abspath(named) if named else os.path.join(sys.prefix, DEFAULT_NAME)
    key_path = key if key is not None else settings.key
    return Place(path, os.path.abspath(key_path) if key_path else os.path.splitext(path)[0] + ".key", bool(named))


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _not_a_key(path: str, reason: Message | str) -> IntegrityError:
    return IntegrityError(message("verify.bad_key", "{path}: not a manifest key ({reason}); expected 32 bytes in hex, "
                                  "as croupier verify --write-manifest makes", path=path, reason=reason))


def read_key(path: str) -> bytes:
    """The HMAC key in ``path`` (hex, at least 16 bytes); :class:`IntegrityError` naming the file otherwise."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(KEY_LIMIT + 1)  # bounded: a path that is no key may never end (/dev/zero)
        if len(data) > KEY_LIMIT:
            raise _not_a_key(path, message("verify.key_too_long", "longer than {limit} KiB",
                                           limit=KEY_LIMIT // 2**10))
        key = bytes.fromhex(data.decode("ascii").strip())
    except FileNotFoundError:
        raise IntegrityError(message("verify.no_key", "{path}: no manifest key there; give --key FILE, or write the "
                                     "manifest again with croupier verify --write-manifest", path=path)) from None
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise _not_a_key(path, getattr(error, "strerror", None) or str(error)) from None
    if len(key) < 16:
        raise IntegrityError(message("verify.short_key", "{path}: a manifest key of {count} bytes is too short; "
                                     "expected at least 16 (32 in hex, as croupier verify --write-manifest makes)",
                                     path=path, count=len(key)))
    return key


def _new_key(path: str) -> bool:
    """Make the key file at ``path`` when there is none (owner-only); True when it was made."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    except OSError as error:
        raise _key_not_written(path, error) from None
    try:
        with os.fdopen(handle, "w", encoding="ascii") as out:
            out.write(secrets.token_hex(32) + "\n")
    except OSError as error:  # a full disk: no half-written key is left to sign with
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise _key_not_written(path, error) from None
    return True


def _key_not_written(path: str, error: OSError) -> IntegrityError:
    return IntegrityError(message(
        "verify.manifest_key_not_written", "{path}: cannot write the manifest key ({reason}); the manifest is not "
        "written: give --key FILE (or [integrity] key) naming a file in a directory that exists and this user may "
        "write in, then run croupier verify --write-manifest again", path=path,
        reason=error.strerror or str(error)))


def _manifest_not_written(path: str, error: OSError) -> IntegrityError:
    return IntegrityError(message(
        "verify.manifest_not_written", "{path}: cannot write the manifest ({reason}); nothing is approved: give "
        "--manifest PATH (or [integrity] manifest) naming a file in a directory that exists and this user may write "
        "in, then run croupier verify --write-manifest again", path=path, reason=error.strerror or str(error)))


def manifest_body(survey: Survey, pin_config: bool) -> dict[str, Any]:
    """The manifest of ``survey`` before it is signed (``pin_config``: its config must match too)."""
    config = survey.component("config")
    project = survey.component("croupier")
    return {
        "format": FORMAT, "version": VERSION,
        "written": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "software": {"version": project.version if project is not None else "", "signature": survey.signature},
        "config": {"pinned": bool(pin_config and config is not None),
                   "digest": config.digest if pin_config and config is not None else None},
        "components": {component.name: {"version": component.version, "digest": component.digest,
                                        "files": {item.path: [item.digest, item.location] for item in component.items}}
                       for component in survey.components if component.name != "config"},
        "bytecode": dict(sorted(survey.good_caches.items())),
    }


def write_manifest(survey: Survey, place: Place, pin_config: bool) -> bool:
    """Write the signed manifest of ``survey`` at ``place`` (its key made first when there is none); True when the
    key was made. Refused (:class:`IntegrityError`) when the survey found problems: they would be approved."""
    if survey.problems:
        raise IntegrityError(message("verify.not_written", "the manifest is not written: {count} problem(s) were "
                                     "found (the first: {first}); reinstall what changed, then write it",
                                     count=len(survey.problems), first=survey.problems[0].why.english()))
    folder = os.path.dirname(place.manifest) or "."
    try:  # the manifest's draft first: a key is made only for a manifest that can be written
        handle, draft = tempfile.mkstemp(prefix=".croupier-manifest.", dir=folder)
    except OSError as error:
        raise _manifest_not_written(place.manifest, error) from None
    made = False
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            made = _new_key(place.key)
            key = read_key(place.key)
            body = manifest_body(survey, pin_config)
            body["hmac"] = hmac.new(key, _canonical(body), hashlib.sha256).hexdigest()
            json.dump(body, out, indent=1, sort_keys=True, ensure_ascii=False)
            out.write("\n")
        os.chmod(draft, 0o644)
        os.replace(draft, place.manifest)
    except OSError as error:  # a directory there, a full disk: one line, and the draft (and a key made now) go
        if made:
            with contextlib.suppress(OSError):
                os.unlink(place.key)
        raise _manifest_not_written(place.manifest, error) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(draft)
    return made


def read_manifest(place: Place) -> dict[str, Any]:
    """The manifest at ``place``, its signature checked; :class:`IntegrityError` when it cannot be read, is not a
    manifest, or was edited or signed with another key."""
    try:
        with open(place.manifest, "rb") as handle:
            data = handle.read(MANIFEST_LIMIT + 1)  # bounded: a path that is no manifest may never end (/dev/zero)
        if len(data) > MANIFEST_LIMIT:
            raise IntegrityError(message("verify.manifest_too_long", "{path}: longer than {limit} MiB, far more than "
                                         "a manifest holds: not a manifest; give the one croupier verify "
                                         "--write-manifest wrote", path=place.manifest,
                                         limit=MANIFEST_LIMIT // 2**20))
        body = json.loads(data.decode("utf-8"))
    except FileNotFoundError:
        raise IntegrityError(message("verify.no_manifest", "{path}: no manifest there; write it with croupier verify "
                                     "--write-manifest once the install is approved", path=place.manifest)) from None
    except (OSError, ValueError) as error:
        raise IntegrityError(message("verify.unreadable_manifest", "{path}: cannot read the manifest ({reason})",
                                     path=place.manifest, reason=getattr(error, "strerror", None) or str(error))
                             ) from None
    if not isinstance(body, dict) or body.get("format") != FORMAT or body.get("version") != VERSION:
        raise IntegrityError(message("verify.not_a_manifest", "{path}: not a Croupier manifest of version {version}",
                                     path=place.manifest, version=VERSION))
    given = body.pop("hmac", None)
    expected = hmac.new(read_key(place.key), _canonical(body), hashlib.sha256).hexdigest()
    if not isinstance(given, str) or not hmac.compare_digest(given, expected):
        raise IntegrityError(message("verify.manifest_edited", "{path}: the manifest was edited, or signed with "
                                     "another key than {key}: it proves nothing", path=place.manifest,
                                     key=place.key))
    return body


def approved_caches(body: dict[str, Any]) -> dict[str, str]:
    """The bytecode caches the manifest found good (not signed: a cache with another SHA-256 is compiled again and
    compared with its source)."""
    caches = body.get("bytecode")
    return {str(place): str(digest) for place, digest in caches.items()} if isinstance(caches, dict) else {}


def compare(survey: Survey, body: dict[str, Any]) -> list[Problem]:
    """What differs between what runs (``survey``) and the manifest ``body``: each file changed, added or missing,
    each component installed, removed or of another version, and the config when the manifest pinned it."""
    problems: list[Problem] = []
    given = body.get("components")
    listed: dict[str, Any] = given if isinstance(given, dict) else {}
    current = {component.name: component for component in survey.components if component.name != "config"}
    for name in sorted(set(listed) | set(current)):
        was, now = listed.get(name), current.get(name)
        if not isinstance(was, dict):
            assert now is not None
            problems.append(Problem(name, message("verify.component_added", "{name} {version}: installed since the "
                                                  "manifest was written", name=name, version=now.version)))
            continue
        if now is None:
            problems.append(Problem(name, message("verify.component_removed", "{name} {version}: removed since the "
                                                  "manifest was written", name=name, version=str(was.get("version")))))
            continue
        if was.get("version") != now.version:
            problems.append(Problem(name, message("verify.component_version", "{name}: version {was} in the "
                                                  "manifest, {now} installed", name=name, was=str(was.get("version")),
                                                  now=now.version)))
        files = was.get("files")
        problems.extend(_files(name, files if isinstance(files, dict) else {}, now.items))
    stated = body.get("config")
    pinned: dict[str, Any] = stated if isinstance(stated, dict) else {}
    config = survey.component("config")
    if pinned.get("pinned") and (config is None or config.digest != pinned.get("digest")):
        problems.append(Problem("config", message("verify.config_differs", "the effective config (the config file "
                                                  "and the CROUPIER_* environment) is not the one the manifest "
                                                  "pinned")))
    return problems


def _files(name: str, listed: dict[str, Any], items: tuple[Any, ...]) -> list[Problem]:
    problems: list[Problem] = []
    now = {item.path: item for item in items}
    for path in sorted(set(listed) | set(now)):
        entry = listed.get(path)
        item = now.get(path)
        if item is None:
            where = str(entry[1]) if isinstance(entry, list) and len(entry) == 2 else path
            problems.append(Problem(where, message("verify.file_missing", "{path}: missing: the manifest lists it "
                                                   "({name})", path=where, name=name)))
        elif entry is None:
            problems.append(Problem(item.location or path, message(
                "verify.file_added", "{path}: added since the manifest was written ({name})",
                path=item.location or path, name=name)))
        elif not isinstance(entry, list) or not entry or entry[0] != item.digest:
            problems.append(Problem(item.location or path, message(
                "verify.file_changed", "{path}: changed since the manifest was written ({name})",
                path=item.location or path, name=name)))
    return problems

"""What runs, surveyed file by file: the software's signature and the seeded HMAC (docs/integrity.md).

The survey has one component per part of what runs, each a sorted list of files with their SHA-256:

``croupier``
    the project's packages as the interpreter imports them (every file under ``controller``, ``drivers`` and
    ``config``, data files included, bytecode caches left out: :mod:`.bytecode` checks them), and every file the
    ``croupier`` distribution records (its launcher, its metadata);
each dependency, by its distribution's name
    every file its distribution records with a hash in its ``RECORD`` (PEP 376/627), for each distribution the
    project requires, directly or through another, with its runtime extras (``console``, ``floor``, ... but not
    ``test``); a recorded file that no longer has the recorded hash, or is missing, is a problem at once;
``python``
    the interpreter's executable, its virtual environment's ``pyvenv.cfg``, and its standard library's modules
    (``.py`` and extension modules, not its own test suite nor its build files);
``config``
    the effective config: the settings the config file and the environment give, as canonical JSON.

A component's digest is the SHA-256 of its files' lines ``<sha256>  <path>\\n`` in path order; the signature is the
SHA-256 of ``croupier-software 1\\n`` followed by a line ``<name> <version> <digest>\\n`` per component in name
order. The seeded HMAC (GAT style) is HMAC-SHA256 keyed by the seed over ``croupier-software-hmac 1\\n`` and, per
component in name order, ``<name> <version>\\n`` then each file's ``<path>\\0<size>\\0`` and its bytes: it needs the
files themselves, not their digests, so an install cannot answer a new seed from stored hashes.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import hmac
import importlib.util
import json
import os
import platform
import re
import sys
import sysconfig
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

from config.schema import Settings, settings_data
from controller.i18n.message import Message, message
from controller.integrity.bytecode import BadCache, caches_of, examine

PROJECT = "croupier"
PROJECT_PACKAGES = ("controller", "drivers", "config")
"""The project's top-level packages."""
BUILD_EXTRAS_LEFT_OUT = frozenset({"test"})
"""The project's extras that never run at a table (the test suite's tools)."""
STDLIB_LEFT_OUT = frozenset({"__pycache__", "site-packages", "dist-packages", "test", "tests", "idle_test"})
"""Folders of the standard library that are not surveyed: bytecode, installed packages, its own test suite."""
STDLIB_SUFFIXES = (".py", ".so", ".pyd")
CHUNK = 1 << 20
SIGNATURE_HEADER = "croupier-software 1\n"
HMAC_HEADER = "croupier-software-hmac 1\n"
_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[([^\]]*)\])?")
_EXTRA_MARKER = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


@dataclass(frozen=True)
class Item:
    """One surveyed file: its name in the signature, where it is (None: made in memory, the config), its SHA-256."""

    path: str
    location: str | None
    digest: str
    content: bytes | None = None
    """The bytes of an item made in memory (the config)."""


@dataclass(frozen=True)
class Component:
    """One part of what runs: its name, version and files."""

    name: str
    version: str
    items: tuple[Item, ...]

    @property
    def digest(self) -> str:
        """SHA-256 of the lines ``<sha256>  <path>\\n`` of its files, in path order."""
        text = "".join(f"{item.digest}  {item.path}\n" for item in self.items)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Problem:
    """Something found wrong: the file (or part) it is about, and what is wrong, in words."""

    where: str
    why: Message


@dataclass(frozen=True)
class CacheFile:
    """A bytecode cache of one of the project's modules: not signed, checked (:mod:`.bytecode`)."""

    location: str
    source: str
    level: int
    digest: str


@dataclass
class Survey:
    """What runs, and what was found wrong without any manifest (recorded hashes, bytecode caches)."""

    components: tuple[Component, ...]
    problems: list[Problem] = field(default_factory=list)
    good_caches: dict[str, str] = field(default_factory=dict)
    """Each bytecode cache the interpreter would load that holds its source's code, and its SHA-256."""

    @property
    def signature(self) -> str:
        """The software's signature (see the module doc)."""
        text = SIGNATURE_HEADER + "".join(f"{component.name} {component.version} {component.digest}\n"
                                          for component in self.components)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    @property
    def files(self) -> int:
        return sum(len(component.items) for component in self.components)

    def component(self, name: str) -> Component | None:
        return next((component for component in self.components if component.name == name), None)

    def summary(self, manifest: str) -> dict[str, Any]:
        """What a journal's start record keeps of it: the version, the signature, whether it was verified against
        a manifest (``manifest``: ``verified``, ``none``), and each component's version and digest."""
        project = self.component(PROJECT)
        return {"version": project.version if project is not None else "", "signature": self.signature,
                "manifest": manifest,
                "components": {component.name: {"version": component.version, "digest": component.digest}
                               for component in self.components}}

    def seeded(self, seed: bytes) -> str:
        """HMAC-SHA256 keyed by ``seed`` over every file's bytes (see the module doc); reads the files again."""
        mac = hmac.new(seed, HMAC_HEADER.encode("utf-8"), hashlib.sha256)
        for component in self.components:
            mac.update(f"{component.name} {component.version}\n".encode())
            for item in component.items:
                if item.content is not None:
                    mac.update(f"{item.path}\0{len(item.content)}\0".encode())
                    mac.update(item.content)
                    continue
                assert item.location is not None
                with open(item.location, "rb") as handle:
                    size = os.fstat(handle.fileno()).st_size
                    mac.update(f"{item.path}\0{size}\0".encode())
                    while chunk := handle.read(CHUNK):
                        mac.update(chunk)
        return mac.hexdigest()


def sha256_of(location: str) -> str:
    """The SHA-256 (hex) of the file at ``location``."""
    digest = hashlib.sha256()
    with open(location, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def config_bytes(settings: Settings) -> bytes:
    """The effective config as canonical JSON (sorted keys, no spaces, UTF-8): what the ``config`` component signs."""
    return json.dumps(settings_data(settings), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


UNREADABLE = "unreadable"
"""What the survey keeps as the digest of a file it cannot read (never a SHA-256's hex)."""


class Hashes:
    """How the survey hashes a file: every byte, every time; or (:class:`~controller.integrity.cache.KnownHashes`)
    a file whose inode, size, modification and change times are unchanged since it was last hashed is not read
    again."""

    unreadable: dict[str, str]
    """The files that could not be read (place -> why), each a problem of the survey."""

    def __init__(self) -> None:
        self.unreadable = {}

    def digest(self, location: str) -> str:
        """The SHA-256 (hex) of the file at ``location``; for a file that cannot be read, :data:`UNREADABLE`
        (noted in :attr:`unreadable`)."""
        return self.read(location, sha256_of)

    def read(self, location: str, digest: Callable[[str], str]) -> str:
        """``digest(location)``, or :data:`UNREADABLE` when the file cannot be read (noted in :attr:`unreadable`)."""
        try:
            return digest(location)
        except OSError as error:
            self.unreadable[location] = error.strerror or type(error).__name__
            return UNREADABLE

    def recorded_before(self, key: str) -> list[Item] | None:
        """The items a distribution's RECORD (``key``: its place and text hashed) gave when every file it records
        matched, if no file changed since; None to survey it again (here: always)."""
        return None

    def keep_recorded(self, key: str, items: list[Item]) -> None:
        """Remember ``items``, what the RECORD ``key`` gave with every file matching it (here: nothing is kept)."""

    def described_before(self, key: str) -> tuple[str, list[str]] | None:
        """The version and requirements a METADATA text (``key``: the text hashed) says, if read before."""
        return None

    def keep_described(self, key: str, version: str, requires: list[str]) -> None:
        """Remember what the METADATA text ``key`` says (here: nothing is kept)."""

    good_caches: dict[str, str] = {}  # noqa: RUF012 - never written here: the caches known good (none)
    """Bytecode caches known to hold their source's code, by place, with their SHA-256 then."""

    def caches_good(self, good: Mapping[str, str]) -> None:
        """``good`` caches hold their source's code."""


def survey(config: bytes | None, hashes: Hashes | None = None, approved: Mapping[str, str] | None = None) -> Survey:
    """Survey what runs now (the config as given, none: no ``config`` component). With the default ``hashes`` every
    byte is read and hashed; a bytecode cache ``approved`` (or known to ``hashes``) with the same SHA-256 is not
    compiled again."""
    return with_config(program(hashes, approved), config)


def program(hashes: Hashes | None = None, approved: Mapping[str, str] | None = None) -> Survey:
    """Survey the program: the project, its dependencies and the interpreter (no config)."""
    problems: list[Problem] = []
    hashes = hashes or Hashes()
    caches: list[CacheFile] = []
    components = [_project(problems, hashes, caches), *_dependencies(problems, hashes), _interpreter(hashes)]
    problems += [Problem(location, message("verify.unreadable", "{path}: cannot be read ({reason}); run as a user who "
                                           "can read every installed file", path=location, reason=why))
                 for location, why in sorted(hashes.unreadable.items())]
    good = _check_caches(caches, {**hashes.good_caches, **(approved or {})}, problems)
    hashes.caches_good(good)
    return Survey(tuple(sorted(components, key=lambda component: component.name)), problems, good)


def _check_caches(caches: list[CacheFile], known: Mapping[str, str], problems: list[Problem]) -> dict[str, str]:
    """Check each cache not ``known`` good as it is; the good ones (that the interpreter would load)."""
    good: dict[str, str] = {}
    for cache in caches:
        if known.get(cache.location) == cache.digest:
            good[cache.location] = cache.digest
            continue
        source = Path(cache.source)
        found = examine(Path(cache.location), cache.level, source, source.read_bytes())
        if isinstance(found, BadCache):
            problems.append(Problem(found.cache, message(
                "verify.bad_bytecode", "{cache}: {why}: the interpreter would run it instead of {source}",
                cache=found.cache, why=found.why, source=found.source)))
        elif found:
            good[cache.location] = cache.digest
    return good


def with_config(surveyed: Survey, config: bytes | None) -> Survey:
    """``surveyed`` with the ``config`` component of the effective config ``config`` (None: without one)."""
    components = [component for component in surveyed.components if component.name != "config"]
    if config is not None:
        components.append(Component("config", "", (Item("config.json", None, hashlib.sha256(config).hexdigest(),
                                                        config),)))
    return Survey(tuple(sorted(components, key=lambda component: component.name)), list(surveyed.problems),
                  dict(surveyed.good_caches))


# -- the project ------------------------------------------------------------------------------------------------


def package_folders() -> list[Path]:
    """Where the interpreter imports the project's packages from."""
    folders: list[Path] = []
    for name in PROJECT_PACKAGES:
        spec = importlib.util.find_spec(name)
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        folders.extend(Path(location) for location in locations[:1])
    return folders


def _walk(folder: str, left_out: frozenset[str] = frozenset({"__pycache__"})) -> Iterator[tuple[str, str]]:
    """(location, path below ``folder`` with ``/``) of every file under ``folder``, in order, ``left_out`` folders
    and those whose name starts with ``config-`` (the standard library's build files) left out."""
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(name for name in folders if name not in left_out and not name.startswith("config-"))
        below = os.path.relpath(root, folder).replace(os.sep, "/")
        prefix = "" if below == "." else below + "/"
        for name in sorted(files):
            yield os.path.join(root, name), prefix + name


def _project(problems: list[Problem], hashes: Hashes, caches: list[CacheFile]) -> Component:
    items: dict[str, Item] = {}
    seen: set[str] = set()
    for folder in package_folders():
        for location, below in _walk(str(folder)):
            name = f"{folder.name}/{below}"
            items[name] = Item(name, location, hashes.digest(location))
            seen.add(os.path.realpath(location))
            if location.endswith(".py"):
                caches.extend(CacheFile(str(cache), location, level, hashes.digest(str(cache)))
                              for cache, level in caches_of(Path(location)))
    version = ""
    try:
        distribution = installed(PROJECT)
    except metadata.PackageNotFoundError:
        distribution = None
    if distribution is not None:
        version = distribution.version
        for item in recorded(distribution, problems, hashes):
            if item.location is not None and os.path.realpath(item.location) not in seen:
                items.setdefault(item.path, item)
    return Component(PROJECT, version, tuple(items[name] for name in sorted(items)))


# -- the dependencies -------------------------------------------------------------------------------------------


def install_folders() -> list[str]:
    """Where this interpreter installs distributions (its site-packages, the user's): not the working directory,
    where a checkout's ``croupier.egg-info`` (pip's build metadata, no RECORD) would shadow the installed one."""
    import site

    folders = [sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), *site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    return list(dict.fromkeys(os.path.realpath(folder) for folder in folders if folder))


def installed(name: str, folders: list[str] | None = None) -> metadata.Distribution:
    """The installed distribution ``name`` (from ``folders``, :func:`install_folders` by default, else wherever the
    interpreter finds it); :class:`importlib.metadata.PackageNotFoundError` when there is none."""
    for distribution in metadata.distributions(name=name, path=install_folders() if folders is None else folders):
        return distribution
    return metadata.distribution(name)


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


class _Described(NamedTuple):
    """What a distribution's metadata says that the survey uses, read once (each read parses the whole file)."""

    distribution: metadata.Distribution
    version: str
    requires: list[str]

    @classmethod
    def of(cls, distribution: metadata.Distribution, hashes: Hashes) -> _Described:
        text = distribution.read_text("METADATA")
        key = hashlib.sha256(text.encode()).hexdigest() if text is not None else None
        known = hashes.described_before(key) if key is not None else None
        if known is not None:
            return cls(distribution, *known)
        described = distribution.metadata
        requires = list(described.get_all("Requires-Dist") or distribution.requires or [])  # egg-info: requires.txt
        if key is not None:
            hashes.keep_described(key, described["Version"], requires)
        return cls(distribution, described["Version"], requires)


def _requirements(described: _Described, extras: Iterable[str]) -> Iterator[tuple[str, list[str]]]:
    """(name, extras) of each requirement of a distribution that applies with ``extras``: one with no extra in its
    marker always, one with ``extra == "X"`` when X is asked for (other markers: when it is installed)."""
    wanted = set(extras)
    for text in described.requires:
        found = _REQUIREMENT.match(text)
        if found is None:
            continue
        marker = text.partition(";")[2]
        named = set(_EXTRA_MARKER.findall(marker))
        if named and not named & wanted:
            continue
        asked = [extra.strip() for extra in (found.group(3) or "").split(",") if extra.strip()]
        yield found.group(1), asked


def _dependencies(problems: list[Problem], hashes: Hashes) -> list[Component]:
    folders = install_folders()
    try:
        project = installed(PROJECT, folders)
    except metadata.PackageNotFoundError:
        return []
    extras = [extra for extra in project.metadata.get_all("Provides-Extra") or [] if extra not in BUILD_EXTRAS_LEFT_OUT]
    wanted: dict[str, set[str]] = {}
    queue = [(name, asked) for name, asked in _requirements(_Described.of(project, hashes), extras)]
    found: dict[str, _Described] = {}
    while queue:
        name, asked = queue.pop()
        key = _key(name)
        if key == PROJECT:
            continue
        new = set(asked) - wanted.get(key, set())
        if key in wanted and not new:
            continue
        wanted.setdefault(key, set()).update(asked)
        try:
            described = found.get(key) or _Described.of(installed(name, folders), hashes)
        except metadata.PackageNotFoundError:
            continue  # not installed: nothing of it runs
        found[key] = described
        queue.extend(_requirements(described, wanted[key]))
    return [Component(key, described.version, tuple(sorted(recorded(described.distribution, problems, hashes),
                                                          key=lambda item: item.path)))
            for key, described in sorted(found.items())]


def recorded(distribution: metadata.Distribution, problems: list[Problem], hashes: Hashes) -> list[Item]:
    """Each file ``distribution`` records with a hash, hashed now; a changed or missing one is a problem."""
    items: list[Item] = []
    base = str(distribution.locate_file(""))
    text = distribution.read_text("RECORD")
    key = hashlib.sha256(f"{base}\n{text}".encode()).hexdigest() if text else None
    known = hashes.recorded_before(key) if key is not None else None
    if known is not None:
        return known
    found = len(problems)
    for name, recorded in sha256_records(distribution, text):
        location = os.path.normpath(os.path.join(base, name))
        if not os.path.lexists(location):
            problems.append(Problem(location, message(
                "verify.record_missing", "{path}: missing ({name} {version} records it)", path=location,
                name=distribution.metadata["Name"], version=distribution.version)))
            continue
        digest = hashes.digest(location)
        if digest == UNREADABLE:
            continue  # a problem of its own (:func:`program`)
        expected = base64.urlsafe_b64decode(recorded + "=" * (-len(recorded) % 4)).hex()
        if digest != expected:
            problems.append(Problem(location, message(
                "verify.record_changed", "{path}: changed since {name} {version} was installed (its hash is not "
                "the one its RECORD gives)", path=location, name=distribution.metadata["Name"],
                version=distribution.version)))
        items.append(Item(name, location, digest))
    if key is not None and len(problems) == found and not hashes.unreadable:
        hashes.keep_recorded(key, items)
    return items


def sha256_records(distribution: metadata.Distribution, text: str | None = None) -> list[tuple[str, str]]:
    """(path, SHA-256 as RECORD writes it) of each file ``distribution`` records with a SHA-256, each path as
    ``distribution.files`` names it: read from its RECORD (``text`` when read already) in one pass (``files`` makes
    a path object of each of a dependency's thousands of files, at every start of a journaled table), else from
    ``files``."""
    text = distribution.read_text("RECORD") if text is None else text
    if not text:
        return [(str(entry), entry.hash.value) for entry in distribution.files or []
                if entry.hash is not None and entry.hash.mode == "sha256"]
    found: list[tuple[str, str]] = []
    for row in csv.reader(text.splitlines()):
        if len(row) < 2:
            continue
        mode, _, value = row[1].partition("=")
        if mode != "sha256":
            continue
        name = row[0]
        if not name or "//" in name or name.endswith("/") or "." in name.split("/"):
            name = str(PurePosixPath(name))  # as files names it: without empty or "." parts
        found.append((name, value))
    return found


# -- the interpreter --------------------------------------------------------------------------------------------


def _interpreter(hashes: Hashes) -> Component:
    executable = os.path.realpath(sys.executable)
    items = [Item("executable", executable, hashes.digest(executable))]
    environment = os.path.join(sys.prefix, "pyvenv.cfg")
    if sys.prefix != sys.base_prefix and os.path.isfile(environment):
        items.append(Item("pyvenv.cfg", environment, hashes.digest(environment)))
    for location, below in _walk(sysconfig.get_path("stdlib"), STDLIB_LEFT_OUT):
        if location.endswith(STDLIB_SUFFIXES):
            items.append(Item("stdlib/" + below, location, hashes.digest(location)))
    return Component("python", platform.python_version(), tuple(sorted(items, key=lambda item: item.path)))


def summary_components(summary: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """(version, digest) of each component a journal's ``software`` summary names (empty when it has none)."""
    components = summary.get("components")
    if not isinstance(components, dict):
        return {}
    return {str(name): (str(part.get("version", "")), str(part.get("digest", "")))
            for name, part in components.items() if isinstance(part, dict)}

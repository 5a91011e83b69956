"""Known hashes: a file not changed since it was last hashed is not read again (the journal's ``software``).

A file is taken as unchanged while its device, inode, size, modification time and change time (``ctime``, which no
program can set back) are those it had when it was hashed, as ``git`` takes its index. The cache is kept beside the
install (``<prefix>/croupier-integrity.cache``) when it can be written there, and is only ever used to record the
software a journal was written with when nothing is verified: ``croupier verify`` and ``croupier run`` against a
manifest read every byte (docs/integrity.md).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Mapping
from typing import Any

from controller.integrity.software import Hashes, Item, sha256_of

CACHE_NAME = "croupier-integrity.cache"
FORMAT = 1


def cache_path() -> str:
    """Where the install keeps its known hashes."""
    return os.path.join(sys.prefix, CACHE_NAME)


def _stamp(location: str) -> list[int]:
    stat = os.stat(location)
    return [stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]


class KnownHashes(Hashes):
    """:class:`~controller.integrity.software.Hashes` that reads again only the files that changed."""

    def __init__(self, path: str | None = None) -> None:
        super().__init__()
        self.path = path or cache_path()
        self.files: dict[str, list[Any]] = {}
        self.good_caches: dict[str, str] = {}
        self.records: dict[str, list[Any]] = {}
        self.described: dict[str, list[Any]] = {}
        self._asked: set[str] = set()
        self.changed = False
        try:
            with open(self.path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            return
        if isinstance(data, dict) and data.get("format") == FORMAT:
            files, good = data.get("files"), data.get("good_caches")
            records, described = data.get("records"), data.get("described")
            self.files = files if isinstance(files, dict) else {}
            self.good_caches = good if isinstance(good, dict) else {}
            self.records = records if isinstance(records, dict) else {}
            self.described = described if isinstance(described, dict) else {}

    def digest(self, location: str) -> str:
        return self.read(location, self._known_digest)

    def _known_digest(self, location: str) -> str:
        stamp = _stamp(location)
        known = self.files.get(location)
        if isinstance(known, list) and known[:-1] == stamp and isinstance(known[-1], str):
            return known[-1]
        digest = sha256_of(location)
        if _stamp(location) == stamp:  # not changed while it was read
            self.files[location] = [*stamp, digest]
            self.changed = True
        return digest

    def recorded_before(self, key: str) -> list[Item] | None:
        """The items kept for the RECORD ``key`` while each file is as it was hashed then, with the same hash."""
        self._asked.add(key)
        kept = self.records.get(key)
        if not isinstance(kept, list):
            return None
        files = self.files
        items: list[Item] = []
        try:
            for name, location, digest in kept:
                known = files.get(location)
                if not isinstance(known, list) or known[-1] != digest or known[:-1] != _stamp(location):
                    return None
                items.append(Item(name, location, digest))
        except (OSError, TypeError, ValueError):
            return None
        return items

    def keep_recorded(self, key: str, items: list[Item]) -> None:
        kept = [[item.path, item.location, item.digest] for item in items]
        if self.records.get(key) != kept:
            self.records[key] = kept
            self.changed = True

    def described_before(self, key: str) -> tuple[str, list[str]] | None:
        kept = self.described.get(key)
        if (isinstance(kept, list) and len(kept) == 2 and isinstance(kept[0], str) and isinstance(kept[1], list)
                and all(isinstance(text, str) for text in kept[1])):
            return kept[0], list(kept[1])
        return None

    def keep_described(self, key: str, version: str, requires: list[str]) -> None:
        if self.described.get(key) != [version, requires]:
            self.described[key] = [version, requires]
            self.changed = True

    def caches_good(self, good: Mapping[str, str]) -> None:
        if good != self.good_caches:
            self.good_caches = dict(good)
            self.changed = True

    def save(self) -> None:
        """Keep what was learnt, when the install's folder can be written (else nothing is kept); the RECORDs of
        distributions no longer surveyed (upgraded, removed) are forgotten."""
        gone = [key for key in self.records if key not in self._asked]
        for key in gone:
            del self.records[key]
        if not self.changed and not gone:
            return
        folder = os.path.dirname(self.path)
        with contextlib.suppress(OSError):
            handle, draft = tempfile.mkstemp(prefix=".croupier-integrity.", dir=folder)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    json.dump({"format": FORMAT, "files": self.files, "good_caches": self.good_caches,
                               "records": self.records, "described": self.described}, out)
                os.replace(draft, self.path)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(draft)

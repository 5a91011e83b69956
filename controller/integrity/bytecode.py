"""The bytecode caches of the project's modules: verified against their sources, not signed.

``.ci/setup`` compiles every module (``__pycache__/*.pyc``) and the interpreter writes them again whenever a source
changes, so their bytes are no stable part of a signature. What matters is that a cache the interpreter would load
instead of compiling the source holds exactly the source's code: a cache edited with its header kept (the
source's time and size) would run other code than the verified source says. So each cache of this interpreter
(its cache tag, every optimisation level) whose header makes the interpreter use it is read and compared, code
object by code object, with the source compiled here; one it would not use (stale, another interpreter's) is
harmless and passed over, as is a missing one (the interpreter compiles the verified source).
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import CodeType

from controller.i18n.message import Message, message

OPTIMISATIONS = {"": 0, ".opt-1": 1, ".opt-2": 2}
"""The cache file suffix of each optimisation level (``python -O``, ``-OO``) and the level."""
FLAG_HASH_BASED = 0b01
FLAG_CHECK_SOURCE = 0b10


@dataclass(frozen=True)
class BadCache:
    """A bytecode cache the interpreter would load that does not hold its source's code."""

    cache: str
    source: str
    why: Message


def caches_of(source: Path) -> list[tuple[Path, int]]:
    """The bytecode caches of ``source`` for this interpreter that exist, each with its optimisation level."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return []
    folder = source.parent / "__pycache__"
    found = []
    for suffix, level in OPTIMISATIONS.items():
        cache = folder / f"{source.stem}.{tag}{suffix}.pyc"
        if cache.is_file():
            found.append((cache, level))
    return found


def would_load(data: bytes, source: Path, source_bytes: bytes) -> bool:
    """Would the interpreter run cache ``data`` for ``source`` instead of compiling it (its magic number, and its
    timestamp and size, or the source's hash, match; an unchecked hash-based cache always runs)?"""
    if len(data) < 16 or data[:4] != importlib.util.MAGIC_NUMBER:
        return False
    flags = int.from_bytes(data[4:8], "little")
    if flags & FLAG_HASH_BASED:
        if not flags & FLAG_CHECK_SOURCE:
            return True
        return data[8:16] == importlib.util.source_hash(source_bytes)
    stat = os.stat(source)
    return (int.from_bytes(data[8:12], "little") == int(stat.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(data[12:16], "little") == stat.st_size & 0xFFFFFFFF)


def examine(cache: Path, level: int, source: Path, source_bytes: bytes) -> BadCache | bool:
    """Cache ``cache`` (optimisation ``level``) of ``source``: True when the interpreter would load it and it holds
    ``source_bytes``' code, False when the interpreter would not load it (harmless), else what is wrong."""
    try:
        data = cache.read_bytes()
    except OSError as error:
        return BadCache(str(cache), str(source), message("verify.cache.unreadable", "cannot be read ({reason})",
                                                         reason=error.strerror or str(error)))
    if not would_load(data, source, source_bytes):
        return False
    try:
        code = marshal.loads(data[16:])
    except (ValueError, EOFError, TypeError):
        return BadCache(str(cache), str(source), message("verify.cache.invalid", "is not valid bytecode"))
    try:
        expected = compile(source_bytes, str(source), "exec", dont_inherit=True, optimize=level)
    except (SyntaxError, ValueError):
        return BadCache(str(cache), str(source), message("verify.cache.no_source_code", "has code for a source "
                                                         "that does not compile"))
    if not isinstance(code, CodeType) or code != expected:
        return BadCache(str(cache), str(source), message("verify.cache.other_code", "does not hold its source's "
                                                         "code"))
    return True

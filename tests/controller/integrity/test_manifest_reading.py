"""A manifest or key path that names no manifest or key (a disk image, ``/dev/zero``: ``croupier verify --manifest
/dev/zero`` grew until the kernel killed it, and ``croupier run`` reads the manifest before it plays) is refused in
one line after reading at most a bounded amount, far more than a real one holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.exceptions import IntegrityError
from controller.integrity.manifest import Place, read_key, read_manifest


def sparse(path: Path, size: int) -> Path:
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


def test_a_manifest_far_longer_than_any_is_refused_unread(tmp_path: Path) -> None:
    manifest = sparse(tmp_path / "image.bin", 64 * 2**20 + 1)
    key = tmp_path / "manifest.key"
    key.write_text("ab" * 32 + "\n", encoding="ascii")
    with pytest.raises(IntegrityError) as refused:
        read_manifest(Place(str(manifest), str(key), required=True))
    assert str(refused.value) == (f"{manifest}: longer than 64 MiB, far more than a manifest holds: not a manifest; "
                                  "give the one croupier verify --write-manifest wrote")


def test_a_key_far_longer_than_any_is_refused_unread(tmp_path: Path) -> None:
    key = sparse(tmp_path / "image.bin", 64 * 2**10 + 1)
    with pytest.raises(IntegrityError) as refused:
        read_key(str(key))
    assert str(refused.value).startswith(f"{key}: not a manifest key (longer than 64 KiB); expected 32 bytes in hex")

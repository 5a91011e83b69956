"""A password file is read for its first line only, and that line has an end: a path that is no password file
(``/dev/zero``, a disk image) was read as one endless line, until the kernel killed the command, and a file of
binary zeros gave a password of thousands of NUL characters without a word."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.exceptions import FeedError
from controller.floor.urls import password_from_environment
from tests.inprocess import croupier_process


def zeros(path: Path, size: int = 8192) -> Path:
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


def test_a_broker_password_file_without_a_first_line_is_refused(tmp_path: Path) -> None:
    path = zeros(tmp_path / "image.bin")
    with pytest.raises(FeedError) as refused:
        password_from_environment("--broker", str(path))
    assert str(refused.value) == (f"--broker: the password file {str(path)!r} (--password-file) cannot be read (its "
                                  "first line is longer than 4096 characters); give a readable file whose first line "
                                  "is the password")


def test_a_page_password_file_without_a_first_line_is_refused(tmp_path: Path) -> None:
    path = zeros(tmp_path / "image.bin")
    run = croupier_process("floor", "--broker", "mqtt://127.0.0.1:1", "--listen", "127.0.0.1:0",
                           "--web-password-file", str(path), without="CROUPIER_")
    assert run.returncode == 2, run.stderr
    assert run.stderr == (f"croupier floor: --web-password-file {str(path)!r}: cannot be read (its first line is "
                          "longer than 4096 characters); give a readable file whose first line is the page's "
                          "password\n")

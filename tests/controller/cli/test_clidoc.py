"""Generating docs/cli.md leaves the process's environment as it found it: it set COLUMNS=100 for good, and
every later command in the same process (croupier roads, the transcript) fitted 100 columns."""

from __future__ import annotations

import os

import pytest

from controller.cli.clidoc import render


@pytest.mark.parametrize("columns", [None, "57"])
def test_render_gives_columns_back(monkeypatch: pytest.MonkeyPatch, columns: str | None) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert "croupier roads" in render()
    assert os.environ.get("COLUMNS") == columns

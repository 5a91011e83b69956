"""``croupier diagram`` draws a state machine people can read on a page (issue 28 item 14): the checked-in PNG
was 4133 px wide with 14 px labels, 3 px when a page shows it 1000 px wide."""

from __future__ import annotations

import re
import shutil
import struct
from pathlib import Path

import pytest

from controller.cli.diagram import dot
from controller.core.machine import build_machine, mermaid
from tests.inprocess import ROOT, croupier_in_process

PAGE = 1000
"""Pixels a documentation page gives a picture."""
LEGIBLE = 10
"""The smallest label, in pixels at :data:`PAGE` width."""


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def smallest_label(width: int) -> float:
    """The smallest font of the drawing, in pixels once the picture is shown :data:`PAGE` pixels wide (Graphviz
    draws a point as a pixel at its 72 dpi; 14 unless the drawing says otherwise)."""
    source = dot(mermaid(build_machine()))
    sizes = [float(size) for size in re.findall(r"fontsize=(\d+(?:\.\d+)?)", source)] or [14.0]
    if "dpi=" in source:
        pytest.fail("the drawing sets its own dpi: measure the labels another way")
    return min(sizes) * PAGE / width


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")
def test_the_drawing_is_legible_at_page_width(tmp_path: Path) -> None:
    done = croupier_in_process("diagram", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    width, height = png_size(tmp_path / "state-machine.png")
    assert smallest_label(width) >= LEGIBLE, (width, height)
    assert croupier_in_process("diagram", "--check", "--out", str(tmp_path)).returncode == 0


def test_the_checked_in_drawing_is_the_legible_one() -> None:
    width, _ = png_size(ROOT / "docs" / "state-machine.png")
    assert smallest_label(width) >= LEGIBLE, width

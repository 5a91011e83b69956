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


@pytest.mark.parametrize("blocked", ["state-machine.mmd", "state-machine.md"])
def test_a_file_that_cannot_be_written_in_out_is_refused_in_one_line(blocked: str, tmp_path: Path) -> None:
    """A file of --out that cannot be written (here a directory in its place; no permission is the same) stopped
    the command with a traceback: it is named in one line, with what to do (exit 2)."""
    (tmp_path / blocked).mkdir()
    run = croupier_in_process("diagram", "--out", str(tmp_path))
    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines()[-1] == (f"croupier diagram: --out {tmp_path}: cannot write {tmp_path / blocked} "
                                           "(Is a directory); give another --out DIR or free that path")
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")
def test_a_picture_graphviz_cannot_write_is_refused_in_one_line(tmp_path: Path) -> None:
    """Graphviz failing to write the PNG stopped the command with a traceback of its exit status (exit 1)."""
    (tmp_path / "state-machine.png").mkdir()
    run = croupier_in_process("diagram", "--out", str(tmp_path))
    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines()[-1].startswith(f"croupier diagram: --out {tmp_path}: Graphviz dot could not write "
                                                  f"{tmp_path / 'state-machine.png'} (exit status 1"), run.stderr
    assert run.stderr.splitlines()[-1].endswith("); give another --out DIR or free that path"), run.stderr
    assert "Traceback" not in run.stderr

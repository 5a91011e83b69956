"""Write one benchmark's section of docs/performance.md, keeping the others."""

from __future__ import annotations

import platform
import re
import time
from pathlib import Path

PERFORMANCE = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
HEADER = ("# Performance\n\nMeasured by the scripts in `benchmarks/` (`python -m benchmarks` runs them all); each "
          "section says the command that wrote it. Targets are checked here, never as timed assertions in tests. "
          "`python -m benchmarks --check` runs the benchmarks' own checks (`benchmarks/checks`: each benchmark "
          "measures what it says), which are not part of the test suite.\n")


def write_section(title: str, command: str, body: str) -> None:
    """Replace (or add) the ``## title`` section of docs/performance.md."""
    text = PERFORMANCE.read_text(encoding="utf-8") if PERFORMANCE.exists() else HEADER
    stamp = time.strftime("%Y-%m-%d")
    machine = f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}"
    section = f"## {title}\n\n`{command}` on {stamp} ({machine}):\n\n{body}\n"
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    found = pattern.search(text)
    text = pattern.sub(lambda _: section + "\n", text) if found else text.rstrip("\n") + "\n\n" + section
    PERFORMANCE.write_text(text.rstrip("\n") + "\n", encoding="utf-8")

"""The layers of the tree hold: import-linter's contracts in pyproject.toml."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept() -> None:
    run = subprocess.run([sys.executable, "-c", "import importlinter.cli as c; raise SystemExit(c.lint_imports())"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "BROKEN" not in run.stdout and "KEPT" in run.stdout, run.stdout


def test_the_suite_imports_nothing_from_the_benchmarks() -> None:
    """The benchmarks check themselves (``python -m benchmarks --check``); a change to one never reaches the suite."""
    imports = re.compile(r"^\s*(?:from|import)\s+benchmarks\b")
    found = [f"{path.relative_to(ROOT)}:{number}" for path in sorted((ROOT / "tests").rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if imports.match(line)]
    assert found == []

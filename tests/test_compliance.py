"""Issue 29 item 7: docs/compliance.md has one row per requirement id of the reference list
(docs/compliance-requirements.md), and every test a row names exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MATRIX = ROOT / "docs" / "compliance.md"
REFERENCE = ROOT / "docs" / "compliance-requirements.md"
SHARED_REFERENCE = ROOT.parent / "shared" / "reference" / "compliance-requirements.md"
NODE = re.compile(r"`(tests/[\w/]+\.py)::(\w+)(?:\[[^\]`]*\])?`")
PENDING = re.compile(r"\*\*PENDING \(issue 29 item \d\)\*\*")
WITHOUT_TESTS: frozenset[str] = frozenset()
"""Rows whose every part is pending elsewhere (none now): each must say what is pending."""


def reference_ids(path: Path) -> list[str]:
    return re.findall(r"^- ([A-Z]\d+):", path.read_text(encoding="utf-8"), flags=re.MULTILINE)


def rows() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in MATRIX.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.fullmatch(r"[A-Z]\d+", cells[0]):
            assert cells[0] not in found, f"{cells[0]} has two rows"
            assert len(cells) == 4, f"{cells[0]}: expected 4 cells (id, what, tests, out of scope), got {len(cells)}"
            found[cells[0]] = cells
    return found


def test_every_requirement_has_one_row_and_every_row_a_requirement() -> None:
    ids = reference_ids(REFERENCE)
    assert len(ids) == len(set(ids)) == 39, "R1-R5, L1-L9, E1-E7, V1-V7, S1-S3, C1-C4, D1-D2, K1-K2"
    assert sorted(rows()) == sorted(ids)


def test_the_reference_copy_lists_the_shared_reference_ids() -> None:
    if SHARED_REFERENCE.is_file():  # the project's shared reference, where a checkout sits beside it
        assert reference_ids(REFERENCE) == reference_ids(SHARED_REFERENCE)


def test_every_row_names_tests_that_exist() -> None:
    defined: dict[Path, set[str]] = {}
    for requirement, (_, what, tests, _) in rows().items():
        named = NODE.findall(tests)
        if requirement in WITHOUT_TESTS:
            assert PENDING.search(what), f"{requirement}: a row without tests must say what is pending"
        else:
            assert named, f"{requirement}: names no test"
        assert len(named) == tests.count("`") // 2, f"{requirement}: a test is not named as a pytest node id"
        for file, function in named:
            path = ROOT / file
            assert path.is_file(), f"{requirement}: {file} does not exist"
            if path not in defined:
                tree = ast.parse(path.read_text(encoding="utf-8"))
                defined[path] = {node.name for node in tree.body
                                 if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
            assert function in defined[path], f"{requirement}: {file}::{function} does not exist"

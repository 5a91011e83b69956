"""The documentation stays true to the code."""

from __future__ import annotations

import re
from pathlib import Path

from config.schema import SECTIONS
from controller.cli.clidoc import CLI_DOC, render

ROOT = Path(__file__).resolve().parents[1]


def test_cli_reference_is_current() -> None:
    assert CLI_DOC.read_text(encoding="utf-8") == render(), "run: python -m controller.cli.clidoc"


def test_every_config_key_is_documented() -> None:
    text = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    for section, cls in SECTIONS.items():
        assert f"`[{section}]`" in text
        for name in cls.model_fields:
            assert f"`{name}`" in text, f"[{section}] {name} missing from docs/config.md"


def test_every_misdeal_kind_is_documented() -> None:
    table_source = (ROOT / "controller" / "core" / "table.py").read_text(encoding="utf-8")
    kinds = set(re.findall(r'_raise_misdeal\(\s*events, "([a-z_]+)"', table_source))
    kinds |= set(re.findall(r'_raise_misdeal\(events, "([a-z_]+)"', table_source))
    assert {"extra_card", "unreadable_card", "unknown_card", "foreign_card"} <= kinds
    for doc in ("procedures.md", "events.md"):
        text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
        for kind in kinds:
            assert f"`{kind}`" in text, f"{kind} missing from docs/{doc}"


def test_readme_opens_with_the_two_commands() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    block = lines[lines.index("```sh") + 1:lines.index("```sh") + 3]
    assert block[0].startswith(".ci/croupier simulate")
    assert block[1].startswith(".ci/test")
    assert "exec" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ".ci/test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8") or \
        '"$(dirname "$0")/test"' in (ROOT / ".ci" / "run").read_text(encoding="utf-8")

"""The documentation stays true to the code."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from typing import cast

from config.schema import DEFAULT_SUPERVISOR_ONLY, SECTIONS, ProcedureSettings, keys_of
from controller.cli.clidoc import CLI_DOC, render
from controller.core.misdeals import POLICIES, needs_supervisor
from controller.terms import MisdealKind
from tests.inprocess import CROUPIER, ROOT


def test_cli_reference_is_current() -> None:
    assert CLI_DOC.read_text(encoding="utf-8") == render(), "run: python -m controller.cli.clidoc"


def test_every_config_key_is_documented() -> None:
    text = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    for section, cls in SECTIONS.items():
        assert f"`[{section}]`" in text
        for name in keys_of(cls):
            assert f"`{name}`" in text, f"[{section}] {name} missing from docs/config.md"


def test_every_misdeal_kind_is_documented() -> None:
    kinds = set(POLICIES)
    assert {"extra_card", "unreadable_card", "unknown_card", "foreign_card"} <= kinds
    for doc in ("procedures.md", "events.md"):
        text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
        for kind in kinds:
            assert f"`{kind}`" in text, f"{kind} missing from docs/{doc}"


def _dealing_error_table() -> dict[str, list[str]]:
    """docs/procedures.md's "Dealing errors" table: kind -> its cells (what happened, resolutions, source)."""
    text = (ROOT / "docs" / "procedures.md").read_text(encoding="utf-8")
    section = text.split("## Dealing errors", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    assert header == ["misdeal `kind`", "what happened", "resolutions (house default first)", "source"]
    rows = {}
    for line in lines[1:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = cells[1:]
    return rows


def _dealing_error_rows() -> dict[str, str]:
    """docs/procedures.md's "Dealing errors" table: kind -> its resolutions column."""
    return {kind: cells[1] for kind, cells in _dealing_error_table().items()}


def test_every_misdeal_policy_carries_its_source_as_the_docs_cite_it() -> None:
    table = _dealing_error_table()
    above = ""
    for kind, cells in table.items():
        cited = above if cells[2] == "as above" else cells[2]
        above = cited
        source = POLICIES[cast(MisdealKind, kind)].source
        assert source.strip(), f"{kind}: the policy names no source"
        assert cited == source, f"{kind}: docs/procedures.md cites {cited!r}, misdeals.POLICIES {source!r}"


def test_procedures_table_matches_the_misdeal_policy() -> None:
    rows = _dealing_error_rows()
    assert set(rows) == set(POLICIES), "docs/procedures.md lists other misdeal kinds than misdeals.POLICIES"
    known = {resolution for policy in POLICIES.values() for resolution in policy.resolutions}
    for kind, policy in POLICIES.items():
        column = rows[kind]
        alias = re.fullmatch(r"as `([a-z_]+)`", column)
        if alias:
            aliased = cast(MisdealKind, alias.group(1))
            assert POLICIES[aliased].resolutions == policy.resolutions, kind
            column = rows[aliased]
        named = [word for word in re.findall(r"`([a-z_]+)`", column) if word in known]
        assert tuple(dict.fromkeys(named)) == policy.resolutions, f"{kind}: docs say {named}"
        supervised = [r for r in policy.resolutions if needs_supervisor(r, kind, DEFAULT_SUPERVISOR_ONLY)]
        assert column.count("*supervisor*") == len(supervised), f"{kind}: supervisor-only {supervised}"
        default = getattr(ProcedureSettings(), policy.house_option) if policy.house_option else None
        assert default in (None, policy.resolutions[0]), f"{kind}: the house default comes first"


def test_readme_opens_with_the_two_commands() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    block = lines[lines.index("```sh") + 1:lines.index("```sh") + 3]
    assert block[0].startswith(".ci/croupier simulate")
    assert block[1].startswith(".ci/test")
    assert "exec" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ".ci/test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8") or \
        '"$(dirname "$0")/test"' in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_documented_shoe_script_is_shipped_and_deals() -> None:
    text = (ROOT / "docs" / "scripts.md").read_text(encoding="utf-8")
    block = text.split("`docs/shoes/misdeal-drill.txt`", 1)[1].split("```\n", 2)[1]
    script = ROOT / "docs" / "shoes" / "misdeal-drill.txt"
    assert script.read_text(encoding="utf-8") == block
    run = subprocess.run([*CROUPIER, "simulate", "--script", str(script), "--json"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines()]
    assert [e["winner"] for e in events if e["event"] == "result"] and any(
        e["event"] == "resolved" and e["resolution"] == "manual" for e in events)


def test_scripts_md_says_how_a_script_starts_its_shoes() -> None:
    """The first shoe is confirmed by the simulation; a later one only at the script's own ``@shoe``."""
    text = (ROOT / "docs" / "scripts.md").read_text(encoding="utf-8")
    block = text.split("## Shoes in a script", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]
    assert len(commands) == 3, commands
    outcomes = []
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] == "croupier"
        run = subprocess.run([*CROUPIER, *argv[1:]], capture_output=True, text=True,
                             cwd=ROOT, timeout=120)
        stream = [json.loads(line) for line in run.stdout.splitlines()]
        misdeals = [e["kind"] for e in stream if e["event"] == "misdeal"]
        outcomes.append((run.returncode, [e["shoe"] for e in stream if e["event"] == "result"], misdeals[:1]))
    assert outcomes == [(0, [1, 2], []), (4, [1], ["card_after_shoe_closed"]), (0, [1], [])]


def test_readme_says_what_croupier_is_and_shows_it_before_the_commands() -> None:
    """Issue 28 item 15: a newcomer reads what Croupier is and sees the console and the board first, then the two
    commands; the easiest live table and how to stop the emulator come before any contributor's detail."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    before, _, after = text.partition("```sh\n.ci/croupier simulate")
    assert "controller for a live Punto Banco (baccarat) table" in before
    pictures = re.findall(r"!\[[^\]]+\]\((docs/[\w./-]+\.png)\)", before)
    assert len(pictures) == 2, pictures
    for picture in pictures:
        data = (ROOT / picture).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, picture
    assert (ROOT / "docs" / "screenshots.py").is_file()  # what draws them
    live = after.index(".ci/croupier run")
    assert "mock" in after[live - 400:live + 400]
    assert "kill %1" in after  # how to stop a shoe emulator started with &
    contributor = min(after.index(word) for word in (".ci/test --fast", "CI runs", "docs/testing.md"))
    assert live < contributor and after.index("kill %1") < contributor
    assert "pip install 'croupier[" not in text

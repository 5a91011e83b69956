"""Issue 29 item 1 (V1-V6): ``croupier verify`` signs what runs and checks it against its signed manifest; ``--seed``
gives the GAT-style HMAC; ``croupier run`` refuses to play software that does not match, and journals it; every
journal records the software, and a change of it between two runs is journaled.

Each test runs ``croupier`` from a copy of the project's packages (``PYTHONPATH``), so that its files can be changed
without touching the checkout the other tests run from."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import marshal
import os
import py_compile
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.journals import record_bodies

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("controller", "drivers", "config")
SEED = "00112233445566778899aabbccddeeff"
SIGNATURE = re.compile(r"\bsignature ([0-9a-f]{64})\b")
DEADLINE = 300


@dataclass
class Copy:
    """The project's packages copied to ``src``, with a manifest place of its own."""

    root: Path
    src: Path
    manifest: Path

    def env(self, **more: str) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(self.src), "CROUPIER_INTEGRITY_MANIFEST": str(self.manifest),
                **more}

    def croupier(self, *args: str, **more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                              cwd=self.root, env=self.env(**more), timeout=DEADLINE)


def copy_of(tmp_path: Path) -> Copy:
    src = tmp_path / "src"
    for name in PACKAGES:
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    return Copy(tmp_path, src, tmp_path / "manifest.json")


def approved(tmp_path: Path) -> Copy:
    copy = copy_of(tmp_path)
    written = copy.croupier("verify", "--write-manifest")
    assert written.returncode == 0, written.stdout + written.stderr
    assert copy.manifest.is_file() and (tmp_path / "manifest.key").is_file()
    assert (tmp_path / "manifest.key").stat().st_mode & 0o077 == 0, "the key is its owner's only"
    return copy


def flip(path: Path, offset: int = 0) -> bytes:
    data = path.read_bytes()
    changed = bytearray(data)
    changed[offset] ^= 0x01
    path.write_bytes(bytes(changed))
    return data


def signature_of(output: str) -> str:
    found = SIGNATURE.search(output)
    assert found is not None, output
    return found.group(1)


def test_a_fresh_copy_verifies_and_any_changed_byte_is_named(tmp_path: Path) -> None:
    copy = approved(tmp_path)
    fresh = copy.croupier("verify")
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    first = fresh.stdout.splitlines()[0]
    assert "matches the manifest" in first
    signature = signature_of(first)
    for name in ("controller/core/rules.py", "config/default.toml", "controller/core/bets/exact_tables.bin",
                 "controller/i18n/locales/ko.po"):
        target = copy.src / name
        original = flip(target, offset=len(target.read_bytes()) // 2)
        changed = copy.croupier("verify")
        assert changed.returncode == 1, changed.stdout
        assert f"{target}: changed since the manifest was written" in changed.stdout, changed.stdout
        assert signature_of(changed.stdout) != signature
        target.write_bytes(original)
    assert signature_of(copy.croupier("verify").stdout) == signature


def test_an_added_or_removed_project_file_is_named(tmp_path: Path) -> None:
    copy = approved(tmp_path)
    extra = copy.src / "controller" / "core" / "sitecustomize.py"
    extra.write_text("print('hello')\n", encoding="utf-8")
    added = copy.croupier("verify")
    assert added.returncode == 1 and f"{extra}: added since the manifest was written" in added.stdout
    extra.unlink()
    gone = copy.src / "drivers" / "serial" / "profiles" / "example-card-lines.toml"
    gone.unlink()
    missing = copy.croupier("verify")
    assert missing.returncode == 1 and f"{gone}: missing: the manifest lists it" in missing.stdout, missing.stdout


def test_bytecode_the_interpreter_would_run_must_hold_its_sources_code(tmp_path: Path) -> None:
    copy = copy_of(tmp_path)
    source = copy.src / "controller" / "core" / "rules.py"
    py_compile.compile(str(source), doraise=True)
    cache = Path(importlib.util.cache_from_source(str(source)))
    assert copy.croupier("verify", "--write-manifest").returncode == 0
    assert copy.croupier("verify").returncode == 0, "bytecode caches are not part of the signature"

    good = cache.read_bytes()
    forged = compile(source.read_text(encoding="utf-8").replace("frozenset({8, 9})", "frozenset({7, 8, 9})"),
                     str(source), "exec", dont_inherit=True)
    cache.write_bytes(good[:16] + marshal.dumps(forged))  # the header still matches the source: it would run
    tampered = copy.croupier("verify")
    assert tampered.returncode == 1, tampered.stdout
    assert f"{cache}: does not hold its source's code: the interpreter would run it instead of {source}" in \
        tampered.stdout

    stale = bytearray(good[:16] + marshal.dumps(forged))
    stale[8:12] = (int.from_bytes(stale[8:12], "little") ^ 1).to_bytes(4, "little")  # another source time
    cache.write_bytes(bytes(stale))
    assert copy.croupier("verify").returncode == 0, "a cache the interpreter would not use is harmless"


def test_the_manifest_is_signed(tmp_path: Path) -> None:
    copy = approved(tmp_path)
    body = json.loads(copy.manifest.read_text(encoding="utf-8"))
    body["components"]["croupier"]["files"]["controller/core/rules.py"][0] = "0" * 64
    copy.manifest.write_text(json.dumps(body), encoding="utf-8")
    edited = copy.croupier("verify")
    assert edited.returncode == 1
    assert "the manifest was edited, or signed with another key" in edited.stdout
    other = tmp_path / "other.key"
    other.write_text("ab" * 32 + "\n", encoding="utf-8")
    again = approved(tmp_path / "again")
    wrong = again.croupier("verify", "--key", str(other))
    assert wrong.returncode == 1 and "signed with another key" in wrong.stdout


def test_the_seeded_hmac(tmp_path: Path) -> None:
    copy = copy_of(tmp_path)
    first = copy.croupier("verify", "--seed", SEED)
    assert first.returncode == 0, first.stderr
    assert re.fullmatch(r"[0-9a-f]{64}\n", first.stdout)
    assert copy.croupier("verify", "--seed", SEED).stdout == first.stdout
    other = copy.croupier("verify", "--seed", "ff" + SEED[2:])
    assert other.stdout != first.stdout and re.fullmatch(r"[0-9a-f]{64}\n", other.stdout)
    flip(copy.src / "controller" / "core" / "rules.py", offset=100)
    assert copy.croupier("verify", "--seed", SEED).stdout != first.stdout
    bad = copy.croupier("verify", "--seed", "xyz")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--seed 'xyz': expected" in bad.stderr


def start_body(path: Path) -> dict[str, Any]:
    connection = sqlite3.connect(path)
    try:
        (body,) = connection.execute("SELECT body FROM records WHERE kind = 'start'").fetchone()
    finally:
        connection.close()
    result: dict[str, Any] = json.loads(body)
    return result




def test_run_verifies_before_it_plays_and_journals_the_fault(tmp_path: Path) -> None:
    copy = approved(tmp_path)
    journal = tmp_path / "table.journal"
    run = ("run", "--driver", "mock://?seed=3", "--auto-next", "--rounds", "1", "--json", "--no-keyboard",
           "--journal", str(journal))
    played = copy.croupier(*run)
    assert played.returncode == 0, played.stderr
    software = start_body(journal)["software"]
    assert software["manifest"] == "verified" and software["version"]
    assert software["signature"] == signature_of(copy.croupier("verify").stdout)

    target = copy.src / "controller" / "core" / "rules.py"
    flip(target, offset=50)
    second = tmp_path / "second.journal"
    refused = copy.croupier(*run[:-1], str(second))
    assert refused.returncode == 5, refused.stderr
    lines = refused.stderr.splitlines()
    assert len(lines) == 1 and str(target) in lines[0] and "play is disabled" in lines[0], refused.stderr
    assert refused.stdout == "", "nothing was dealt"
    kinds = [kind for kind, _ in record_bodies(second)]
    assert kinds == ["header", "start", "note"]
    note = record_bodies(second)[-1][1]
    assert note["note"] == "integrity_failed" and any(str(target) in problem for problem in note["problems"])
    assert note["software"]["manifest"] == "failed"
    history = copy.croupier("history", str(second))
    assert "software failed its verification" in history.stdout, history.stdout


def test_a_manifest_named_in_the_config_must_be_there(tmp_path: Path) -> None:
    copy = copy_of(tmp_path)
    refused = copy.croupier("run", "--driver", "mock://?seed=3", "--auto-next", "--rounds", "1", "--no-keyboard",
                            "--json")
    assert refused.returncode == 5 and f"{copy.manifest}: no manifest there" in refused.stderr, refused.stderr


def software_notes(journal: Path) -> list[dict[str, Any]]:
    """The journal's notes on its software (each restart has a ``resumed`` note of its own: test_notes.py)."""
    return [body for kind, body in record_bodies(journal) if kind == "note" and body["note"] != "resumed"]


def test_every_journal_records_the_software_and_a_change_of_it_is_journaled(tmp_path: Path) -> None:
    copy = copy_of(tmp_path)
    journal = tmp_path / "sim.journal"
    simulate = ("simulate", "--seed", "4", "--rounds", "3", "--quiet", "--journal", str(journal))
    first = copy.croupier(*simulate, CROUPIER_INTEGRITY_MANIFEST="none")
    assert first.returncode == 0, first.stderr
    software = start_body(journal)["software"]
    assert software["manifest"] == "none"
    verified = copy.croupier("verify", CROUPIER_INTEGRITY_MANIFEST="none")
    assert software["signature"] == signature_of(verified.stdout), "the journal's signature is verify's"

    again = copy.croupier(*simulate, CROUPIER_INTEGRITY_MANIFEST="none")
    assert again.returncode == 0 and software_notes(journal) == [], "same software"

    (copy.src / "controller" / "core" / "notes.txt").write_text("an added file\n", encoding="utf-8")
    upgraded = copy.croupier(*simulate, CROUPIER_INTEGRITY_MANIFEST="none")
    assert upgraded.returncode == 0, upgraded.stderr
    notes = software_notes(journal)
    assert len(notes) == 1
    (note,) = notes
    assert note["note"] == "software_changed"
    assert note["previous"]["signature"] == software["signature"]
    assert [change["component"] for change in note["changed"]] == ["croupier"]
    history = copy.croupier("history", str(journal), CROUPIER_INTEGRITY_MANIFEST="none")
    assert "software changed" in history.stdout and "croupier" in history.stdout
    audit = copy.croupier("audit", "verify", str(journal), "--replay", CROUPIER_INTEGRITY_MANIFEST="none")
    assert audit.returncode == 0, audit.stdout


def test_the_signature_is_the_same_from_the_checkout_and_from_elsewhere(tmp_path: Path) -> None:
    """A checkout holds pip's croupier.egg-info (no RECORD): run from there (``python -m``, pytest) the interpreter
    finds it before the installed distribution. The survey reads what is installed, wherever it is run from."""
    launcher = Path(sys.executable).parent / "croupier"
    if not launcher.is_file():
        pytest.skip("an install without the croupier launcher beside the interpreter")
    env = {**os.environ, "CROUPIER_INTEGRITY_MANIFEST": "none"}
    lines = []
    for command, cwd in (([str(launcher)], tmp_path), ([sys.executable, "-m", "controller.cli"], ROOT)):
        done = subprocess.run([*command, "verify"], capture_output=True, text=True, cwd=cwd, env=env, timeout=DEADLINE)
        assert done.returncode == 0, done.stdout + done.stderr
        lines.append(signature_of(done.stdout))
    assert lines[0] == lines[1]


@pytest.mark.parametrize("kind", ["directory", "missing directory"])
def test_a_manifest_that_cannot_be_written_is_one_line_and_leaves_no_draft(tmp_path: Path, kind: str) -> None:
    """--write-manifest --manifest DIR (a directory) ended in a traceback (exit 1) from the rename of its draft."""
    copy = copy_of(tmp_path)
    place = tmp_path / "approved"
    if kind == "directory":
        place.mkdir()
    else:
        place = place / "manifest.json"
    before = sorted(path.name for path in tmp_path.iterdir())
    written = copy.croupier("verify", "--write-manifest", "--manifest", str(place), "--key", str(tmp_path / "k"))
    assert written.returncode == 2, written.stdout + written.stderr
    assert "Traceback" not in written.stderr
    (line,) = written.stderr.strip().splitlines()
    assert line.startswith("croupier verify: ") and str(place) in line
    assert sorted(path.name for path in tmp_path.iterdir() if path.name != "k") == before, "no draft is left"


@contextlib.contextmanager
def unwritable_directory(where: Path) -> Iterator[Path]:
    """A directory this user may not write in: its mode for a user, a read-only tmpfs for root (whom modes do not
    stop)."""
    where.mkdir()
    if os.geteuid() != 0:
        where.chmod(0o555)
        try:
            yield where
        finally:
            where.chmod(0o755)
        return
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(where)], capture_output=True,
                             timeout=30) if shutil.which("mount") else None
    if mounted is None or mounted.returncode != 0:
        pytest.skip("root, and no read-only tmpfs can be mounted here: the missing-directory cases cover the message")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=30)


@pytest.mark.parametrize("what", ["manifest", "key"])
@pytest.mark.parametrize("kind", ["unwritable directory", "missing directory"])
def test_a_manifest_or_key_that_cannot_be_written_names_the_path_the_reason_and_what_to_do(
        tmp_path: Path, what: str, kind: str) -> None:
    """The manifest (or its key) in a directory that cannot be written in: one line naming the file, why, and the
    option that puts it elsewhere; exit 2 (a bad argument); nothing approved, no key made for a manifest not
    written."""
    copy = copy_of(tmp_path)
    with contextlib.ExitStack() as stack:
        folder = (stack.enter_context(unwritable_directory(tmp_path / "locked")) if kind == "unwritable directory"
                  else tmp_path / "missing")
        manifest = folder / "manifest.json" if what == "manifest" else tmp_path / "manifest.json"
        key = folder / "manifest.key" if what == "key" else tmp_path / "approved.key"
        written = copy.croupier("verify", "--write-manifest", "--manifest", str(manifest), "--key", str(key))
    assert written.returncode == 2, written.stdout + written.stderr
    (line,) = written.stderr.strip().splitlines()
    named = manifest if what == "manifest" else key
    assert line.startswith("croupier verify: ") and str(named) in line, line
    reason = "No such file or directory" if kind == "missing directory" else ("Permission denied", "Read-only")
    assert any(words in line for words in ((reason,) if isinstance(reason, str) else reason)), line
    option = "--manifest PATH" if what == "manifest" else "--key FILE"
    assert option in line and "croupier verify --write-manifest again" in line, line
    assert ("the manifest is not written" if what == "key" else "nothing is approved") in line, line
    assert not manifest.exists() and not key.exists(), "nothing is written: no manifest, no key"

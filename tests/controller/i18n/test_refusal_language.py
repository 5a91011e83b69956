"""Badge and approval refusals (``sign_in_refused``, ``approval_refused``, ``approval_cancelled``): ``reason``
stays English, ``say`` (worded from ``say_id``) follows the table's language on the console, the stream and
``history``."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, cast

import pytest

from config.loader import load_config
from controller.cli.history_text import approval_line
from controller.core.auth import Authority, settings_from_dict
from controller.core.events import ApprovalRefusedEvent, Event
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.table import Table
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.ui.localise import Localiser
from controller.ui.tableview import TableView
from tests.badges import auth_section

ALICE, BOB, STRANGER = "04A1B2C3D4E5F6", "04B0B0B0B0B0B0", "04FFFFFFFFFFFF"
BADGES = auth_section(ALICE, BOB)
ENGLISH_WORD = re.compile(r"\b(badge|role|cannot|approve|signed|misdeal|pending|person)\b", re.IGNORECASE)
NO_ENGLISH = {"ko": ENGLISH_WORD, "zh_Hant": ENGLISH_WORD, "ja": ENGLISH_WORD}
KEY_TERM = {"ko": "배지", "zh_Hant": "識別證", "ja": "バッジ"}


def refusals() -> list[Event]:
    """Every refusal and cancellation the core words: unknown badge, wrong role, own approval, sign-out, lapse."""
    authority = Authority(settings_from_dict(tomllib.loads(BADGES)["auth"]), lambda: 1000.0)
    found: list[Event] = [*authority.sign_in(STRANGER)]
    found += authority.approve(STRANGER, "void")[1] + authority.approve(ALICE, "void")[1]
    authority.sign_in(BOB)
    found += authority.approve(BOB, "void")[1]
    return found


def cancelled(tmp_path: Path) -> list[Event]:
    config = tmp_path / "auth.toml"
    config.write_text('[shoe]\nburn = "none"\n' + BADGES, encoding="utf-8")
    table = Table(load_config(config, environ={}))
    table.start()
    for item in parse_tokens(f"@badge {ALICE} @shoe 3S @double @void"):
        table.handle(item)
    return [e for e in table.handle(Input(InputKind.SIGN_OUT, "signed out")) if e["event"] == "approval_cancelled"]


def test_english_is_unchanged_and_every_refusal_has_an_id(tmp_path: Path) -> None:
    events = refusals() + cancelled(tmp_path)
    assert [cast(dict[str, Any], e)["reason"] for e in events] == [
        "unknown badge", "unknown badge", "role dealer cannot approve void",
        "Bob Stone is the dealer signed in and cannot approve their own void; a second person's badge must "
        "approve it", "the dealer signed out"]
    for event in events:
        raw = cast(dict[str, Any], event)
        assert raw["say"] == raw["reason"] and raw["say_id"] and ENGLISH.english_text(raw["say_id"]) is not None
        assert Localiser(ENGLISH).event(event) == event


@pytest.mark.parametrize("lang", ["ko", "zh_Hant", "ja"])
def test_the_say_follows_the_language_and_the_reason_stays(lang: str, tmp_path: Path) -> None:
    localiser = Localiser(Catalogue(lang))
    for event in refusals() + cancelled(tmp_path):
        worded = cast(dict[str, Any], localiser.event(event))
        english = cast(dict[str, Any], event)
        assert worded["reason"] == english["reason"] and worded["say_id"] == english["say_id"]
        assert worded["say"] != english["say"]
        assert not NO_ENGLISH[lang].search(worded["say"]), worded["say"]
    unknown = cast(dict[str, Any], localiser.event(refusals()[0]))
    assert KEY_TERM[lang] in unknown["say"]


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_console_and_history_show_the_refusal_in_the_language(lang: str) -> None:
    words = Catalogue(lang)
    role_refused = cast(ApprovalRefusedEvent, refusals()[2])
    line = approval_line(role_refused, words)
    assert "void" in line and "dealer" in line  # the action and role stay machine words
    assert "cannot approve" not in line and "refused" not in line
    assert approval_line(role_refused, ENGLISH) == "void refused (role dealer cannot approve void)"
    view = TableView()
    view.apply(cast(Any, Localiser(words).event(refusals()[0])))
    assert view.rejected is not None and KEY_TERM[lang] in view.rejected

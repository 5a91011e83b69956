"""The event vocabulary (controller/core/events.py) against its documentation and against what runs emit."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import msgspec
import pytest

from controller.core.events import (
    BADGE_WATCH_TYPES,
    BY_NAME,
    EVENT_TYPES,
    EventShapeError,
    RejectedEvent,
    decode_event,
    encode_line,
    encode_lines,
    event_names,
)
from tests.badges import auth_section
from tests.inprocess import croupier_in_process
from tests.typed_events import plain

ROOT = Path(__file__).resolve().parents[3]
EVENTS_DOC = (ROOT / "docs" / "events.md").read_text(encoding="utf-8")
ROW = re.compile(r"^\| `([a-z_]+)` \|(.*)$", re.MULTILINE)


def doc_rows() -> dict[str, str]:
    """Each event row of docs/events.md's tables: name -> the rest of the row."""
    return {name: rest for name, rest in ROW.findall(EVENTS_DOC)}


def fields_of(event_type: type) -> set[str]:
    return {field.name for field in msgspec.structs.fields(event_type)} - {"event"}


def test_every_event_type_has_a_row_naming_each_of_its_fields() -> None:
    rows = doc_rows()
    for event_type in EVENT_TYPES:
        for name in event_names(event_type):
            assert name in rows, f"docs/events.md has no row for {name} ({event_type.__name__})"
            missing = [field for field in sorted(fields_of(event_type))
                       if not re.search(rf"`{field}\b", rows[name])]
            assert not missing, f"docs/events.md row {name} does not name {', '.join(missing)}"


def test_every_documented_event_has_a_type() -> None:
    rows = doc_rows()
    assert len(rows) >= 20
    assert sorted(set(rows) - set(BY_NAME)) == []
    assert sorted(set(BY_NAME) - set(rows)) == []


def test_badge_watch_events_are_those_docs_pcsc_shows() -> None:
    pcsc = (ROOT / "docs" / "pcsc.md").read_text(encoding="utf-8")
    for event_type in BADGE_WATCH_TYPES:
        for name in event_names(event_type):
            example = re.search(rf'\{{"event": "{name}"[^}}]*\}}', pcsc)
            assert example is not None, f"docs/pcsc.md shows no {name} event"
            shown = set(re.findall(r'"([a-z_]+)":', example.group(0))) - {"event"}
            assert shown == fields_of(event_type), name


# -- what runs emit ---------------------------------------------------------------

AUTH_CONFIG = """[shoe]
burn = "none"

""" + auth_section("04A1B2C3D4E5F6", "04B0B0B0B0B0B0")
MISDEALS = ("3S ?? @manual 9C 5H 9D XX @burn 4H 2D @exposed @use 7C 8C 9H @double @void @offline @online "
            "2H 3D 4S 5C 6H 7S ZZ ?? @void KH KS KC @cut QH QD 2S 3D @next")
CLOSE_EARLY = "3S 9H 5D 6C @next 7H 8D 2S TC @close @shoe 5H 2C 3D 4S 6C 7H 9S 8D KD 2H"
BADGES = ("@badge FFFF @badge 04A1B2C3D4E5F6 @shoe 3S ?? @manual 4D @badge 04A1B2C3D4E5F6 "
          "@badge 04B0B0B0B0B0B0 5H 2D 9C @double @void @badge 04B0B0B0B0B0B0 @next 2S @offline @void @online "
          "3C 4C 5C 6C @close @badge 04B0B0B0B0B0B0 @badge_removed @badge 04A1B2C3D4E5F6 @sign_out")

NEW_DECK_ORDER = " ".join(rank + "S" for rank in "A23456789TJQK")
UNDO = "3S ?? @manual 9C @undo @manual 9D 5H @exposed @undo 4D @undo"
STUB_COUNT = "9S KD TH 2C @next 9S KD TH 2C @count 1 @count 408 @next 9S KD TH 2C @next 9S KD TH 2C @count 9 @close"
"""With ``[procedures] count_every = 2``: a count that differs, a recount that matches, and the shoe closed on one."""
ALERTS = f"{NEW_DECK_ORDER} @ack A1 @ack A1 2H 3H 4H 5H"


def simulate(*args: str, **env: str) -> list[dict[str, object]]:
    run = croupier_in_process("simulate", "--json", *args, env={**os.environ, **env} if env else None)
    assert run.returncode in (0, 3, 4), run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()]


def check_line(event: dict[str, object]) -> None:
    """A line of the stream is an event of its declared type: its required fields there, no undeclared field,
    each of its type (:mod:`msgspec` checks), in the declared order (it encodes back to the same object)."""
    name = event["event"]
    assert isinstance(name, str) and name in BY_NAME, f"undeclared event {event}"
    event_type = BY_NAME[name]
    declared = msgspec.structs.fields(event_type)
    required = {field.name for field in declared if field.required}
    assert required <= event.keys(), f"{name}: missing {sorted(required - event.keys())}"
    assert event.keys() - {"event"} <= set(fields_of(event_type)), \
        f"{name}: undeclared {sorted(event.keys() - set(fields_of(event_type)) - {'event'})}"
    decoded = decode_event(event)
    assert isinstance(decoded, event_type)
    assert json.dumps(decoded.to_dict()) == json.dumps(event), "encodes back to the same object, in order"


@pytest.fixture(scope="module")
def emitted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, object]]]:
    config = tmp_path_factory.mktemp("auth") / "auth.toml"
    config.write_text(AUTH_CONFIG, encoding="utf-8")
    face_down = config.parent / "face_down.toml"
    face_down.write_text('[table]\ndealing = "face_down"\n', encoding="utf-8")
    return {
        "seeded": simulate("--seed", "42", "--rounds", "400"),
        "misdeals": simulate("--no-burn", "--cards", MISDEALS),
        "close early": simulate("--no-burn", "--manual-next", "--cards", CLOSE_EARLY),
        "badges": simulate("--config", str(config), "--manual-next", "--cards", BADGES),
        "face down": simulate("--config", str(face_down), "--seed", "42", "--rounds", "30"),
        "alerts": simulate("--no-burn", "--cards", ALERTS),
        "advantages": simulate("--seed", "42", "--rounds", "300", CROUPIER_BETS_ALERT_ABOVE="0"),
        "undo": simulate("--no-burn", "--cards", UNDO),
        "live": live_run(),
        "stub count": simulate("--no-burn", "--manual-next", "--cards", STUB_COUNT,
                               CROUPIER_PROCEDURES_COUNT_EVERY="2"),
    }


def live_run() -> list[dict[str, object]]:
    """A live table (``run``): it also journals the host clock's readings."""
    run = croupier_in_process("run", "--driver", "mock://?seed=3", "--auto-next", "--rounds", "2", "--json",
                              "--no-keyboard")
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()]


def test_every_emitted_line_fits_its_declared_type(emitted: dict[str, list[dict[str, object]]]) -> None:
    for run, stream in emitted.items():
        assert stream, run
        for event in stream:
            check_line(event)


def test_the_runs_cover_most_of_the_vocabulary(emitted: dict[str, list[dict[str, object]]]) -> None:
    seen = {str(event["event"]) for stream in emitted.values() for event in stream}
    optional_seen = {(str(event["event"]), key) for stream in emitted.values() for event in stream for key in event}
    assert set(BY_NAME) - seen == set(), sorted(set(BY_NAME) - seen)
    for key in [("result", "dealer"), ("misdeal", "dealer"), ("resolved", "approved_by"), ("card", "manual"),
                ("card", "face_down"),
                ("burn", "turned"), ("shoe_closing", "reason"), ("approval", "by"), ("prompt", "undo"),
                ("instruction", "undo")]:
        assert key in optional_seen, key


def test_a_batch_is_encoded_as_the_lines_of_its_events(emitted: dict[str, list[dict[str, object]]]) -> None:
    """:func:`encode_lines` writes a batch at once: exactly each event's :func:`encode_line` and a newline, whatever
    the batch holds (floats :mod:`json` writes, texts outside ASCII, a text that reads like the start of an event)."""
    tricky = [RejectedEvent(input="@bogus", reason="carte refusée", say="refusée"),
              RejectedEvent(input="XX", reason='}, {"event": "card"}', say='}, {"event": ')]
    events = [decode_event(event) for stream in emitted.values() for event in stream] + tricky
    for size in (1, 2, 3, 7, 50):
        for start in range(0, len(events), size):
            batch = events[start:start + size]
            assert encode_lines(batch) == "".join(encode_line(event) + "\n" for event in batch)
    assert encode_lines(events) == "".join(encode_line(event) + "\n" for event in events)
    assert encode_lines([]) == ""


def test_a_malformed_event_is_refused_naming_the_field() -> None:
    good = {"event": "card", "round": 1, "slot": "P1", "card": "3S"}
    assert plain(decode_event(good)) == good
    assert decode_event({**good, "later": 1})["event"] == "card"  # a field a later version adds
    for bad, words in [
        ({**good, "card": 3}, "card event: Expected `str`, got `int` - at `$.card`"),
        ({**good, "round": True}, "card event: Expected `int`, got `bool` - at `$.round`"),
        ({"event": "card", "slot": "P1", "card": "3S"}, "card event: Object missing required field `round`"),
        ({"event": "dealt"}, "unknown event 'dealt'"),
        (["card"], "expected an object"),
        ({"event": "result", "round": 1, "shoe": 1, "winner": "nobody"}, "result event: Invalid enum value 'nobody'"),
        ({"event": "approval_refused", "action": "void", "uid": "04", "reason": "x", "rule": "one_person"},
         "approval_refused event: Invalid enum value 'one_person' - at `$.rule`"),
        ({"event": "settlement", "round": 1, "variant": "commission",
          "bets": {"player": {"outcome": "won", "net": "+1"}}},
         "settlement event: Invalid enum value 'won' - at `$.bets[...].outcome`"),
    ]:
        with pytest.raises(EventShapeError, match=re.escape(words)):
            decode_event(bad)

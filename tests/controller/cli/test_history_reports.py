"""croupier --version and croupier history: UTC times, alerts, shoe reports, a tampered round, the card export."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import subprocess
import tomllib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest

from controller.cli.history import History, Round
from controller.cli.history_text import write_text
from controller.core.cards import full_deck
from controller.core.events import AlertEvent, decode_as
from controller.i18n.catalogue import Catalogue
from controller.i18n.languages import LANGUAGES
from controller.journal.timeline import Timed
from tests.badges import auth_section
from tests.controller.journal.forger import rewrite_body
from tests.inprocess import CROUPIER, ROOT, croupier_in_process

NEW_DECK = " ".join(card.code for card in list(reversed(full_deck()))[:24])
"""Cards in reversed new-deck order: the unshuffled-shoe alert fires within a few cards (and, not being the
factory order, no sequence alert)."""
MISDEALS = ("5H 2C 3D 4S 6H 7C  9H 8D ?? @burn 2S 3C KH 4D  AS 2D 3H 4C 7S @exposed @use 6D  "
            "TH 9C ?? @manual QS JD  5C 8C 4H 9D  2C @exposed @burn 3C 4C 5C 6C  7D KH ?? @void @close")


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``croupier ARGV`` in this process: its status, stdout and stderr."""
    run = croupier_in_process(*argv)
    return run.returncode, run.stdout, run.stderr


def journal_of(tmp_path: Path, cards: str, *options: str) -> Path:
    path = tmp_path / "table.journal"
    status, _, err = run_cli("simulate", "--cards", cards, "--quiet", "--journal", str(path), *options)
    assert status in (0, 3), err
    return path


def is_utc_iso(text: str) -> bool:
    moment = datetime.fromisoformat(text)
    return moment.utcoffset() is not None and moment.utcoffset() == UTC.utcoffset(None) and "T" in text


def test_version_prints_the_version_and_exits_0() -> None:
    run = subprocess.run([*CROUPIER, "--version"], capture_output=True,
                         text=True, cwd=ROOT, timeout=120, check=False)
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"croupier {version}"


def test_history_json_has_the_alerts_and_a_utc_time_on_every_line(tmp_path: Path) -> None:
    path = journal_of(tmp_path, NEW_DECK, "--no-burn")
    status, out, _ = run_cli("history", str(path), "--json")
    assert status == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines and all(is_utc_iso(line["at"]) for line in lines)
    assert [list(line)[-1] for line in lines] == ["at"] * len(lines)  # the event's own fields come first
    alerts = [line for line in lines if line["event"] == "alert"]
    assert len(alerts) == 1 and alerts[0]["kind"] == "unshuffled_shoe"
    times = [line["at"] for line in lines]
    assert times == sorted(times)


def test_history_text_and_csv_list_the_open_alert(tmp_path: Path) -> None:
    path = journal_of(tmp_path, NEW_DECK, "--no-burn")
    status, text, _ = run_cli("history", str(path))
    assert status == 0
    assert "ALERT unshuffled_shoe" in text and "[OPEN]" in text
    assert "1 alert(s), 1 open" in text and "OPEN ALERT shoe 1 round 1" in text
    status, out, _ = run_cli("history", str(path), "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows[0]["alerts"].startswith("unshuffled_shoe") and "[OPEN]" in rows[0]["alerts"]
    assert all(row["alerts"] == "" for row in rows[1:])
    assert all(is_utc_iso(row["at"]) for row in rows)


def test_an_acknowledged_alert_is_shown_with_who_and_when() -> None:
    alert_with_id = decode_as({"event": "alert", "id": "A1", "kind": "unshuffled_shoe", "severity": "critical",
                                 "shoe": 1, "round": 2, "probability": 1e-9, "threshold": 1e-6,
                                 "detail": "the shoe looks unshuffled"}, AlertEvent)
    open_one: Any = msgspec.structs.replace(alert_with_id, id="A2", round=3)
    acknowledged: Any = {"event": "alert_acknowledged", "id": "A1", "kind": "unshuffled_shoe",
                         "by": "Bob Stone", "round": 2}
    found = History([Round(1, 2, at="2026-12-01T10:00:00.000000Z", alerts=[alert_with_id]),
                     Round(1, 3, at="2026-12-01T10:01:00.000000Z", alerts=[open_one])],
                    acknowledged={"A1": Timed(9, "2026-12-01T10:02:03.000000Z", acknowledged)})
    stream = io.StringIO()
    write_text(found, stream)
    text = stream.getvalue()
    assert "ALERT unshuffled_shoe A1 critical [acknowledged by Bob Stone at 2026-12-01T10:02:03.000000Z]" in text
    assert "2 alert(s), 1 open" in text
    assert "OPEN ALERT shoe 1 round 3: unshuffled_shoe A2 critical [OPEN]" in text
    assert "OPEN ALERT shoe 1 round 2" not in text


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_alert_acknowledged_without_badges_says_when_not_by_whom(language: str) -> None:
    alert = decode_as({"event": "alert", "id": "A1", "kind": "unshuffled_shoe", "severity": "critical",
                       "shoe": 1, "round": 2, "probability": 1e-9, "threshold": 1e-6, "detail": "unshuffled"},
                      AlertEvent)
    acknowledged: Any = {"event": "alert_acknowledged", "id": "A1", "kind": "unshuffled_shoe", "round": 2}
    at = "2026-12-01T10:02:03.000000Z"
    found = History([Round(1, 2, at="2026-12-01T10:00:00.000000Z", alerts=[alert])],
                    acknowledged={"A1": Timed(9, at, acknowledged)})
    stream = io.StringIO()
    words = Catalogue(language)
    write_text(found, stream, words)
    line = next(line for line in stream.getvalue().splitlines() if "unshuffled_shoe A1" in line)
    status = line[line.index("[") + 1:line.rindex("]")]
    assert status == words.say("history.alert_acknowledged_at", "acknowledged at {at}", at=at), line
    assert "?" not in status and at in status
    assert language != "en" or status == f"acknowledged at {at}"


def test_the_csv_says_when_an_alert_was_acknowledged_without_badges(tmp_path: Path) -> None:
    path = journal_of(tmp_path, NEW_DECK + " @ack A1", "--no-burn")
    status, out, _ = run_cli("history", str(path), "--csv")
    assert status == 0
    alerts = [row["alerts"] for row in csv.DictReader(io.StringIO(out)) if row["alerts"]]
    assert len(alerts) == 1 and "[acknowledged at 20" in alerts[0] and "by" not in alerts[0], alerts


BADGES = auth_section("AAAA01", "BBBB02")


def test_an_alert_acknowledged_with_a_badge_names_the_supervisor(tmp_path: Path) -> None:
    """The ``alert_acknowledged`` event gives the supervisor's badge UID; the text and the CSV name the supervisor,
    as their approvals do (docs/journal.md: ``[acknowledged by NAME at TIME]``)."""
    config = tmp_path / "badges.toml"
    config.write_text(BADGES)
    path = journal_of(tmp_path, "@badge AAAA01 " + NEW_DECK + " @ack A1 @badge BBBB02", "--no-burn",
                      "--config", str(config))
    status, out, _ = run_cli("history", str(path), "--csv")
    assert status == 0
    alerts = [row["alerts"] for row in csv.DictReader(io.StringIO(out)) if row["alerts"]]
    assert len(alerts) == 1 and "[acknowledged by Bob Stone at 20" in alerts[0], alerts
    status, out, _ = run_cli("history", str(path))
    assert status == 0 and "critical [acknowledged by Bob Stone at 20" in out, out
    assert "BBBB02" not in out


def shoe_closed(path: Path) -> dict[str, Any]:
    _, out, _ = run_cli("history", str(path), "--json")
    reports = [json.loads(line) for line in out.splitlines() if json.loads(line)["event"] == "shoe_closed"]
    assert len(reports) == 1
    report: dict[str, Any] = reports[0]
    return report


def test_history_text_gives_the_shoe_report(tmp_path: Path) -> None:
    path = journal_of(tmp_path, MISDEALS)
    report = shoe_closed(path)
    status, text, _ = run_cli("history", str(path))
    assert status == 0
    line = next(line for line in text.splitlines() if line.startswith("Shoe 1 closed at "))
    results = report["results"]
    assert (f"{report['rounds']} rounds: banker {results['banker']}, player {results['player']}, "
            f"tie {results['tie']}") in line
    assert f"misdeals {report['misdeals']}, voided {report['voided']}" in line
    assert (f"cards: {report['cards_seen']} out of the shoe ({report['dealt']} dealt, {report['burned']} burned, "
            f"{report['discarded']} discarded, {report['unidentified']} unread), "
            f"{report['cards_remaining']} left") in text


def test_cards_csv_has_one_row_per_card_out_of_the_shoe(tmp_path: Path) -> None:
    path = journal_of(tmp_path, MISDEALS)
    report = shoe_closed(path)
    status, out, _ = run_cli("history", str(path), "--cards", "--csv")
    assert status == 0
    assert out.splitlines()[0] == "shoe,position,at,slot,card,round,entry"
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == report["cards_seen"]
    assert [int(row["position"]) for row in rows] == list(range(1, len(rows) + 1))
    assert sum(row["slot"] == "burn" for row in rows) == report["burned"]
    assert sum(row["slot"] == "discard" for row in rows) == report["discarded"] + report["unidentified"]
    assert all(is_utc_iso(row["at"]) for row in rows)
    by_position = {int(row["position"]): row for row in rows}
    assert [by_position[n]["slot"] for n in range(1, 7)] == ["burn"] * 6
    assert (by_position[9]["card"], by_position[9]["slot"]) == ("??", "discard")  # unreadable, burned by @burn
    assert (by_position[18]["card"], by_position[18]["slot"]) == ("7S", "P3")  # exposed, then kept (@use)
    manual = [row for row in rows if row["entry"] == "manual"]
    assert [(row["card"], row["slot"], row["round"]) for row in manual] == [("QS", "P2", "3")]
    assert (by_position[28]["card"], by_position[28]["slot"]) == ("2C", "discard")  # exposed, taken back
    assert [(row["card"], row["slot"]) for row in rows[-3:]] == [("7D", "discard"), ("KH", "discard"),
                                                                 ("??", "discard")]  # the voided round
    dealt = {(row["round"], row["slot"]): row["card"] for row in rows if row["slot"][0] in "PB"}
    _, out, _ = run_cli("history", str(path), "--json")
    for result in (json.loads(line) for line in out.splitlines()):
        if result["event"] == "result":
            for side, letter in (("player", "P"), ("banker", "B")):
                for index, card in enumerate(result[side]["cards"], start=1):
                    assert dealt[(str(result["round"]), f"{letter}{index}")] == card


def _results_record(path: Path, round_number: int) -> int:
    connection = sqlite3.connect(path)
    try:
        for seq, body in connection.execute("SELECT seq, body FROM records WHERE kind = 'events' ORDER BY seq"):
            if any(event["event"] == "result" and event["round"] == round_number
                   for event in json.loads(body)["events"]):
                return int(seq)
    finally:
        connection.close()
    raise AssertionError(f"no result of round {round_number}")


def test_history_marks_the_tampered_round(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    run_cli("simulate", "--seed", "5", "--rounds", "6", "--quiet", "--journal", str(path))
    seq = _results_record(path, 3)
    connection = sqlite3.connect(path)
    body = connection.execute("SELECT body FROM records WHERE seq = ?", (seq,)).fetchone()[0]
    forged = json.loads(body)
    for event in forged["events"]:
        if event["event"] == "result":
            event["winner"] = "player" if event["winner"] != "player" else "banker"
    connection.execute("UPDATE records SET body = ? WHERE seq = ?", (json.dumps(forged), seq))
    connection.commit()
    connection.close()
    status, text, err = run_cli("history", str(path))
    assert status == 1 and f"record {seq}" in err
    marked = [line for line in text.splitlines() if "TAMPERED" in line]
    assert len(marked) == 1 and marked[0].startswith("  Round   3")
    status, out, _ = run_cli("history", str(path), "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    flagged = [line for line in lines if line.get("tampered")]
    assert status == 1 and flagged and {line.get("round") for line in flagged} == {3}
    assert any(line["event"] == "result" for line in flagged)
    status, out, _ = run_cli("history", str(path), "--csv")
    assert [row["round"] for row in csv.DictReader(io.StringIO(out)) if row["tampered"] == "1"] == ["3"]



UNREADABLE = {
    "not JSON": '{"events":[{"event":"result",',
    "events that are not a list": '{"events":5}',
    "an event of no known shape": '{"events":[{"event":"result","round":3}]}',
}


def _damaged(tmp_path: Path, body: str, chained: bool) -> tuple[Path, int]:
    """A six-round journal whose record of round 3's result holds ``body``: written over it (``chained``: by a
    forger who recomputed the hash chain after it, so only reading it shows it)."""
    path = tmp_path / "table.journal"
    run_cli("simulate", "--seed", "5", "--rounds", "6", "--quiet", "--journal", str(path))
    seq = _results_record(path, 3)
    rewrite_body(path, seq, body, chained)
    return path, seq


@pytest.mark.parametrize("chained", [False, True], ids=["edited", "chain recomputed"])
@pytest.mark.parametrize("body", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_a_record_that_cannot_be_read_is_marked_and_the_rest_shown(tmp_path: Path, body: str, chained: bool) -> None:
    """docs/journal.md: a journal that fails verification is still shown, exit 1, the round of the failed record
    marked; a record that cannot be read at all hides nothing else."""
    path, seq = _damaged(tmp_path, body, chained)
    status, text, err = run_cli("history", str(path))
    assert status == 1, err
    assert f"record {seq}" in err and "Traceback" not in err
    rounds = [line for line in text.splitlines() if line.startswith("  Round")]
    assert [line.split()[1] for line in rounds] == ["1", "2", "3", "4", "5", "6"]
    assert [line.split()[1] for line in rounds if "TAMPERED" in line] == ["3"]
    status, out, err = run_cli("history", str(path), "--csv")
    assert status == 1 and f"record {seq}" in err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [row["round"] for row in rows] == ["1", "2", "3", "4", "5", "6"]
    assert [row["round"] for row in rows if row["tampered"] == "1"] == ["3"]
    status, out, err = run_cli("history", str(path), "--json")
    assert status == 1 and f"record {seq}" in err
    results = [line["round"] for line in map(json.loads, out.splitlines()) if line["event"] == "result"]
    assert results == [1, 2, 4, 5, 6]
    status, out, err = run_cli("history", str(path), "--cards", "--csv")
    assert status == 1 and f"record {seq}" in err
    assert {row["round"] for row in csv.DictReader(io.StringIO(out))} >= {"1", "2", "4", "5", "6"}


@pytest.mark.parametrize("column", ["body", "at"])
def test_a_record_whose_text_was_stored_as_bytes_is_marked_and_shown(tmp_path: Path, column: str) -> None:
    """A field of round 3's result record stored as a BLOB of the same bytes (``audit verify``: a field has the wrong
    type): every form of the history names the record, marks that round and shows the whole game, exit 1."""
    path = tmp_path / "table.journal"
    run_cli("simulate", "--seed", "5", "--rounds", "6", "--quiet", "--journal", str(path))
    seq = _results_record(path, 3)
    connection = sqlite3.connect(path)
    connection.execute(f"UPDATE records SET {column} = CAST({column} AS BLOB) WHERE seq = ?", (seq,))
    connection.commit()
    connection.close()
    assert run_cli("audit", "verify", str(path))[0] == 1
    for form in ((), ("--csv",), ("--json",), ("--cards", "--csv")):
        status, out, err = run_cli("history", str(path), *form)
        assert status == 1, (form, err)
        assert f"record {seq}" in err and "does not emit" not in err and "Traceback" not in err, (form, err)
        if form == ():
            rounds = [line for line in out.splitlines() if line.startswith("  Round")]
            assert [line.split()[1] for line in rounds] == ["1", "2", "3", "4", "5", "6"]
            assert [line.split()[1] for line in rounds if "TAMPERED" in line] == ["3"]
        elif form == ("--csv",):
            rows = list(csv.DictReader(io.StringIO(out)))
            assert [row["round"] for row in rows if row["tampered"] == "1"] == ["3"] and len(rows) == 6
        elif form == ("--json",):
            lines = [json.loads(line) for line in out.splitlines()]
            assert [line["round"] for line in lines if line["event"] == "result"] == [1, 2, 3, 4, 5, 6]
            assert all(isinstance(line["at"], str) and line["at"] for line in lines)
        else:
            assert {row["round"] for row in csv.DictReader(io.StringIO(out))} >= {"1", "2", "3", "4", "5", "6"}
    status, out, err = run_cli("recall", str(path), "--json")
    assert status == 1 and f"record {seq}" in err and "Traceback" not in err, err
    assert [entry["round"] for entry in map(json.loads, out.splitlines())] == [1, 2, 3, 4, 5, 6]


def test_cards_lists_both_cards_of_a_two_cards_misdeal(tmp_path: Path) -> None:
    path = journal_of(tmp_path, "5H 2C 3D 4S 6H 7C  9H 8D @double @void @close")
    report = shoe_closed(path)
    status, out, _ = run_cli("history", str(path), "--cards", "--csv")
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == report["cards_seen"] == 10
    assert [int(row["position"]) for row in rows] == list(range(1, 11))
    assert [(row["card"], row["slot"]) for row in rows[-4:]] == [("9H", "discard"), ("8D", "discard"),
                                                                 ("??", "discard"), ("??", "discard")]


def test_json_says_when_an_advantage_alert_ended_as_the_text_does(tmp_path: Path) -> None:
    """An advantage alert closes by itself when its bet's edge falls back (``alert_cleared``): the text marks it
    ``[ended at TIME]`` and counts it closed, but ``--json`` left the closing event out, so a reader of the JSON
    history saw the alert open for ever."""
    path = tmp_path / "table.journal"
    done = croupier_in_process("simulate", "--seed", "6", "--rounds", "90", "--quiet", "--journal", str(path),
                               CROUPIER_BETS_ALERT_ABOVE="0")
    assert done.returncode == 0, done.stderr
    status, text, err = run_cli("history", str(path))
    assert status == 0, err
    assert "[ended at " in text
    status, out, err = run_cli("history", str(path), "--json")
    assert status == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    raised = {event["id"] for event in events if event["event"] == "alert"}
    closed = {event["id"] for event in events if event["event"] in ("alert_cleared", "alert_acknowledged")}
    cleared = [event for event in events if event["event"] == "alert_cleared"]
    assert cleared and all(event["at"] and event["kind"] == "advantage" for event in cleared), events
    assert closed <= raised
    assert len(raised - closed) == int(text.split(" open\n")[0].rsplit(", ", 1)[1]), "the open alerts agree"


def test_a_card_read_between_rounds_is_a_card_of_the_round_its_misdeal_belongs_to(tmp_path: Path) -> None:
    """A card read after round 1 is over is an extra_card misdeal of round 2 (the next), which its void voids: the
    --cards row says round 2, as the misdeal and the CSV's void row do (a card of a voided round), never round 1,
    which ended with a result it had no part in."""
    path = journal_of(tmp_path, "9S 8H KD 2C 3D @void @next 3S 4H 5D 6C 2H 9H @burn", "--no-burn", "--manual-next")
    status, out, _ = run_cli("history", str(path), "--csv")
    assert status == 0
    rows = {row["round"]: row for row in csv.DictReader(io.StringIO(out))}
    assert rows["2"]["outcome"] == "void" and rows["2"]["misdeals"] == "extra_card(3D)"
    assert rows["4"]["misdeals"] == "extra_card(2H); extra_card(9H)"
    status, out, _ = run_cli("history", str(path), "--cards", "--csv")
    assert status == 0
    cards = {row["card"]: (row["slot"], row["round"]) for row in csv.DictReader(io.StringIO(out))}
    assert cards["3D"] == ("discard", "2") and cards["9S"] == ("P1", "1")
    assert cards["2H"][0] == cards["9H"][0] == "discard" and cards["6C"] == ("B2", "3")


def test_a_round_voided_before_its_first_card_says_it_had_none(tmp_path: Path) -> None:
    """An extra card's void voids the next round before it dealt a card: its line must not read 'cards , bets'."""
    path = journal_of(tmp_path, "9S 8H KD 2C 3D @void @next 3S 4H 5D 6C", "--no-burn", "--manual-next")
    status, out, _ = run_cli("history", str(path))
    assert status == 0
    line = next(line for line in out.splitlines() if line.startswith("  Round   2"))
    assert line.endswith("VOID    cards -, bets returned"), line


def test_an_input_that_cannot_be_read_costs_the_view_only_until_the_next_checkpoint(tmp_path: Path) -> None:
    """An input record the table cannot take (round 3's first card) leaves the table replaying the rest without it:
    every later card would go to another slot than it did. The table's view is taken up again from the next
    checkpoint (the table's own state, hash-chained), so the totals and the cards from there on are what the
    intact journal says, never the view of a table that lost a card."""
    intact = tmp_path / "intact.journal"
    run_cli("simulate", "--seed", "5", "--rounds", "90", "--quiet", "--journal", str(intact))
    damaged = tmp_path / "damaged.journal"
    damaged.write_bytes(intact.read_bytes())
    connection = sqlite3.connect(damaged)
    seq = int(connection.execute("SELECT seq FROM records WHERE kind = 'input' AND seq > ? AND body LIKE "
                                 "'%\"card\"%' ORDER BY seq LIMIT 1", (_results_record(intact, 2),)).fetchone()[0])
    checkpoint = int(connection.execute("SELECT min(seq) FROM records WHERE kind = 'checkpoint' AND seq > ?",
                                        (seq,)).fetchone()[0])
    connection.close()
    rewrite_body(damaged, seq, '{"input":{"kind":"bogus"},"source":true,"position":[1,20]}', False)

    def totals(path: Path) -> str:
        return next(line for line in run_cli("history", str(path))[1].splitlines() if "with a result" in line)

    assert totals(damaged) == totals(intact)
    status, out, err = run_cli("history", str(damaged), "--cards", "--csv")
    assert status == 1 and f"record {seq}" in err
    times = {record_at for (record_at,) in sqlite3.connect(intact).execute(
        "SELECT at FROM records WHERE seq > ?", (checkpoint,))}
    after = [row for row in csv.DictReader(io.StringIO(out)) if row["at"] in times]
    expected = [row for row in csv.DictReader(io.StringIO(run_cli("history", str(intact), "--cards", "--csv")[1]))
                if row["at"] in times]
    assert after and after == expected

"""`croupier run`: the live-table command, driven through the mock driver and typed dealer inputs."""

from __future__ import annotations

import json
import os
import queue
import select
import subprocess
import threading
from pathlib import Path
from typing import IO, Any

import pytest

from controller.core.events import Event
from controller.core.exceptions import ScriptError
from controller.core.inputs import Input, InputKind
from controller.ui.keyboard import parse_dealer_line
from tests.inprocess import CROUPIER, DEADLINE, ROOT, croupier_in_process, croupier_process

croupier = croupier_process
"""``croupier ARGS`` in a process of its own (the reference ``simulate`` runs use the in-process one)."""


def stream(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def picked(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] in ("card", "result", "misdeal")]


def test_run_with_auto_next_matches_simulate_for_the_same_seed() -> None:
    live = croupier("run", "--driver", "mock://?seed=11&decks=8", "--json", "--auto-next", "--rounds", "100",
                    "--no-keyboard")
    assert live.returncode == 0, live.stderr
    simulated = croupier_in_process("simulate", "--seed", "11", "--rounds", "100", "--json")
    assert picked(stream(live.stdout)) == picked(stream(simulated.stdout))
    assert len([e for e in stream(live.stdout) if e["event"] == "result"]) == 100


def test_typed_inputs_resolve_a_misdeal(tmp_path: Path) -> None:
    script = tmp_path / "shoe.txt"
    script.write_text("# a scripted shoe\n3S KD 5H 9C\n??\n", encoding="utf-8")
    process = subprocess.Popen(
        [*CROUPIER, "run", "--driver", f"mock://?script={script}", "--json",
         "--no-burn", "--auto-next"],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    events: list[dict[str, Any]] = []
    for line in process.stdout:
        events.append(json.loads(line))
        if events[-1]["event"] == "misdeal":
            break
    assert events[-1]["kind"] == "unreadable_card"
    process.stdin.write("m 4D\n")
    process.stdin.close()
    assert process.stderr is not None
    out, err = process.stdout.read(), process.stderr.read()
    process.wait(timeout=60)
    events += stream(out)
    cards = [e for e in events if e["event"] == "card"]
    assert cards[-1] == {"event": "card", "round": 2, "slot": "P1", "card": "4D", "manual": True}
    assert process.returncode == 3
    assert "B1 is still due" in err


def test_unknown_typed_command_is_reported_and_nothing_else_changes(tmp_path: Path) -> None:
    script = tmp_path / "shoe.txt"
    script.write_text("@shoe 3S KD 5H 9C\n", encoding="utf-8")
    run = croupier("run", "--driver", f"mock://?script={script}", "--json", "--no-burn", stdin="xyz\n")
    assert "'xyz' is not a dealer command" in run.stderr
    assert [e["event"] for e in stream(run.stdout)].count("result") == 1
    assert run.returncode == 0


def test_run_on_the_mock_deals_the_tables_decks_and_cut_card_as_simulate_does() -> None:
    """``--decks N`` is the decks in the shoe, ``[shoe] cut_card_from_end`` where the mock places the cut card: a
    ``run`` on ``mock://?seed=N`` (the default ``[driver] url`` is ``mock://``) had dealt an 8-deck shoe, its cut card
    16 from the end, into a 1-deck table, which called its second 3C a foreign card in round 3."""
    live = croupier_in_process("run", "--driver", "mock://?seed=42", "--decks", "1", "--json", "--auto-next",
                               "--rounds", "20", "--no-keyboard", CROUPIER_SHOE_CUT_CARD_FROM_END="20")
    assert live.returncode == 0, live.stderr
    events = stream(live.stdout)
    assert not [e for e in events if e["event"] == "misdeal"], [e for e in events if e["event"] == "misdeal"][:1]
    closed = [e for e in events if e["event"] == "shoe_closed"]
    assert closed and all(e["cards_seen"] + e["cards_remaining"] == 52 for e in closed), closed
    simulated = croupier_in_process("simulate", "--seed", "42", "--decks", "1", "--rounds", "20", "--json",
                                    CROUPIER_SHOE_CUT_CARD_FROM_END="20")
    assert picked(events) == picked(stream(simulated.stdout))


def test_a_mock_url_whose_decks_are_not_the_tables_is_refused_in_one_line() -> None:
    """A shoe of other decks than the table's would have the table count cards that are not there."""
    run = croupier_in_process("run", "--driver", "mock://?seed=1&decks=4", "--auto-next", "--rounds", "1",
                              "--no-keyboard")
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "decks=4" in run.stderr and "8" in run.stderr and "--decks" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr
    same = croupier_in_process("run", "--driver", "mock://?seed=1&decks=4", "--decks", "4", "--auto-next",
                               "--rounds", "1", "--no-keyboard")
    assert same.returncode == 0, same.stderr


def test_bad_driver_url_is_exit_2_with_the_expected_form() -> None:
    run = croupier("run", "--driver", "mock://?sed=1")
    assert run.returncode == 2
    assert "unknown option 'sed'" in run.stderr
    assert "seed" in run.stderr
    run = croupier("run", "--driver", "carrier-pigeon://x")
    assert run.returncode == 2
    assert "unknown driver scheme" in run.stderr


@pytest.mark.parametrize("url", ["mock://[", "mock://[::1?seed=1", "serial://[/dev/ttyUSB0", "pcsc://[x?reader=A"])
def test_a_driver_url_that_is_no_url_is_exit_2_in_one_line(url: str, tmp_path: Path) -> None:
    """An unclosed ``[`` (an IPv6 host) made urllib raise: ``run --driver`` and ``[driver] url`` printed a
    traceback and exited 1."""
    run = croupier_in_process("run", "--driver", url, "--auto-next", "--rounds", "1", "--no-keyboard")
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert url in run.stderr and "mock://" in run.stderr, run.stderr
    config = tmp_path / "croupier.toml"
    config.write_text(f'[driver]\nurl = "{url}"\n', encoding="utf-8")
    run = croupier_in_process("run", "--config", str(config), "--auto-next", "--rounds", "1", "--no-keyboard")
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr and "[driver] url" in run.stderr and url in run.stderr, run.stderr


def test_parse_dealer_line() -> None:
    assert parse_dealer_line("n") == Input(InputKind.NEXT)
    assert parse_dealer_line(" VOID ") == Input(InputKind.VOID)
    assert parse_dealer_line("m 7h") == Input(InputKind.MANUAL, "7h")
    assert parse_dealer_line("") is None
    for bad in ("m", "m 7H 8H", "dance", "n n"):
        try:
            parse_dealer_line(bad)
        except ScriptError as error:
            assert repr(bad.strip()) in str(error)
        else:
            raise AssertionError(f"{bad!r} was accepted")


@pytest.mark.slow
def test_run_through_the_shoe_emulator_matches_simulate_across_shoes() -> None:
    """The contract: same seed, same cards, results and misdeals, here over more than one shoe."""
    emulator = subprocess.Popen(
        [*CROUPIER, "shoe-emulator", "--seed", "7", "--interval", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert emulator.stdout is not None
        first = emulator.stdout.readline().split()
        assert first[0] == "PTY"
        live = croupier("run", "--driver", f"serial://{first[1]}", "--json", "--auto-next", "--rounds", "120",
                        "--no-keyboard")
        assert live.returncode == 0, live.stderr
    finally:
        emulator.kill()
        emulator.wait(timeout=10)
    simulated = croupier_in_process("simulate", "--seed", "7", "--rounds", "120", "--json")
    live_events = picked(stream(live.stdout))
    assert live_events == picked(stream(simulated.stdout))
    assert len([e for e in stream(live.stdout) if e["event"] == "shoe_closed"]) == 1


def test_emulator_says_when_the_controller_greets_in_the_other_framing() -> None:
    emulator = subprocess.Popen(
        [*CROUPIER, "shoe-emulator", "--seed", "7", "--framing", "stx"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert emulator.stdout is not None and emulator.stderr is not None
        pty = emulator.stdout.readline().split()[1]
        controller = subprocess.Popen(
            [*CROUPIER, "run", "--driver", f"serial://{pty}", "--json",
             "--auto-next", "--rounds", "1", "--no-keyboard"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            warning = emulator.stderr.readline()
        finally:
            controller.kill()
            controller.wait(timeout=10)
    finally:
        emulator.kill()
        emulator.wait(timeout=10)
    assert "greets in line framing but this emulator speaks stx" in warning
    assert "--framing line" in warning and "?framing=stx" in warning


def test_manual_dealing_with_a_shoe_that_waits_for_the_table() -> None:
    """The emulator deals only while the table shows a slot; the dealer confirms the shoe and starts rounds."""
    emulator = subprocess.Popen(
        [*CROUPIER, "shoe-emulator", "--seed", "3", "--interval", "0", "--follow-table", "--verbose"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen: list[dict[str, Any]] = []
    controller: subprocess.Popen[str] | None = None
    try:
        assert emulator.stdout is not None
        pty = emulator.stdout.readline().split()[1]
        controller = subprocess.Popen(
            [*CROUPIER, "run", "--driver", f"serial://{pty}?indicator=1", "--json",
             "--console", "plain", "--rounds", "2"],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert controller.stdin is not None and controller.stdout is not None
        lines = _lines_of(controller.stdout)
        for answer in ("s", "n"):
            while True:
                line = lines.get(timeout=DEADLINE)
                assert line is not None, "the table ended before it asked the dealer"
                seen.append(json.loads(line))
                if seen[-1]["event"] == "instruction" and seen[-1].get("action") in ("confirm_shoe", "next_round"):
                    break
            controller.stdin.write(answer + "\n")
            controller.stdin.flush()
        while (line := lines.get(timeout=DEADLINE)) is not None:
            seen.append(json.loads(line))
        controller.wait(timeout=DEADLINE)
    except (queue.Empty, subprocess.TimeoutExpired) as stuck:
        raise AssertionError(f"the table or the shoe stopped answering: {_both_sides(seen, controller, emulator)}") \
            from stuck
    finally:
        for process in (controller, emulator):
            if process is not None:
                process.kill()
                process.wait(timeout=10)
    assert not [e for e in seen if e["event"] == "misdeal"], "no card came out before the dealer was ready"
    assert [e["round"] for e in seen if e["event"] == "result"] == [1, 2]
    assert controller.returncode == 0


def _lines_of(output: IO[str]) -> queue.Queue[str | None]:
    """The lines of ``output`` as they come, read by a thread of their own; None after the last."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in output:
            lines.put(line)
        lines.put(None)
    threading.Thread(target=read, daemon=True).start()
    return lines


def _both_sides(seen: list[dict[str, Any]], *processes: subprocess.Popen[str] | None) -> str:
    """What a stuck exchange had come to: the table's last events and each process's log, once stopped."""
    logs = []
    for process in processes:
        if process is not None:
            process.kill()
            _, log = process.communicate(timeout=10)
            logs.append(log[-4000:])
    return f"last events {seen[-5:]}; logs (table, shoe): {logs}"


def _cards_by_shoe(events: list[Event]) -> dict[int, list[str]]:
    """The cards each shoe dealt (round cards and burn cards), from an event stream."""
    by_shoe: dict[int, list[str]] = {}
    shoe = 1
    for event in events:
        if event["event"] in ("shoe", "round"):
            shoe = event["shoe"]
        elif event["event"] in ("card", "burn") and (card := event["card"]):
            by_shoe.setdefault(shoe, []).append(card)
    return by_shoe


def journaled(path: Path) -> list[Event]:
    """Every event a journal holds, in order (read-only)."""
    from controller.journal.replay import journaled_events
    from controller.journal.store import Journal

    journal = Journal.open_existing(path)
    try:
        return [event for _, events in journaled_events(journal) for event in events]
    finally:
        journal.close()


@pytest.mark.slow  # whole shoes over a real link: the emulator and two runs, each its own process, on a pty
def test_serial_run_stopped_and_resumed_deals_on_across_every_shoe_change(tmp_path: Path) -> None:
    """The acceptance contract: run R rounds with a journal, stop, run again with more rounds.

    Issue 10 items 1 and 2: after a resume the shoe must still be told of each new shoe, and a card
    that left the shoe before the new shoe was announced must not be dealt into the new shoe.
    """
    from controller.core.shoe import shoe_with_cut_card

    link = tmp_path / "shoe-link"
    journal = tmp_path / "table.journal"
    emulator = subprocess.Popen(
        [*CROUPIER, "shoe-emulator", "--seed", "32", "--decks", "1",
         "--link", str(link)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert emulator.stdout is not None
        assert emulator.stdout.readline().split()[0] == "PTY"
        base = ["run", "--driver", f"serial://{link}", "--json", "--auto-next", "--no-keyboard", "--no-burn"]
        first = croupier(*base, "--rounds", "5", "--journal", str(journal))
        assert first.returncode == 0, first.stderr
        second = croupier(*base, "--rounds", "30", "--journal", str(journal))
        assert second.returncode == 0, second.stderr
    finally:
        emulator.kill()
        emulator.wait(timeout=10)
    events = journaled(journal)
    assert not [e for e in events if e["event"] == "misdeal"]
    assert len([e for e in events if e["event"] == "result"]) == 30
    dealt = _cards_by_shoe(events)
    assert len(dealt) >= 3, f"expected at least two shoe changes, dealt shoes {sorted(dealt)}"
    for shoe, cards in dealt.items():
        own = [token for token in shoe_with_cut_card(32, 1, shoe - 1) if token != "@cut"]
        assert cards == own[:len(cards)], f"shoe {shoe} dealt cards that are not its own"


def test_a_shoe_that_restarts_from_its_first_card_halts_the_table(tmp_path: Path) -> None:
    """Issue 10 item 5: a new emulator on the same link deals the same first cards again; the table halts.

    The shoe holds the cards of three rounds only (seed 32's first 18, no burn), so however late this test reads
    the table's output on a loaded machine, no fourth round can be dealt before the restart."""
    link = tmp_path / "shoe-link"
    script = tmp_path / "three-rounds.shoe"
    script.write_text("8D QC 6H KD 2H 7C 4S KD AS TS QH 5D 9C JC 2C 2H JS 5C\n", encoding="utf-8")

    def start_emulator() -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [*CROUPIER, "shoe-emulator", "--script", str(script), "--link", str(link)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert process.stdout is not None and process.stdout.readline().split()[0] == "PTY"
        return process

    emulator = start_emulator()
    controller = subprocess.Popen(
        [*CROUPIER, "run", "--driver", f"serial://{link}", "--json", "--auto-next",
         "--no-keyboard", "--no-burn", "--rounds", "500"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen: list[dict[str, Any]] = []
    try:
        assert controller.stdout is not None
        for text in controller.stdout:
            seen.append(json.loads(text))
            if seen[-1]["event"] == "result" and seen[-1]["round"] == 3:
                emulator.kill()
                emulator.wait(timeout=10)
                emulator = start_emulator()
            if seen[-1]["event"] == "misdeal" and seen[-1]["kind"] != "reader_offline":
                break  # the unplug itself is a reader_offline misdeal, resolved when the line is back
    finally:
        controller.kill()
        controller.wait(timeout=10)
        emulator.kill()
        emulator.wait(timeout=10)
    misdeals = [e for e in seen if e["event"] == "misdeal" and e["kind"] != "reader_offline"]
    assert misdeals and misdeals[0]["kind"] == "shoe_restarted", misdeals
    assert "restarted" in misdeals[0]["detail"] and misdeals[0]["instruction"].startswith("Halt:")
    assert [e["round"] for e in seen if e["event"] == "result"] == [1, 2, 3]


@pytest.mark.slow
def test_run_on_a_seeded_mock_waits_for_the_dealer() -> None:
    """Issue 10 item 14: the default mock:// poured its whole shoe out before the dealer confirmed it."""
    process = subprocess.Popen(
        [*CROUPIER, "run", "--driver", "mock://?seed=5", "--json", "--no-burn",
         "--rounds", "1"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    assert process.stdin is not None and process.stdout is not None
    events: list[dict[str, Any]] = []
    try:
        for line in process.stdout:
            events.append(json.loads(line))
            if events[-1]["event"] == "instruction" and events[-1]["action"] == "confirm_shoe":
                break
        process.stdin.write("s\n")  # the dealer confirms the shoe only once the table asks
        process.stdin.close()
        assert process.stderr is not None
        out, err = process.stdout.read(), process.stderr.read()
        process.wait(timeout=60)
    finally:
        process.kill()
    events += stream(out)
    assert process.returncode == 0, err
    assert not [e for e in events if e["event"] == "misdeal"]
    assert [e["round"] for e in events if e["event"] == "result"] == [1]
    simulated = stream(croupier_in_process("simulate", "--seed", "5", "--no-burn", "--rounds", "1", "--json").stdout)
    assert picked(events) == picked(simulated)


def test_run_on_a_seeded_mock_with_no_dealer_is_refused() -> None:
    run = croupier("run", "--json", "--no-keyboard")
    assert run.returncode == 2
    assert "mock://" in run.stderr and "--no-keyboard leaves no dealer" in run.stderr
    assert "simulate --interactive" in run.stderr
    assert "Traceback" not in run.stderr


def test_auto_next_deals_from_a_shoe_that_follows_the_table() -> None:
    """Issue 10 item 0: the README's follow-table emulator and an --auto-next controller waited for each other."""
    emulator = subprocess.Popen(
        [*CROUPIER, "shoe-emulator", "--seed", "42", "--decks", "1", "--interval",
         "0", "--follow-table"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert emulator.stdout is not None
        pty = emulator.stdout.readline().split()[1]
        live = croupier("run", "--driver", f"serial://{pty}?indicator=1", "--json", "--auto-next", "--no-keyboard",
                        "--rounds", "12", timeout=30)
    finally:
        emulator.kill()
        emulator.wait(timeout=10)
    assert live.returncode == 0, live.stderr
    events = stream(live.stdout)
    assert not [e for e in events if e["event"] == "misdeal"]
    assert len([e for e in events if e["event"] == "result"]) == 12
    assert [e for e in events if e["event"] == "shoe" and e["status"] == "ready"][-1]["shoe"] >= 2
    simulated = croupier_in_process("simulate", "--seed", "42", "--decks", "1", "--rounds", "12", "--json")
    assert picked(events) == picked(stream(simulated.stdout))


@pytest.mark.slow
def test_a_shoe_that_follows_the_table_idles_without_spinning_and_says_why_it_waits() -> None:
    """Issue 10 item 0: held for the table, the emulator spun a CPU core at 100%."""
    from drivers.serial.driver import SerialShoe

    emulator = subprocess.Popen(
        [*CROUPIER, "shoe-emulator", "--seed", "42", "--follow-table"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert emulator.stdout is not None and emulator.stderr is not None
        pty = emulator.stdout.readline().split()[1]
        controller = SerialShoe(f"serial://{pty}")  # says hello, never writes an indication
        try:
            def cpu_seconds() -> float:
                fields = Path(f"/proc/{emulator.pid}/stat").read_text().rsplit(")", 1)[1].split()
                return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

            before = cpu_seconds()
            ready, _, _ = select.select([emulator.stderr], [], [], 60)  # the warning comes 5 s after the hello
            warning = emulator.stderr.readline() if ready else "(no warning within 60s)"
            used = cpu_seconds() - before
        finally:
            controller.close()
    finally:
        emulator.kill()
        emulator.wait(timeout=10)
    assert used < 1.0, f"the waiting emulator used {used:.2f}s of CPU in about 5s"
    assert "no indication from the controller" in warning and "?indicator=1" in warning


def test_dealer_lines_with_bytes_that_are_not_utf8_are_refused_legibly(tmp_path: Path) -> None:
    """Undecodable bytes typed at the plain console show as U+FFFD in the refusal, never as surrogate escapes."""
    script = tmp_path / "shoe.txt"
    script.write_text("5H 2C 3C 4C 6C 7C\n", encoding="utf-8")
    done = subprocess.run([*CROUPIER, "run", "--driver", f"mock://?script={script}", "--console", "plain",
                           "--auto-next"], input=b"s\n\xff\xfe\n", capture_output=True, cwd=ROOT, timeout=120)
    said = done.stderr.decode("utf-8")
    refusal = [line for line in said.splitlines() if "is not a dealer command" in line]
    assert refusal and "'\ufffd\ufffd'" in refusal[0], said
    assert "\\udc" not in said, said

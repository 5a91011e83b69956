"""``croupier shoe-emulator`` seen from the controller's side of a real pty (or TCP port)."""

from __future__ import annotations

import importlib
import itertools
import os
import select
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.core.exceptions import ScriptError
from controller.core.inputs import Input, InputKind, parse_tokens
from controller.core.shoe import shoe_with_cut_card
from drivers.serial.emulator import check_script
from drivers.serial.framing import ACK, ENQ, NAK, Frame, LineFramer, StxFramer, xor_checksum
from tests.drivers.conftest import EMULATOR, REPO, EmulatorProcess, read_line
from tests.inprocess import CROUPIER

Emulator = Callable[..., EmulatorProcess]


def line(body: bytes) -> bytes:
    return body + b"*%02X\r\n" % xor_checksum(body)


class Client:
    """The controller's end of the emulator's pty, byte by byte."""

    def __init__(self, path: str, framing: str = "line") -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        self.framer = StxFramer() if framing == "stx" else LineFramer()
        self.buffer = b""
        self.features: list[str] = []

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def frame(self, timeout: float = 5.0, skip_heartbeats: bool = True) -> Frame | None:
        """The next frame from the emulator, or None after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            while self.buffer:
                used, frame = self.framer.decode(self.buffer)
                if used == 0:
                    break
                self.buffer = self.buffer[used:]
                if frame is not None and frame.kind == "V":
                    self.features.append(frame.data)  # the shoe's answer to the hello
                    if isinstance(self.framer, StxFramer):
                        self.write(bytes([ACK]))  # every stx frame is answered
                    continue
                if frame is not None and not (skip_heartbeats and frame.kind == "H"):
                    return frame
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return None
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                return None
            if not data:
                return None
            self.buffer += data

    def close(self) -> None:
        os.close(self.fd)


@pytest.fixture
def client() -> Iterator[Callable[..., Client]]:
    opened: list[Client] = []

    def open_client(path: str, framing: str = "line") -> Client:
        made = Client(path, framing)
        opened.append(made)
        return made

    yield open_client
    for made in opened:
        made.close()


def tokens(seed: int, decks: int, shoe: int = 0, cut: int = 16) -> list[str]:
    return shoe_with_cut_card(seed, decks, shoe, cut)


def as_frame_data(token: str) -> tuple[str, str]:
    return ("X", "") if token == "@cut" else ("C", token)


# -- the usage contract ----------------------------------------------------------------
@pytest.mark.parametrize("framing", ["line", "stx"])
def test_usage_contract_prints_pty_first(emulator: Emulator, client: Callable[..., Client], framing: str) -> None:
    shoe = emulator("--seed", "42", "--decks", "1", "--framing", framing, "--interval", "0")
    assert shoe.kind == "PTY"
    assert os.path.exists(shoe.path) and shoe.path.startswith("/dev/")
    controller = client(shoe.path, framing)
    controller.write(bytes([ENQ]) if framing == "stx" else line(b"R,A"))
    first = controller.frame()
    assert first is not None and (first.kind, first.data) == as_frame_data(tokens(42, 1)[0])


def test_registered_in_the_croupier_command(emulator: Emulator) -> None:
    cli = importlib.import_module("controller.cli.main")
    assert "controller.cli.shoe_emulator" in cli.COMMAND_MODULES
    process = subprocess.Popen([*CROUPIER, "shoe-emulator", "--seed", "1"],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert read_line(process.stdout, 10).startswith("PTY /dev/")
    finally:
        process.terminate()
        process.wait(5)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def test_sends_nothing_before_the_hello(emulator: Emulator, client: Callable[..., Client]) -> None:
    shoe = emulator("--seed", "3", "--decks", "1", "--heartbeat", "0.1")
    controller = client(shoe.path)
    assert controller.frame(0.4, skip_heartbeats=False) is None  # waits: pyserial would flush it anyway
    controller.write(line(b"R"))
    first = controller.frame()
    assert first is not None and first.kind in "CX" and first.seq == 1


# -- the shoe it deals -----------------------------------------------------------------
def test_deals_the_seeded_shoe_with_the_cut_card(emulator: Emulator, client: Callable[..., Client]) -> None:
    shoe = emulator("--seed", "5", "--decks", "1", "--shoe", "2", "--cut", "12")
    controller = client(shoe.path)
    controller.write(line(b"R"))  # no acks: the emulator sends as fast as it can
    got = []
    for _ in range(53):
        frame = controller.frame()
        assert frame is not None
        got.append((frame.kind, frame.data))
    assert got == [as_frame_data(token) for token in tokens(5, 1, shoe=1, cut=12)]
    assert got[-13] == ("X", "")
    assert shoe.wait(10) == 0  # the shoe is out


def test_script_tokens(emulator: Emulator, client: Callable[..., Client], tmp_path: Path) -> None:
    script = tmp_path / "shoe.txt"
    script.write_text("# a script\nAS ?? @cut\n@double ZZ  # a bad code is sent as read\n@next\n")
    shoe = emulator("--script", str(script), "--framing", "stx")
    controller = client(shoe.path, "stx")
    controller.write(bytes([ENQ]))
    got = []
    for _ in range(6):
        frame = controller.frame()
        assert frame is not None
        got.append((frame.kind, frame.seq, frame.data))
        controller.write(bytes([ACK]))
    assert got == [("C", 1, "AS"), ("U", 2, ""), ("X", 3, ""), ("D", 4, ""), ("C", 5, "ZZ"), ("B", 6, "")]
    assert shoe.wait(10) == 0


def test_dealer_tokens_in_a_script_are_refused(tmp_path: Path) -> None:
    script = tmp_path / "shoe.txt"
    script.write_text("AS @burn KD\n")
    result = subprocess.run([*EMULATOR, "--script", str(script)], cwd=REPO, capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "token 2 '@burn' is a dealer input" in result.stderr
    assert "Traceback" not in result.stderr
    with pytest.raises(ScriptError, match="@manual"):
        check_script(parse_tokens("@manual 7H"), "x")
    assert check_script(parse_tokens("AS @offline"), "x") == [Input(InputKind.CARD, "AS"),
                                                              Input(InputKind.OFFLINE)]


def test_missing_script_is_a_clear_error(tmp_path: Path) -> None:
    result = subprocess.run([*EMULATOR, "--script", str(tmp_path / "nope.txt")], cwd=REPO,
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "no such script file" in result.stderr and "Traceback" not in result.stderr


def test_bad_arguments(tmp_path: Path) -> None:
    result = subprocess.run([*EMULATOR, "--seed", "1", "--garbage", "2"], cwd=REPO, capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 2
    assert "argument --garbage: expected a rate from 0 to 1, got 2" in result.stderr


def test_an_ack_timeout_of_zero_is_refused(tmp_path: Path) -> None:
    """--ack-timeout 0 sent the outstanding message again at every turn of the loop without ever reading the answer:
    thousands of retransmissions a second, and no card dealt."""
    result = subprocess.run([*EMULATOR, "--seed", "1", "--ack-timeout", "0"], cwd=REPO, capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 2
    assert "argument --ack-timeout: expected a number of seconds from 0.01 to 3600, got 0" in result.stderr


def test_a_link_path_that_is_a_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    """--link replaced whatever was at the path with its symlink, and removed it on exit: a journal, a config file,
    /etc/passwd given there by mistake was gone."""
    journal = tmp_path / "table.db"
    journal.write_bytes(b"the journal")
    other = tmp_path / "other-link"
    other.symlink_to(journal)
    for taken in (journal, other):
        result = subprocess.run([*EMULATOR, "--seed", "1", "--link", str(taken)], cwd=REPO, capture_output=True,
                                text=True, timeout=30)
        assert result.returncode == 2, result.stdout
        assert result.stderr.strip().splitlines() == [
            f"croupier shoe-emulator: --link {taken}: the path is taken by a file that is not a link to a "
            "pseudo-terminal; give a free path (or the link an emulator left there)"]
        assert journal.read_bytes() == b"the journal" and other.is_symlink()


def test_a_link_left_by_an_emulator_is_taken_over(tmp_path: Path) -> None:
    """An emulator killed -9 leaves its link behind, pointing at a pty that is gone: the next one takes it over."""
    link = tmp_path / "shoe"
    link.symlink_to("/dev/pts/999999")
    process = subprocess.Popen([*EMULATOR, "--seed", "1", "--link", str(link)], cwd=REPO, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        assert process.stdout.readline().split() == ["PTY", str(link)]
        assert os.readlink(link).startswith("/dev/pts/") and os.readlink(link) != "/dev/pts/999999"
    finally:
        process.kill()
        process.wait(10)


# -- pacing ----------------------------------------------------------------------------
def test_interval_zero_waits_for_each_acknowledgement(emulator: Emulator, client: Callable[..., Client]) -> None:
    shoe = emulator("--seed", "6", "--decks", "1", "--ack-timeout", "30")
    controller = client(shoe.path)
    controller.write(line(b"R,A"))
    first = controller.frame()
    assert first is not None and first.seq == 1
    assert controller.frame(0.3) is None  # not acknowledged: nothing more
    controller.write(line(b"A,1"))
    second = controller.frame()
    assert second is not None and second.seq == 2


def test_interval_paces_cards(emulator: Emulator, client: Callable[..., Client]) -> None:
    shoe = emulator("--seed", "6", "--decks", "1", "--interval", "0.15")
    controller = client(shoe.path)
    controller.write(line(b"R"))
    times = []
    for _ in range(4):
        assert controller.frame() is not None
        times.append(time.monotonic())
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert all(gap >= 0.1 for gap in gaps), gaps


def test_key_mode_sends_a_card_per_enter(emulator: Emulator, client: Callable[..., Client]) -> None:
    shoe = emulator("--seed", "8", "--decks", "1", "--key", stdin=subprocess.PIPE)
    controller = client(shoe.path)
    controller.write(line(b"R"))
    assert controller.frame(0.3) is None
    keys = shoe.process.stdin
    assert keys is not None
    keys.write("\n")
    keys.flush()
    first = controller.frame()
    assert first is not None and first.seq == 1
    assert controller.frame(0.3) is None
    keys.write("\n\n")
    keys.flush()
    assert [getattr(controller.frame(), "seq", None), getattr(controller.frame(), "seq", None)] == [2, 3]


def test_heartbeats_when_idle(emulator: Emulator, client: Callable[..., Client]) -> None:
    shoe = emulator("--seed", "8", "--decks", "1", "--key", "--heartbeat", "0.1", stdin=subprocess.PIPE)
    controller = client(shoe.path)
    controller.write(line(b"R"))
    beat = controller.frame(2, skip_heartbeats=False)
    assert beat == Frame("H")


# -- retransmission --------------------------------------------------------------------
def test_retransmits_after_the_ack_timeout(emulator: Emulator, client: Callable[..., Client]) -> None:
    shoe = emulator("--seed", "6", "--decks", "1", "--ack-timeout", "0.2")
    controller = client(shoe.path)
    controller.write(line(b"R,A"))
    first = controller.frame()
    again = controller.frame()
    assert first is not None and again == first
    controller.write(line(b"A,1"))
    nxt = controller.frame()
    assert nxt is not None and nxt.seq == 2


def test_stx_retransmits_on_nak(emulator: Emulator, client: Callable[..., Client]) -> None:
    shoe = emulator("--seed", "6", "--decks", "1", "--framing", "stx", "--ack-timeout", "30")
    controller = client(shoe.path, "stx")
    controller.write(bytes([ENQ]))
    first = controller.frame()
    controller.write(bytes([NAK]))
    assert controller.frame() == first
    controller.write(bytes([ACK]))
    nxt = controller.frame()
    assert nxt is not None and first is not None and first.seq is not None and nxt.seq == first.seq + 1


@pytest.mark.parametrize("lost", ["card", "heartbeat"])
def test_stx_forgets_a_frame_never_answered_after_the_ack_timeout(
        emulator: Emulator, client: Callable[..., Client], lost: str) -> None:
    """Stx answers name no frame: the shoe pairs each with its oldest frame not answered yet. A frame the
    controller never answered (lost on the line) stayed in line for ever, so every later ACK was taken for the
    frame before it: each later card went unconfirmed and was sent again after the ack timeout."""
    ack_timeout = 1.0
    keyed = lost == "heartbeat"
    shoe = emulator("--seed", "6", "--decks", "1", "--framing", "stx", "--ack-timeout", str(ack_timeout),
                    "--heartbeat", "0.2" if keyed else "0", *(["--key"] if keyed else []),
                    stdin=subprocess.PIPE if keyed else None)
    controller = client(shoe.path, "stx")
    controller.write(bytes([ENQ]))
    if lost == "card":
        first = controller.frame()
        assert first is not None and first.seq == 1
        assert controller.frame(30) == first, "not answered: sent again after the ack timeout"
        controller.write(bytes([ACK]))  # the repeat is answered; the first transmission never will be
        cards = [2, 3, 4, 5, 6]
    else:
        assert controller.frame(30, skip_heartbeats=False) == Frame("H")  # never answered
        answered_until = time.monotonic() + ack_timeout * 1.5
        while time.monotonic() < answered_until:  # the later heartbeats are answered as they come
            if controller.frame(0.05, skip_heartbeats=False) is not None:
                controller.write(bytes([ACK]))
        keys = shoe.process.stdin
        assert keys is not None
        keys.write("\n" * 5)  # the dealer deals five cards
        keys.flush()
        cards = [1, 2, 3, 4, 5]
    seen: list[int | None] = []
    deadline = time.monotonic() + 60
    while cards[-1] not in seen and time.monotonic() < deadline:
        frame = controller.frame(max(0.0, deadline - time.monotonic()), skip_heartbeats=False)
        if frame is None:
            break
        controller.write(bytes([ACK]))  # every frame answered at once, as the driver does
        if frame.kind != "H":
            seen.append(frame.seq)
    if keyed:  # the first card's ACK may be taken for a heartbeat's, until the card's ack timeout
        assert seen[:2] in ([1, 2], [1, 1]), seen
        seen = seen[1:] if seen[:2] == [1, 1] else seen
    assert seen == cards, "each later card sent once, each confirmed by its own ACK"
    if keyed:
        assert controller.frame(ack_timeout * 2) is None, "the last card is not sent again"


def test_no_checksum_option(emulator: Emulator, client: Callable[..., Client]) -> None:
    shoe = emulator("--seed", "6", "--decks", "1", "--no-checksum", "--terminator", "lf")
    controller = client(shoe.path)
    controller.write(b"R\n")
    assert controller.frame() is not None
    assert b"*" not in controller.buffer and b"\r" not in controller.buffer


def test_bad_checksum_fault(emulator: Emulator, client: Callable[..., Client]) -> None:
    shoe = emulator("--seed", "6", "--decks", "1", "--bad-checksum", "1", "--framing", "stx")
    controller = client(shoe.path, "stx")
    controller.write(bytes([ENQ]))
    assert controller.frame(0.5) is None  # every frame carries a wrong BCC
    assert controller.framer.bad_checksums >= 1


def test_unplug_closes_the_pty_and_replugs_behind_the_link(emulator: Emulator, client: Callable[..., Client],
                                                           tmp_path: Path) -> None:
    link = str(tmp_path / "shoe")
    shoe = emulator("--seed", "6", "--decks", "1", "--unplug-after", "2", "--replug-after", "0.2",
                    "--link", link)
    controller = client(link)
    controller.write(line(b"R,A"))
    first = controller.frame()
    assert first is not None and first.seq == 1
    controller.write(line(b"A,1"))
    maybe = controller.frame(5)  # card 2 is sent as the plug is pulled: it may get through, or not
    assert maybe is None or maybe.seq == 2
    assert controller.frame(5) is None  # the line is dead
    assert shoe.next_line() == f"PTY {link}\n"
    again = client(link)
    again.write(line(b"R,A"))
    second = again.frame()
    assert second is not None and second.seq == 2  # the unacknowledged card comes again


def test_tcp_endpoint(emulator: Emulator) -> None:
    shoe = emulator("--seed", "2", "--decks", "1", "--tcp", "127.0.0.1:0")
    assert shoe.kind == "TCP"
    host, port = shoe.where.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as connection:
        connection.sendall(line(b"R"))
        data = b""
        while data.count(b"\n") < 2:
            chunk = connection.recv(4096)
            assert chunk
            data += chunk
        used, features = LineFramer().decode(data)
        assert features == Frame("V", None, "crc16")  # the shoe's answer to the hello comes first
        frame = LineFramer().decode(data[used:])[1]
        assert frame is not None and (frame.kind, frame.data) == as_frame_data(tokens(2, 1)[0])


# -- new_shoe names the last message the table took (issue 25 item 3) -------------------------
def test_a_repeated_new_shoe_for_the_same_message_starts_no_second_shoe(
        emulator: Emulator, client: Callable[..., Client]) -> None:
    """A controller that restarted tells the shoe ``I,<seq>,new_shoe`` again: the shoe ignores the repeat."""
    shoe = emulator("--seed", "9", "--decks", "1", "--ack-timeout", "30")
    controller = client(shoe.path)
    controller.write(line(b"R,A"))
    first = controller.frame()
    assert first is not None and first.seq == 1
    controller.write(line(b"I,1,new_shoe"))  # the table closed its shoe after message 1
    controller.write(line(b"I,1,new_shoe"))  # a restarted controller, telling it again
    controller.write(line(b"A,1"))
    second = controller.frame()
    assert second is not None and (second.kind, second.data) == as_frame_data(tokens(9, 1, shoe=1)[0])
    controller.write(line(b"A,2"))
    third = controller.frame()
    assert third is not None and (third.kind, third.data) == as_frame_data(tokens(9, 1, shoe=1)[1])
    controller.write(line(b"I,3,new_shoe"))  # a later close, after another message: a new shoe
    controller.write(line(b"A,3"))
    fourth = controller.frame()
    assert fourth is not None and (fourth.kind, fourth.data) == as_frame_data(tokens(9, 1, shoe=2)[0])


def test_an_untagged_new_shoe_always_starts_the_next_shoe(emulator: Emulator, client: Callable[..., Client]) -> None:
    """A controller from before the tag: every ``I,new_shoe`` moves the shoe on, as it always did."""
    shoe = emulator("--seed", "9", "--decks", "1", "--ack-timeout", "30")
    controller = client(shoe.path)
    controller.write(line(b"R,A"))
    assert controller.frame() is not None
    controller.write(line(b"I,new_shoe") + line(b"I,new_shoe") + line(b"A,1"))
    second = controller.frame()
    assert second is not None and (second.kind, second.data) == as_frame_data(tokens(9, 1, shoe=2)[0])

"""pcsc:// card source against a real pcscd with vpcd and the project's virtual card."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from controller.core.exceptions import DriverError, DriverURLError
from controller.core.inputs import Input, InputKind
from drivers import driver_class, open_source
from drivers.pcsc.source import PYSCARD_MISSING, PcscCardSource, load_card_map
from tests.drivers.pcsc.conftest import READER_A, READER_B, Hand, Pcscd
from tests.drivers.pcsc.vcard import VirtualCard

pytestmark = pytest.mark.pcsc

URL_A = f"pcsc://?reader={READER_A}&poll=20"
UNREADABLE = Input(InputKind.UNREADABLE)


def card(code: str) -> Input:
    return Input(InputKind.CARD, code)


# -- URL and map parsing (no pcscd needed) -----------------------------------------

def test_registry_serves_pcsc() -> None:
    assert driver_class("pcsc://?reader=x") is PcscCardSource


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("pcsc://?reader=x&colour=red", ["unknown option 'colour'", "reader", "apdu", "map", "poll"]),
        ("pcsc://?apdu=FFB0000404&map=x.txt", ["apdu=HEX or map=FILE"]),
        ("pcsc://?apdu=FFZZ", ["option apdu", "hex"]),
        ("pcsc://?apdu=FF", ["at least 4"]),
        ("pcsc://?poll=5", ["poll=5", "10-10000"]),
        ("pcsc://Virtual PCD 00 00", ["?reader=Virtual PCD 00 00"]),
        ("pcsc://?map=/nonexistent/cards.txt", ["cannot read card map", "/nonexistent/cards.txt"]),
    ],
)
def test_bad_urls_say_what_is_wrong(url: str, words: list[str]) -> None:
    with pytest.raises(DriverURLError) as info:
        PcscCardSource(url)
    for word in words:
        assert word in str(info.value)


def test_map_files(tmp_path: Path) -> None:
    text = tmp_path / "cards.txt"
    text.write_text("# uid code\n04112233445566 th\n04:aa:bb:cc:dd:ee:ff 10D  # ten\n\n04CC @CUT\n")
    assert load_card_map(str(text)) == {"04112233445566": "TH", "04AABBCCDDEEFF": "10D", "04CC": "@cut"}
    toml = tmp_path / "cards.toml"
    toml.write_text('[cards]\n"04112233445566" = "AS"\n')
    assert load_card_map(str(toml)) == {"04112233445566": "AS"}
    toml.write_text('"04112233445566" = "KC"\n')
    assert load_card_map(str(toml)) == {"04112233445566": "KC"}


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("04112233445566\n", ["line 1", "expected 'UID CODE'"]),
        ("ZZ TH\n", ["line 1", "UID in hex", "'ZZ'"]),
        ("04AA XX\n", ["line 1", "card code", "'XX'"]),
        ("04AA TH\n04aa AS\n", ["line 2", "mapped twice"]),
    ],
)
def test_bad_map_files(tmp_path: Path, content: str, words: list[str]) -> None:
    path = tmp_path / "cards.txt"
    path.write_text(content)
    with pytest.raises(DriverURLError) as info:
        load_card_map(str(path))
    for word in [str(path), *words]:
        assert word in str(info.value)


def test_missing_pyscard_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "smartcard", None)
    monkeypatch.setitem(sys.modules, "smartcard.scard", None)
    with pytest.raises(DriverError) as info:
        PcscCardSource("pcsc://?reader=x")
    assert ".ci/setup --test in the Croupier checkout" in str(info.value)
    assert "pip install 'croupier" not in str(info.value)  # Croupier is on no package index
    assert PYSCARD_MISSING in str(info.value)


def test_controller_does_not_import_pyscard() -> None:
    code = ("import sys, controller.cli.main, controller.core.auth, controller.cli.badges, drivers, "
            "drivers.pcsc.source, drivers.pcsc.badges; controller.cli.main.build_parser(); "
            "assert not [m for m in sys.modules if m.startswith('smartcard')], 'pyscard imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[3])


# -- against pcscd -------------------------------------------------------------------

def test_no_such_reader_lists_the_readers(pcscd: Pcscd) -> None:
    with pytest.raises(DriverError) as info:
        open_source("pcsc://?reader=ACR122U")
    message = str(info.value)
    assert "no PC/SC reader 'ACR122U'" in message
    assert READER_A in message and READER_B in message


def test_reader_must_be_named_when_several(pcscd: Pcscd) -> None:
    with pytest.raises(DriverError) as info:
        open_source("pcsc://")
    assert "?reader=NAME" in str(info.value) and READER_A in str(info.value)


def test_unique_part_of_a_name_is_enough(reader_a: str) -> None:
    with open_source("pcsc://?reader=pcd 00 00") as source:
        assert isinstance(source, PcscCardSource)
        assert source.reader == READER_A


@pytest.mark.slow
def test_each_tag_presented_is_one_card(hand_a: Hand) -> None:
    with open_source(URL_A) as source:
        assert source.recv(0) is None
        for code in ("TH", "AS", "10D"):
            tag = hand_a.present(hand_a.card("04112233445566", code=code))
            assert source.recv(5) == card(code)
            assert source.recv(0) is None  # lying on the reader: read once
            hand_a.take_away(tag)
        assert source.recv(0.1) is None


def test_custom_apdu(hand_a: Hand) -> None:
    with open_source(URL_A + "&apdu=FF B0 00 04 02".replace(" ", "")) as source:
        hand_a.present(hand_a.card(code="QS"))
        assert source.recv(5) == card("QS")
        assert any(apdu.hex().upper() == "FFB0000402" for apdu in hand_a.cards[0].apdus)


def test_uid_map(hand_a: Hand, tmp_path: Path) -> None:
    table = tmp_path / "cards.txt"
    table.write_text("04112233445566 KH\n")
    with open_source(f"{URL_A}&map={table}") as source:
        tag = hand_a.present(hand_a.card("04112233445566"))
        assert source.recv(5) == card("KH")
        hand_a.take_away(tag)
        hand_a.present(hand_a.card("04999999999999"))
        assert source.recv(5) == card("04999999999999")  # not a card code: the core's unknown card
        # The misdeal says only that it is no card; the reason names the map and what to do.
        assert isinstance(source, PcscCardSource) and source.last_problem is not None
        assert "04999999999999 is not in the card map" in source.last_problem and str(table) in source.last_problem
        assert "04999999999999 CODE" in source.last_problem, source.last_problem


def test_cut_card_tag(hand_a: Hand, tmp_path: Path) -> None:
    table = tmp_path / "cards.toml"
    table.write_text('[cards]\n"04CCCCCCCCCCCC" = "@cut"\n')
    with open_source(f"{URL_A}&map={table}") as source:
        hand_a.present(hand_a.card("04CCCCCCCCCCCC"))
        assert source.recv(5) == Input(InputKind.CUT)


def test_tag_with_an_error_status_is_unreadable(hand_a: Hand) -> None:
    with open_source(URL_A) as source:
        assert isinstance(source, PcscCardSource)
        hand_a.present(hand_a.card(code="TH", fail_reads=True))
        assert source.recv(5) == UNREADABLE
        assert source.last_problem is not None and "6F00" in source.last_problem


def test_tag_without_a_code_is_unreadable(hand_a: Hand) -> None:
    with open_source(URL_A) as source:
        assert isinstance(source, PcscCardSource)
        hand_a.present(hand_a.card(code=None))
        assert source.recv(5) == UNREADABLE
        assert source.last_problem is not None and "not an ASCII card code" in source.last_problem


class _OneByteTag(VirtualCard):
    """A tag that answers its code read with a single byte: no status word at all."""

    def answer(self, apdu: bytes) -> bytes:
        return b"\x01" if apdu[:2] == b"\xff\xb0" else super().answer(apdu)


def test_tag_answering_too_short_is_unreadable_and_says_why(hand_a: Hand) -> None:
    with open_source(URL_A) as source:
        assert isinstance(source, PcscCardSource)
        tag = _OneByteTag("04A1B2C3D4E5F6", code="TH", port=hand_a.port)
        hand_a.cards.append(tag)
        hand_a.present(tag)
        assert source.recv(5) == UNREADABLE
        assert source.last_problem is not None
        assert "FFB0000404 answered 01, too short for a status word; expected its data and 9000" in \
            source.last_problem, source.last_problem


class _SlowTag(VirtualCard):
    """A tag that takes ``delay`` seconds to answer each APDU."""

    delay = 2.0

    def answer(self, apdu: bytes) -> bytes:
        time.sleep(self.delay)
        return super().answer(apdu)


def test_a_slow_tag_keeps_no_caller_waiting_past_its_timeout(hand_a: Hand) -> None:
    """recv(timeout) returns at its timeout while a slow tag is read (the runner then takes the dealer's inputs
    meanwhile); the card comes when it has been read, once."""
    with open_source(URL_A) as source:
        assert source.recv(0) is None
        tag = _SlowTag("04A1B2C3D4E5F6", code="9D", port=hand_a.port)
        hand_a.cards.append(tag)
        hand_a.present(tag)
        started = time.monotonic()
        assert source.recv(0.5) is None
        assert time.monotonic() - started < 1.5, "recv(0.5) waited for the slow tag's answer"
        assert source.recv(15) == card("9D")
        assert source.recv(0.1) is None


def test_tag_removed_mid_read_is_unreadable_and_nothing_lost(hand_a: Hand) -> None:
    with open_source(URL_A) as source:
        assert isinstance(source, PcscCardSource)
        tag = hand_a.present(hand_a.card(code="TH", vanish_on_read=True))
        assert source.recv(5) == UNREADABLE
        assert source.last_problem is not None and "mid-read" in source.last_problem
        tag.closed.wait(5)
        hand_a.pcscd.wait_card(READER_A, present=False)
        hand_a.present(hand_a.card("04222222222222", code="9C"))
        assert source.recv(5) == card("9C")


def test_tag_that_came_and_went_unseen_is_unreadable(hand_a: Hand) -> None:
    with open_source(URL_A) as source:
        tag = hand_a.present(hand_a.card(code="TH"))
        hand_a.take_away(tag)  # pcscd saw it come and go while nobody called recv
        assert source.recv(5) == UNREADABLE
        assert source.recv(0.1) is None


def test_close_from_another_thread_ends_a_blocked_recv(reader_a: str) -> None:
    source = open_source(URL_A)
    got: list[Any] = []
    thread = threading.Thread(target=lambda: got.append(source.recv(None)))
    thread.start()
    source.close()
    thread.join(5)
    assert not thread.is_alive() and got == [None]
    with pytest.raises(DriverError, match="closed"):
        source.recv(0)


class _Recording:
    """Wraps pyscard's scard: records whether a context is released while a call still waits on it."""

    def __init__(self, scard: Any) -> None:
        self._scard = scard
        self.waiting = threading.Event()
        self.returned = threading.Event()
        self.released_under_a_waiting_call = False
        self.released_by: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._scard, name)

    def SCardGetStatusChange(self, context: Any, timeout: int, states: Any) -> Any:
        self.returned.clear()
        self.waiting.set()
        try:
            return self._scard.SCardGetStatusChange(context, timeout, states)
        finally:
            self.waiting.clear()
            self.returned.set()

    def SCardReleaseContext(self, context: Any) -> Any:
        if self.waiting.is_set():
            self.released_under_a_waiting_call = True
        self.released_by.append(threading.current_thread().name)
        return self._scard.SCardReleaseContext(context)


def test_close_cancels_a_waiting_call_and_the_waiting_thread_releases(reader_a: str) -> None:
    from smartcard import scard

    from drivers.pcsc.source import ReaderWatch

    recording = _Recording(scard)
    watch = ReaderWatch(reader_a, scard=recording)
    got: list[Any] = []
    thread = threading.Thread(target=lambda: got.append(watch.wait(60)), name="waiter", daemon=True)
    thread.start()
    assert recording.waiting.wait(30), "the watch never called SCardGetStatusChange"
    watch.close()
    thread.join(30)
    assert not thread.is_alive(), "the waiting thread is still in SCardGetStatusChange after close()"
    assert got == [None]
    assert not recording.released_under_a_waiting_call
    assert recording.released_by == ["waiter"]
    assert watch.wait(0) is None


class _Unplugged:
    """Wraps pyscard's scard: the reader vanishes from pcscd until ``replug`` is set."""

    def __init__(self, scard: Any, reader: str) -> None:
        self._scard = scard
        self.reader = reader
        self.unplugged = threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._scard, name)

    def SCardListReaders(self, context: Any, groups: Any) -> Any:
        code, readers = self._scard.SCardListReaders(context, groups)
        if self.unplugged.is_set():
            readers = [name for name in readers if name != self.reader]
        return code, readers

    def SCardGetStatusChange(self, context: Any, timeout: int, states: Any) -> Any:
        if self.unplugged.is_set():
            return self._scard.SCARD_E_UNKNOWN_READER, [(self.reader, 0, [])]
        return self._scard.SCardGetStatusChange(context, timeout, states)


def test_reader_unplugged_goes_offline_and_back(hand_a: Hand) -> None:
    import smartcard.scard as scard

    fake = _Unplugged(scard, READER_A)
    source = PcscCardSource(URL_A, scard=fake)
    with source:
        fake.unplugged.set()
        assert source.recv(5) == Input(InputKind.OFFLINE)
        assert source.last_problem is not None and "unplugged" in source.last_problem
        assert source.recv(0.1) is None
        fake.unplugged.clear()
        assert source.recv(5) == Input(InputKind.ONLINE)
        hand_a.present(hand_a.card(code="2H"))
        assert source.recv(5) == card("2H")


def test_tag_already_on_the_reader_at_open_is_read(hand_a: Hand) -> None:
    hand_a.present(hand_a.card(code="JD"))
    with open_source(URL_A) as source:
        assert source.recv(5) == card("JD")
        assert source.recv(0.1) is None


class _Failing:
    """Wraps pyscard's scard: SCardGetStatusChange raises once ``fail`` is set."""

    def __init__(self, scard: Any) -> None:
        self._scard = scard
        self.fail = threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._scard, name)

    def SCardGetStatusChange(self, context: Any, timeout: int, states: Any) -> Any:
        if self.fail.is_set():
            raise RuntimeError("pyscard broke")
        return self._scard.SCardGetStatusChange(context, timeout, states)


def test_a_failure_in_the_reading_thread_reaches_the_caller(hand_a: Hand) -> None:
    """The reading thread never dies silently: the inputs it queued come first, then its failure is raised."""
    import smartcard.scard as scard

    fake = _Failing(scard)
    with PcscCardSource(URL_A, scard=fake) as source:
        hand_a.present(hand_a.card(code="4C"))
        assert source.recv(5) == card("4C")
        fake.fail.set()
        with pytest.raises(RuntimeError, match="pyscard broke"):
            source.recv(5)

"""pcscd stopping and starting again: clear errors, OFFLINE/ONLINE, nothing lost, nothing read twice.

These tests stop the real pcscd by PID and start it again, so they run only
when the tests (or .ci/test) started it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.core.exceptions import DriverError
from controller.core.inputs import Input, InputKind
from drivers import open_source
from drivers.pcsc.badges import BadgeEvent, BadgeReader
from tests.drivers.pcsc.conftest import PORT_A, PORT_B, READER_A, READER_B, Hand, Pcscd

pytestmark = pytest.mark.pcsc

URL_A = f"pcsc://?reader={READER_A}&poll=20"


@pytest.fixture
def restartable(pcscd: Pcscd) -> Iterator[Pcscd]:
    if not pcscd.restartable:
        pytest.skip("pcscd was started neither by these tests nor by .ci/test; not stopping it")
    yield pcscd
    if not pcscd.ready():
        pcscd.start()


def test_pcscd_not_running_is_a_clear_error(restartable: Pcscd) -> None:
    restartable.stop()
    with pytest.raises(DriverError) as info:
        open_source(URL_A)
    assert "pcscd is not running" in str(info.value)
    restartable.start()


@pytest.mark.slow
def test_pcscd_stopping_is_offline_then_online(restartable: Pcscd) -> None:
    hand = Hand(restartable, READER_A, PORT_A)
    try:
        with open_source(URL_A) as source:
            tag = hand.present(hand.card("04111111111111", code="5S"))
            assert source.recv(5) == Input(InputKind.CARD, "5S")
            restartable.stop()
            assert source.recv(5) == Input(InputKind.OFFLINE)
            assert "pcscd" in str(getattr(source, "last_problem", ""))
            assert source.recv(0.1) is None  # still gone: no repeats
            restartable.start()
            assert source.recv(5) == Input(InputKind.ONLINE)
            # The same tag still lying on the reader is not read twice...
            tag.closed.wait(5)
            hand.present(hand.card("04111111111111", code="5S"))
            assert source.recv(1.0) is None
            hand.take_away(hand.cards[-1])
            # ...but the next one is read.
            hand.present(hand.card("04222222222222", code="6S"))
            assert source.recv(5) == Input(InputKind.CARD, "6S")
    finally:
        hand.cleanup()


def test_badge_reader_reports_the_outage(restartable: Pcscd) -> None:
    hand = Hand(restartable, READER_B, PORT_B)
    try:
        with BadgeReader(READER_B, poll=0.02) as badges:
            restartable.stop()
            event = badges.next_event(5)
            assert event is not None and event.kind == "offline" and "pcscd" in event.message
            restartable.start()
            assert badges.next_event(5) == BadgeEvent("online", READER_B,
                                                      message=f"badge reader pcsc://?reader={READER_B}: "
                                                              f"reader {READER_B!r} is back")
            hand.present(hand.card("04A1B2C3D4E5F6"))
            assert badges.next_event(5) == BadgeEvent("presented", READER_B, "04A1B2C3D4E5F6")
    finally:
        hand.cleanup()

"""controller.core.clock: the host clock's readings journaled as ``clock`` events; a jump or an offset beyond
``[journal] clock_limit`` raises a ``clock`` alert; a text that is not a reading is refused."""

from __future__ import annotations

import pytest

from controller.core.clock import ClockReading, ClockReadingError
from controller.core.inputs import Input, InputKind
from tests.tokens import NO_BURN, dealt, table_of


def clock(text: str, **sections: dict[str, object]) -> list[tuple[str, object]]:
    table = table_of(shoe=NO_BURN, **sections)
    dealt("3S KD", table)
    return [(str(event["event"]), event.get("kind")) for event in table.handle(Input(InputKind.CLOCK, text))]


@pytest.mark.parametrize(("reading", "alert"), [
    (ClockReading(True, "chronyc", 0.0001), False),
    (ClockReading(None, "none"), False),
    (ClockReading(False, "timedatectl"), False),
    (ClockReading(True, "chronyc", 2.5), True),           # synchronised, but too far off
    (ClockReading(True, "timedatectl", None, -0.2), True),  # backwards, however little
    (ClockReading(True, "timedatectl", None, 0.5), False),  # forwards within the limit
    (ClockReading(True, "timedatectl", None, 30.0), True),
])
def test_a_reading_is_journaled_and_alerts_when_the_clock_cannot_be_trusted(reading: ClockReading,
                                                                            alert: bool) -> None:
    events = clock(reading.text())
    assert events[0] == ("clock", None)
    assert (("alert", "clock") in events) == alert
    assert events[-1][0] == "prompt"  # the round goes on: a clock alert is a warning


def test_the_limit_is_the_houses() -> None:
    assert ("alert", "clock") not in clock(ClockReading(True, "chronyc", 2.5).text(), journal={"clock_limit": 5})


@pytest.mark.parametrize("text", ["", "synced=maybe source=x", "synced=yes source=a offset=nan", "synced=yes",
                                  "synced=yes source=x offset=1e", "synced=yes source=x colour=red"])
def test_a_text_that_is_not_a_reading_is_refused(text: str) -> None:
    with pytest.raises(ClockReadingError):
        ClockReading.from_text(text)
    assert clock(text)[0] == ("rejected", None)


def test_a_reading_reads_back_as_written() -> None:
    reading = ClockReading(True, "chronyc", 0.000123, -3.25)
    assert ClockReading.from_text(reading.text()) == reading

"""controller.app.clock_watch: a reading at start, one every ``clock_every`` seconds, one at each jump of the wall
clock against the monotonic one (fake clocks: nothing here waits on real time passing)."""

from __future__ import annotations

import queue

from controller.app.clock_watch import ClockWatch, read_synchronisation
from controller.core.clock import ClockReading
from controller.core.inputs import Input, InputKind


class Clocks:
    def __init__(self) -> None:
        self.wall_now = 1_000_000.0
        self.monotonic_now = 50.0

    def wall(self) -> float:
        return self.wall_now

    def monotonic(self) -> float:
        return self.monotonic_now


def readings(got: queue.Queue[Input], count: int) -> list[ClockReading]:
    found = []
    for _ in range(count):
        item = got.get(timeout=30)
        assert item.kind is InputKind.CLOCK
        found.append(ClockReading.from_text(item.card or ""))
    return found


def test_a_reading_at_start_then_at_a_jump_and_every_interval() -> None:
    clocks = Clocks()
    got: queue.Queue[Input] = queue.Queue()
    looks: queue.Queue[bool] = queue.Queue()
    looked: queue.Queue[None] = queue.Queue()

    def sleep(_: float) -> bool:
        looked.put(None)
        return looks.get(timeout=30)  # the test lets the watch look once the clocks are set

    def look() -> None:
        looked.get(timeout=30)
        looks.put(False)

    def read() -> ClockReading:
        return ClockReading(True, "chronyc", 0.001)

    watch = ClockWatch(got.put, every=3600, read=read, wall=clocks.wall, monotonic=clocks.monotonic, sleep=sleep)
    watch.start()
    try:
        assert readings(got, 1) == [ClockReading(True, "chronyc", 0.001)]
        clocks.monotonic_now += 2
        clocks.wall_now += 2
        look()
        clocks.wall_now -= 7.5  # someone set the clock back
        look()
        jumped = readings(got, 1)[0]
        assert jumped.jump is not None and abs(jumped.jump + 7.5) < 1e-6
        clocks.wall_now += 3600
        clocks.monotonic_now += 3600  # an hour passed
        look()
        assert readings(got, 1)[0].jump is None
        looked.get(timeout=30)
        assert got.empty()  # a look without a jump within the hour gives nothing
    finally:
        looks.put(True)
        watch.close()


def test_synchronisation_from_whichever_tool_answers() -> None:
    assert read_synchronisation(lambda command: "yes\n" if command[0] == "timedatectl" else None) == \
        ClockReading(True, "timedatectl")
    chrony = "A29FC87B,ntp.example,3,1733100000.1,-0.000012345,0.0,0.0,1.0,0.0,0.0,0.0,64.0,0.1,0.1,Normal\n"
    assert read_synchronisation(lambda command: chrony if command[0] == "chronyc" else None) == \
        ClockReading(True, "chronyc", -0.000012345)
    assert read_synchronisation(lambda command: None) == ClockReading(None, "none")

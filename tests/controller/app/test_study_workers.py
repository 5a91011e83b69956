"""The study's workers and the command: a bounded queue of chunks between them, and shoes added up in order."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import pytest

from controller.app import study
from controller.app.fastsim import Procedure
from controller.app.study import CHUNK, Plan, StudiedBet, Tally
from controller.core.bets.catalogue import BETS


class CountingPool:
    """A pool that runs each task at once in this process and counts the chunks dealt that the command has not
    yet taken (submitted, their result not read)."""

    def __init__(self) -> None:
        self.waiting: list[Future[Any]] = []
        self.most_waiting = 0

    def __enter__(self) -> CountingPool:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def submit(self, task: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_result(task(*args))
        self.waiting.append(future)
        self.most_waiting = max(self.most_waiting, len(self.waiting))
        original = future.result

        def taken(timeout: float | None = None) -> Any:
            self.waiting.remove(future)
            return original(timeout)

        future.result = taken  # type: ignore[method-assign]
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        return None


def plan() -> Plan:
    bet = BETS["dragon_7"]
    return Plan(Procedure(seed=5, decks=8, cut_from_end=16, burn="first_card", burn_cards=0, one_more=True),
                (StudiedBet("dragon_7", bet.name, bet.pays),))


def test_the_chunks_dealt_ahead_of_the_command_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every chunk of shoes was submitted at once and its tallies kept until the command took them: a command
    slower than its workers (a trace written to a slow disk) held the whole study in memory. The workers deal at
    most a few chunks each ahead of the one the command adds up."""
    pool = CountingPool()
    monkeypatch.setattr(study, "worker_pool", lambda workers: pool)
    shoes = 40 * CHUNK
    done: list[int] = []
    tally = study.run(plan(), shoes, workers=2, progress=done.append)
    assert tally.shoes == shoes and done == list(range(CHUNK, shoes + 1, CHUNK))
    assert 1 <= pool.most_waiting <= 2 * study.AHEAD, pool.most_waiting


def test_the_tallies_are_those_of_one_process_in_shoe_order(monkeypatch: pytest.MonkeyPatch) -> None:
    pool = CountingPool()
    monkeypatch.setattr(study, "worker_pool", lambda workers: pool)
    together: Tally = study.run(plan(), 3 * CHUNK, workers=2)
    alone: Tally = study.run(plan(), 3 * CHUNK, workers=1)
    assert (together.shoes, together.rounds) == (alone.shoes, alone.rounds)
    assert together.bets["dragon_7"].above == alone.bets["dragon_7"].above


def test_a_stop_while_a_chunk_is_added_up_leaves_the_tally_of_whole_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stop signal arrives at any moment: one that came while a chunk was being added up (its shoes counted, its
    bets not yet) gave a report whose figures were not those of the shoes it named (CI found it under load). The
    stop now waits for the chunk to be added up whole, and the tally is that of a study of as many shoes. The
    signal goes to this thread: the command's other threads (the pool's) are made with the stops held, a test
    runner's are not, and one of them would take a signal sent to the process."""
    import signal
    import threading

    added = 0
    original = study.BetTally.add

    def add_stopped_on_the_second_chunk(self: study.BetTally, other: study.BetTally) -> None:
        nonlocal added
        added += 1
        if added == 2:
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # between the shoes counted and the bets
        original(self, other)

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        monkeypatch.setattr(study.BetTally, "add", add_stopped_on_the_second_chunk)
        stopped = study.run(plan(), 4 * CHUNK, workers=1)
    finally:
        signal.signal(signal.SIGINT, previous)
    monkeypatch.undo()
    assert stopped.interrupt is not None and stopped.shoes == 2 * CHUNK
    whole = study.run(plan(), stopped.shoes, workers=1)
    assert (stopped.rounds, stopped.bets) == (whole.rounds, whole.bets)

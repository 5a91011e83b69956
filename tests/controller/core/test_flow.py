"""The machine owns the round flow (issue 26 item 3): every move of the round the core offers or takes is the one
the machine's table allows, in every state; taking a row out of the table takes the move away, which a check of
the round's state by hand would not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from controller.core import machine
from controller.core.inputs import Input, InputKind
from controller.core.machine import State
from tests.flow_cases import Case, rows_from, says, table_states, without_row


def refused(case: Case, item: Input) -> bool:
    """Stepping ``item`` at this table is refused (a ``rejected`` event)."""
    return any(event["event"] == "rejected" for event in case.table().handle(item))


def void_offered(case: Case) -> bool:
    """Two cards out of the shoe together now: is the round voided among the misdeal's resolutions?"""
    table = case.table()
    table.handle(Input(InputKind.DOUBLE))
    assert table.misdeal is not None
    return "void" in table.misdeal.resolutions


def decided_after_reveals(case: Case) -> bool:
    """The dealer reveals what is down: does the machine call the next card (or the result)?"""
    table = case.table()
    before = table.phase
    while (due := table.reveal_due) is not None:
        revealed = table.revealed
        table.handle(Input(InputKind.REVEAL, str(due.total)))
        if table.revealed == revealed:
            break
    return table.phase is not before


Decision = tuple[str, Callable[[Case], bool], Callable[[Case], bool]]
"""(what is decided, the decision at a table, what the machine's table says of it)."""

DECISIONS: dict[str, list[Decision]] = {
    "shoe_ready": [("@shoe offered", lambda case: "shoe" in case.table().view.accepts,
                    lambda case: says(case, "shoe_ready") or says(case, "load_shoe")),
                   ("@shoe taken", lambda case: not refused(case, Input(InputKind.SHOE)),
                    lambda case: says(case, "shoe_ready") or says(case, "load_shoe"))],
    "load_shoe": [("@shoe offered", lambda case: "shoe" in case.table().view.accepts,
                   lambda case: says(case, "shoe_ready") or says(case, "load_shoe")),
                  ("@shoe taken", lambda case: not refused(case, Input(InputKind.SHOE)),
                   lambda case: says(case, "shoe_ready") or says(case, "load_shoe"))],
    "next_round": [("@next offered", lambda case: "next" in case.table().view.accepts,
                    lambda case: says(case, "next_round")),
                   ("@next taken", lambda case: not refused(case, Input(InputKind.NEXT)),
                    lambda case: says(case, "next_round")),
                   ("@close offered", lambda case: "close" in case.table().view.accepts,
                    lambda case: says(case, "next_round") or says(case, "count_stub"))],
    "count_stub": [("@count offered", lambda case: "count" in case.table().view.accepts,
                    lambda case: says(case, "count_stub")),
                   ("@count taken", lambda case: not refused(case, Input(InputKind.COUNT)),
                    lambda case: says(case, "count_stub")),
                   ("@close offered", lambda case: "close" in case.table().view.accepts,
                    lambda case: says(case, "next_round") or says(case, "count_stub"))],
    "take_back": [("@exposed offered", lambda case: "exposed" in case.table().view.accepts,
                   lambda case: says(case, "take_back")),
                  ("@exposed taken", lambda case: not refused(case, Input(InputKind.EXPOSED)),
                   lambda case: says(case, "take_back"))],
    "void_round": [("void offered on a halt", void_offered,
                    lambda case: says(case, "void_round") or case.value.result_due)],
    "revealed": [("the next call after the reveals", lambda case: not case.value.result_due
                  and decided_after_reveals(case), lambda case: says(case, "revealed"))],
}
"""Each trigger's decisions in the core, and what the table says of each (a decision that reads the round's state
by hand gives the same answer whatever the table says)."""

def running() -> list[Case]:
    """The cases where nothing but the flow decides (no halt, no critical alert, the reader there)."""
    return [case for case in table_states() if case.running]


def test_the_cases_reach_every_row_the_decisions_follow() -> None:
    reached = {case.value.round.state for case in running()}
    for trigger in DECISIONS:
        for row in machine.TRANSITIONS:
            if row.trigger == trigger:
                assert set(row.source) <= reached, (trigger, set(row.source) - reached)


@pytest.mark.parametrize("trigger", [trigger for trigger in DECISIONS if trigger in machine.TRIGGERS])
def test_every_decision_of_the_core_is_the_tables(trigger: str) -> None:
    checked = 0
    for case in running():
        state = case.value.round.state
        for what, decide, table_says in DECISIONS[trigger]:
            assert decide(case) is table_says(case), (what, state, case.value.round)
            if rows_from(state, trigger):
                with without_row(state, trigger):
                    assert decide(case) is table_says(case), (f"{what} without {trigger} from {state.name}",
                                                              case.value.round)
                checked += 1
    assert checked


def test_the_sets_of_states_the_core_reads_are_the_tables() -> None:
    """The sets of states read outside the machine are what its table allows from each state, not lists by hand."""
    def allowed(trigger: str) -> set[State]:
        return {case.value.round.state for case in table_states()
                if machine.may(trigger, case.value.round, case.table().context.rules)}

    assert allowed("card") == machine.DEALING
    assert allowed("void_round") == machine.IN_ROUND
    assert allowed("revealed") == machine.SQUEEZE_STATES
    assert set(machine.SLOTS) == machine.SLOT_SET == machine.DEALING & machine.IN_ROUND
    assert {State.BURN_TURN, State.BURNING} == machine.BURN_STATES == machine.DEALING - machine.IN_ROUND

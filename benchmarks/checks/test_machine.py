"""The round machine's benchmark measures what it says: the questions it times are those the full path asks, and
the library answers them as the compiled table does."""

from __future__ import annotations

from benchmarks import machine


def test_the_questions_are_the_full_paths_and_both_tables_answer_them_alike() -> None:
    run = machine.measure_run(50)
    triggers = {trigger for trigger, _, _ in run.questions}
    assert {"card", "shoe_ready", "next_round"} <= triggers, triggers
    assert len(run.questions) > 50 * 6 and run.app_asks > 0
    assert machine.same_answers(run.questions)
    assert machine.compiled_seconds(run.questions) > 0
    assert machine.library_seconds(run.questions, "may_") > 0

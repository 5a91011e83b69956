"""The drill's report: calls made, right and wrong by kind, the tableau cells missed most, time per call."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from controller.core.stats import mean, percentile
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.counts import calls as counted_calls
from controller.i18n.counts import rounds as counted_rounds
from controller.i18n.numbers import format_fixed
from controller.training.calls import CALL_NAMES, CallKind, cell_message
from controller.training.events import CallScoredEvent, CallTally, MissedCell, TrainingReportEvent
from controller.ui.bigtext import cells, pad_cells

MISSED_CELLS_SHOWN = 5


@dataclass
class TrainingReport:
    """Adds up the scored calls; :meth:`event` is the ``training_report``."""

    rounds: int = 0
    scored: list[CallScoredEvent] = field(default_factory=list)

    def add(self, scored: CallScoredEvent) -> None:
        self.scored.append(scored)

    def event(self, finished: bool) -> TrainingReportEvent:
        scored = self.scored
        by_call: dict[str, CallTally] = {}
        for call in dict.fromkeys(s.call for s in scored):
            mine = [s for s in scored if s.call == call]
            right = sum(s.correct for s in mine)
            by_call[call] = CallTally(calls=len(mine), correct=right, wrong=len(mine) - right)
        seconds = [s.seconds for s in scored]
        right = sum(s.correct for s in scored)
        mean_seconds, p90_seconds = mean(seconds), percentile(seconds, 0.9)
        return TrainingReportEvent(
            rounds=self.rounds, calls=len(scored), correct=right, wrong=len(scored) - right, by_call=by_call,
            missed_cells=self.missed_cells(),
            mean_seconds=None if mean_seconds is None else round(mean_seconds, 3),
            p90_seconds=None if p90_seconds is None else round(p90_seconds, 3), finished=finished)

    def missed_cells(self) -> list[MissedCell]:
        """The cells with wrong calls, most missed first (then in the order first met)."""
        asked: Counter[tuple[CallKind, str]] = Counter((s.call, s.cell) for s in self.scored)
        wrong: Counter[tuple[CallKind, str]] = Counter((s.call, s.cell) for s in self.scored if not s.correct)
        return [MissedCell(call=call, cell=cell, wrong=count, calls=asked[call, cell])
                for (call, cell), count in wrong.most_common(MISSED_CELLS_SHOWN)]


def _call_text(call: str, words: Catalogue) -> str:
    name = next((worded for kind, worded in CALL_NAMES.items() if kind == call), None)
    return call if name is None else words.text(name)


def _cell_text(cell: str, words: Catalogue) -> str:
    worded = cell_message(cell)
    return cell if worded is None else words.text(worded)


def report_lines(report: TrainingReportEvent, words: Catalogue = ENGLISH) -> list[str]:
    """The report for a person to read, in ``words``' language (the call kinds and tableau cells as the drill
    names them)."""
    say = words.say
    lines = [say("train.report.counted", "Training report: {rounds}, {calls}, {right} right, {wrong} wrong",
                 rounds=counted_rounds(report["rounds"]), calls=counted_calls(report["calls"]),
                 right=report["correct"], wrong=report["wrong"])
             + ("" if report["finished"] else say("train.ended_early", " (ended early)"))]
    made = {call: words.text(counted_calls(tally["calls"], f"{tally['calls']:>4}"))
            for call, tally in report["by_call"].items()}
    width = max(map(cells, made.values()), default=0)  # "1 call" and "2 calls" rows keep one column
    for call, tally in report["by_call"].items():
        counts = say("train.tally.counted", "{calls}  {right} right  {wrong} wrong", calls=pad_cells(made[call], width),
                     right=f"{tally['correct']:>4}", wrong=f"{tally['wrong']:>4}")
        lines.append(f"  {pad_cells(_call_text(call, words), 7)} {counts}")
    if report["missed_cells"]:
        lines.append("  " + say("train.missed_most", "missed most:"))
        lines.extend(f"    {_call_text(cell['call'], words)}: {_cell_text(cell['cell'], words)} "
                     + say("train.missed", "({wrong} of {calls} wrong)", wrong=cell["wrong"], calls=cell["calls"])
                     for cell in report["missed_cells"])
    if report["mean_seconds"] is not None:
        lines.append("  " + say("train.time", "time per call: mean {mean} s, p90 {p90} s",
                                mean=format_fixed(report["mean_seconds"], 1, words.language),
                                p90=format_fixed(report["p90_seconds"] or 0.0, 1, words.language)))
    return lines

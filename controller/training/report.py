"""The drill's report: calls made, right and wrong by kind, the tableau cells missed most, time per call."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from controller.core.stats import mean, percentile
from controller.training.calls import CallKind
from controller.training.events import CallScoredEvent, CallTally, MissedCell, TrainingReportEvent

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
        for call in dict.fromkeys(s["call"] for s in scored):
            mine = [s for s in scored if s["call"] == call]
            right = sum(s["correct"] for s in mine)
            by_call[call] = {"calls": len(mine), "correct": right, "wrong": len(mine) - right}
        seconds = [s["seconds"] for s in scored]
        right = sum(s["correct"] for s in scored)
        mean_seconds, p90_seconds = mean(seconds), percentile(seconds, 0.9)
        return {
            "event": "training_report",
            "rounds": self.rounds,
            "calls": len(scored),
            "correct": right,
            "wrong": len(scored) - right,
            "by_call": by_call,
            "missed_cells": self.missed_cells(),
            "mean_seconds": None if mean_seconds is None else round(mean_seconds, 3),
            "p90_seconds": None if p90_seconds is None else round(p90_seconds, 3),
            "finished": finished,
        }

    def missed_cells(self) -> list[MissedCell]:
        """The cells with wrong calls, most missed first (then in the order first met)."""
        asked: Counter[tuple[CallKind, str]] = Counter((s["call"], s["cell"]) for s in self.scored)
        wrong: Counter[tuple[CallKind, str]] = Counter((s["call"], s["cell"]) for s in self.scored
                                                       if not s["correct"])
        return [{"call": call, "cell": cell, "wrong": count, "calls": asked[call, cell]}
                for (call, cell), count in wrong.most_common(MISSED_CELLS_SHOWN)]


def report_lines(report: TrainingReportEvent) -> list[str]:
    """The report for a person to read."""
    lines = [f"Training report: {report['rounds']} rounds, {report['calls']} calls, "
             f"{report['correct']} right, {report['wrong']} wrong"
             + ("" if report["finished"] else " (ended early)")]
    for call, tally in report["by_call"].items():
        lines.append(f"  {call:<7} {tally['calls']:>4} calls  {tally['correct']:>4} right  {tally['wrong']:>4} wrong")
    if report["missed_cells"]:
        lines.append("  missed most:")
        lines.extend(f"    {cell['call']}: {cell['cell']} ({cell['wrong']} of {cell['calls']} wrong)"
                     for cell in report["missed_cells"])
    if report["mean_seconds"] is not None:
        lines.append(f"  time per call: mean {report['mean_seconds']:.1f} s, p90 {report['p90_seconds']:.1f} s")
    return lines

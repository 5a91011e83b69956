"""``--plot FILE.png``: game pace over each shift, drawn with matplotlib (the ``reports`` extra)."""

from __future__ import annotations

from pathlib import Path

from controller.core.exceptions import install_hint
from controller.i18n.message import message
from controller.reports.dealers import Shift
from controller.reports.sources import ReportInputError


def plot_pace(shifts: list[Shift], path: str) -> None:
    """Rounds dealt against minutes into the shift (the slope is the pace), and each round's seconds."""
    target = Path(path)
    if target.suffix.lower() != ".png":
        raise ReportInputError(f"--plot {path}: expected a file name ending in .png")
    if not target.parent.is_dir():
        raise ReportInputError(f"--plot {path}: directory {str(target.parent)!r} does not exist; create it or "
                               "give another path")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ReportInputError(message("plot.no_matplotlib", "--plot needs matplotlib; {install}",
                                       install=install_hint("plot"))) from None
    figure, (pace, per_round) = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    for shift in shifts:
        label = f"{shift.name or shift.uid or 'no badge'} · {shift.table} · {shift.start:%Y-%m-%d %H:%M}"
        minutes = [seconds / 60 for seconds in shift.finished_at]
        pace.step([0, *minutes], list(range(len(minutes) + 1)), where="post", label=label)
        if shift.timed_rounds:
            per_round.plot([end / 60 for end, _ in shift.timed_rounds], [took for _, took in shift.timed_rounds],
                           marker=".", linestyle="-", label=label)
    pace.set_ylabel("rounds dealt")
    pace.set_title("Game pace over the shift")
    if shifts:
        pace.legend(fontsize="small")
    per_round.set_ylabel("seconds per round")
    per_round.set_xlabel("minutes into the shift")
    figure.tight_layout()
    try:
        figure.savefig(target, format="png")
    except OSError as error:
        raise ReportInputError(message("plot.unwritable", "--plot {path}: cannot write the picture ({reason}); give a "
                                       "file name in a directory you may write to", path=path,
                                       reason=str(error.strerror or error))) from None
    finally:
        plt.close(figure)

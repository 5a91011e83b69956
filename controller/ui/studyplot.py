"""``croupier study --plot FILE``: the risk study as a picture (matplotlib, the ``plot`` extra).

One row a bet. Left: its exact edge through the shoe (the mean and the 5%-95% band, per eighth of the shoe);
right: the perfect counter's expected win per shoe from the rounds above each alert threshold, and the alerts
an honest table raises per shoe at that threshold (right axis), the recommended threshold marked.
"""

from __future__ import annotations

from typing import Any

from controller.core.exceptions import CroupierError
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import message
from controller.ui.oddsplot import CJK_FONTS, CJK_LANGUAGES


def write_study_plot(report: dict[str, Any], path: str, words: Catalogue = ENGLISH) -> None:
    """Draw ``report`` (``croupier study --json``'s object) to ``path``, labelled in ``words``' language."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    style: Any = ({"font.family": ["sans-serif"], "font.sans-serif": [*CJK_FONTS, *pyplot.rcParams["font.sans-serif"]]}
                  if words.language in CJK_LANGUAGES else {})
    with pyplot.rc_context(style):
        _draw(report, path, words)


def _draw(report: dict[str, Any], path: str, words: Catalogue) -> None:
    from matplotlib import pyplot

    say = words.say
    bets = report["bets"]
    figure, axes = pyplot.subplots(len(bets), 2, figsize=(11, 3.2 * len(bets)), squeeze=False)
    for row, (name, bet) in enumerate(bets.items()):
        through, by = bet["through_the_shoe"], bet["by_threshold"]
        parts = [part["part"] for part in through]
        edge = axes[row][0]
        edge.fill_between(parts, [part["p05"] * 100 for part in through], [part["p95"] * 100 for part in through],
                          alpha=0.25, label=say("study.plot.band", "5%-95% of rounds"))
        edge.plot(parts, [part["mean_edge"] * 100 for part in through], marker="o",
                  label=say("study.plot.mean", "mean edge"))
        edge.axhline(0, color="black", linewidth=0.8)
        edge.set_title(say("study.plot.edge_title", "{bet}: the players' edge through the shoe", bet=name))
        edge.set_xlabel(say("study.plot.part", "eighth of the shoe"))
        edge.set_ylabel(say("study.plot.edge_axis", "edge (%)"))
        edge.legend(fontsize="small")
        win = axes[row][1]
        thresholds = [above * 100 for above in by["above"]]
        win.plot(thresholds, by["units_per_shoe"], label=say("study.plot.win", "counter's win a shoe above it"))
        win.set_xscale("symlog", linthresh=1)
        win.set_title(say("study.plot.win_title", "{bet}: alert threshold", bet=name))
        win.set_xlabel(say("study.plot.threshold_axis", "alert above (% edge)"))
        win.set_ylabel(say("study.plot.units_axis", "units a shoe"))
        alerts = win.twinx()
        alerts.plot(thresholds, by["alerts_per_shoe"], color="tab:red",
                    label=say("study.plot.alerts", "alerts a shoe, honest table"))
        alerts.set_ylabel(say("study.plot.alerts_axis", "alerts a shoe"))
        chosen = bet["recommended_alert_above"]["above"] * 100
        win.axvline(chosen, color="tab:green", linestyle="--",
                    label=say("study.plot.recommended", "recommended alert_above"))
        handles = win.get_legend_handles_labels()
        more = alerts.get_legend_handles_labels()
        win.legend(handles[0] + more[0], handles[1] + more[1], fontsize="small")
    figure.suptitle(say("study.plot.title", "Risk study: {shoes} shoes of {decks} decks (seed {seed})",
                        shoes=report["shoes"], decks=report["decks"], seed=report["seed"]))
    figure.tight_layout()
    try:
        figure.savefig(path)
    except OSError as error:  # checked before the study; gone since (the disk full, the directory removed)
        raise CroupierError(message("plot.unwritable", "--plot {path}: cannot write the picture ({reason}); give a "
                                    "file name in a directory you may write to",
                                    path=path, reason=str(error.strerror))) from None
    finally:
        pyplot.close(figure)

"""``croupier simulate --plot FILE``: the odds comparison as a picture (matplotlib, the ``plot`` extra).

The file's suffix picks the format matplotlib writes (``.png``, ``.svg``, ``.pdf``). Left: each observed
frequency beside its exact probability, with a bar of two standard errors; right: the net per unit bet
beside its expected value.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from controller.core.exceptions import CroupierError, install_hint
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.counts import rounds as counted_rounds
from controller.i18n.message import message
from controller.i18n.variants import variant_name
from controller.ui.oddscompare import OddsComparison, bet_label, frequency_label

FORMATS = (".png", ".svg", ".pdf")
CJK_LANGUAGES = ("ko", "zh_Hant", "zh_Hans", "ja")
CJK_FONTS = ("Noto Sans CJK JP", "Noto Sans CJK KR", "Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK HK")
"""The fonts (fonts-noto-cjk, installed by .ci/setup) tried first for the labels of a CJK language."""


def check_plot_path(path: str) -> None:
    """Refuse (one line) a ``--plot`` path whose format, directory or file cannot be written, before the game."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        if not suffix:
            raise CroupierError(message("plot.no_suffix", "--plot {path}: expected a file name ending {formats}, got "
                                        "no suffix", path=path, formats=", ".join(FORMATS)))
        raise CroupierError(message("plot.bad_suffix", "--plot {path}: expected a file name ending {formats}, got "
                                    "{suffix}", path=path, formats=", ".join(FORMATS), suffix=suffix))
    if not Path(path).resolve().parent.is_dir():
        directory = repr(str(Path(path).resolve().parent))
        raise CroupierError(message("plot.no_directory", "--plot {path}: no such directory {directory}; create it "
                                    "or give another path", path=path, directory=directory))
    _refuse_unwritable(path)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise CroupierError(message("plot.no_matplotlib", "--plot needs matplotlib; {install}",
                                    install=install_hint("plot"))) from None


def _refuse_unwritable(path: str) -> None:
    """Refuse a ``--plot`` path that cannot be opened for writing (a directory, no permission), trying it as the
    picture will be written; a file the try made is removed, one that was there is left as it was."""
    there = os.path.lexists(path)
    try:
        with open(path, "ab"):
            pass
    except OSError as error:
        raise CroupierError(message("plot.unwritable_before", "--plot {path}: cannot write the picture there "
                                    "({reason}); give a file name in a directory you may write to", path=path,
                                    reason=str(error.strerror))) from None
    if not there:
        os.remove(path)


def write_plot(comparison: OddsComparison, path: str, words: Catalogue = ENGLISH) -> None:
    """Draw ``comparison`` to ``path``, its labels in ``words``' language (a CJK one in an installed CJK font)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    style: Any = ({"font.family": ["sans-serif"], "font.sans-serif": [*CJK_FONTS, *pyplot.rcParams["font.sans-serif"]]}
                  if words.language in CJK_LANGUAGES else {})
    with pyplot.rc_context(style):
        _draw(comparison, path, words)


def _draw(comparison: OddsComparison, path: str, words: Catalogue) -> None:
    from matplotlib import pyplot

    say = words.say
    frequencies = comparison.frequencies()
    bets = comparison.bet_nets()
    figure, (left, right) = pyplot.subplots(1, 2, figsize=(10, 4), dpi=80)
    positions = range(len(frequencies))
    errors = [2 * math.sqrt(float(row.exact) * (1 - float(row.exact)) / row.rounds) * 100 if row.rounds else 0
              for row in frequencies]
    left.bar([x - 0.2 for x in positions], [row.observed * 100 for row in frequencies], 0.4,
             yerr=errors, capsize=3, label=say("plot.observed_errors", "observed (±2 s.e.)"), color="#c0392b")
    left.bar([x + 0.2 for x in positions], [float(row.exact) * 100 for row in frequencies], 0.4,
             label=say("plot.exact", "exact (croupier odds)"), color="#2c3e50")
    left.set_xticks(list(positions), [frequency_label(row.name, words) for row in frequencies], rotation=30,
                    ha="right")
    left.set_ylabel(say("plot.percent_of_rounds", "% of rounds"))
    left.set_title(say("plot.frequencies", "Frequencies over {rounds}",
                       rounds=counted_rounds(comparison.counts["rounds"])))
    left.legend(fontsize="small")
    places = range(len(bets))
    right.bar([x - 0.2 for x in places], [bet.per_unit for bet in bets], 0.4, label=say("plot.observed", "observed"),
              color="#c0392b")
    right.bar([x + 0.2 for x in places], [float(bet.expected) for bet in bets], 0.4,
              label=say("plot.expected", "expected (-house edge)"), color="#2c3e50")
    right.axhline(0, color="black", linewidth=0.8)
    right.set_xticks(list(places), [bet_label(bet.bet, words) for bet in bets], rotation=30, ha="right")
    right.set_ylabel(say("plot.net_per_unit", "net per unit bet"))
    right.set_title(say("plot.net_per_bet", "Net per bet ({decks} decks, {variant})", decks=comparison.decks,
                        variant=variant_name(comparison.variant, words)))
    right.legend(fontsize="small")
    figure.tight_layout()
    try:
        figure.savefig(path)
    except OSError as error:
        raise CroupierError(message("plot.unwritable", "--plot {path}: cannot write the picture ({reason}); give a "
                                    "file name in a directory you may write to",
                                    path=path, reason=str(error.strerror))) from None
    finally:
        pyplot.close(figure)

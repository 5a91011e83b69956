"""``croupier simulate --plot FILE``: the odds comparison as a picture (matplotlib, the ``plot`` extra).

The file's suffix picks the format matplotlib writes (``.png``, ``.svg``, ``.pdf``). Left: each observed
frequency beside its exact probability, with a bar of two standard errors; right: the net per unit bet
beside its expected value.
"""

from __future__ import annotations

import math
from pathlib import Path

from controller.core.exceptions import CroupierError
from controller.ui.oddscompare import OddsComparison

FORMATS = (".png", ".svg", ".pdf")


def check_plot_path(path: str) -> None:
    """Refuse (one line) a ``--plot`` path whose format or directory cannot be written, before the game."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise CroupierError(f"--plot {path}: expected a file name ending {', '.join(FORMATS)}, got "
                            f"{suffix or 'no suffix'}")
    if not Path(path).resolve().parent.is_dir():
        raise CroupierError(f"--plot {path}: no such directory {str(Path(path).resolve().parent)!r}; "
                            "create it or give another path")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise CroupierError("--plot needs matplotlib; install it: pip install 'croupier[plot]'") from None


def write_plot(comparison: OddsComparison, path: str) -> None:
    """Draw ``comparison`` to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    frequencies = comparison.frequencies()
    bets = comparison.bet_nets()
    figure, (left, right) = pyplot.subplots(1, 2, figsize=(10, 4), dpi=80)
    positions = range(len(frequencies))
    errors = [2 * math.sqrt(float(row.exact) * (1 - float(row.exact)) / row.rounds) * 100 if row.rounds else 0
              for row in frequencies]
    left.bar([x - 0.2 for x in positions], [row.observed * 100 for row in frequencies], 0.4,
             yerr=errors, capsize=3, label="observed (±2 s.e.)", color="#c0392b")
    left.bar([x + 0.2 for x in positions], [float(row.exact) * 100 for row in frequencies], 0.4,
             label="exact (croupier odds)", color="#2c3e50")
    left.set_xticks(list(positions), [row.label for row in frequencies], rotation=30, ha="right")
    left.set_ylabel("% of rounds")
    left.set_title(f"Frequencies over {comparison.counts['rounds']} rounds")
    left.legend(fontsize="small")
    places = range(len(bets))
    right.bar([x - 0.2 for x in places], [bet.per_unit for bet in bets], 0.4, label="observed", color="#c0392b")
    right.bar([x + 0.2 for x in places], [float(bet.expected) for bet in bets], 0.4,
              label="expected (-house edge)", color="#2c3e50")
    right.axhline(0, color="black", linewidth=0.8)
    right.set_xticks(list(places), [bet.bet.replace("_", " ") for bet in bets], rotation=30, ha="right")
    right.set_ylabel("net per unit bet")
    right.set_title(f"Net per bet ({comparison.decks} decks, {comparison.variant})")
    right.legend(fontsize="small")
    figure.tight_layout()
    try:
        figure.savefig(path)
    except OSError as error:
        raise CroupierError(f"--plot {path}: cannot write the picture ({error.strerror})") from None
    finally:
        pyplot.close(figure)

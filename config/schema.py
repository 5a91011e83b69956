"""Typed settings: one frozen dataclass per config section, the only config module the core imports.

The loader (:mod:`config.loader`) reads the file, the environment and the command line into these.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

DEFAULT_CUT_FROM_END = 16
MIN_CUT_FROM_END = 12
"""Enough cards below the cut card to finish a round and play one more (at most 11 cards)."""


def max_cut_from_end(decks: int) -> int:
    """The deepest cut card allowed: in the back half of the shoe, and at most 100 cards from the bottom."""
    return min(100, 26 * decks)


def _choice(*options: str) -> dict[str, Any]:
    return {"choices": options}


def _range(low: int, high: int) -> dict[str, Any]:
    return {"range": (low, high)}


@dataclass(frozen=True)
class TableSettings:
    """``[table]``: the game."""

    decks: int = field(default=8, metadata=_range(1, 8))
    variant: str = field(default="commission", metadata=_choice("commission", "no_commission"))


@dataclass(frozen=True)
class DriverSettings:
    """``[driver]``: where cards come from."""

    url: str = "mock://"


@dataclass(frozen=True)
class ShoeSettings:
    """``[shoe]``: burn and cut-card procedure."""

    burn: str = field(default="first_card", metadata=_choice("first_card", "fixed", "none"))
    burn_cards: int = field(default=3, metadata=_range(1, 8))
    cut_card: str = field(default="one_more", metadata=_choice("one_more", "this_round"))
    cut_card_from_end: int = field(default=DEFAULT_CUT_FROM_END, metadata=_range(MIN_CUT_FROM_END, 100))


@dataclass(frozen=True)
class ProcedureSettings:
    """``[procedures]``: how the house resolves dealing errors."""

    extra_card: str = field(default="burn", metadata=_choice("burn", "void"))
    exposed_card: str = field(default="burn", metadata=_choice("burn", "use"))


@dataclass(frozen=True)
class SimulationSettings:
    """``[simulation]``: the simulated table."""

    rounds: int = field(default=0, metadata=_range(0, 10_000_000))
    auto_next: bool = True


@dataclass(frozen=True)
class JournalSettings:
    """``[journal]``: where ``croupier run`` journals by default ("" = no journal)."""

    path: str = ""


@dataclass(frozen=True)
class SerialSettings:
    """``[serial]``: defaults for the options a ``serial://``, ``socket://`` or ``loop://`` URL leaves out."""

    baudrate: int = field(default=9600, metadata=_range(50, 4_000_000))
    framing: str = field(default="line", metadata=_choice("line", "stx"))


@dataclass(frozen=True)
class ScoreboardSettings:
    """``[scoreboard]``: where ``croupier run``/``simulate`` serve the web scoreboard without ``--scoreboard``."""

    address: str = ""


@dataclass(frozen=True)
class Settings:
    """All configuration, validated."""

    table: TableSettings = field(default_factory=TableSettings)
    driver: DriverSettings = field(default_factory=DriverSettings)
    shoe: ShoeSettings = field(default_factory=ShoeSettings)
    procedures: ProcedureSettings = field(default_factory=ProcedureSettings)
    simulation: SimulationSettings = field(default_factory=SimulationSettings)
    journal: JournalSettings = field(default_factory=JournalSettings)
    serial: SerialSettings = field(default_factory=SerialSettings)
    scoreboard: ScoreboardSettings = field(default_factory=ScoreboardSettings)
    extra: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Sections owned by optional parts (``[auth]``), validated by them."""
    source: str = "built-in defaults"


SECTIONS: dict[str, type[Any]] = {
    "table": TableSettings,
    "driver": DriverSettings,
    "shoe": ShoeSettings,
    "procedures": ProcedureSettings,
    "simulation": SimulationSettings,
    "journal": JournalSettings,
    "serial": SerialSettings,
    "scoreboard": ScoreboardSettings,
}
EXTRA_SECTIONS = frozenset({"auth"})
"""Sections validated by the part that owns them (``[auth]``: :mod:`controller.core.auth`)."""


__all__ = [
    "DEFAULT_CUT_FROM_END", "EXTRA_SECTIONS", "MIN_CUT_FROM_END", "SECTIONS", "DriverSettings", "JournalSettings",
    "ProcedureSettings", "ScoreboardSettings", "SerialSettings", "Settings", "ShoeSettings", "SimulationSettings",
    "TableSettings", "max_cut_from_end",
]

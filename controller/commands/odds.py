"""``croupier odds``: exact probabilities and house edges, placeholder until the enumerator lands."""

from __future__ import annotations

from typing import Any


def register(subparsers: Any) -> None:
    pass

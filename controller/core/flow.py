"""Where the round may go now: the round machine's table asked of a table's state.

The machine (:mod:`controller.core.machine`) answers for the round alone: its state, its cards and the house's rules.
Two things lie over the round and hold it where it is: face down, a round dealt to its end whose result waits for
the reveals; and a pending misdeal, the halt. :func:`may` asks the machine under the first, :func:`may_now` under
both. Every decision on a move of the round asks one of them or fires the machine
(:func:`controller.core.dealing.fire`); the app asks through :meth:`controller.core.table.Table.may`. Nothing
tests the round's state by hand to decide a move (``tests/controller/core/test_machine.py`` keeps it so).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.core import machine

if TYPE_CHECKING:
    from controller.core.state import Context
    from controller.core.view import Shown


def may(shown: Shown, context: Context, trigger: str) -> bool:
    """``may_<trigger>`` of the round: the machine's table allows ``trigger`` from the round's state, and no result
    waits for its reveals (whether a misdeal is pending is not asked: its resolutions move the round too)."""
    return not shown.result_due and machine.may(trigger, shown.round, context.rules)


def may_now(shown: Shown, context: Context, trigger: str) -> bool:
    """``may_<trigger>`` of the table: :func:`may`, and the table is not halted."""
    return shown.misdeal is None and may(shown, context, trigger)


def shoe_closed(shown: Shown, context: Context) -> bool:
    """The shoe is closed: the machine may only load the next one (``load_shoe``)."""
    return machine.may("load_shoe", shown.round, context.rules)


__all__ = ["may", "may_now", "shoe_closed"]

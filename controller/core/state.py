"""The table's state as one value, and what the table reads of its settings.

:class:`TableState` holds everything a table is between two inputs: the round machine's state, the shoe and its
ledger, the pending misdeal (the halt overlay), the alerts, the badge gate, the earlier shoes' orders and the
undo point. It never changes: :func:`controller.core.step.step` gives the next one. A snapshot is this value
written down (:mod:`controller.core.snapshot`), an undo puts an earlier value back (:mod:`controller.core.undo`).

:class:`Context` is what the table reads of its settings, worked out once per table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from config.schema import DEFAULT_SUPERVISOR_ONLY, Settings
from controller.core.alerts import AlertBook
from controller.core.approvals import GateState
from controller.core.approvals import needs_supervisor as gate_needs_supervisor
from controller.core.bets.settle import Settler
from controller.core.editions import CURRENT, Edition
from controller.core.ledger import ShoeLedger, Stats
from controller.core.machine import RoundState, Rules, State
from controller.core.misdeals import Misdeal, needs_supervisor
from controller.core.sequence_check import SequenceArchive, SequenceShoe, false_alarm_budgets

if TYPE_CHECKING:
    from controller.core.undo import UndoBook


class Context(msgspec.Struct, frozen=True):
    """What a table reads of its settings, worked out once."""

    settings: Settings
    decks: int
    variant: str
    face_down: bool
    keyed_reveals: bool
    """``[table] reveal_confirm = "total"``: each reveal keys the hand's total."""
    rules: Rules
    settler: Settler
    auth: bool
    """``[auth] enabled``: badges and approvals."""
    sequence_check: bool
    own_false_alarm: float
    """The table's own repeated-sequence check's share of the false-alarm bound."""
    edition: Edition
    """The rules' edition the table deals under (:mod:`controller.core.editions`)."""

    @classmethod
    def of(cls, settings: Settings, edition: Edition = CURRENT) -> Context:
        table = settings.table
        own, _ = false_alarm_budgets(settings.protection.property_check)
        face_down = table.dealing == "face_down"
        return cls(settings, table.decks, table.variant, face_down, table.reveal_confirm == "total",
                   Rules(settings.shoe.burn, squeeze=face_down and edition.squeeze_order,
                         count_every=settings.procedures.count_every),
                   Settler(settings.bets.offered, table.variant, settings.bets), settings.auth.enabled,
                   settings.protection.sequence_check, own, edition)

    def needs_supervisor(self, resolution: str, kind: str | None = None) -> bool:
        """Does ``resolution`` (of a misdeal of ``kind``) need a supervisor's approval at this table?"""
        if self.auth:
            return gate_needs_supervisor(self.settings.auth, resolution, kind)
        return needs_supervisor(resolution, kind, DEFAULT_SUPERVISOR_ONLY)

    def new_ledger(self, archive: SequenceArchive) -> ShoeLedger:
        """A fresh shoe's ledger, compared with ``archive`` within this table's share of the false-alarm bound."""
        shoe = SequenceShoe(archive, self.decks, self.own_false_alarm) if self.sequence_check else None
        return ShoeLedger(self.decks, sequence_shoe=shoe)


class TableState(msgspec.Struct, frozen=True, gc=False):
    """One table's state between two inputs."""

    round: RoundState
    """The round machine's state and the round's cards."""
    ledger: ShoeLedger
    archive: SequenceArchive
    """Every earlier shoe's dealt order (and the factory order), for the repeated-sequence alert."""
    shoe_number: int = 1
    misdeal: Misdeal | None = None
    """The pending misdeal: while there is one, the table is halted (its round keeps its state)."""
    halts: int = 0
    """Misdeals that halted the table so far (each pending one's :attr:`Misdeal.serial`)."""
    slots_dealt: tuple[State, ...] = ()
    """The slots dealt so far in the round in play, in order (an exposed card is taken off the end)."""
    manual_slots: frozenset[State] = frozenset()
    cut_out: bool = False
    reader_online: bool = True
    rounds_dealt: int = 0
    rounds_voided: int = 0
    revealed: int = 0
    """Face down: the reveals made in the round in play."""
    result_due: bool = False
    """Face down: the round's cards are all down and its result waits for the last reveal."""
    alerts: AlertBook = msgspec.field(default_factory=AlertBook)
    gate: GateState | None = None
    """Badges and approvals, when ``[auth] enabled``."""
    undo: UndoBook | None = None
    """What ``@undo`` would take back now, or why it would be refused (None: nothing yet)."""
    earlier: Stats = msgspec.field(default_factory=Stats)
    """The results, naturals, pairs, misdeals and voided rounds of the shoes before this one: the game's totals
    are these and the shoe's (:attr:`ShoeLedger.stats`)."""
    closed_early: bool = False
    """The shoe was closed early (``@close``): :attr:`cut_out` is set to end it, but its cut card never came out."""

    @classmethod
    def fresh(cls, context: Context) -> TableState:
        """A new table's state: shoe 1, waiting for the dealer to confirm it."""
        archive = SequenceArchive(context.decks)
        return cls(RoundState(), context.new_ledger(archive), archive,
                   gate=GateState() if context.auth else None)

    @property
    def halted(self) -> bool:
        return self.misdeal is not None

    @property
    def state(self) -> State:
        """What the table shows: its round's state, or HALTED while a misdeal is pending."""
        return State.HALTED if self.misdeal is not None else self.round.state

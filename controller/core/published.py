"""The table as the core publishes it: one value every screen, feed and report reads.

:func:`view_of` gives, from a :class:`~controller.core.state.TableState`, what a consumer shows of the table: the
shoe and round, the cards on the layout, the counters of the shoe (cards left, burned, set aside), the cut card,
the dealer and an approval waiting, the pending misdeal with the keys that resolve it, the open alerts, the
inputs the dealer's keys may send now, this round's result, the shoe's results and the game's totals.
Consumers (the console, the scoreboard, the floor's ``state`` message, the summary) read it; none counts cards
or follows misdeals from the events with rules of its own. Pure, like the rest of the core.
"""

from __future__ import annotations

from typing import Literal, Protocol

import msgspec

from controller.core.events import AlertEvent, Event, ResultEvent
from controller.core.inputs import InputKind
from controller.core.ledger import ShoeLedger, Stats
from controller.core.machine import BURN_STATES, IN_ROUND, SLOT_SET, SLOTS, State
from controller.core.misdeals import Misdeal
from controller.core.revealing import reveals_down
from controller.core.state import Context, TableState
from controller.core.stopping import stopping_alert
from controller.terms import MisdealKind, Resolution

Status = Literal["online", "halted", "closed"]
BURN_PLACE = "burn"
"""Where a card entered by hand goes while the burn is due (:attr:`MisdealView.place`)."""


DEAL_ORDER: tuple[str, ...] = tuple(slot.value for slot in SLOTS)
"""The slots' names in the order the rules deal them (``P1 B1 P2 B2 P3 B3``): what a consumer lists a round's
cards by."""


class SlotCard(msgspec.Struct, frozen=True, gc=False):
    """A card on the layout: its slot, its code (None while it is face down) and whether it was entered by hand."""

    slot: str
    card: str | None
    manual: bool = False


class MisdealView(msgspec.Struct, frozen=True, gc=False):
    """The pending misdeal as the table shows it."""

    kind: MisdealKind
    round: int
    card: str | None
    detail: str
    detail_id: str
    detail_params: dict[str, object]
    instruction: str
    resolutions: tuple[Resolution, ...]
    """The inputs that resolve it (``burn``, ``void``...), each a dealer's key."""
    supervisor: tuple[Resolution, ...]
    """Those of :attr:`resolutions` that need the supervisor."""
    held: int
    """Cards out of the shoe held with it, to be burned or removed by the resolution (an exposed card taken back
    from its slot among them)."""
    place: str | None
    """Where a card entered by hand goes (``@manual``): the slot due, :data:`BURN_PLACE`, or None."""


class Totals(msgspec.Struct, frozen=True, gc=False):
    """The game's totals: shoes started, rounds with a result by winner, naturals, pairs, misdeals, voided rounds."""

    shoes: int
    rounds: int
    banker: int
    player: int
    tie: int
    natural: int
    player_pair: int
    banker_pair: int
    misdeal: int
    voided: int


class View(msgspec.Struct, frozen=True, gc=False):
    """One table as its core sees it, between two inputs."""

    shoe: int
    round: int
    """The round in play, or the last one dealt (0 before the first)."""
    state: str
    """The round machine's state (``P1``... ``ROUND_OVER``, ``SHOE_CLOSED``), ``HALTED`` while a misdeal is
    pending."""
    status: Status
    """``online``, ``halted`` (a misdeal is pending) or ``closed`` (the shoe is closed)."""
    in_round: bool
    """A round is open: its cards are due, dealt or being revealed (its bets are on the layout), halted or not."""
    slot_due: str | None
    """The slot whose card is due now (None while halted, burning, between rounds)."""
    expecting: str
    """What the shoe's indicator should show: ``player``, ``banker``, ``burn`` or ``hold``."""
    cards: tuple[SlotCard, ...]
    """This round's cards on the layout, player's then banker's."""
    player_total: int | None
    """The total of the player's cards face up (None: none is)."""
    banker_total: int | None
    decks: int
    cards_left: int
    """The shoe's cards not out of it yet: dealt, burned, set aside or held by a pending misdeal are out."""
    burned: int
    """Cards burned by the shoe's burn procedure."""
    set_aside: int
    """Cards set aside by misdeal resolutions (burned with the misdeal, removed, voided)."""
    stub_count: int | None
    """The count the dealer is asked to confirm between rounds (``[procedures] count_every``): the cards left, as
    :attr:`cards_left`; None when no stub count is due."""
    cut_card_out: bool
    """The cut card came out of this shoe (a shoe closed early with ``@close`` never dealt it)."""
    last_round: int | None
    """The shoe's last round, once the cut card is out."""
    dealer: str | None
    """The dealer signed in with a badge (``[auth] enabled``), or None."""
    approval: str | None
    """The action waiting for a supervisor's badge, or None."""
    misdeal: MisdealView | None
    stopped_by: str | None
    """The critical alert that stops the table (no card is dealt until it is released), or None."""
    alerts: tuple[AlertEvent, ...]
    """The open alerts, oldest first."""
    reader_online: bool
    accepts: tuple[str, ...]
    """The dealer's inputs (:class:`~controller.core.inputs.InputKind` values) the table takes now."""
    undo: str | None
    """The input ``@undo`` would take back now, or None."""
    result: ResultEvent | None
    """This round's result, once it has one (until the next round starts)."""
    results: tuple[ResultEvent, ...]
    """The shoe's results, in order."""
    totals: Totals
    next: Event
    """What the dealer must do next: the ``prompt`` or ``instruction`` the last input ended with."""
    badges: bool = False
    """Dealers sign in with a badge and supervisors approve (``[auth] enabled``): the supervisor's alerts are for
    the console then."""

    @property
    def closed(self) -> bool:
        return self.status == "closed"

    @property
    def last_result(self) -> ResultEvent | None:
        return self.results[-1] if self.results else None


class Counted(Protocol):
    """What the shoe's counters are read from: a table's state, or the draft a step is making."""

    @property
    def ledger(self) -> ShoeLedger: ...

    @property
    def misdeal(self) -> Misdeal | None: ...


def cards_out(state: Counted) -> int:
    """Cards of the shoe that have left it: identified, set aside unread, and unread ones a pending misdeal holds."""
    misdeal = state.misdeal
    return state.ledger.cards_seen + (misdeal.unread_held if misdeal is not None else 0)


def cards_left(state: Counted) -> int:
    """The shoe's cards not out of it yet (:attr:`View.cards_left`): what a count of the stub should find."""
    return state.ledger.total - cards_out(state)


def view_of(state: TableState, context: Context) -> View:
    """What ``state`` shows (``context``: the table's settings, as the core reads them)."""
    from controller.core.shoeflow import stub_count_due
    from controller.core.step import Draft
    from controller.core.view import due_slot, expecting, next_instruction

    ledger = state.ledger
    round_state = state.round
    cards, player_total, banker_total = _layout(state, context)
    stats = ledger.stats
    gate = state.gate
    dealer = gate.sign.dealer if gate is not None else None
    undo = state.undo.point if state.undo is not None else None
    stop = stopping_alert(state, context)
    results = tuple(ledger.results)
    last = results[-1] if results else None
    shown = last if last is not None and last.round == round_state.number and round_state.state in (
        State.ROUND_OVER, State.SHOE_CLOSED) and state.misdeal is None else None
    return View(
        shoe=state.shoe_number, round=round_state.number, state=state.state.value,
        status="halted" if stop is not None else _status(state), in_round=round_state.state in IN_ROUND,
        slot_due=due_slot(state) if state.misdeal is None and stop is None else None,
        expecting=expecting(state, context), cards=cards,
        player_total=player_total, banker_total=banker_total, decks=context.decks,
        cards_left=cards_left(state), burned=len(ledger.burned), set_aside=len(ledger.discarded),
        stub_count=cards_left(state) if state.misdeal is None and stub_count_due(state, context) else None,
        cut_card_out=state.cut_out and not state.closed_early, last_round=round_state.last_round,
        dealer=dealer.name if dealer is not None else None,
        approval=gate.pending.action if gate is not None and gate.pending is not None else None,
        misdeal=_misdeal_view(state), stopped_by=stop.id if stop is not None else None,
        alerts=state.alerts.open, reader_online=state.reader_online,
        accepts=accepts(state, context), undo=undo.input if undo is not None else None, result=shown,
        results=results, totals=_totals(state.shoe_number, state.earlier.added(stats)),
        next=next_instruction(Draft(state, context, None)), badges=gate is not None,
    )


def _status(state: TableState) -> Status:
    if state.misdeal is not None:
        return "halted"
    return "closed" if state.round.state is State.SHOE_CLOSED else "online"


def _layout(state: TableState, context: Context) -> tuple[tuple[SlotCard, ...], int | None, int | None]:
    """The round's cards in their slots (face down ones without their code), and each side's total face up."""
    from controller.core.cards import hand_total

    round_state = state.round
    face_up: set[str] | None = None
    if context.face_down and not (state.round.state in (State.ROUND_OVER, State.SHOE_CLOSED)
                                  and not state.result_due):
        face_up = {slot for reveal in reveals_down(round_state.player, round_state.banker)[:state.revealed]
                   for slot in reveal.slots}
    manual = {slot.value for slot in state.manual_slots}
    cards: list[SlotCard] = []
    totals: list[int | None] = []
    for letter, hand in (("P", round_state.player), ("B", round_state.banker)):
        up = []
        for index, card in enumerate(hand):
            slot = f"{letter}{index + 1}"
            shown = face_up is None or slot in face_up
            cards.append(SlotCard(slot, card.code if shown else None, slot in manual))
            if shown:
                up.append(card)
        totals.append(hand_total(up) if up else None)
    return tuple(cards), totals[0], totals[1]


def _misdeal_view(state: TableState) -> MisdealView | None:
    misdeal = state.misdeal
    if misdeal is None:
        return None
    phase = state.round.state
    place = phase.value if phase in SLOT_SET else BURN_PLACE if phase in BURN_STATES else None
    detail = misdeal.detail
    return MisdealView(kind=misdeal.kind, round=misdeal.round, card=misdeal.card, detail=detail.english(),
                       detail_id=detail.id, detail_params=dict(detail.params), instruction=misdeal.instruction,
                       resolutions=misdeal.resolutions, supervisor=misdeal.supervisor,
                       held=len(misdeal.held) + (misdeal.exposed is not None),
                       place=place if "manual" in misdeal.resolutions else None)


def _totals(shoes: int, stats: Stats) -> Totals:
    return Totals(shoes=shoes, rounds=stats.banker + stats.player + stats.tie, banker=stats.banker,
                  player=stats.player, tie=stats.tie, natural=stats.natural, player_pair=stats.player_pair,
                  banker_pair=stats.banker_pair, misdeal=stats.misdeal, voided=stats.voided)


def accepts(state: TableState, context: Context) -> tuple[str, ...]:
    """The dealer's inputs the table takes now, asked of the same rules the step applies (a supervisor's badge may
    still be needed for one)."""
    from controller.core.shoeflow import between_rounds, may_cut

    taken: list[str] = []
    if state.alerts.open:
        taken.append(InputKind.ACK.value)
    if state.undo is not None and state.undo.point is not None:
        taken.append(InputKind.UNDO.value)
    if may_cut(state):
        taken.append(InputKind.CUT.value)
    if stopping_alert(state, context) is not None:
        if state.misdeal is None and between_rounds(state, context):
            taken.append(InputKind.CLOSE.value)
        return tuple(taken)
    misdeal = state.misdeal
    if misdeal is not None:
        return (*taken, *misdeal.resolutions)
    return (*taken, *_running_keys(state, context))


def _running_keys(state: TableState, context: Context) -> list[str]:
    """The keys of :func:`accepts` a running table (nothing pending, nothing stopping it) takes by its flow."""
    from controller.core.dealing import may_expose
    from controller.core.revealing import reveal_due
    from controller.core.shoeflow import between_rounds, may_confirm_shoe, may_start_next, stub_count_due

    taken: list[str] = []
    if may_start_next(state, context):
        taken.append(InputKind.NEXT.value)
    if stub_count_due(state, context):
        taken.append(InputKind.COUNT.value)
    if between_rounds(state, context):
        taken.append(InputKind.CLOSE.value)
    if may_confirm_shoe(state, context):
        taken.append(InputKind.SHOE.value)
    if may_expose(state, context):
        taken.append(InputKind.EXPOSED.value)
    if reveal_due(state, context) is not None:
        taken.append(InputKind.REVEAL.value)
    return taken


__all__ = ["BURN_PLACE", "SLOTS", "Counted", "MisdealView", "SlotCard", "Totals", "View", "accepts", "cards_left",
           "cards_out", "view_of"]

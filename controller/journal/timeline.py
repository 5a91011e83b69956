"""A journal read back in time order: each event with the record that holds it and when it was written,
and each card out of the shoe with what became of it (``croupier history``, ``history --cards --csv``)."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from controller.core.events import Event
from controller.core.gram_index import CARD_NUMBERS
from controller.core.inputs import InputKind
from controller.core.ledger import ShoeLedger
from controller.core.published import DEAL_ORDER
from controller.core.published import cards_out as cards_out_of
from controller.core.state import TableState
from controller.core.view import in_round
from controller.journal.replay import Unreadable, journaled_events
from controller.journal.store import Journal
from controller.journal.views import Moment, moments

CARD_INPUTS = frozenset({"card", "unreadable", "double"})
"""Reader inputs that are cards out of the shoe (a ``double``: two unread cards that left together)."""


@dataclass(frozen=True, slots=True)
class Timed:
    """One journaled event: the record ``seq`` that holds it and the record's time ``at`` (UTC, ISO 8601)."""

    seq: int
    at: str
    event: Event


def timed_events(journal: Journal, unreadable: Unreadable | None = None) -> list[Timed]:
    """Every event of ``journal`` in order, with its record and time (a record that cannot be read: see
    :func:`~controller.journal.replay.journaled_events`)."""
    with journal.snapshot():  # both readings of a journal a running table is writing see the same records
        times = {record.seq: record.at for record in journal.records()}
        return [Timed(seq, times[seq], event) for seq, events in journaled_events(journal, unreadable)
                for event in events]


@dataclass(slots=True)
class CardOut:
    """One card out of the shoe: where it is in the shoe, when, where it went, and whether it was read."""

    shoe: int
    position: int
    at: str
    round: int
    code: str
    slot: str
    """``P1``..``B3``, ``burn`` (a burn card), ``discard`` (set aside by a misdeal's resolution or a void,
    as the shoe report counts it), or ``held`` (a misdeal left it unresolved)."""
    entry: str = "read"
    """``read`` by the shoe, or ``manual`` (hand-entered for an unreadable card)."""


class _Pool:
    """Cards in the order they came, each to be taken once: the first of a code, or the first unread one, in
    constant time (a resolution may release thousands of held cards at once)."""

    def __init__(self) -> None:
        self.rows: list[CardOut] = []
        self._by_code: dict[str, deque[CardOut]] = {}
        self._unread: deque[CardOut] = deque()
        self._taken: set[int] = set()

    def add(self, row: CardOut) -> None:
        self.rows.append(row)
        self._by_code.setdefault(row.code, deque()).append(row)
        if _unread(row.code):
            self._unread.append(row)

    def take(self, code: str | None) -> CardOut | None:
        """The first card not taken yet of ``code`` (None: the first unread one), or None."""
        waiting = self._unread if code is None else self._by_code.get(code)
        while waiting:
            row = waiting.popleft()
            if id(row) not in self._taken:
                self._taken.add(id(row))
                return row
        return None

    def left(self) -> list[CardOut]:
        """The cards not taken, in order."""
        return [row for row in self.rows if id(row) not in self._taken]


@dataclass(slots=True)
class _Sources:
    """The cards an input may have moved, by where they were: the cards it took out of the shoe, those it took off
    the layout, and those the pending misdeal no longer holds; each is given where the table put it, or left."""

    pending: _Pool = field(default_factory=_Pool)
    layout: _Pool = field(default_factory=_Pool)
    held: _Pool = field(default_factory=_Pool)

    def take(self, code: str, order: tuple[str, ...]) -> CardOut | None:
        """The first card, from the sources in ``order``, that can be ``code``: that card, or an unread one for an
        unread ``code`` or for a code entered by hand (only a hand entry names an unread card)."""
        for wanted in (code, None):
            for name in order:
                pool: _Pool = getattr(self, name)
                row = pool.take(wanted)
                if row is not None:
                    return row
        return None


def _unread(code: str) -> bool:
    return code not in CARD_NUMBERS


@dataclass(slots=True)
class _Undo:
    """What one input changed, to put back when the next one is an ``@undo`` the table took."""

    before: TableState
    layout: dict[str, CardOut]
    held: list[CardOut]
    held_len: int
    exposed: CardOut | None
    rows: list[tuple[CardOut, str, str, int, str]] = field(default_factory=list)


@dataclass
class _Walk:
    """Where each card out of the shoe is, as the table's state says after each input (:func:`cards_out`)."""

    rows: list[CardOut]
    shoe: int = 1
    position: int = 0
    layout_round: int = 0
    layout: dict[str, CardOut] = field(default_factory=dict)
    """The round in play's cards on the layout, by slot."""
    held: list[CardOut] = field(default_factory=list)
    """The cards the pending misdeal holds, in its order."""
    exposed: CardOut | None = None
    """The exposed card a pending misdeal took back from its slot."""
    stale_round: int = -1
    """The last round of the shoe before this one, whose cards the table's state still holds until the next round
    begins: they are that shoe's."""
    undo: _Undo | None = None

    def step(self, moment: Moment) -> None:
        before, after = moment.before, moment.state
        if moment.resumed:
            self._resync(after)
            return
        if moment.item is not None and moment.item.kind is InputKind.UNDO and self.undo is not None \
                and _rolled_back(after, self.undo.before):
            self._put_back(self.undo)
            self.undo = None
            return
        if after.shoe_number != self.shoe:  # the last shoe's last round: the one before the input (with no burn,
            self._new_shoe(after.shoe_number, before.round.number)  # the input began the new shoe's first round)
        undo = _Undo(before, dict(self.layout), self.held, len(self.held), self.exposed)
        sources = _Sources()
        for row in self._taken_out(moment):
            sources.pending.add(row)
        self._off_layout(before, after, sources, undo)
        places = self._held_now(before, after, sources)
        same_shoe = before.shoe_number == after.shoe_number
        voided = after.round.number if after.rounds_voided > before.rounds_voided else None
        self._place(after, sources, places, undo, before.ledger if same_shoe else None, voided)
        self.undo = undo

    def _taken_out(self, moment: Moment) -> list[CardOut]:
        """The cards the input took out of the shoe (a card read, unread, or two at once), each a new row."""
        item = moment.item
        if item is None or not moment.source or item.kind.value not in CARD_INPUTS:
            return []
        code = str(item.card or "??") if item.kind.value == "card" else "??"
        count = 2 if item.kind.value == "double" else 1
        round_number = moment.before.round.number
        if round_number == self.stale_round:
            round_number = 0  # out of this shoe before its first round: no round's
        out = [CardOut(self.shoe, self.position + number, moment.at, round_number, code, "held")
               for number in range(1, count + 1)]
        self.position += count
        self.rows.extend(out)
        return out

    def _off_layout(self, before: TableState, after: TableState, sources: _Sources, undo: _Undo) -> None:
        """The cards no longer where they were on the round's layout: a voided round's go to the discards, others
        (an exposed card taken back, a hand-entered card taken back) are sources. A new round leaves the last
        round's cards where they are."""
        if after.round.number != self.layout_round:
            self.layout, self.layout_round = {}, after.round.number
            return
        now = self._layout_of(after)
        voided = after.rounds_voided > before.rounds_voided
        for slot, row in list(self.layout.items()):
            if now.get(slot) != row.code:
                del self.layout[slot]
                if voided:
                    _moved(row, undo, "discard")
                else:
                    sources.layout.add(row)

    def _held_now(self, before: TableState, after: TableState, sources: _Sources) -> list[str]:
        """What the pending misdeal newly holds (the texts read, an exposed card's code as ``exposed:CODE``); the
        cards it no longer holds become sources."""
        misdeal, earlier = after.misdeal, before.misdeal
        new: list[str] = []
        exposed = misdeal.exposed.code if misdeal is not None and misdeal.exposed is not None else None
        if self.exposed is not None and self.exposed.code != exposed:
            sources.held.add(self.exposed)
            self.exposed = None
        if exposed is not None and self.exposed is None:
            new.append("exposed:" + exposed)
        held = misdeal.held if misdeal is not None else ()
        if (misdeal is not None and earlier is not None and misdeal.serial == earlier.serial
                and len(held) >= len(self.held)):
            new.extend(text for text, _ in (held[index] for index in range(len(self.held), len(held))))
            return new
        keep: dict[str, list[CardOut]] = {}
        for row in self.held:
            keep.setdefault(row.code, []).append(row)
        still: list[CardOut] = []
        for text, _ in held:
            same = keep.get(text)
            if same:
                still.append(same.pop(0))
            else:
                new.append(text)
        kept = {id(row) for row in still}
        for row in self.held:
            if id(row) not in kept:
                sources.held.add(row)
        self.held = still
        return new

    def _place(self, after: TableState, sources: _Sources, held: list[str], undo: _Undo,
               ledger: ShoeLedger | None, voided: int | None = None) -> None:
        """Give each card the input moved the place the table's state shows it in: a slot, the burned cards, the
        discards or the misdeal; what is left of those it took off the layout or out of the misdeal was set aside
        (a foreign card, say), and a card it took out of the shoe that the table put nowhere stays held."""
        now = self._layout_of(after)
        for slot in DEAL_ORDER:
            code = now.get(slot)
            if code is not None and slot not in self.layout:
                row = sources.take(code, ("pending", "held", "layout"))
                if row is not None:
                    self.layout[slot] = _moved(row, undo, slot, code, after.round.number)
        for code in _grown(ledger.burned if ledger else (), after.ledger.burned):
            row = sources.take(code, ("pending", "held", "layout"))
            if row is not None:
                _moved(row, undo, "burn", code)
        for code in _grown(ledger.discarded if ledger else (), after.ledger.discarded):
            row = sources.take(code, ("held", "layout", "pending"))
            if row is not None:  # set aside with a voided round (an extra card's, say): a card of that round
                _moved(row, undo, "discard", round_number=voided)
        for text in held:
            exposed = text.startswith("exposed:")
            row = sources.take(text.removeprefix("exposed:"), ("pending", "layout", "held"))
            if row is None:
                continue
            _moved(row, undo, "held")
            if exposed:
                self.exposed = row
            else:
                self.held.append(row)
        for row in (*sources.layout.left(), *sources.held.left()):
            _moved(row, undo, "discard", round_number=voided)

    def _resync(self, state: TableState) -> None:
        """The table taken up again from a checkpoint after an input it lost: the cards out of the shoe meanwhile are
        not known one by one; the next one is the shoe's card after all those its state counts out."""
        if state.shoe_number != self.shoe:
            self._new_shoe(state.shoe_number, -1 if in_round(state) else state.round.number)
        self.position = cards_out_of(state)
        self.held, self.exposed, self.undo = [], None, None
        self.layout_round = state.round.number  # the cards on its layout stand there, each of no row shown:
        self.layout = {slot: CardOut(self.shoe, 0, "", self.layout_round, code, slot)  # none is placed again
                       for slot, code in self._layout_of(state).items()}

    def _new_shoe(self, shoe: int, round_number: int) -> None:
        """A new shoe: the cards a misdeal of the last one still held were set aside with it."""
        for row in (*self.held, *([self.exposed] if self.exposed is not None else [])):
            row.slot = "discard"
        self.shoe, self.position = shoe, 0
        self.layout, self.held, self.exposed = {}, [], None
        self.layout_round = self.stale_round = round_number

    def _layout_of(self, state: TableState) -> dict[str, str]:
        """The round's cards on the layout by slot, as the table's state holds them (face-down ones too); none while
        it still holds the last shoe's last round."""
        if state.round.number == self.stale_round:
            return {}
        round_state = state.round
        return {**{f"P{index}": card.code for index, card in enumerate(round_state.player, start=1)},
                **{f"B{index}": card.code for index, card in enumerate(round_state.banker, start=1)}}

    def _put_back(self, undo: _Undo) -> None:
        """``@undo``: the table is back in the state before the last input, and so is every card it moved."""
        for row, slot, code, round_number, entry in reversed(undo.rows):
            row.slot, row.code, row.round, row.entry = slot, code, round_number, entry
        del undo.held[undo.held_len:]
        self.layout, self.held, self.exposed = undo.layout, undo.held, undo.exposed


def _grown(before: Sequence[str], after: Sequence[str]) -> list[str]:
    """What ``after`` (a ledger's burned or discarded cards) holds beyond ``before``, read by index (a chain)."""
    return [after[index] for index in range(len(before), len(after))]


def _moved(row: CardOut, undo: _Undo, slot: str, code: str | None = None, round_number: int | None = None) -> CardOut:
    """``row`` now at ``slot`` (as ``code`` when given: an unread card entered by hand is ``manual``)."""
    undo.rows.append((row, row.slot, row.code, row.round, row.entry))
    if code is not None and code != row.code and _unread(row.code) and not _unread(code):
        row.entry = "manual"
    row.slot = slot
    if code is not None and not _unread(code):
        row.code = code
    if round_number is not None:
        row.round = round_number
    return row


def _rolled_back(after: TableState, before_last: TableState) -> bool:
    """The table is back in the state it had before the last input (``@undo`` took it back)."""
    return (after.round is before_last.round and after.ledger is before_last.ledger
            and after.misdeal is before_last.misdeal)


def cards_out(journal: Journal, unreadable: Unreadable | None = None) -> list[CardOut]:
    """Every card out of the shoe in ``journal``, in the order it left the shoe, and where the table put it (a
    record that cannot be read: see :func:`~controller.journal.views.moments`).

    A card is a reader input (a card read, one the reader could not read, or two at once); where it went is read
    from the table's own state after each input, as the core gives it (:mod:`controller.journal.views`): a slot
    of the layout, the burned cards, the discards (set aside by a misdeal's resolution, with a voided round, or
    while a critical alert stops the table), or held by the pending misdeal; never worked out from the events.
    """
    walk = _Walk([])
    for moment in moments(journal, unreadable):
        walk.step(moment)
    return walk.rows

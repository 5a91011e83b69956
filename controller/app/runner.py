"""The loop that joins a card source, the table core and the event consumers.

Used by ``croupier simulate`` (mock shoe) and ``croupier run`` (a live reader).
It plays the simulated dealer's part where asked: confirming each new shoe and
starting each next round. Every input passes through ``record`` (the journal)
before the core sees it, so nothing is shown that was not recorded first. It
never tests the round's state: each move of the round it makes or waits for is
asked of the table's machine (:meth:`~controller.core.table.Table.may`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from controller.core.events import Event
from controller.core.inputs import Input, InputKind
from controller.core.misdeals import instruction
from controller.core.table import Table
from controller.i18n.kinds import named_kind
from controller.i18n.message import Message, message
from drivers.base import CardSource

if TYPE_CHECKING:
    from controller.app.property_watch import PropertyWatch
    from controller.journal.journaled import EventSink

EXIT_OK = 0
EXIT_MID_ROUND = 3
EXIT_HALTED = 4

DEALT_KINDS = frozenset({InputKind.CARD, InputKind.UNREADABLE, InputKind.DOUBLE})


@dataclass
class Runner:
    """Drive ``table`` from ``source`` until the source ends or ``rounds`` rounds are played."""

    table: Table
    source: CardSource
    sink: EventSink
    auto_next: bool = True
    auto_shoe: bool = True
    rounds: int = 0
    """Stop after this many rounds (results and voided rounds); 0 = stop when the shoe closes."""
    new_shoes: bool = False
    """After a shoe closes, load the next one (seeded sources) instead of stopping."""
    deliver_all: bool = False
    """A script: deliver every input, even after the shoe closes (a card then is a misdeal)."""
    record: Callable[[Input], None] | None = None
    poll: float | None = None
    stopped: bool = field(default=False, init=False)
    auto_reveal: bool = False
    """Face-down dealing: the simulated dealer reveals each hand as soon as its cards are down."""
    auto_count: bool = False
    """``[procedures] count_every``: the simulated dealer confirms each stub count before it starts the next round
    (never a live table's: its dealer counts the stub; until then the shoe holds)."""
    idle_signout: float = 0.0
    """Sign the dealer out after this many seconds without an input (0: never); needs ``poll``."""
    clock: Callable[[], float] = time.monotonic
    watch: PropertyWatch | None = None
    """The property check: after each input, the inputs its findings give the table (journaled like any)."""
    _last_activity: float = field(default=0.0, init=False, repr=False)
    new_shoe_asked: int = field(default=0, init=False)
    """The closed shoe whose successor the source was already asked to load (a resumed journal sets it)."""

    @property
    def rounds_played(self) -> int:
        """Rounds that ended (with a result or voided) on this table."""
        return self.table.rounds_dealt + self.table.rounds_voided
    received: Input | None = field(default=None, init=False)
    """The input the source delivered last (the journal tells it from the dealer's own inputs)."""
    _acts: tuple[object, bool, bool] | None = field(default=None, init=False, repr=False)

    def feed(self, item: Input) -> list[Event]:
        """Record ``item``, apply it, pass the events on and to the source's indicator."""
        if self.record is not None:
            self.record(item)
        events = self.table.handle(item)
        self.sink(events)
        if self.source.shows_expecting:
            self.source.indicate(self.indication())
        if self.watch is not None:
            for finding in self.watch.after(self.table):
                self.feed(finding)
        if self.auto_reveal and item.kind is not InputKind.REVEAL:
            self._reveal_due()
        return events

    def _reveal_due(self) -> None:
        """The simulated dealer's reveals: every hand whose cards are down, keying its total if asked."""
        table = self.table
        keyed = table.settings.table.reveal_confirm == "total"
        while (reveal := table.reveal_due) is not None:
            revealed = table.revealed
            self.feed(Input(InputKind.REVEAL, str(reveal.total) if keyed else None))
            if table.revealed == revealed:
                break  # not accepted (no dealer signed in, say): the dealer must act

    def indication(self) -> str:
        """What the shoe's indicator should show, counting the simulated dealer's next act.

        The simulated dealer confirms a shoe and starts a round only once the next
        card is there, so the table itself still says ``hold``; a shoe that waits for
        the table (``shoe-emulator --follow-table``) must be told to deal instead.
        """
        table = self.table
        authority = table.authority
        if authority is not None and authority.dealer is None:
            return table.expecting
        _, confirms, starts = self._dealer_acts()
        if confirms:
            return "player" if table.settings.shoe.burn == "none" else "burn"
        if starts:
            return "player"
        return table.expecting

    def _dealer_acts(self) -> tuple[object, bool, bool]:
        """The table's state and what the simulated dealer does at its next card: confirm a shoe (the one the machine
        waits for, or, loading new shoes, the next one once the machine closed the last), and start the next round
        (when the machine may, or may once the stub is counted and the dealer counts it: not before a face-down
        round's reveals, nor before a stub count it does not make; the dealer acts first, and the shoe holds until
        then). Asked once a state: the indicator after an input and the dealer before the next card ask the same."""
        acts = self._acts
        value = self.table.value
        if acts is None or acts[0] is not value:
            table = self.table
            moves = table.moves
            confirms = self.auto_shoe and (("shoe_ready" in moves and table.may("shoe_ready"))
                                           or (self.new_shoes and "load_shoe" in moves and table.may("load_shoe")))
            starts = self.auto_next and (
                ("next_round" in moves and table.may("next_round"))
                or (self.auto_count and "count_stub" in moves and table.may("count_stub"))) and table.round > 0
            acts = self._acts = (value, confirms, starts)
        return acts

    def _round_ended(self) -> bool:
        """The round is over (its result may still wait for the reveals) or the shoe closed, the table not halted."""
        table = self.table
        return not table.halted and (table.result_due or table.between_rounds or table.may("load_shoe"))

    def _done(self) -> bool:
        if self.rounds:
            value = self.table.value
            return value.rounds_dealt + value.rounds_voided >= self.rounds and self._round_ended()
        return not self.new_shoes and not self.deliver_all and self.table.may("load_shoe")

    def run(self) -> int:
        """Run until done; returns the exit status (0 boundary, 3 mid-round, 4 halted).

        The simulated dealer acts lazily: a new shoe is confirmed and the next
        round started only once the next card is known to exist, so a script
        that ends after a result ends at a round boundary.
        """
        self._last_activity = self.clock()
        if self.watch is not None:
            for note in self.watch.prime(self.table):  # and the findings of the shoe so far the table lacks
                self.feed(note)
        shows = self.source.shows_expecting
        if shows and self.indication() != self.table.expecting:
            self.source.indicate(self.indication())  # a shoe that waits for the table: the dealer deals now
        if self.auto_reveal:
            self._reveal_due()  # a resumed journal may stop between the reveals
        while not self.stopped and not self._done():
            table = self.table
            if (self.new_shoes and "load_shoe" in table.moves and table.may("load_shoe")
                    and self.new_shoe_asked != table.shoe_number):
                self.new_shoe_asked = table.shoe_number
                self.source.indicate("new_shoe")
                if shows and self.indication() != "hold":
                    self.source.indicate(self.indication())  # and the simulated dealer deals on
            item = self.received = self.source.recv(self.poll)
            if item is None:
                if self.source.exhausted:
                    break
                self._check_idle()
                continue
            self._last_activity = self.clock()
            self._act_before(item)
            self.feed(item)
        self.source.settle()  # every input taken is recorded and applied: a serial shoe gets its last answer
        return self.exit_status()

    def _check_idle(self) -> None:
        authority = self.table.authority
        if (self.idle_signout > 0 and authority is not None and authority.dealer is not None
                and self.clock() - self._last_activity >= self.idle_signout):
            self.feed(Input(InputKind.SIGN_OUT, "idle"))

    def _act_before(self, item: Input) -> None:
        """The simulated dealer's inputs that must precede ``item`` (only ever before a card)."""
        if item.kind not in DEALT_KINDS:
            return
        authority = self.table.authority
        if authority is not None and authority.dealer is None:
            return
        _, confirms, starts = self._dealer_acts()
        if confirms:
            self.feed(Input(InputKind.SHOE))
        elif starts:
            if self.table.may("count_stub"):
                self.feed(Input(InputKind.COUNT))  # the simulated dealer counts the stub and finds the table's count
            self.feed(Input(InputKind.NEXT))

    def exit_status(self) -> int:
        """0 at a round boundary, 3 with a card (the burn's too) or a reveal still due, 4 halted."""
        table = self.table
        if table.halted:
            return EXIT_HALTED
        if table.in_round or table.may("card") or table.result_due:
            return EXIT_MID_ROUND
        return EXIT_OK

    def ending_message(self, text: Callable[[Message], str] = Message.english) -> str | None:
        """Why the run ended where it did, when that is not a round boundary (in the language of ``text``,
        English by default)."""
        table = self.table
        misdeal = table.misdeal
        if misdeal is not None:
            return text(message("ending.halted", "the events ended with the table halted on {kind} in round {round}: "
                                "{instruction}", kind=named_kind(misdeal.kind), round=misdeal.round,
                                instruction=instruction(misdeal.resolutions, text)))
        if table.due_slot is not None:
            return text(message("ending.mid_round", "the events ended in the middle of round {round}: {slot} is "
                                "still due", round=table.round, slot=str(table.due_slot)))
        if table.result_due or table.may("revealed"):
            return text(message("ending.unrevealed", "the events ended before round {round} was revealed: "
                                "{instruction}", round=table.round, instruction=table.reveal_instruction()))
        if table.may("card"):  # no slot is due: a burn card is
            return text(message("ending.burn", "the events ended in the middle of the burn: burn cards are still due"))
        return None

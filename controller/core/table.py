"""The table core: inputs in, events out. Pure: no I/O, no clock, no randomness.

:class:`Table` takes :class:`~controller.core.inputs.Input` values (reader events,
dealer and supervisor inputs) and returns events, plain dicts with an
``"event"`` field (see ``docs/events.md``). Every call ends by saying what the
dealer must do next (a ``prompt`` for a card slot, otherwise an
``instruction``). Replaying the same inputs gives the same events and state.

The round machine (:mod:`controller.core.machine`) decides deal order and
legality; the misdeal policy (:mod:`controller.core.misdeals`) decides how each
misdeal may be resolved; the shoe's bookkeeping is a
:class:`~controller.core.ledger.ShoeLedger`; badges and approvals are an
:class:`~controller.core.approvals.ApprovalGate` in front of the table.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from transitions import MachineError

from config.schema import Settings
from controller.core import rules
from controller.core.approvals import ApprovalGate, rejected
from controller.core.auth import Authority, settings_from_dict
from controller.core.cards import Card, hand_total, parse_card
from controller.core.exceptions import CardCodeError
from controller.core.inputs import Input, InputKind
from controller.core.ledger import ShoeLedger
from controller.core.machine import BURN_STATES, DEALING, SLOT_SIDE, SLOTS, RoundModel, State, build_machine
from controller.core.misdeals import (
    DEFAULT_SUPERVISOR_ONLY,
    FOREIGN,
    POLICIES,
    RESOLUTION_INPUTS,
    SAY_RESOLUTION,
    SHOE_CARD,
    UNIDENTIFIED,
    Held,
    Misdeal,
    approval_action,
    instruction,
    needs_supervisor,
)
from controller.core.settlement import settle
from controller.core.shuffle_check import ALERT_PROBABILITY

__all__ = ["FOREIGN", "PROMPTS", "RESOLUTION_INPUTS", "SAY_RESOLUTION", "SHOE_CARD", "UNIDENTIFIED",
           "Event", "Held", "Misdeal", "Table"]

Event = dict[str, Any]

PROMPTS = {state: (state.value, side, f"Card to {side.upper()}") for state, side in SLOT_SIDE.items()}
"""Each slot's prompt: (slot name, side, what the dealer is told)."""


class Table:
    """One Punto Banco table: the round flow over the round machine, the shoe's ledger and the gate."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings if settings is not None else Settings()
        self.decks = self.settings.table.decks
        self.variant = self.settings.table.variant
        self.model = RoundModel(self.settings.shoe.burn)
        self.machine = build_machine(self.model, on_round_start=self._round_started)
        self.shoe_number = 1
        self.ledger = ShoeLedger(self.decks)
        self.manual_slots: set[State] = set()
        self.slots_dealt: list[State] = []
        """The slots dealt so far in the round in play, in order (an exposed card is taken off the end)."""
        self.cut_out = False
        self.reader_online = True
        self.misdeal: Misdeal | None = None
        self.rounds_dealt = 0
        self.rounds_voided = 0
        auth = settings_from_dict(self.settings.extra.get("auth"))
        self.gate: ApprovalGate | None = ApprovalGate(Authority(auth, clock=lambda: 0.0)) if auth.enabled else None
        """Badges and approvals, when ``[auth] enabled``; idle sign-out arrives as a SIGN_OUT input."""
        self._events: list[Event] = []

    # -- public view ---------------------------------------------------------
    @property
    def state(self) -> State:
        return self.model.state

    def current_state(self) -> State:
        """The machine's state now (a call, so type checkers do not narrow it)."""
        return self.model.state

    @property
    def round(self) -> int:
        return self.model.round_number

    @property
    def due_slot(self) -> str | None:
        """The slot whose card is due (P1..B3), or None."""
        state = self.state
        if state is State.HALTED:
            state = self.model.resume_state or state
        return state.value if state in SLOTS else None

    @property
    def in_round(self) -> bool:
        """A round has started and is not over (cards may still be due)."""
        state = self.model.resume_state if self.state is State.HALTED else self.state
        return state in SLOTS

    @property
    def expecting(self) -> str:
        """What the shoe's indicator should show: player, banker, burn or hold."""
        state = self.model.state
        if state in SLOTS:
            return SLOT_SIDE[state]
        if state in BURN_STATES:
            return "burn"
        return "hold"

    @property
    def cards_seen(self) -> int:
        """Cards of this shoe that have left it: identified ones plus those set aside unread."""
        return self.ledger.cards_seen

    @property
    def cards_left(self) -> int:
        return 52 * self.decks - self.cards_seen

    @property
    def inventory(self) -> Counter[str]:
        """Cards of this shoe seen, by code."""
        return self.ledger.inventory

    @property
    def foreign(self) -> list[str]:
        """Cards read this shoe that cannot be of it."""
        return self.ledger.foreign

    @property
    def burned(self) -> list[str]:
        """Cards burned this shoe (``??`` for those not identified)."""
        return self.ledger.burned

    @property
    def discarded(self) -> list[str]:
        """Cards set aside this shoe by misdeal resolutions."""
        return self.ledger.discarded

    @property
    def dealt(self) -> int:
        """Cards placed in slots this shoe (voided rounds included; exposed cards taken back are not)."""
        return self.ledger.dealt

    @property
    def unidentified(self) -> int:
        """Cards of this shoe that left it and were set aside without ever being identified."""
        return self.ledger.unidentified

    @property
    def results(self) -> list[Event]:
        """This shoe's result events, in order (cleared when the next shoe starts)."""
        return self.ledger.results

    @property
    def authority(self) -> Authority | None:
        """Badges and sign-in, when ``[auth] enabled``."""
        return self.gate.authority if self.gate is not None else None

    @property
    def pending_approval(self) -> tuple[Input, str, Misdeal | None] | None:
        """A dealer input waiting for a supervisor's badge (see :attr:`ApprovalGate.pending`)."""
        return self.gate.pending if self.gate is not None else None

    def needs_supervisor(self, resolution: str, kind: str | None = None) -> bool:
        """Does ``resolution`` (of a misdeal of ``kind``) need a supervisor's approval?"""
        if self.gate is not None:
            return self.gate.needs_supervisor(resolution, kind)
        return needs_supervisor(resolution, kind, DEFAULT_SUPERVISOR_ONLY)

    approval_action = staticmethod(approval_action)

    # -- entry points -------------------------------------------------------
    def start(self) -> list[Event]:
        """The events a fresh table shows: the first shoe, waiting for the dealer."""
        return [
            {"event": "shoe", "shoe": self.shoe_number, "status": "new", "decks": self.decks},
            self._next_instruction(),
        ]

    def handle(self, item: Input) -> list[Event]:
        """Apply one input; return the events it causes, ending with the next instruction."""
        events: list[Event] = []
        self._events = events
        gate = self.gate
        halted = self.model.state is State.HALTED
        admitted: Input | None = item
        if gate is not None:
            if gate.unattended(item, halted):
                self._reader_card_without_dealer(item, events)
                admitted = None
            else:
                admitted = gate.admit(item, self.misdeal, self.round, events)
        if admitted is None:
            pass
        elif halted:
            self._handle_halted(admitted, events)
        else:
            self._handle_running(admitted, events)
        if gate is not None:
            gate.lapse(self.misdeal, events)
            gate.stamp(events)
        if not self.reader_online and self.model.state is not State.HALTED:
            self._raise_misdeal(events, "reader_offline", None, "the card reader is offline")
        events.append(self._next_instruction())
        return events

    # -- running --------------------------------------------------------------
    def _handle_running(self, item: Input, events: list[Event]) -> None:
        kind = item.kind
        if kind is InputKind.CARD:
            self._reader_card(item.card or "", events)
        elif kind is InputKind.UNREADABLE:
            self._unreadable(events)
        elif kind is InputKind.DOUBLE:
            self._raise_misdeal(events, "two_cards", None, "two cards left the shoe together",
                                held=[("??", UNIDENTIFIED), ("??", UNIDENTIFIED)])
        elif kind is InputKind.OFFLINE or kind is InputKind.ONLINE or kind is InputKind.CUT:
            self._reader_or_cut(kind, events)
        elif kind is InputKind.NEXT:
            self._next_round(events)
        elif kind is InputKind.SHOE:
            self._shoe_ready(events)
        elif kind is InputKind.EXPOSED:
            self._exposed(events)
        elif kind is InputKind.CLOSE:
            self._close_early(item, events)
        else:
            events.append(rejected(item, "there is no misdeal to resolve"))

    def _reader_or_cut(self, kind: InputKind, events: list[Event]) -> None:
        """The reader went away or came back, or the cut card came out: the same running or halted."""
        if kind is InputKind.CUT:
            self._cut_card(events)
            return
        self.reader_online = kind is InputKind.ONLINE
        events.append({"event": "reader", "status": "online" if self.reader_online else "offline"})

    def _reader_card(self, text: str, events: list[Event]) -> None:
        try:
            card = parse_card(text)
        except CardCodeError as error:
            self._unknown_code(text, str(error), events)
            return
        ledger = self.ledger
        if ledger.is_foreign(card, self._unread_held() if self.misdeal is not None else 0):
            self._foreign(card, events)
            return
        self._count(card, events)
        if self.model.state not in DEALING:
            self._not_due(card.code, SHOE_CARD, events)
            return
        self._place(card, events)

    def _unknown_code(self, text: str, error: str, events: list[Event]) -> None:
        if self.model.state is State.BURNING:
            self._burn_unidentified(text, events)
        elif self.model.state not in DEALING:
            self._not_due(text, UNIDENTIFIED, events)
        else:
            self._raise_misdeal(events, "unknown_card", text, error, held=[(text, UNIDENTIFIED)])

    def _foreign(self, card: Card, events: list[Event]) -> None:
        inventory = self.ledger.inventory
        self.ledger.foreign.append(card.code)
        if inventory[card.code] >= self.decks:
            detail = (f"{card.code} would be copy {inventory[card.code] + 1} of {card.code} "
                      f"in a {self.decks}-deck shoe, which holds {self.decks}")
        else:
            detail = (f"all {52 * self.decks} cards of the {self.decks}-deck shoe have already left it "
                      f"(read or not), so {card.code} is not one of them")
        self._raise_misdeal(events, "foreign_card", card.code, detail, held=[(card.code, FOREIGN)])

    def _count(self, card: Card, events: list[Event]) -> None:
        """Count a card seen in the shoe, and score the sequence for the unshuffled-shoe alert."""
        score = self.ledger.count(card)
        if score is not None:
            events.append({
                "event": "alert", "kind": "unshuffled_shoe", "shoe": self.shoe_number, "round": self.round,
                "probability": score, "threshold": ALERT_PROBABILITY,
                "detail": f"{self.ledger.monitor.hits} of the {self.ledger.seen_total - 1} card-to-card steps "
                          f"so far are same-suit rank neighbours; a random shuffle gives this with probability "
                          f"{score:.1e}. Stop and call surveillance: the shoe may not have been shuffled",
            })

    def _unread_held(self, stands_for_held: bool = False) -> int:
        """Unread cards set aside by the pending misdeal (they left the shoe too).

        ``stands_for_held``: a manual entry stands for the first of them, which then does not count.
        """
        held = [status for _, status in self.misdeal.held] if self.misdeal is not None else []
        if stands_for_held and held and held[0] == UNIDENTIFIED:
            held = held[1:]
        return held.count(UNIDENTIFIED)

    def _not_due(self, code: str | None, status: str, events: list[Event]) -> None:
        held = [(code or "??", status)]
        if self.state is State.SHOE_CLOSED:
            self._raise_misdeal(events, "card_after_shoe_closed", code,
                                f"shoe {self.shoe_number} is closed; no card may be dealt from it", held=held)
            return
        why = {
            State.ROUND_OVER: f"round {self.round} is over and the next round has not been started",
            State.NEW_SHOE: f"shoe {self.shoe_number} has not been confirmed as shuffled and cut",
        }.get(self.state, "no card is due")
        self._raise_misdeal(events, "extra_card", code, f"a card was read but {why}", held=held)

    def _unreadable(self, events: list[Event]) -> None:
        if self.model.state is State.BURNING:
            self._burn_unidentified("??", events)
        elif self.model.state not in DEALING:
            self._not_due(None, UNIDENTIFIED, events)
        else:
            what = "the turned burn card" if self.model.state is State.BURN_TURN else \
                f"the card for {self._due_name()}"
            self._raise_misdeal(events, "unreadable_card", None, f"the reader could not read {what}",
                                held=[("??", UNIDENTIFIED)])

    def _burn_unidentified(self, text: str, events: list[Event]) -> None:
        """A burn card the reader could not identify: it is burned all the same (it is never dealt)."""
        self.ledger.burn_unidentified(text, self._unread_held())
        self.model.burn_remaining -= 1
        events.append({"event": "burn", "card": None, "read": text})
        self.model.card()

    def _place(self, card: Card, events: list[Event], manual: bool = False) -> None:
        """Put ``card`` where the rules expect it and advance the machine."""
        model = self.model
        state = model.state
        if state in BURN_STATES:
            self._burn_card(card, events)
            return
        slot, side, _ = PROMPTS[state]
        (model.player if side == "player" else model.banker).append(card)
        self.slots_dealt.append(state)
        self.ledger.dealt += 1
        event: Event = {"event": "card", "round": model.round_number, "slot": slot, "card": card.code}
        if manual:
            event["manual"] = True
            self.manual_slots.add(state)
        events.append(event)
        model.card()
        self._after_card(state, events)

    def _burn_card(self, card: Card, events: list[Event]) -> None:
        model = self.model
        if self.state is State.BURN_TURN:
            model.burn_remaining = card.value if card.value else 10
            events.append({"event": "burn", "card": card.code, "turned": True,
                           "burn": model.burn_remaining})
        else:
            model.burn_remaining -= 1
            events.append({"event": "burn", "card": card.code})
        self.ledger.burned.append(card.code)
        model.card()

    def _after_card(self, dealt: State, events: list[Event]) -> None:
        model = self.model
        new = self.state
        if dealt is State.B2:
            player, banker = model.player_two_card_total, model.banker_two_card_total
            if model.natural:
                events.append(self._say("natural", f"Natural: player {player}, banker {banker}; no more cards"))
            elif new is not State.P3:
                events.append(self._say("player_stands", f"Player stands on {player}"))
                if new is not State.B3:
                    events.append(self._say("banker_stands", f"Banker stands on {banker}"))
        elif dealt is State.P3 and new is not State.B3:
            events.append(self._say("banker_stands", f"Banker stands on {model.banker_two_card_total}"))
        if new is State.ROUND_OVER:
            self._finish_round(events)

    def _finish_round(self, events: list[Event]) -> None:
        result = round_result(self.model, self.shoe_number, self.manual_slots)
        events.append(result)
        winner, banker_total = result["winner"], result["banker"]["total"]
        player_pair, banker_pair = result["player_pair"], result["banker_pair"]
        outcomes = settle(winner, banker_total, player_pair, banker_pair, self.variant)
        events.append({
            "event": "settlement",
            "round": self.model.round_number,
            "variant": self.variant,
            "bets": {bet: outcome.to_dict() for bet, outcome in outcomes.items()},
        })
        self.rounds_dealt += 1
        self.ledger.record_result(result, winner, result["natural"], player_pair, banker_pair)
        self._end_round(events)

    def _end_round(self, events: list[Event]) -> None:
        if self.cut_out and self.model.close_shoe():
            events.append(self.ledger.report(self.shoe_number))

    def _round_started(self) -> None:
        """The machine began a round (its ``on_round_start`` callback)."""
        model = self.model
        model.player = []
        model.banker = []
        self.manual_slots = set()
        self.slots_dealt = []
        model.round_number += 1
        self._events.append({"event": "round", "round": model.round_number, "shoe": self.shoe_number})

    def _next_round(self, events: list[Event]) -> None:
        try:
            self.model.next_round()
        except MachineError:
            events.append(rejected(Input(InputKind.NEXT), self._why_not_next()))

    def _why_not_next(self) -> str:
        if self.state in SLOTS:
            return f"round {self.round} is still being dealt: {self._due_name()} is due"
        if self.state is State.SHOE_CLOSED:
            return f"shoe {self.shoe_number} is closed; load and confirm a new shoe (@shoe)"
        if self.state is State.NEW_SHOE:
            return "the shoe has not been confirmed yet (@shoe)"
        return "the burn is not finished"

    def _shoe_ready(self, events: list[Event]) -> None:
        if not self.model.may_shoe_ready():
            events.append(rejected(Input(InputKind.SHOE),
                                   f"shoe {self.shoe_number} is in play; it can be replaced once it is closed"))
            return
        if self.state is State.SHOE_CLOSED:
            self._new_shoe(events)
        events.append({"event": "shoe", "shoe": self.shoe_number, "status": "ready"})
        model = self.model
        if self.settings.shoe.burn == "fixed":
            model.burn_remaining = self.settings.shoe.burn_cards
        model.shoe_ready()

    def _new_shoe(self, events: list[Event]) -> None:
        self.shoe_number += 1
        self.ledger = ShoeLedger(self.decks)
        self.cut_out = False
        self.model.last_round = None
        events.append({"event": "shoe", "shoe": self.shoe_number, "status": "new", "decks": self.decks})

    # -- cut card and shoe close ---------------------------------------------
    def _cut_card(self, events: list[Event]) -> None:
        if self.cut_out:
            events.append(rejected(Input(InputKind.CUT), "the cut card is already out"))
            return
        self.cut_out = True
        started = self.in_round and (self.model.player or self.model.banker)
        current = self.round if started or self.due_slot == "P1" else self.round + 1
        one_more = self.settings.shoe.cut_card == "one_more"
        self.model.last_round = current + (1 if one_more else 0)
        plan = (f"finish round {current} and play one more" if one_more
                else f"round {current} is the last of this shoe")
        events.append({"event": "cut_card", "round": current, "last_round": self.model.last_round,
                       "detail": f"Cut card out: {plan}"})
        if self.state is State.ROUND_OVER:
            self._end_round(events)

    def _close_early(self, item: Input, events: list[Event]) -> None:
        model = self.model
        if not model.may_next_round():
            events.append(rejected(item, "a shoe can be closed early only between rounds"))
            return
        model.last_round = model.round_number
        self.cut_out = True
        event: Event = {"event": "shoe_closing", "round": self.round, "reason": "closed early"}
        if item.approver:
            event["approved_by"] = item.approver
        events.append(event)
        self._end_round(events)

    # -- exposed cards -------------------------------------------------------
    def _exposed(self, events: list[Event]) -> None:
        if self.model.state not in SLOTS or not self.slots_dealt:
            events.append(rejected(
                Input(InputKind.EXPOSED),
                "no card of a round in progress to take back; a settled round is for the supervisor",
            ))
            return
        previous = self.slots_dealt.pop()
        model = self.model
        hand = model.player if SLOT_SIDE[previous] == "player" else model.banker
        card = hand.pop()
        self.ledger.dealt -= 1
        was_manual = previous in self.manual_slots
        self.manual_slots.discard(previous)
        self._raise_misdeal(events, "exposed_card", card.code,
                            f"{card.code} dealt to {previous.value} was exposed in error", resume=previous)
        assert self.misdeal is not None
        self.misdeal.exposed = card
        self.misdeal.exposed_manual = was_manual

    # -- misdeals ------------------------------------------------------------
    def _misdeal_round(self) -> int:
        """The round a misdeal belongs to: the one in play, or the next one between rounds."""
        state = self.state
        if state in SLOTS or state is State.SHOE_CLOSED:
            return self.round
        return self.round + 1

    def _raise_misdeal(self, events: list[Event], kind: str, card: str | None, detail: str,
                       resume: State | None = None, held: list[Held] | None = None) -> None:
        """Halt on a misdeal of ``kind``, resolved as :data:`~controller.core.misdeals.POLICIES` says; while
        already halted, report it and hold its cards with the pending misdeal."""
        if self.state is State.HALTED:
            assert self.misdeal is not None
            self.misdeal.held.extend(held or [])
            extra = Misdeal(kind, self.misdeal.round, card, detail + " (while halted)",
                            self.misdeal.instruction, self.misdeal.resolutions, supervisor=self.misdeal.supervisor)
            events.append(extra.event())
            self.ledger.stats["misdeal"] += 1
            return
        policy = POLICIES[kind]
        resolutions = policy.resolutions_for(self.settings.procedures)
        voidable = self.in_round or (kind == "extra_card" and self.state is State.ROUND_OVER)
        if not voidable:
            resolutions = [r for r in resolutions if r != "void"] or ["burn"]
        misdeal = Misdeal(kind, self._misdeal_round(), card, detail, instruction(resolutions), resolutions,
                          supervisor=[r for r in resolutions if self.needs_supervisor(r, kind)],
                          held=list(held or []), replaces_due_card=policy.replaces_due_card)
        self.misdeal = misdeal
        self.model.resume_state = resume or self.state
        self.model.halt()
        self.ledger.stats["misdeal"] += 1
        events.append(misdeal.event())

    def _handle_halted(self, item: Input, events: list[Event]) -> None:
        misdeal = self.misdeal
        assert misdeal is not None
        kind = item.kind
        if kind is InputKind.OFFLINE or kind is InputKind.CUT or (
                kind is InputKind.ONLINE and misdeal.kind != "reader_offline"):
            self._reader_or_cut(kind, events)
        elif kind is InputKind.CARD:
            self._reader_card(item.card or "", events)
        elif kind is InputKind.UNREADABLE:
            self._raise_misdeal(events, "unreadable_card", None, "another card came out unread",
                                held=[("??", UNIDENTIFIED)])
        elif kind is InputKind.DOUBLE:
            self._raise_misdeal(events, "two_cards", None, "two more cards left the shoe together",
                                held=[("??", UNIDENTIFIED), ("??", UNIDENTIFIED)])
        else:
            self._resolve(item, misdeal, events)

    def _resolve(self, item: Input, misdeal: Misdeal, events: list[Event]) -> None:
        resolution = RESOLUTION_INPUTS.get(item.kind)
        if resolution is None or resolution not in misdeal.resolutions:
            allowed = ", ".join(f"@{r}" for r in misdeal.resolutions)
            events.append(rejected(item, f"the table is halted on {misdeal.kind}; expected {allowed}"))
        elif resolution == "manual":
            self._resolve_manual(item, events)
        elif resolution == "void":
            self._resolve_void(item, events)
        elif resolution == "use":
            card = misdeal.exposed
            assert card is not None
            manual = misdeal.exposed_manual
            misdeal.exposed = None
            self._resolved(item, "use", events)
            self.model.resume()
            events.append(self._next_instruction())
            self._place(card, events, manual=manual)
        else:
            if resolution == "online":
                self.reader_online = True
                events.append({"event": "reader", "status": "online"})
            self._resolved(item, resolution, events)
            self.model.resume()

    def _resolved(self, item: Input, resolution: str, events: list[Event], keep: int = 0) -> None:
        """Emit the resolution and set aside the held cards, after the first ``keep`` of them
        (those a manual entry stands in for)."""
        misdeal = self.misdeal
        assert misdeal is not None
        cards = self.ledger.set_aside(misdeal.held[keep:])
        if misdeal.exposed is not None:
            self.ledger.discarded.append(misdeal.exposed.code)
            cards.append(misdeal.exposed.code)
        event: Event = {"event": "resolved", "round": misdeal.round, "kind": misdeal.kind,
                        "resolution": resolution, "cards": cards}
        if item.approver:
            event["approved_by"] = item.approver
        events.append(event)
        self.misdeal = None

    def _resolve_manual(self, item: Input, events: list[Event]) -> None:
        misdeal = self.misdeal
        assert misdeal is not None
        text = item.card or ""
        try:
            card = parse_card(text)
        except CardCodeError as error:
            events.append(rejected(item, f"{error}; enter the card again"))
            return
        if self.ledger.is_foreign(card, self._unread_held(stands_for_held=misdeal.replaces_due_card)):
            reason = (f"all {self.decks} copies were already seen in this shoe"
                      if self.ledger.all_copies_seen(card)
                      else f"all {52 * self.decks} cards of the shoe have already left it")
            events.append(rejected(item, f"{card.code}: {reason}; check the card"))
            return
        self._count(card, events)
        self._resolved(item, "manual", events, keep=1 if misdeal.replaces_due_card else 0)
        self.model.resume()
        events.append(self._next_instruction())
        self._place(card, events, manual=True)

    def _resolve_void(self, item: Input, events: list[Event]) -> None:
        model = self.model
        misdeal = self.misdeal
        assert misdeal is not None
        upcoming = model.resume_state is State.ROUND_OVER
        cards = [] if upcoming else [c.code for c in model.player + model.banker]
        self._resolved(item, "void", events)
        if upcoming:
            model.resume()
            model.round_number += 1
        elif not model.void_round():
            model.resume()
            return
        events.append({"event": "round_voided", "round": model.round_number,
                       "cards": cards, "bets": "returned"})
        self.ledger.stats["voided"] += 1
        self.rounds_voided += 1
        model.player = []
        model.banker = []
        self._end_round(events)

    def _reader_card_without_dealer(self, item: Input, events: list[Event]) -> None:
        code = item.card if item.kind is InputKind.CARD else None
        held: list[Held] = [("??", UNIDENTIFIED)] * (2 if item.kind is InputKind.DOUBLE else 1)
        if code is not None:
            try:
                card = parse_card(code)
            except CardCodeError:
                held = [(code, UNIDENTIFIED)]
            else:
                if self.ledger.is_foreign(card, self._unread_held()):
                    self._reader_card(code, events)
                    return
                self._count(card, events)
                held = [(card.code, SHOE_CARD)]
        self._raise_misdeal(events, "no_dealer", code, "a card came out of the shoe with no dealer signed in",
                            held=held)

    # -- instructions ----------------------------------------------------------
    def _due_name(self) -> str:
        slot = self.due_slot
        if slot is None:
            return "no slot"
        return f"{slot} (card to {SLOT_SIDE[State(slot)].upper()})"

    def _say(self, action: str, text: str, round_number: int | None = None) -> Event:
        return {"event": "instruction", "round": self.round if round_number is None else round_number,
                "action": action, "say": text}

    def _next_instruction(self) -> Event:
        state = self.state
        model = self.model
        if self.gate is not None:
            waiting = self.gate.instruction(state is State.HALTED)
            if waiting is not None:
                return self._say(*waiting)
        prompt = PROMPTS.get(state)
        if prompt is not None:
            slot, side, say = prompt
            return {"event": "prompt", "round": model.round_number, "slot": slot, "to": side, "say": say}
        if state is State.HALTED:
            assert self.misdeal is not None
            return self._say("resolve", self.misdeal.instruction, self.misdeal.round)
        if state is State.BURN_TURN:
            return self._say("burn", "Turn the first card for the burn")
        if state is State.BURNING:
            left = model.burn_remaining
            return self._say("burn", f"Burn {left} more card{'s' if left != 1 else ''}")
        if state is State.NEW_SHOE:
            return self._say("confirm_shoe", f"Shuffle, cut and load shoe {self.shoe_number}; confirm when ready")
        if state is State.SHOE_CLOSED:
            return self._say("new_shoe", f"Shoe {self.shoe_number} is closed; load a new shoe")
        return self._say("next_round", f"Round {model.round_number} is over; start the next round")


def round_result(model: RoundModel, shoe_number: int, manual_slots: set[State]) -> Event:
    """The ``result`` event of the round just completed on ``model``."""
    player_total = hand_total(model.player)
    banker_total = hand_total(model.banker)
    winner = rules.winner(player_total, banker_total)
    player_pair = model.player[0].rank == model.player[1].rank
    banker_pair = model.banker[0].rank == model.banker[1].rank
    natural = model.natural
    if winner == "tie":
        say = f"Tie {player_total} to {banker_total}"
    else:
        high, low = (player_total, banker_total) if winner == "player" else (banker_total, player_total)
        say = f"{winner.capitalize()} wins {high} to {low}"
    result: Event = {
        "event": "result",
        "round": model.round_number,
        "shoe": shoe_number,
        "winner": winner,
        "player": {"cards": [c.code for c in model.player], "total": player_total},
        "banker": {"cards": [c.code for c in model.banker], "total": banker_total},
        "natural": natural,
        "player_pair": player_pair,
        "banker_pair": banker_pair,
        "say": say,
    }
    if manual_slots:
        result["manual"] = sorted(slot.value for slot in manual_slots)
    return result

"""The table core: inputs in, events out. Pure: no I/O, no clock, no randomness.

:class:`Table` takes :class:`~controller.core.inputs.Input` values (reader events,
dealer and supervisor inputs) and returns events, plain dicts with an
``"event"`` field (see ``docs/events.md``). Every call ends by saying what the
dealer must do next (a ``prompt`` for a card slot, otherwise an
``instruction``). Replaying the same inputs gives the same events and state.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from config.schema import Settings
from controller.core import rules
from controller.core.auth import DEFAULT_SUPERVISOR_ONLY, Authority
from controller.core.cards import Card, hand_total, parse_card
from controller.core.events import (
    CardEvent,
    Event,
    InstructionEvent,
    MisdealEvent,
    RejectedEvent,
    ResolvedEvent,
    ResultEvent,
    ShoeClosingEvent,
)
from controller.core.exceptions import CardCodeError
from controller.core.inputs import Input, InputKind
from controller.core.machine import BURN_STATES, SLOT_SIDE, SLOTS, RoundModel, State, build_machine
from controller.core.settlement import settle
from controller.core.shuffle_check import ALERT_PROBABILITY, ShuffleMonitor

RESOLUTION_INPUTS = {
    InputKind.BURN: "burn",
    InputKind.VOID: "void",
    InputKind.USE: "use",
    InputKind.MANUAL: "manual",
    InputKind.ONLINE: "online",
}

SAY_RESOLUTION = {
    "burn": "burn the card(s) and continue",
    "void": "void the round, bets returned",
    "use": "keep the card where it was dealt",
    "manual": "enter the card by hand",
    "online": "reconnect the reader",
}


SHOE_RESTARTED = "shoe_restarted"
"""The reason a reader gives with ``OFFLINE`` when the shoe restarted (its sequence numbers fell back)."""

SHOE_CARD = "shoe"
UNIDENTIFIED = "unidentified"
FOREIGN = "foreign"
Held = tuple[str, str]
"""A card out of the shoe and set aside while halted: (what was read, SHOE_CARD/UNIDENTIFIED/FOREIGN)."""


@dataclass
class Misdeal:
    """A pending misdeal: what happened, how it may be resolved, and the cards set aside meanwhile."""

    kind: str
    round: int
    card: str | None
    detail: str
    instruction: str
    resolutions: list[str]
    supervisor: list[str] = field(default_factory=list)
    """The resolutions that need a supervisor's approval."""
    held: list[Held] = field(default_factory=list)
    """Cards out of the shoe while halted, to be burned or removed by the resolution."""
    replaces_due_card: bool = False
    """The misdeal is about the due card itself (unreadable, unknown): a manual entry stands in for it."""
    exposed: Card | None = None
    """An exposed card taken back from its slot (``use`` puts it back)."""
    exposed_manual: bool = False

    def event(self) -> MisdealEvent:
        return {
            "event": "misdeal",
            "round": self.round,
            "kind": self.kind,
            "card": self.card,
            "detail": self.detail,
            "instruction": self.instruction,
            "resolutions": list(self.resolutions),
            "supervisor": list(self.supervisor),
        }


PROMPTS = {state: (state.value, side, f"Card to {side.upper()}") for state, side in SLOT_SIDE.items()}
"""Each slot's prompt: (slot name, side, what the dealer is told)."""


class Table:
    """One Punto Banco table: the round machine plus the shoe's bookkeeping."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings if settings is not None else Settings()
        self.decks = self.settings.table.decks
        self.variant = self.settings.table.variant
        self.model = RoundModel(self.settings.shoe.burn)
        self.machine = build_machine(self.model)
        self.shoe_number = 1
        self.inventory: Counter[str] = Counter()
        self.seen_total = 0
        self.monitor = ShuffleMonitor(self.decks)
        self.burned: list[str] = []
        self.discarded: list[str] = []
        self.dealt = 0
        """Cards placed in slots this shoe (voided rounds included; exposed cards taken back are not)."""
        self.unidentified = 0
        """Cards of this shoe that left it and were set aside without ever being identified."""
        self.foreign: list[str] = []
        self.manual_slots: set[State] = set()
        self.cut_out = False
        self.reader_online = True
        self.misdeal: Misdeal | None = None
        self.rounds_dealt = 0
        self.results: list[ResultEvent] = []
        """This shoe's result events, in order (cleared when the next shoe starts)."""
        self.rounds_voided = 0
        self.shoe_stats: Counter[str] = Counter()
        auth = self.settings.auth
        self.authority: Authority | None = Authority(auth, clock=lambda: 0.0) if auth.enabled else None
        """Badges and approvals, when ``[auth] enabled``; idle sign-out arrives as a SIGN_OUT input."""
        self.pending_approval: tuple[Input, str, Misdeal | None] | None = None
        """A dealer input waiting for a supervisor's badge, the action it needs approved, and the
        misdeal it resolves (None for closing the shoe); it lapses when that misdeal does."""

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
        return self.seen_total + self.unidentified

    @property
    def cards_left(self) -> int:
        return 52 * self.decks - self.cards_seen

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
        if self.authority is not None and self._auth_gate(item, events):
            pass
        elif self.model.state is State.HALTED:
            self._handle_halted(item, events)
        else:
            self._handle_running(item, events)
        if self.pending_approval is not None and self.pending_approval[2] is not self.misdeal:
            _, action, _ = self.pending_approval
            self.pending_approval = None
            events.append({"event": "approval_cancelled", "action": action,
                           "reason": "the misdeal it was for is no longer pending"})
        if self.authority is not None:
            self._stamp_dealer(events)
        if not self.reader_online and self.model.state is not State.HALTED:
            self._raise_misdeal(events, "reader_offline", None,
                                "the card reader is offline", ["online", "void"])
        events.append(self._next_instruction())
        return events

    # -- running --------------------------------------------------------------
    def _handle_running(self, item: Input, events: list[Event]) -> None:
        kind = item.kind
        if kind is InputKind.CARD:
            self._reader_card(item.card or "", events)
        elif kind is InputKind.UNREADABLE:
            self._unreadable(events)
        elif kind is InputKind.CUT:
            self._cut_card(events)
        elif kind is InputKind.OFFLINE and item.card == SHOE_RESTARTED:
            self._shoe_restarted(events)
        elif kind is InputKind.OFFLINE:
            self.reader_online = False
            events.append({"event": "reader", "status": "offline"})
        elif kind is InputKind.ONLINE:
            self.reader_online = True
            events.append({"event": "reader", "status": "online"})
        elif kind is InputKind.DOUBLE:
            self._raise_misdeal(events, "two_cards", None,
                                "two cards left the shoe together", ["void"],
                                held=[("??", UNIDENTIFIED), ("??", UNIDENTIFIED)])
        elif kind is InputKind.NEXT:
            self._next_round(events)
        elif kind is InputKind.SHOE:
            self._shoe_ready(events)
        elif kind is InputKind.EXPOSED:
            self._exposed(events)
        elif kind is InputKind.CLOSE:
            self._close_early(item, events)
        else:
            events.append(self._rejected(item, "there is no misdeal to resolve"))

    def _reader_card(self, text: str, events: list[Event]) -> None:
        try:
            card = parse_card(text)
        except CardCodeError as error:
            if self.model.state is State.BURNING:
                self._burn_unidentified(text, events)
            elif not self._card_due():
                self._not_due(text, UNIDENTIFIED, events)
            else:
                self._raise_misdeal(events, "unknown_card", text, str(error), ["manual", "burn", "void"],
                                    held=[(text, UNIDENTIFIED)], replaces_due_card=True)
            return
        if self._is_foreign(card):
            self.foreign.append(card.code)
            if self.inventory[card.code] >= self.decks:
                detail = (f"{card.code} would be copy {self.inventory[card.code] + 1} of {card.code} "
                          f"in a {self.decks}-deck shoe, which holds {self.decks}")
            else:
                detail = (f"all {52 * self.decks} cards of the {self.decks}-deck shoe have already left it "
                          f"(read or not), so {card.code} is not one of them")
            self._raise_misdeal(events, "foreign_card", card.code, detail, ["void"], held=[(card.code, FOREIGN)])
            return
        self._count(card, events)
        if not self._card_due():
            self._not_due(card.code, SHOE_CARD, events)
            return
        self._place(card, events)

    def _count(self, card: Card, events: list[Event]) -> None:
        """Count a card seen in the shoe, and score the sequence for the unshuffled-shoe alert."""
        score = self.monitor.observe(card, self.inventory, self.seen_total)
        self.inventory[card.code] += 1
        self.seen_total += 1
        if score is not None:
            events.append({
                "event": "alert", "kind": "unshuffled_shoe", "shoe": self.shoe_number, "round": self.round,
                "probability": score, "threshold": ALERT_PROBABILITY,
                "detail": f"{self.monitor.hits} of the {self.seen_total - 1} card-to-card steps so far are "
                          f"same-suit rank neighbours; a random shuffle gives this with probability "
                          f"{score:.1e}. Stop and call surveillance: the shoe may not have been shuffled",
            })

    def _card_due(self) -> bool:
        state = self.model.state
        return state in SLOTS or state in BURN_STATES

    def _is_foreign(self, card: Card, stands_for_held: bool = False) -> bool:
        """No copy of ``card`` can still be in the shoe: all its copies were seen, or every card has left.

        ``stands_for_held``: the card is the unread one held first in the pending misdeal (a manual entry).
        """
        return self.inventory[card.code] >= self.decks or self._cards_out(stands_for_held) >= 52 * self.decks

    def _cards_out(self, stands_for_held: bool = False) -> int:
        """Cards of this shoe out of it, counting unread ones still held by the pending misdeal."""
        held = [status for _, status in self.misdeal.held] if self.misdeal is not None else []
        if stands_for_held and held and held[0] == UNIDENTIFIED:
            held = held[1:]
        return self.cards_seen + held.count(UNIDENTIFIED)

    def _not_due(self, code: str | None, status: str, events: list[Event]) -> None:
        held = [(code or "??", status)]
        if self.state is State.SHOE_CLOSED:
            self._raise_misdeal(events, "card_after_shoe_closed", code,
                                f"shoe {self.shoe_number} is closed; no card may be dealt from it",
                                ["burn"], held=held)
            return
        why = {
            State.ROUND_OVER: f"round {self.round} is over and the next round has not been started",
            State.NEW_SHOE: f"shoe {self.shoe_number} has not been confirmed as shuffled and cut",
        }.get(self.state, "no card is due")
        order = [self.settings.procedures.extra_card, "burn", "void"]
        self._raise_misdeal(events, "extra_card", code, f"a card was read but {why}",
                            list(dict.fromkeys(order)), held=held)

    def _unreadable(self, events: list[Event]) -> None:
        if self.model.state is State.BURNING:
            self._burn_unidentified("??", events)
        elif not self._card_due():
            self._not_due(None, UNIDENTIFIED, events)
        else:
            what = "the turned burn card" if self.model.state is State.BURN_TURN else \
                f"the card for {self._due_name()}"
            self._raise_misdeal(events, "unreadable_card", None, f"the reader could not read {what}",
                                ["manual", "burn", "void"], held=[("??", UNIDENTIFIED)], replaces_due_card=True)

    def _burn_unidentified(self, text: str, events: list[Event]) -> None:
        """A burn card the reader could not identify: it is burned all the same (it is never dealt)."""
        if self._cards_out() >= 52 * self.decks:
            self.foreign.append(text)
        else:
            self.unidentified += 1
        self.model.burn_remaining -= 1
        self.burned.append("??")
        events.append({"event": "burn", "card": None, "read": text})
        self.model.card()
        if self.state is State.P1:
            self._start_round(events)

    def _place(self, card: Card, events: list[Event], manual: bool = False) -> None:
        """Put ``card`` where the rules expect it and advance the machine."""
        model = self.model
        state = model.state
        if state in BURN_STATES:
            self._burn_card(card, events)
            return
        slot, side, _ = PROMPTS[state]
        (model.player if side == "player" else model.banker).append(card)
        self.dealt += 1
        event: CardEvent = {"event": "card", "round": model.round_number, "slot": slot, "card": card.code}
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
        self.burned.append(card.code)
        model.card()
        if self.state is State.P1:
            self._start_round(events)

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
        model = self.model
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
        result: ResultEvent = {
            "event": "result",
            "round": model.round_number,
            "shoe": self.shoe_number,
            "winner": winner,
            "player": {"cards": [c.code for c in model.player], "total": player_total},
            "banker": {"cards": [c.code for c in model.banker], "total": banker_total},
            "natural": natural,
            "player_pair": player_pair,
            "banker_pair": banker_pair,
            "say": say,
        }
        if self.manual_slots:
            result["manual"] = sorted(slot.value for slot in self.manual_slots)
        events.append(result)
        outcomes = settle(winner, banker_total, player_pair, banker_pair, self.variant)
        events.append({
            "event": "settlement",
            "round": model.round_number,
            "variant": self.variant,
            "bets": {bet: outcome.to_dict() for bet, outcome in outcomes.items()},
        })
        self.rounds_dealt += 1
        self.results.append(result)
        self.shoe_stats[winner] += 1
        self.shoe_stats["natural"] += natural
        self.shoe_stats["player_pair"] += player_pair
        self.shoe_stats["banker_pair"] += banker_pair
        self._end_round(events)

    def _end_round(self, events: list[Event]) -> None:
        if self.cut_out and self.model.close_shoe():
            self._close_shoe(events)

    def _start_round(self, events: list[Event]) -> None:
        model = self.model
        model.player = []
        model.banker = []
        self.manual_slots = set()
        model.round_number += 1
        events.append({"event": "round", "round": model.round_number, "shoe": self.shoe_number})

    def _next_round(self, events: list[Event]) -> None:
        if self.state is not State.ROUND_OVER or self.round == 0:
            events.append(self._rejected(Input(InputKind.NEXT), self._why_not_next()))
            return
        self.model.next_round()
        self._start_round(events)

    def _why_not_next(self) -> str:
        if self.state in SLOTS:
            return f"round {self.round} is still being dealt: {self._due_name()} is due"
        if self.state is State.SHOE_CLOSED:
            return f"shoe {self.shoe_number} is closed; load and confirm a new shoe (@shoe)"
        if self.state is State.NEW_SHOE:
            return "the shoe has not been confirmed yet (@shoe)"
        return "the burn is not finished"

    def _shoe_ready(self, events: list[Event]) -> None:
        if self.state is State.SHOE_CLOSED:
            self._new_shoe(events)
        elif self.state is not State.NEW_SHOE:
            events.append(self._rejected(Input(InputKind.SHOE),
                                         f"shoe {self.shoe_number} is in play; it can be replaced once it is closed"))
            return
        events.append({"event": "shoe", "shoe": self.shoe_number, "status": "ready"})
        model = self.model
        if self.settings.shoe.burn == "fixed":
            model.burn_remaining = self.settings.shoe.burn_cards
        model.shoe_ready()
        if self.current_state() is State.P1:
            self._start_round(events)

    def _new_shoe(self, events: list[Event]) -> None:
        self.shoe_number += 1
        self.inventory = Counter()
        self.seen_total = 0
        self.monitor = ShuffleMonitor(self.decks)
        self.burned = []
        self.discarded = []
        self.dealt = 0
        self.unidentified = 0
        self.foreign = []
        self.results = []
        self.cut_out = False
        self.model.last_round = None
        self.shoe_stats = Counter()
        events.append({"event": "shoe", "shoe": self.shoe_number, "status": "new", "decks": self.decks})

    # -- cut card and shoe close ---------------------------------------------
    def _cut_card(self, events: list[Event]) -> None:
        if self.cut_out:
            events.append(self._rejected(Input(InputKind.CUT), "the cut card is already out"))
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

    def _close_shoe(self, events: list[Event]) -> None:
        total = 52 * self.decks
        seen = self.cards_seen
        events.append({
            "event": "shoe_closed",
            "shoe": self.shoe_number,
            "rounds": self.shoe_stats["banker"] + self.shoe_stats["player"] + self.shoe_stats["tie"],
            "results": {"banker": self.shoe_stats["banker"], "player": self.shoe_stats["player"],
                        "tie": self.shoe_stats["tie"]},
            "naturals": self.shoe_stats["natural"],
            "pairs": {"player": self.shoe_stats["player_pair"], "banker": self.shoe_stats["banker_pair"]},
            "misdeals": self.shoe_stats["misdeal"],
            "voided": self.shoe_stats["voided"],
            "cards_seen": seen,
            "cards_remaining": total - seen,
            "burned": len(self.burned),
            "dealt": self.dealt,
            "discarded": len(self.discarded),
            "unidentified": self.unidentified,
            "foreign": list(self.foreign),
            "inventory": dict(sorted(self.inventory.items())),
        })

    # -- exposed cards -------------------------------------------------------
    def _exposed(self, events: list[Event]) -> None:
        model = self.model
        previous = _previous_slot(self.state, model)
        if previous is None:
            events.append(self._rejected(
                Input(InputKind.EXPOSED),
                "no card of a round in progress to take back; a settled round is for the supervisor",
            ))
            return
        hand = model.player if SLOT_SIDE[previous] == "player" else model.banker
        card = hand.pop()
        self.dealt -= 1
        was_manual = previous in self.manual_slots
        self.manual_slots.discard(previous)
        order = [self.settings.procedures.exposed_card, "burn", "use", "void"]
        self._raise_misdeal(events, "exposed_card", card.code,
                            f"{card.code} dealt to {previous.value} was exposed in error",
                            list(dict.fromkeys(order)), resume=previous)
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
                       resolutions: list[str], resume: State | None = None,
                       held: list[Held] | None = None, replaces_due_card: bool = False) -> None:
        if self.state is State.HALTED:
            assert self.misdeal is not None
            self.misdeal.held.extend(held or [])
            extra = Misdeal(kind, self.misdeal.round, card, detail + " (while halted)",
                            self.misdeal.instruction, self.misdeal.resolutions, supervisor=self.misdeal.supervisor)
            events.append(extra.event())
            self.shoe_stats["misdeal"] += 1
            return
        voidable = self.in_round or (kind == "extra_card" and self.state is State.ROUND_OVER)
        if not voidable:
            resolutions = [r for r in resolutions if r != "void"] or ["burn"]
        instruction = "Halt. " + "; or ".join(
            f"{SAY_RESOLUTION[r]} (@{r})" for r in resolutions
        )
        misdeal = Misdeal(kind, self._misdeal_round(), card, detail, instruction, resolutions,
                          supervisor=[r for r in resolutions if self.needs_supervisor(r, kind)],
                          held=list(held or []), replaces_due_card=replaces_due_card)
        self.misdeal = misdeal
        self.model.resume_state = resume or self.state
        self.model.halt()
        self.shoe_stats["misdeal"] += 1
        events.append(misdeal.event())

    def _shoe_restarted(self, events: list[Event]) -> None:
        self._raise_misdeal(events, SHOE_RESTARTED, None,
                            "the shoe restarted from its first message (its sequence numbers fell back): "
                            "cards it already reported may come again", ["void"])

    def _handle_halted(self, item: Input, events: list[Event]) -> None:
        misdeal = self.misdeal
        assert misdeal is not None
        kind = item.kind
        if kind is InputKind.OFFLINE and item.card == SHOE_RESTARTED:
            self._shoe_restarted(events)
            return
        if kind is InputKind.OFFLINE:
            self.reader_online = False
            events.append({"event": "reader", "status": "offline"})
            return
        if kind is InputKind.ONLINE and misdeal.kind != "reader_offline":
            self.reader_online = True
            events.append({"event": "reader", "status": "online"})
            return
        if kind is InputKind.CUT:
            self._cut_card(events)
            return
        if kind is InputKind.CARD:
            self._reader_card(item.card or "", events)
            return
        if kind is InputKind.UNREADABLE:
            self._raise_misdeal(events, "unreadable_card", None, "another card came out unread", [],
                                held=[("??", UNIDENTIFIED)])
            return
        if kind is InputKind.DOUBLE:
            self._raise_misdeal(events, "two_cards", None, "two more cards left the shoe together", [],
                                held=[("??", UNIDENTIFIED), ("??", UNIDENTIFIED)])
            return
        resolution = RESOLUTION_INPUTS.get(kind)
        if resolution is None or resolution not in misdeal.resolutions:
            allowed = ", ".join(f"@{r}" for r in misdeal.resolutions)
            events.append(self._rejected(item, f"the table is halted on {misdeal.kind}; expected {allowed}"))
            return
        if resolution == "manual":
            self._resolve_manual(item, events)
        elif resolution == "void":
            self._resolve_void(item, events)
        elif resolution == "online":
            self.reader_online = True
            events.append({"event": "reader", "status": "online"})
            self._resolved(item, "online", events)
            self.model.resume()
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
            self._resolved(item, "burn", events)
            self.model.resume()

    def _set_aside(self, held: list[Held]) -> list[str]:
        """Put held cards aside for good: shoe cards to the discards, unread ones counted, foreign ones kept
        apart (they are already listed in :attr:`foreign`). Returns what was read of each."""
        for text, status in held:
            if status == SHOE_CARD:
                self.discarded.append(text)
            elif status == UNIDENTIFIED and self.cards_seen >= 52 * self.decks:
                self.foreign.append(text)  # every card of the shoe is already accounted for
            elif status == UNIDENTIFIED:
                self.discarded.append("??")
                self.unidentified += 1
        return [text for text, _ in held]

    def _resolved(self, item: Input, resolution: str, events: list[Event], keep: int = 0) -> None:
        """Emit the resolution and set aside the held cards, after the first ``keep`` of them
        (those a manual entry stands in for)."""
        misdeal = self.misdeal
        assert misdeal is not None
        cards = self._set_aside(misdeal.held[keep:])
        if misdeal.exposed is not None:
            self.discarded.append(misdeal.exposed.code)
            cards.append(misdeal.exposed.code)
        event: ResolvedEvent = {"event": "resolved", "round": misdeal.round, "kind": misdeal.kind,
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
            events.append(self._rejected(item, f"{error}; enter the card again"))
            return
        if self._is_foreign(card, stands_for_held=misdeal.replaces_due_card):
            reason = (f"all {self.decks} copies were already seen in this shoe"
                      if self.inventory[card.code] >= self.decks
                      else f"all {52 * self.decks} cards of the shoe have already left it")
            events.append(self._rejected(item, f"{card.code}: {reason}; check the card"))
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
        self.shoe_stats["voided"] += 1
        self.rounds_voided += 1
        model.player = []
        model.banker = []
        self._end_round(events)

    # -- instructions ----------------------------------------------------------
    def _due_name(self) -> str:
        slot = self.due_slot
        if slot is None:
            return "no slot"
        return f"{slot} (card to {SLOT_SIDE[State(slot)].upper()})"

    def _say(self, action: str, text: str, round_number: int | None = None) -> InstructionEvent:
        return {"event": "instruction", "round": self.round if round_number is None else round_number,
                "action": action, "say": text}

    def _rejected(self, item: Input, why: str) -> RejectedEvent:
        return {"event": "rejected", "input": item.token(), "reason": why,
                "say": f"{item.token()} not accepted: {why}"}

    def _next_instruction(self) -> Event:
        state = self.state
        model = self.model
        if self.authority is not None:
            if self.pending_approval is not None:
                _, action, _ = self.pending_approval
                return self._say("approval", f"Supervisor: present your badge to approve {action}")
            if self.authority.dealer is None and state is not State.HALTED:
                return self._say("sign_in", "Dealer: present your badge to sign in")
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

    # -- badges and approvals ---------------------------------------------------
    def needs_supervisor(self, resolution: str, kind: str | None = None) -> bool:
        """Does ``resolution`` (of a misdeal of ``kind``) need a supervisor's approval?"""
        action = self.approval_action(resolution, kind)
        if self.authority is not None:
            return self.authority.needs_supervisor(action)
        return action in DEFAULT_SUPERVISOR_ONLY

    @staticmethod
    def approval_action(resolution: str, kind: str | None) -> str:
        """The action name an approval is given for (``void``, ``manual``, ``foreign_card``, ``close_shoe``)."""
        if kind == "foreign_card" and resolution == "void":
            return "foreign_card"
        return resolution

    def _auth_gate(self, item: Input, events: list[Event]) -> bool:
        """Badges, sign-in and approvals; True when ``item`` was fully handled here."""
        authority = self.authority
        assert authority is not None
        kind = item.kind
        if kind is InputKind.BADGE:
            uid = item.card or ""
            if self.pending_approval is not None:
                pending, action, _ = self.pending_approval
                approved, auth_events = authority.approve(uid, action)
                events.extend(auth_events)
                approval = auth_events[-1]
                if approved and approval["event"] == "approval":
                    self.pending_approval = None
                    name = approval["by"]
                    approved_input = Input(pending.kind, pending.card, approver=name)
                    if self.model.state is State.HALTED:
                        self._handle_halted(approved_input, events)
                    else:
                        self._handle_running(approved_input, events)
                return True
            events.extend(authority.sign_in(uid))
            return True
        if kind is InputKind.BADGE_REMOVED:
            dealer = authority.dealer
            removed = authority.badge(item.card) if item.card else dealer
            if self.pending_approval is None and dealer is not None and removed == dealer:
                events.extend(authority.sign_out("badge removed"))
            return True
        if kind is InputKind.SIGN_OUT:
            if self.pending_approval is not None:
                _, action, _ = self.pending_approval
                events.append({"event": "approval_cancelled", "action": action,
                               "reason": "the dealer signed out"})
            self.pending_approval = None
            events.extend(authority.sign_out(item.card or "signed out"))
            return True
        if item.from_reader:
            if authority.dealer is None and kind in (InputKind.CARD, InputKind.UNREADABLE, InputKind.DOUBLE) \
                    and self.model.state is not State.HALTED:
                self._reader_card_without_dealer(item, events)
                return True
            return False
        if authority.dealer is None:
            events.append(self._rejected(item, "no dealer is signed in; present a dealer badge first"))
            return True
        self.pending_approval = None
        needed = self._supervisor_action(item)
        if needed is not None and item.approver is None:
            self.pending_approval = (item, needed, self.misdeal)
            events.append({"event": "approval_required", "round": self.round, "action": needed,
                           "input": item.token(),
                           "say": f"{item.token()} needs a supervisor: present a supervisor badge"})
            return True
        authority.touch()
        return False

    def _supervisor_action(self, item: Input) -> str | None:
        """The approval ``item`` needs before it may take effect, or None."""
        if item.kind is InputKind.CLOSE:
            return "close_shoe" if self.needs_supervisor("close_shoe") else None
        misdeal = self.misdeal
        resolution = RESOLUTION_INPUTS.get(item.kind)
        if misdeal is None or resolution is None or resolution not in misdeal.resolutions:
            return None
        if self.needs_supervisor(resolution, misdeal.kind):
            return self.approval_action(resolution, misdeal.kind)
        return None

    def _reader_card_without_dealer(self, item: Input, events: list[Event]) -> None:
        code = item.card if item.kind is InputKind.CARD else None
        held: list[Held] = [("??", UNIDENTIFIED)] * (2 if item.kind is InputKind.DOUBLE else 1)
        if code is not None:
            try:
                card = parse_card(code)
            except CardCodeError:
                held = [(code, UNIDENTIFIED)]
            else:
                if self._is_foreign(card):
                    self._reader_card(code, events)
                    return
                self._count(card, events)
                held = [(card.code, SHOE_CARD)]
        self._raise_misdeal(events, "no_dealer", code, "a card came out of the shoe with no dealer signed in",
                            ["burn", "void"], held=held)

    def _stamp_dealer(self, events: list[Event]) -> None:
        """Results and misdeals carry the signed-in dealer's identity."""
        assert self.authority is not None
        identity = self.authority.identity()
        for event in events:
            if event["event"] in ("result", "misdeal", "round_voided", "resolved"):
                event["dealer"] = identity.copy() if identity is not None else None

    # -- closing a shoe early -------------------------------------------------------
    def _close_early(self, item: Input, events: list[Event]) -> None:
        model = self.model
        if self.state is not State.ROUND_OVER or self.round == 0:
            events.append(self._rejected(item, "a shoe can be closed early only between rounds"))
            return
        model.last_round = model.round_number
        self.cut_out = True
        event: ShoeClosingEvent = {"event": "shoe_closing", "round": self.round, "reason": "closed early"}
        if item.approver:
            event["approved_by"] = item.approver
        events.append(event)
        self._end_round(events)


def _previous_slot(state: State, model: RoundModel) -> State | None:
    """The slot of the last card dealt in the round in progress, if the round is not over."""
    if state not in SLOTS:
        return None
    dealt = len(model.player) + len(model.banker)
    if dealt == 0:
        return None
    if state is State.B3 and len(model.player) == 3:
        return State.P3
    if state is State.B3 and len(model.player) == 2:
        return State.B2
    order = (State.P1, State.B1, State.P2, State.B2)
    if state is State.P3:
        return State.B2
    return order[SLOTS.index(state) - 1]

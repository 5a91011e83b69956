"""The round flow while the table runs: a card read goes to its slot, a burn, or a misdeal; rounds,
shoes, the cut card and exposed cards. Deal order and legality are the round machine's."""

from __future__ import annotations

from transitions import MachineError

from controller.core import rules
from controller.core.alerts import severity_of
from controller.core.approvals import rejected
from controller.core.bets.catalogue import RoundFacts
from controller.core.cards import Card, hand_total, parse_card
from controller.core.events import CardEvent, Event, ResultEvent, ShoeClosingEvent
from controller.core.exceptions import CardCodeError
from controller.core.inputs import Input, InputKind
from controller.core.machine import BURN_STATES, DEALING, SLOT_SIDE, SLOTS, RoundModel, State
from controller.core.misdeals import FOREIGN, SEQUENCE_GAP, SHOE_CARD, SHOE_RESTARTED, UNIDENTIFIED, gap_of
from controller.core.revealing import Revealing
from controller.core.sequence_check import sequence_alert
from controller.core.shuffle_check import ALERT_PROBABILITY
from controller.core.tablestate import PROMPTS
from controller.i18n.message import Message, message


class Dealing(Revealing):
    """The running table: every input that is not a badge and does not resolve a halt."""

    def _handle_running(self, item: Input, events: list[Event]) -> None:
        kind = item.kind
        if kind is InputKind.CARD:
            self._reader_card(item.card or "", events)
        elif kind is InputKind.UNREADABLE:
            self._unreadable(events)
        elif kind is InputKind.DOUBLE:
            self._raise_misdeal(events, "two_cards", None,
                                message("misdeal.two_cards", "two cards left the shoe together"),
                                held=[("??", UNIDENTIFIED), ("??", UNIDENTIFIED)])
        elif kind is InputKind.OFFLINE or kind is InputKind.ONLINE or kind is InputKind.CUT:
            self._reader_or_cut(item, events)
        elif kind is InputKind.NEXT:
            self._next_round(events)
        elif kind is InputKind.SHOE:
            self._shoe_ready(events)
        elif kind is InputKind.EXPOSED:
            self._exposed(events)
        elif kind is InputKind.CLOSE:
            self._close_early(item, events)
        elif kind is InputKind.REVEAL:
            self._reveal(item, events)
        else:
            events.append(rejected(item, message("rejected.no_misdeal", "there is no misdeal to resolve")))

    def _reader_or_cut(self, item: Input, events: list[Event]) -> None:
        """The reader went away or came back, or the cut card came out: the same running or halted.

        A reader that goes away because its shoe restarted (``OFFLINE`` with :data:`SHOE_RESTARTED`)
        halts the table for the supervisor: the shoe may report cards it already reported. One whose
        messages never arrived (``OFFLINE`` with a :data:`SEQUENCE_GAP`) halts it too: a card may have left
        the shoe unseen, and the next one must not take its place.
        """
        kind = item.kind
        if kind is InputKind.CUT:
            self._cut_card(events)
            return
        if kind is InputKind.OFFLINE and item.card == SHOE_RESTARTED:
            self._raise_misdeal(events, SHOE_RESTARTED, None,
                                message("misdeal.shoe_restarted",
                                        "the shoe restarted from its first message (its sequence numbers fell "
                                        "back): cards it already reported may come again"))
            return
        gap = gap_of(item.card) if kind is InputKind.OFFLINE else None
        if gap is not None:
            self._raise_misdeal(events, SEQUENCE_GAP, None, gap_detail(*gap))
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
            self._raise_misdeal(events, "unknown_card", text,
                                message("misdeal.unknown_card", "{given} is not a card: expected a rank (A 2-9 T/10 J "
                                        "Q K) followed by a suit (S H D C), e.g. AS, 10H, kd", given=repr(text),
                                        reason=error), held=[(text, UNIDENTIFIED)])

    def _foreign(self, card: Card, events: list[Event]) -> None:
        inventory = self.ledger.inventory
        self.ledger.foreign.append(card.code)
        if inventory[card.code] >= self.decks:
            detail = message("misdeal.foreign_copy", "{card} would be copy {copy} of {card} in a {decks}-deck shoe, "
                             "which holds {decks}", card=card.code, copy=inventory[card.code] + 1, decks=self.decks)
        else:
            detail = message("misdeal.foreign_extra", "all {cards} cards of the {decks}-deck shoe have already left "
                             "it (read or not), so {card} is not one of them",
                             cards=52 * self.decks, decks=self.decks, card=card.code)
        self._raise_misdeal(events, "foreign_card", card.code, detail, held=[(card.code, FOREIGN)])

    def _count(self, card: Card, events: list[Event]) -> None:
        """Count a card seen in the shoe, and score the sequence for the unshuffled-shoe alert."""
        score = self.ledger.count(card)
        if score is not None:
            detail = message("alert.unshuffled", "{hits} of the {steps} card-to-card steps so far are same-suit rank "
                             "neighbours; a random shuffle gives this with probability {probability}. Stop and "
                             "call surveillance: the shoe may not have been shuffled",
                             hits=self.ledger.monitor.hits, steps=self.ledger.seen_total - 1,
                             probability=f"{score:.1e}")
            events.append(self.alerts.open({
                "event": "alert", "id": self.alerts.next_id(), "kind": "unshuffled_shoe",
                "severity": severity_of("unshuffled_shoe"), "shoe": self.shoe_number, "round": self.round,
                "probability": score, "threshold": ALERT_PROBABILITY,
                "detail": detail.english(), "say_id": detail.id, "say_params": detail.params,
            }))
        repeat = self.ledger.repeat
        if repeat is not None:
            events.append(self.alerts.open(sequence_alert(repeat, self.shoe_number, self.round,
                                                          self.alerts.next_id())))

    def _not_due(self, code: str | None, status: str, events: list[Event]) -> None:
        held = [(code or "??", status)]
        if self.state is State.SHOE_CLOSED:
            self._raise_misdeal(events, "card_after_shoe_closed", code,
                                message("misdeal.after_shoe_closed", "shoe {shoe} is closed; no card may be dealt "
                                        "from it", shoe=self.shoe_number), held=held)
            return
        if self.result_due:
            self._raise_misdeal(events, "extra_card", code, message(
                "misdeal.extra_unrevealed", "a card was read but round {round} is dealt and waits for its reveals; "
                "the next round starts after its result", round=self.round), held=held)
            return
        why = {
            State.ROUND_OVER: message("misdeal.extra_round_over", "a card was read but round {round} is over and "
                                      "the next round has not been started", round=self.round),
            State.NEW_SHOE: message("misdeal.extra_new_shoe", "a card was read but shoe {shoe} has not been "
                                    "confirmed as shuffled and cut", shoe=self.shoe_number),
        }.get(self.state, message("misdeal.extra_card", "a card was read but no card is due"))
        self._raise_misdeal(events, "extra_card", code, why, held=held)

    def _unreadable(self, events: list[Event]) -> None:
        if self.model.state is State.BURNING:
            self._burn_unidentified("??", events)
        elif self.model.state not in DEALING:
            self._not_due(None, UNIDENTIFIED, events)
        else:
            self._raise_misdeal(events, "unreadable_card", None, self._unread_detail(), held=[("??", UNIDENTIFIED)])

    def _unread_detail(self) -> Message:
        if self.model.state is State.BURN_TURN:
            return message("misdeal.unreadable_burn", "the reader could not read the turned burn card")
        slot = self.due_slot
        if slot is None:
            return message("misdeal.unreadable_no_slot", "the reader could not read the card for no slot")
        if SLOT_SIDE[State(slot)] == "player":
            return message("misdeal.unreadable_player", "the reader could not read the card for {slot} "
                           "(card to PLAYER)", slot=slot)
        return message("misdeal.unreadable_banker", "the reader could not read the card for {slot} "
                       "(card to BANKER)", slot=slot)

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
        self.ledger.shown[card.code] += 1
        event: CardEvent = {"event": "card", "round": model.round_number, "slot": slot, "card": card.code}
        if manual:
            event["manual"] = True
            self.manual_slots.add(state)
        if self.face_down:
            event["face_down"] = True
        events.append(event)
        model.card()
        self._after_card(state, events)

    def _burn_card(self, card: Card, events: list[Event]) -> None:
        model = self.model
        if self.state is State.BURN_TURN:
            model.burn_remaining = card.value if card.value else 10
            events.append({"event": "burn", "card": card.code, "turned": True,
                           "burn": model.burn_remaining})
            self.ledger.shown[card.code] += 1
        else:
            model.burn_remaining -= 1
            events.append({"event": "burn", "card": card.code})
        self.ledger.burned.append(card.code)
        model.card()

    def _after_card(self, dealt: State, events: list[Event]) -> None:
        new = self.state
        if not self.face_down:  # face down, the totals stay hidden; the prompts still say where cards go
            self._say_stands(dealt, new, events)
        if new is State.ROUND_OVER:
            self._round_dealt(events)

    def _say_stands(self, dealt: State, new: State, events: list[Event]) -> None:
        """Tell the dealer a natural or a hand standing, after the card ``dealt`` (the machine is at ``new``)."""
        model = self.model
        if dealt is State.B2:
            player, banker = model.player_two_card_total, model.banker_two_card_total
            if model.natural:
                events.append(self._say("natural", message(
                    "natural", "Natural: player {player}, banker {banker}; no more cards", player=player,
                    banker=banker)))
            elif new is not State.P3:
                events.append(self._say("player_stands", message("player_stands", "Player stands on {total}",
                                                                 total=player)))
                if new is not State.B3:
                    events.append(self._say("banker_stands", message("banker_stands", "Banker stands on {total}",
                                                                     total=banker)))
        elif dealt is State.P3 and new is not State.B3:
            events.append(self._say("banker_stands", message("banker_stands", "Banker stands on {total}",
                                                             total=model.banker_two_card_total)))

    def _finish_round(self, events: list[Event]) -> None:
        result = round_result(self.model, self.shoe_number, self.manual_slots)
        events.append(result)
        winner = result["winner"]
        player_pair, banker_pair = result["player_pair"], result["banker_pair"]
        outcomes = self.settler.settle(round_facts(self.model, result))
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

    def _next_round(self, events: list[Event]) -> None:
        if self.result_due:
            events.append(rejected(Input(InputKind.NEXT), self._not_revealed()))
            return
        try:
            self.model.next_round()
        except MachineError:
            events.append(rejected(Input(InputKind.NEXT), self._why_not_next()))

    def _not_revealed(self) -> Message:
        if self.settings.table.reveal_confirm == "total":
            return message("rejected.next.not_revealed_keyed", "round {round} is not revealed yet: Reveal the next "
                           "hand and key its total (@reveal 7): the result comes after the last reveal",
                           round=self.round)
        return message("rejected.next.not_revealed", "round {round} is not revealed yet: Reveal the next hand "
                       "(@reveal): the result comes after the last reveal", round=self.round)

    def _why_not_next(self) -> str | Message:
        slot = self.due_slot
        if self.state in SLOTS and slot is not None:
            if SLOT_SIDE[State(slot)] == "player":
                return message("rejected.next.dealing_player", "round {round} is still being dealt: {slot} (card to "
                               "PLAYER) is due", round=self.round, slot=slot)
            return message("rejected.next.dealing_banker", "round {round} is still being dealt: {slot} (card to "
                           "BANKER) is due", round=self.round, slot=slot)
        if self.state in SLOTS:
            return f"round {self.round} is still being dealt: {self._due_name()} is due"
        if self.state is State.SHOE_CLOSED:
            return message("rejected.next.shoe_closed", "shoe {shoe} is closed; load and confirm a new shoe (@shoe)",
                           shoe=self.shoe_number)
        if self.state is State.NEW_SHOE:
            return message("rejected.next.not_confirmed", "the shoe has not been confirmed yet (@shoe)")
        return message("rejected.next.burning", "the burn is not finished")

    def _shoe_ready(self, events: list[Event]) -> None:
        if not self.model.may_shoe_ready():
            events.append(rejected(Input(InputKind.SHOE),
                                   message("rejected.shoe.in_play", "shoe {shoe} is in play; it can be replaced once "
                                           "it is closed", shoe=self.shoe_number)))
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
        self.archive.add_shoe(self.shoe_number - 1, self.ledger.sequence.cards)
        self.ledger = self.new_ledger()
        self.cut_out = False
        self.model.last_round = None
        events.append({"event": "shoe", "shoe": self.shoe_number, "status": "new", "decks": self.decks})

    def _cut_card(self, events: list[Event]) -> None:
        if self.cut_out:
            already = message("rejected.cut.already", "the cut card is already out")
            events.append(rejected(Input(InputKind.CUT), already))
            return
        self.cut_out = True
        started = self.in_round and (self.model.player or self.model.banker)
        current = self.round if started or self.due_slot == "P1" else self.round + 1
        one_more = self.settings.shoe.cut_card == "one_more"
        self.model.last_round = current + (1 if one_more else 0)
        plan = (message("cut_card.one_more", "Cut card out: finish round {round} and play one more", round=current)
                if one_more else message("cut_card.this_round", "Cut card out: round {round} is the last of this "
                                         "shoe", round=current))
        events.append({"event": "cut_card", "round": current, "last_round": self.model.last_round,
                       "detail": plan.english(), "say_id": plan.id, "say_params": plan.params})
        if self.state is State.ROUND_OVER and not self.result_due:
            self._end_round(events)

    def _close_early(self, item: Input, events: list[Event]) -> None:
        model = self.model
        if not model.may_next_round() or self.result_due:
            events.append(rejected(item, message("rejected.close.mid_round",
                                                 "a shoe can be closed early only between rounds")))
            return
        model.last_round = model.round_number
        self.cut_out = True
        event: ShoeClosingEvent = {"event": "shoe_closing", "round": self.round, "reason": "closed early"}
        if item.approver:
            event["approved_by"] = item.approver
        events.append(event)
        self._end_round(events)

    def _exposed(self, events: list[Event]) -> None:
        if self.model.state not in SLOTS or not self.slots_dealt:
            events.append(rejected(
                Input(InputKind.EXPOSED),
                message("rejected.exposed.none", "no card of a round in progress to take back; a settled round is "
                        "for the supervisor"),
            ))
            return
        previous = self.slots_dealt.pop()
        model = self.model
        hand = model.player if SLOT_SIDE[previous] == "player" else model.banker
        card = hand.pop()
        self.ledger.dealt -= 1
        self.ledger.shown[card.code] -= 1  # counted again where it goes: the layout or the discards
        was_manual = previous in self.manual_slots
        self.manual_slots.discard(previous)
        self._raise_misdeal(events, "exposed_card", card.code,
                            message("misdeal.exposed", "{card} dealt to {slot} was exposed in error",
                                    card=card.code, slot=previous.value), resume=previous)
        assert self.misdeal is not None
        self.misdeal.exposed = card
        self.misdeal.exposed_manual = was_manual


def round_result(model: RoundModel, shoe_number: int, manual_slots: set[State]) -> ResultEvent:
    """The ``result`` event of the round just completed on ``model``."""
    player_total = hand_total(model.player)
    banker_total = hand_total(model.banker)
    winner = rules.winner(player_total, banker_total)
    player_pair = model.player[0].rank == model.player[1].rank
    banker_pair = model.banker[0].rank == model.banker[1].rank
    natural = model.natural
    if winner == "tie":
        say = message("result.tie", "Tie {player} to {banker}", player=player_total, banker=banker_total)
    elif winner == "player":
        say = message("result.player", "Player wins {high} to {low}", high=player_total, low=banker_total)
    else:
        say = message("result.banker", "Banker wins {high} to {low}", high=banker_total, low=player_total)
    result: ResultEvent = {
        "event": "result",
        "round": model.round_number,
        "shoe": shoe_number,
        "winner": winner,
        "player": {"cards": [c.code for c in model.player], "total": player_total},
        "banker": {"cards": [c.code for c in model.banker], "total": banker_total},
        "natural": natural,
        "player_pair": player_pair,
        "banker_pair": banker_pair,
        "say": say.english(),
        "say_id": say.id,
        "say_params": say.params,
    }
    if manual_slots:
        result["manual"] = sorted(slot.value for slot in manual_slots)
    return result


def round_facts(model: RoundModel, result: ResultEvent) -> RoundFacts:
    """What the bets look at in the round just completed on ``model``."""
    player, banker = model.player, model.banker
    return RoundFacts(
        player_total=result["player"]["total"], banker_total=result["banker"]["total"],
        player_cards=len(player), banker_cards=len(banker),
        player_pair=result["player_pair"], banker_pair=result["banker_pair"],
        player_perfect=player[0] == player[1], banker_perfect=banker[0] == banker[1],
    )


def gap_detail(last: int, following: int) -> Message:
    """What a :data:`SEQUENCE_GAP` misdeal says: which of the shoe's messages never arrived."""
    if following - last == 2:
        return message("misdeal.sequence_gap_one", "the shoe's message {missing} never arrived (its sequence "
                       "numbers went from {last} to {next}): a card may have left the shoe unseen",
                       missing=last + 1, last=last, next=following)
    return message("misdeal.sequence_gap", "the shoe's messages {first} to {final} never arrived (its sequence "
                   "numbers went from {last} to {next}): a card may have left the shoe unseen",
                   first=last + 1, final=following - 1, last=last, next=following)

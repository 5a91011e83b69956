"""The round flow while the table runs: a card read goes to its slot, a burn, or a misdeal; the round's result;
exposed cards. Deal order and legality are the round machine's (:mod:`controller.core.machine`)."""

from __future__ import annotations

import msgspec

from controller.core import flow, machine, rules
from controller.core.alerts import severity_of
from controller.core.approvals import rejected
from controller.core.bets.catalogue import RoundFacts
from controller.core.cards import Card, hand_total, parse_card
from controller.core.events import (
    AlertEvent,
    BurnEvent,
    CardEvent,
    Hand,
    ReaderEvent,
    ResultEvent,
    SettlementEvent,
)
from controller.core.exceptions import CardCodeError
from controller.core.inputs import Input, InputKind
from controller.core.machine import BURN_STATES, DEALING, SLOT_SIDE, RoundState, Row, State
from controller.core.misdeals import FOREIGN, SHOE_CARD, SHOE_RESTARTED, UNIDENTIFIED, gap_of
from controller.core.revealing import reveal, round_dealt
from controller.core.sequence_check import sequence_alert
from controller.core.shuffle_check import ALERT_PROBABILITY
from controller.core.state import Context
from controller.core.step import Draft, with_round
from controller.core.stopping import stopped_words, stopping_alert
from controller.core.view import PROMPTS, Shown, due_slot, instruction_event, stands_said
from controller.i18n.message import Message, message


def handle_running(draft: Draft, item: Input) -> None:
    """Every input of a running table that is not a badge and does not resolve a halt."""
    import controller.core.halting as halting
    import controller.core.shoeflow as shoeflow

    kind = item.kind
    if kind is InputKind.CARD:
        reader_card(draft, item.card or "")
    elif kind is InputKind.UNREADABLE:
        unreadable(draft)
    elif kind is InputKind.DOUBLE:
        halting.raise_misdeal(draft, "two_cards", None, message("misdeal.two_cards", "two cards left the shoe "
                                                                "together"),
                              held=[("??", UNIDENTIFIED), ("??", UNIDENTIFIED)])
    elif kind is InputKind.OFFLINE or kind is InputKind.ONLINE or kind is InputKind.CUT:
        reader_or_cut(draft, item)
    elif kind is InputKind.NEXT:
        shoeflow.next_round(draft)
    elif kind is InputKind.SHOE:
        shoeflow.shoe_ready(draft)
    elif kind is InputKind.EXPOSED:
        exposed(draft)
    elif kind is InputKind.CLOSE:
        shoeflow.close_early(draft, item)
    elif kind is InputKind.REVEAL:
        reveal(draft, item)
    elif kind is InputKind.COUNT:
        shoeflow.count_stub(draft, item)
    else:
        draft.events.append(rejected(item, message("rejected.no_misdeal", "there is no misdeal to resolve")))


def reader_or_cut(draft: Draft, item: Input) -> None:
    """The reader went away or came back, or the cut card came out: the same running or halted.

    A reader that goes away because its shoe restarted (``OFFLINE`` with :data:`SHOE_RESTARTED`) halts the table
    for the supervisor: the shoe may report cards it already reported. One whose messages never arrived
    (``OFFLINE`` with a :data:`~controller.core.misdeals.SEQUENCE_GAP`) halts it too: a card may have left the shoe
    unseen, and the next one must not take its place.
    """
    import controller.core.halting as halting
    import controller.core.shoeflow as shoeflow

    kind = item.kind
    if kind is InputKind.CUT:
        shoeflow.cut_card(draft)
        return
    if kind is InputKind.OFFLINE and item.card == SHOE_RESTARTED:
        halting.raise_misdeal(draft, SHOE_RESTARTED, None, message(
            "misdeal.shoe_restarted", "the shoe restarted from its first message (its sequence numbers fell back): "
            "cards it already reported may come again"))
        return
    gap = gap_of(item.card) if kind is InputKind.OFFLINE else None
    if gap is not None:
        halting.raise_misdeal(draft, "sequence_gap", None, gap_detail(*gap))
        return
    draft.reader_online = kind is InputKind.ONLINE
    draft.events.append(ReaderEvent(status="online" if draft.reader_online else "offline"))


def reader_card(draft: Draft, text: str) -> None:
    """A card the reader read: counted, then placed, held or refused as foreign."""
    try:
        card = parse_card(text)
    except CardCodeError as error:
        unknown_code(draft, text, str(error))
        return
    if draft.ledger.is_foreign(card, draft.unread_held() if draft.misdeal is not None else 0):
        foreign(draft, card)
        return
    count(draft, card)
    if draft.misdeal is not None or draft.round.state not in DEALING:
        not_due(draft, card.code, SHOE_CARD)
        return
    stop = stopping_alert(draft, draft.context)
    if stop is not None:  # the card itself raised a critical alert: it is not dealt either
        draft.ledger, _ = draft.ledger.set_aside([(card.code, SHOE_CARD)])
        draft.events.append(rejected(Input(InputKind.CARD, text), stopped_words(stop)))
        return
    place(draft, card)


def unknown_code(draft: Draft, text: str, error: str) -> None:
    from controller.core.halting import raise_misdeal

    if not unidentified(draft, text, text):
        raise_misdeal(draft, "unknown_card", text,
                      message("misdeal.unknown_card", "{given} is not a card: expected a rank (A 2-9 T/10 J Q K) "
                              "followed by a suit (S H D C), e.g. AS, 10H, kd", given=repr(text), reason=error),
                      held=[(text, UNIDENTIFIED)])


def foreign(draft: Draft, card: Card) -> None:
    from controller.core.halting import raise_misdeal

    ledger = draft.ledger
    decks = draft.context.decks
    copies = ledger.seen(card.code)
    draft.ledger = ledger.with_foreign(card.code)
    if copies >= decks:
        detail = message("misdeal.foreign_copy", "{card} would be copy {copy} of {card} in the {decks}-deck shoe, "
                         "which holds {decks}", card=card.code, copy=copies + 1, decks=decks)
    else:
        detail = message("misdeal.foreign_extra", "all {cards} cards of the {decks}-deck shoe have already left "
                         "it (read or not), so {card} is not one of them",
                         cards=52 * decks, decks=decks, card=card.code)
    raise_misdeal(draft, "foreign_card", card.code, detail, held=[(card.code, FOREIGN)])


def count(draft: Draft, card: Card) -> None:
    """Count a card seen in the shoe, and score the sequence for the unshuffled-shoe alert."""
    ledger, score, repeat = draft.ledger.count(card)
    draft.ledger = ledger
    if score is not None:
        detail = message("alert.unshuffled", "{hits} of the {steps} card-to-card steps so far are same-suit rank "
                         "neighbours; a random shuffle gives this with probability {probability}. Stop and "
                         "call surveillance: the shoe may not have been shuffled",
                         hits=ledger.shuffle.hits, steps=ledger.seen_total - 1, probability=f"{score:.1e}")
        draft.events.append(draft.open_alert(AlertEvent(
            id=draft.alerts.next_id(), kind="unshuffled_shoe", severity=severity_of("unshuffled_shoe"),
            shoe=draft.shoe_number, round=draft.round.number, probability=score, threshold=ALERT_PROBABILITY,
            detail=detail.english(), say_id=detail.id, say_params=detail.params)))
    if repeat is not None:
        draft.events.append(draft.open_alert(sequence_alert(repeat, draft.shoe_number, draft.round.number,
                                                            draft.alerts.next_id())))


def not_due(draft: Draft, code: str | None, status: str) -> None:
    from controller.core.halting import raise_misdeal

    held = [(code or "??", status)]
    if draft.misdeal is None and flow.shoe_closed(draft, draft.context):
        raise_misdeal(draft, "card_after_shoe_closed", code,
                      message("misdeal.after_shoe_closed", "shoe {shoe} is closed; no card may be dealt from it",
                              shoe=draft.shoe_number), held=held)
        return
    round_number = draft.round.number
    if draft.result_due:
        raise_misdeal(draft, "extra_card", code, message(
            "misdeal.extra_unrevealed", "a card was read but round {round} is dealt and waits for its reveals; "
            "the next round starts after its result", round=round_number), held=held)
        return
    why = {
        State.HANDS_DOWN: message("misdeal.extra_before_reveal", "a card was read but round {round}'s hands are "
                                  "down and not revealed: the third card is called after the reveals",
                                  round=round_number),
        State.THIRD_DOWN: message("misdeal.extra_before_third_reveal", "a card was read but the player's third card "
                                  "of round {round} is not revealed: the banker's card is called after it",
                                  round=round_number),
        State.ROUND_OVER: message("misdeal.extra_round_over", "a card was read but round {round} is over and "
                                  "the next round has not been started", round=round_number),
        State.NEW_SHOE: message("misdeal.extra_new_shoe", "a card was read but shoe {shoe} has not been "
                                "confirmed as shuffled and cut", shoe=draft.shoe_number),
    }.get(draft.state, message("misdeal.extra_card", "a card was read but no card is due"))
    raise_misdeal(draft, "extra_card", code, why, held=held)


def unreadable(draft: Draft) -> None:
    from controller.core.halting import raise_misdeal

    if not unidentified(draft, "??", None):
        raise_misdeal(draft, "unreadable_card", None, unread_detail(draft), held=[("??", UNIDENTIFIED)])


def unidentified(draft: Draft, read: str, code: str | None) -> bool:
    """A card the reader could not identify (``read``: what it read; ``code``: the code, if any): a card read when
    none is due (halted, or no card row from the round's state), or burned when the card due is a burn card after
    the turned one (its face does not count); False when it is the card due, a misdeal the caller words."""
    if draft.misdeal is not None or draft.round.state not in DEALING:
        not_due(draft, code, UNIDENTIFIED)
    elif draft.round.state is State.BURNING:
        burn_unidentified(draft, read)
    else:
        return False
    return True


def unread_detail(draft: Draft) -> Message:
    if draft.round.state is State.BURN_TURN:
        return message("misdeal.unreadable_burn", "the reader could not read the turned burn card")
    slot = due_slot(draft)
    if slot is None:
        return message("misdeal.unreadable_no_slot", "the reader could not read the card for no slot")
    if SLOT_SIDE[State(slot)] == "player":
        return message("misdeal.unreadable_player", "the reader could not read the card for {slot} "
                       "(card to PLAYER)", slot=slot)
    return message("misdeal.unreadable_banker", "the reader could not read the card for {slot} "
                   "(card to BANKER)", slot=slot)


def burn_unidentified(draft: Draft, text: str) -> None:
    """A burn card the reader could not identify: it is burned all the same (it is never dealt)."""
    draft.ledger = draft.ledger.burn_unidentified(text, draft.unread_held())
    with_round(draft, burn_remaining=draft.round.burn_remaining - 1)
    draft.events.append(BurnEvent(card=None, read=text))
    fire(draft, "card")


def fire(draft: Draft, trigger: str) -> Row | None:
    """Move the round along the machine's row for ``trigger`` (starting a round when the row does); the row, or None
    when ``trigger`` is not allowed now."""
    row = machine.fire(trigger, draft.round, draft.context.rules)
    if row is None:
        return None
    with_round(draft, state=row.dest)
    if row.starts_round:
        from controller.core.shoeflow import round_started

        round_started(draft)
    return row


def place(draft: Draft, card: Card, manual: bool = False) -> None:
    """Put ``card`` where the rules expect it and move the machine on."""
    round_state = draft.round
    state = round_state.state
    if state in BURN_STATES:
        burn_card(draft, card)
        return
    slot, side, _ = PROMPTS[state]
    if side == "player":
        with_round(draft, player=(*round_state.player, card))
    else:
        with_round(draft, banker=(*round_state.banker, card))
    draft.slots_dealt = (*draft.slots_dealt, state)
    draft.ledger = draft.ledger.placed(card)
    event = CardEvent(round=round_state.number, slot=slot, card=card.code)
    if manual:
        event.manual = True
        draft.manual_slots = draft.manual_slots | {state}
    if draft.context.face_down:
        event.face_down = True
    draft.events.append(event)
    after_card(draft, state, fire(draft, "card"))


def burn_card(draft: Draft, card: Card) -> None:
    round_state = draft.round
    turned = round_state.state is State.BURN_TURN
    if turned:
        remaining = card.value if card.value else 10
        draft.events.append(BurnEvent(card=card.code, turned=True, burn=remaining))
    else:
        remaining = round_state.burn_remaining - 1
        draft.events.append(BurnEvent(card=card.code))
    with_round(draft, burn_remaining=remaining)
    draft.ledger = draft.ledger.burned_card(card, turned)
    fire(draft, "card")


def after_card(draft: Draft, dealt: State, row: Row | None) -> None:
    """After the card ``dealt``, which moved the round along ``row``: what the dealer is told, and the round's
    result once the row ends it."""
    if not draft.context.face_down:  # face down, the totals stay hidden; the prompts still say where cards go
        say_stands(draft, dealt, draft.round.state)
    if row is not None and row.ends_round:
        round_dealt(draft)


def say_stands(draft: Draft, dealt: State, new: State) -> None:
    """Tell the dealer a natural or a hand standing, after the card ``dealt`` (the machine is at ``new``)."""
    draft.events.extend(instruction_event(draft, action, text) for action, text in stands_said(draft.round, dealt, new))


def finish_round(draft: Draft) -> None:
    """The round's result and the settlement of every offered bet."""
    round_state = draft.round
    result = round_result(round_state, draft.shoe_number, draft.manual_slots)
    events = draft.events
    events.append(result)
    outcomes = draft.context.settler.settle(round_facts(round_state, result))
    events.append(SettlementEvent(round=round_state.number, variant=draft.context.variant,
                                  bets={bet: outcome.to_event() for bet, outcome in outcomes.items()}))
    draft.rounds_dealt += 1
    draft.ledger = draft.ledger.with_result(result)
    round_over(draft)
    end_round(draft)


def round_over(draft: Draft) -> None:
    """A round ended (a result, or voided): the shoe's flow counts it (:func:`controller.core.shoeflow.round_over`)."""
    import controller.core.shoeflow as shoeflow

    shoeflow.round_over(draft)


def end_round(draft: Draft) -> None:
    """The round is over: the shoe closes when the cut card's last round is done."""
    if draft.cut_out and fire(draft, "close_shoe"):
        draft.events.append(draft.ledger.report(draft.shoe_number))


def may_expose(shown: Shown, context: Context) -> bool:
    """``@exposed`` is taken: the machine may take the last card of the round in progress back (``take_back``)."""
    return flow.may_now(shown, context, "take_back")


def exposed(draft: Draft) -> None:
    """The dealer reports the last card dealt was exposed: it is taken back from its slot."""
    from controller.core.halting import raise_misdeal

    if not may_expose(draft, draft.context):
        draft.events.append(rejected(
            Input(InputKind.EXPOSED),
            message("rejected.exposed.none", "no card to take back now: only the last card dealt while the round "
                    "waits for its next card can be; cards waiting face down for their reveal, and a settled round, "
                    "are for the supervisor"),
        ))
        return
    row = fire(draft, "take_back")  # the round goes back to the slot the card was dealt to
    assert row is not None
    previous = row.dest
    draft.slots_dealt = draft.slots_dealt[:-1]
    round_state = draft.round
    if SLOT_SIDE[previous] == "player":
        card = round_state.player[-1]
        with_round(draft, player=round_state.player[:-1])
    else:
        card = round_state.banker[-1]
        with_round(draft, banker=round_state.banker[:-1])
    draft.ledger = draft.ledger.taken_back(card)  # counted again where it goes: the layout or the discards
    was_manual = previous in draft.manual_slots
    draft.manual_slots = draft.manual_slots - {previous}
    raise_misdeal(draft, "exposed_card", card.code,
                  message("misdeal.exposed", "{card} dealt to {slot} was exposed in error",
                          card=card.code, slot=previous.value))
    assert draft.misdeal is not None
    draft.misdeal = msgspec.structs.replace(draft.misdeal, exposed=card, exposed_manual=was_manual)


def round_result(round_state: RoundState, shoe_number: int, manual_slots: frozenset[State]) -> ResultEvent:
    """The ``result`` event of the round just completed."""
    player, banker = round_state.player, round_state.banker
    player_total = hand_total(player)
    banker_total = hand_total(banker)
    winner = rules.winner(player_total, banker_total)
    player_pair = player[0].rank == player[1].rank
    banker_pair = banker[0].rank == banker[1].rank
    natural = round_state.natural
    if winner == "tie":
        text = message("result.tie", "Tie {player} to {banker}", player=player_total, banker=banker_total)
    elif winner == "player":
        text = message("result.player", "Player wins {high} to {low}", high=player_total, low=banker_total)
    else:
        text = message("result.banker", "Banker wins {high} to {low}", high=banker_total, low=player_total)
    result = ResultEvent(round=round_state.number, shoe=shoe_number, winner=winner,
                         player=Hand(cards=[c.code for c in player], total=player_total),
                         banker=Hand(cards=[c.code for c in banker], total=banker_total),
                         natural=natural, player_pair=player_pair, banker_pair=banker_pair,
                         say=text.english(), say_id=text.id, say_params=text.params)
    if manual_slots:
        result.manual = sorted(slot.value for slot in manual_slots)
    return result


def round_facts(round_state: RoundState, result: ResultEvent) -> RoundFacts:
    """What the bets look at in the round just completed."""
    player, banker = round_state.player, round_state.banker
    return RoundFacts(
        player_total=result.player.total, banker_total=result.banker.total,
        player_cards=len(player), banker_cards=len(banker),
        player_pair=result.player_pair, banker_pair=result.banker_pair,
        player_perfect=player[0] == player[1], banker_perfect=banker[0] == banker[1],
    )


def gap_detail(last: int, following: int) -> Message:
    """What a :data:`~controller.core.misdeals.SEQUENCE_GAP` misdeal says: which of the shoe's messages never
    arrived."""
    if following - last == 2:
        return message("misdeal.sequence_gap_one", "the shoe's message {missing} never arrived (its sequence "
                       "numbers went from {last} to {next}): a card may have left the shoe unseen",
                       missing=last + 1, last=last, next=following)
    return message("misdeal.sequence_gap", "the shoe's messages {first} to {final} never arrived (its sequence "
                   "numbers went from {last} to {next}): a card may have left the shoe unseen",
                   first=last + 1, final=following - 1, last=last, next=following)

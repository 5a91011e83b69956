"""The shoe's flow: a shoe confirmed, a round started, the cut card, the stub counted, a shoe closed early, the next
shoe."""

from __future__ import annotations

from controller.core import flow
from controller.core.alerts import AlertOpener
from controller.core.approvals import rejected
from controller.core.bets.live import edge_events
from controller.core.dealing import end_round, fire
from controller.core.events import CutCardEvent, RoundEvent, ShoeClosingEvent, ShoeEvent, StubCountEvent
from controller.core.inputs import Input, InputKind
from controller.core.ledger import as_mapping
from controller.core.machine import IN_ROUND, SLOT_SET, SLOT_SIDE, SQUEEZE_STATES, State
from controller.core.published import cards_left
from controller.core.state import Context
from controller.core.step import Draft, with_round
from controller.core.view import Shown, due_slot
from controller.i18n.message import Message, message


def round_started(draft: Draft) -> None:
    """The machine began a round: the layout is cleared, the round numbered, its edge given."""
    with_round(draft, player=(), banker=(), number=draft.round.number + 1)
    draft.manual_slots = frozenset()
    draft.slots_dealt = ()
    draft.revealed = 0
    draft.result_due = False
    number = draft.round.number
    draft.events.append(RoundEvent(round=number, shoe=draft.shoe_number))
    context = draft.context
    if not context.settings.bets.live_edge:
        return
    known = draft.known_edges(draft.shoe_number, number) if draft.known_edges is not None else None
    opener = AlertOpener(draft.alerts)
    watched = context.settler.catalogue_names if context.edition.offered_advantage_alerts else None
    draft.events.extend(edge_events(context.settings.bets, context.decks, draft.shoe_number, number,
                                    as_mapping(draft.ledger.shown_counts), opener, known, watched))
    draft.alerts = opener.book


def between_rounds(shown: Shown, context: Context) -> bool:
    """The round is over and revealed, and the shoe goes on: the machine may start the next round, or count the stub
    first (``@next``, ``@count``); ``@close`` may close the shoe early."""
    return flow.may(shown, context, "next_round") or flow.may(shown, context, "count_stub")


def stub_count_due(shown: Shown, context: Context) -> bool:
    """Between rounds, the stub must be counted (``@count``) before the next round starts (``[procedures]
    count_every``): the machine may count it."""
    return flow.may(shown, context, "count_stub")


def reader_waited_for(shown: Shown, context: Context) -> bool:
    """Between rounds the table waits for an offline reader (:attr:`~controller.core.editions.Edition.
    waits_for_reader`): no round or shoe starts without it."""
    return context.edition.waits_for_reader and not shown.reader_online


def may_start_next(shown: Shown, context: Context) -> bool:
    """``@next`` is taken: the machine may start the next round (between rounds, the stub counted when a count is
    due), with the reader there."""
    return flow.may(shown, context, "next_round") and not reader_waited_for(shown, context)


def shoe_awaited(shown: Shown, context: Context) -> bool:
    """The machine may take a shoe: confirm the one waiting (``shoe_ready``), or load the next once the last is
    closed (``load_shoe``)."""
    return flow.may(shown, context, "shoe_ready") or flow.may(shown, context, "load_shoe")


def may_confirm_shoe(shown: Shown, context: Context) -> bool:
    """``@shoe`` is taken: the machine awaits a shoe (:func:`shoe_awaited`), with the reader there."""
    return shoe_awaited(shown, context) and not reader_waited_for(shown, context)


READER_AWAY = message("rejected.reader_offline", "the card reader is offline: reconnect it; the table waits "
                      "between rounds until it is back")


def may_cut(shown: Shown) -> bool:
    """``@cut`` is taken: the cut card is not out yet."""
    return not shown.cut_out


def next_round(draft: Draft) -> None:
    """``@next``: the next round starts, or why it cannot."""
    if not may_start_next(draft, draft.context):
        why = (_not_revealed(draft) if draft.result_due else _count_first(draft)
               if stub_count_due(draft, draft.context) else READER_AWAY if between_rounds(draft, draft.context)
               else _why_not_next(draft))
        draft.events.append(rejected(Input(InputKind.NEXT), why))
        return
    fire(draft, "next_round")


def _count_first(draft: Draft) -> Message:
    return message("rejected.next.count_due", "the stub must be counted before round {round} starts: the table "
                   "expects {expected} cards (@count)", round=draft.round.number + 1, expected=cards_left(draft))


def round_over(draft: Draft) -> None:
    """A round is over (with a result or voided): one more round since the stub was last counted, when the house
    counts it."""
    if draft.context.rules.count_every:
        with_round(draft, uncounted=draft.round.uncounted + 1)


def count_stub(draft: Draft, item: Input) -> None:
    """``@count``: the dealer counted the stub (or confirms the count the table shows); a count other than the
    table's halts it (``count_mismatch``)."""
    from controller.core.halting import raise_misdeal

    context = draft.context
    if not stub_count_due(draft, context):
        every = context.rules.count_every
        why = (message("rejected.count.off", "no stub count is asked for: the stub count is off ([procedures] "
                       "count_every = 0)") if not every else
               message("rejected.count.not_due", "no stub count is due now: the table asks for one between rounds, "
                       "every {every} rounds", every=every))
        draft.events.append(rejected(item, why))
        return
    counted = keyed_count(draft, item)
    if counted is None:
        return
    expected = cards_left(draft)
    draft.events.append(StubCountEvent(round=draft.round.number, shoe=draft.shoe_number, expected=expected,
                                       counted=counted))
    if counted == expected:
        stub_counted(draft)
        return
    raise_misdeal(draft, "count_mismatch", str(counted), message(
        "misdeal.count_mismatch", "the dealer counted {counted} cards in the stub, the table expects {expected}: a "
        "card may be missing or added; call the supervisor", counted=counted, expected=expected))


def keyed_count(draft: Draft, item: Input) -> int | None:
    """The count ``item`` gives: the number keyed, or the table's own when the dealer confirms it; None (refused)
    when what was keyed is no number."""
    if item.card is None:
        return cards_left(draft)
    if not item.card.isdecimal():  # not isdigit(): "²" is a digit to it, no number to int()
        draft.events.append(rejected(item, message(
            "rejected.count.not_a_number", "{given} is not a count: key the number of cards in the stub, e.g. "
            "@count 312", given=repr(item.card))))
        return None
    return int(item.card)


def stub_counted(draft: Draft) -> None:
    """The stub's count matched: the next round may start."""
    fire(draft, "count_stub")
    with_round(draft, uncounted=0)


def _not_revealed(draft: Draft) -> Message:
    number = draft.round.number
    if draft.context.keyed_reveals:
        return message("rejected.next.not_revealed_keyed", "round {round} is not revealed yet: Reveal the next "
                       "hand and key its total (@reveal 7): the result comes after the last reveal", round=number)
    return message("rejected.next.not_revealed", "round {round} is not revealed yet: Reveal the next hand "
                   "(@reveal): the result comes after the last reveal", round=number)


def _why_not_next(draft: Draft) -> str | Message:
    state = draft.round.state
    number = draft.round.number
    slot = due_slot(draft)
    if state in SQUEEZE_STATES:
        return _not_revealed(draft)
    if state in SLOT_SET and slot is not None:
        if SLOT_SIDE[State(slot)] == "player":
            return message("rejected.next.dealing_player", "round {round} is still being dealt: {slot} (card to "
                           "PLAYER) is due", round=number, slot=slot)
        return message("rejected.next.dealing_banker", "round {round} is still being dealt: {slot} (card to "
                       "BANKER) is due", round=number, slot=slot)
    if state is State.SHOE_CLOSED:
        return message("rejected.next.shoe_closed", "shoe {shoe} is closed; load and confirm a new shoe (@shoe)",
                       shoe=draft.shoe_number)
    if state is State.NEW_SHOE:
        return message("rejected.next.not_confirmed", "the shoe has not been confirmed yet (@shoe)")
    return message("rejected.next.burning", "the burn is not finished")


def shoe_ready(draft: Draft) -> None:
    """``@shoe``: the dealer confirms the (next) shoe is shuffled, cut and loaded."""
    context = draft.context
    if not may_confirm_shoe(draft, context):
        in_play = message("rejected.shoe.in_play", "shoe {shoe} is in play; it can be replaced once it is closed",
                          shoe=draft.shoe_number)
        why = in_play if not shoe_awaited(draft, context) else READER_AWAY
        draft.events.append(rejected(Input(InputKind.SHOE), why))
        return
    if fire(draft, "load_shoe"):
        new_shoe(draft)
    draft.events.append(ShoeEvent(shoe=draft.shoe_number, status="ready"))
    if context.settings.shoe.burn == "fixed":
        with_round(draft, burn_remaining=context.settings.shoe.burn_cards)
    fire(draft, "shoe_ready")


def new_shoe(draft: Draft) -> None:
    """The closed shoe's order joins the earlier shoes; the next shoe starts with a fresh ledger."""
    draft.shoe_number += 1
    draft.earlier = draft.earlier.added(draft.ledger.stats)
    draft.archive = draft.archive.with_shoe(draft.shoe_number - 1, draft.ledger.sequence_cards)
    draft.ledger = draft.context.new_ledger(draft.archive)
    draft.cut_out = draft.closed_early = False
    with_round(draft, last_round=None, uncounted=0)
    draft.events.append(ShoeEvent(shoe=draft.shoe_number, status="new", decks=draft.context.decks))


def cut_card(draft: Draft) -> None:
    """The cut card came out: this round, or one more, is the shoe's last."""
    if not may_cut(draft):
        already = message("rejected.cut.already", "the cut card is already out")
        draft.events.append(rejected(Input(InputKind.CUT), already))
        return
    draft.cut_out = True
    round_state = draft.round
    in_round = round_state.state in IN_ROUND
    started = in_round and (round_state.player or round_state.banker)
    current = round_state.number if started or due_slot(draft) == "P1" else round_state.number + 1
    one_more = draft.context.settings.shoe.cut_card == "one_more"
    last_round = current + (1 if one_more else 0)
    with_round(draft, last_round=last_round)
    plan = (message("cut_card.one_more", "Cut card out: finish round {round} and play one more", round=current)
            if one_more else message("cut_card.this_round", "Cut card out: round {round} is the last of this "
                                     "shoe", round=current))
    draft.events.append(CutCardEvent(round=current, last_round=last_round, detail=plan.english(), say_id=plan.id,
                                     say_params=plan.params))
    if flow.may_now(draft, draft.context, "close_shoe"):
        end_round(draft)


def close_early(draft: Draft, item: Input, reason: str = "closed early") -> None:
    """``@close``: the supervisor closes the shoe early, between rounds (``reason``: why, as the event says it)."""
    if not between_rounds(draft, draft.context):
        draft.events.append(rejected(item, message("rejected.close.mid_round",
                                                   "a shoe can be closed early only between rounds")))
        return
    with_round(draft, last_round=draft.round.number)
    draft.cut_out = draft.closed_early = True
    event = ShoeClosingEvent(round=draft.round.number, reason=reason)
    if item.approver:
        event.approved_by = item.approver
    draft.events.append(event)
    end_round(draft)

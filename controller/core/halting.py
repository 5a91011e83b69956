"""A halt and its resolutions: a misdeal stops the table (an overlay beside the round, which keeps its state)
until one of the resolutions the misdeal policy offers (:data:`~controller.core.misdeals.POLICIES`) resolves it.
"""

from __future__ import annotations

import msgspec

from controller.core import flow
from controller.core.approvals import rejected
from controller.core.cards import parse_card
from controller.core.events import ReaderEvent, ResolvedEvent, RoundVoidedEvent, StubCountEvent
from controller.core.exceptions import CardCodeError
from controller.core.inputs import Input, InputKind
from controller.core.machine import DEALING, IN_ROUND
from controller.core.misdeals import POLICIES, RESOLUTION_INPUTS, UNIDENTIFIED, Held, Misdeal, instruction
from controller.core.step import Draft, with_round
from controller.core.view import next_instruction
from controller.i18n.message import Message, message
from controller.terms import MisdealKind, Resolution


def misdeal_round(draft: Draft) -> int:
    """The round a misdeal belongs to: the one in play (its cards down and not all revealed, face down, is still
    in play), or the next one between rounds."""
    if draft.round.state in IN_ROUND or draft.result_due or flow.shoe_closed(draft, draft.context):
        return draft.round.number
    return draft.round.number + 1


def offline_halts(draft: Draft) -> bool:
    """An offline reader halts the table: while a card or a reveal is due (between rounds the table waits for it
    instead, :attr:`~controller.core.editions.Edition.waits_for_reader`), or always under the earlier edition."""
    return not draft.context.edition.waits_for_reader or draft.round.state in DEALING or draft.round.state in IN_ROUND


def voidable(draft: Draft, kind: MisdealKind) -> bool:
    """May a misdeal of ``kind`` raised now be resolved by a void: the machine may void the round in play
    (``void_round``), a face-down round dealt to its end waits for its reveals, or an extra card between rounds voids
    the round about to start (:func:`resolve_void` does which)."""
    from controller.core.shoeflow import between_rounds

    return (flow.may(draft, draft.context, "void_round") or draft.result_due
            or (kind == "extra_card" and between_rounds(draft, draft.context)))


def raise_misdeal(draft: Draft, kind: MisdealKind, card: str | None, detail: Message,
                  held: list[Held] | None = None) -> None:
    """Halt on a misdeal of ``kind``, resolved as :data:`~controller.core.misdeals.POLICIES` says; while already
    halted, report it and hold its cards with the pending misdeal. The round keeps its state: it goes on from it."""
    pending = draft.misdeal
    events = draft.events
    if pending is not None:
        draft.misdeal = pending.holding(held or [])
        extra = Misdeal.of(kind, pending.round, card, detail, pending.instruction, pending.resolutions,
                           supervisor=pending.supervisor, while_halted=True)
        events.append(extra.event())
        draft.ledger = msgspec.structs.replace(draft.ledger, stats=draft.ledger.stats.plus(misdeal=1))
        return
    context = draft.context
    policy = POLICIES[kind]
    resolutions = policy.resolutions_for(context.settings.procedures)
    if not voidable(draft, kind):
        resolutions = [r for r in resolutions if r != "void"] or ["burn"]
    draft.halts += 1
    misdeal = Misdeal.of(kind, misdeal_round(draft), card, detail, instruction(resolutions), resolutions,
                         supervisor=[r for r in resolutions if context.needs_supervisor(r, kind)],
                         held=held or [], replaces_due_card=policy.replaces_due_card, serial=draft.halts)
    draft.misdeal = misdeal
    draft.ledger = msgspec.structs.replace(draft.ledger, stats=draft.ledger.stats.plus(misdeal=1))
    events.append(misdeal.event())


def handle_halted(draft: Draft, item: Input) -> None:
    """An input while halted: a reader's news, a card out of the shoe (held), or a resolution."""
    from controller.core.dealing import reader_card, reader_or_cut

    misdeal = draft.misdeal
    assert misdeal is not None
    kind = item.kind
    if kind is InputKind.OFFLINE or kind is InputKind.CUT or (
            kind is InputKind.ONLINE and misdeal.kind != "reader_offline"):
        reader_or_cut(draft, item)
    elif kind is InputKind.CARD:
        reader_card(draft, item.card or "")
    elif kind is InputKind.UNREADABLE:
        raise_misdeal(draft, "unreadable_card", None, message("misdeal.another_unread", "another card came out "
                                                              "unread"), held=[("??", UNIDENTIFIED)])
    elif kind is InputKind.DOUBLE:
        raise_misdeal(draft, "two_cards", None, message("misdeal.two_more", "two more cards left the shoe together"),
                      held=[("??", UNIDENTIFIED), ("??", UNIDENTIFIED)])
    else:
        resolve(draft, item, misdeal)


def resolve(draft: Draft, item: Input, misdeal: Misdeal) -> None:
    from controller.core.dealing import place

    events = draft.events
    resolution = RESOLUTION_INPUTS.get(item.kind)
    if resolution is None or resolution not in misdeal.resolutions:
        allowed = ", ".join(f"@{r}" for r in misdeal.resolutions)
        events.append(rejected(item, message("rejected.halted", "the table is halted on {kind}; expected {allowed}",
                                             kind=misdeal.kind, allowed=allowed)))
    elif resolution == "manual":
        resolve_manual(draft, item)
    elif resolution == "void":
        resolve_void(draft, item)
    elif resolution == "count":
        recount(draft, item)
    elif resolution == "close":
        from controller.core.shoeflow import close_early

        resolved(draft, item, "close")
        close_early(draft, item, "stub count mismatch")
    elif resolution == "use":
        card = misdeal.exposed
        assert card is not None
        manual = misdeal.exposed_manual
        draft.misdeal = msgspec.structs.replace(misdeal, exposed=None)
        resolved(draft, item, "use")
        events.append(next_instruction(draft))
        place(draft, card, manual=manual)
    else:
        if resolution == "online":
            draft.reader_online = True
            events.append(ReaderEvent(status="online"))
        resolved(draft, item, resolution)


def resolved(draft: Draft, item: Input, resolution: Resolution, keep: int = 0) -> None:
    """Emit the resolution and set aside the held cards, after the first ``keep`` of them (those a manual entry
    stands in for); the table goes on."""
    misdeal = draft.misdeal
    assert misdeal is not None
    held = misdeal.held
    ledger, cards = draft.ledger.set_aside(held[keep:] if keep else held)
    if misdeal.exposed is not None:
        ledger = ledger.discarding(misdeal.exposed.code)
        cards.append(misdeal.exposed.code)
    draft.ledger = ledger
    event = ResolvedEvent(round=misdeal.round, kind=misdeal.kind, resolution=resolution, cards=cards)
    if item.approver:
        event.approved_by = item.approver
    draft.events.append(event)
    draft.misdeal = None


def recount(draft: Draft, item: Input) -> None:
    """``@count N`` on a ``count_mismatch``: a recount that finds the table's count resolves it (the next round may
    start); one that does not is refused (count again, or the supervisor closes the shoe)."""
    from controller.core.published import cards_left
    from controller.core.shoeflow import keyed_count, stub_counted

    if item.card is None:
        draft.events.append(rejected(item, message(
            "rejected.count.confirm_after_mismatch", "after a mismatch, key the recounted number (@count 312); "
            "confirming is not a count")))
        return
    counted = keyed_count(draft, item)
    if counted is None:
        return
    expected = cards_left(draft)
    if counted != expected:
        draft.events.append(rejected(item, message(
            "rejected.count.recount_differs", "the recount gives {counted} cards, the table expects {expected}: "
            "count again (@count 312), or the supervisor closes the shoe (@close)", counted=counted,
            expected=expected)))
        return
    misdeal = draft.misdeal
    assert misdeal is not None
    draft.events.append(StubCountEvent(round=draft.round.number, shoe=draft.shoe_number, expected=expected,
                                       counted=counted))
    resolved(draft, item, "count")
    stub_counted(draft)


def resolve_manual(draft: Draft, item: Input) -> None:
    from controller.core.dealing import count, place

    misdeal = draft.misdeal
    assert misdeal is not None
    events = draft.events
    text = item.card or ""
    try:
        card = parse_card(text)
    except CardCodeError:
        events.append(rejected(item, message(
            "rejected.manual.not_a_card", "{given} is not a card: expected a rank (A 2-9 T/10 J Q K) followed by "
            "a suit (S H D C), e.g. AS, 10H, kd; enter the card again", given=repr(text))))
        return
    ledger = draft.ledger
    if ledger.is_foreign(card, draft.unread_held(stands_for_held=misdeal.replaces_due_card)):
        if ledger.all_copies_seen(card):
            reason = message("rejected.manual.all_copies", "{card}: all {decks} copies were already seen in this "
                             "shoe; check the card", card=card.code, decks=draft.context.decks)
        else:
            reason = message("rejected.manual.shoe_empty", "{card}: all {cards} cards of the shoe have already "
                             "left it; check the card", card=card.code, cards=52 * draft.context.decks)
        events.append(rejected(item, reason))
        return
    count(draft, card)
    resolved(draft, item, "manual", keep=1 if misdeal.replaces_due_card else 0)
    events.append(next_instruction(draft))
    place(draft, card, manual=True)


def resolve_void(draft: Draft, item: Input) -> None:
    from controller.core.dealing import end_round, fire, round_over
    from controller.core.shoeflow import between_rounds

    round_state = draft.round
    upcoming = between_rounds(draft, draft.context)  # the round about to start is voided (an extra card)
    cards = [] if upcoming else [c.code for c in round_state.player + round_state.banker]
    resolved(draft, item, "void")
    if upcoming:
        with_round(draft, number=round_state.number + 1)
    elif draft.result_due:
        draft.result_due = False  # a face-down round dealt to its end and voided before its last reveal
    elif not fire(draft, "void_round"):
        return
    draft.events.append(RoundVoidedEvent(round=draft.round.number, cards=cards, bets="returned"))
    draft.ledger = msgspec.structs.replace(draft.ledger, stats=draft.ledger.stats.plus(voided=1))
    draft.rounds_voided += 1
    with_round(draft, player=(), banker=())
    round_over(draft)
    end_round(draft)

"""Face-down dealing (``[table] dealing = "face_down"``): each hand is revealed by the dealer, and the
result waits for the last reveal.

The shoe still reads every card as it comes out (the ``card`` events, marked
``face_down``, and the journal are the surveillance view), but what the players
see waits for ``@reveal``: the player's hand first, then the banker's, then each
third card in the order it was dealt. With ``[table] reveal_confirm = "total"``
the dealer keys the total the revealed hand shows; one that differs from the
shoe's is the misdeal ``reveal_mismatch`` (a card may have been switched).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from controller.core.approvals import rejected
from controller.core.cards import Card, hand_total
from controller.core.events import RevealedEvent, Side
from controller.core.inputs import Input
from controller.core.machine import SLOT_SET
from controller.i18n.message import Message, message

if TYPE_CHECKING:
    from controller.core.state import Context
    from controller.core.step import Draft
    from controller.core.view import Shown


class Reveal(msgspec.Struct, frozen=True, gc=False):
    """One reveal: a side's slots turned up together, and the hand's total once they are."""

    side: Side
    slots: tuple[str, ...]
    cards: tuple[str, ...]
    total: int

    @property
    def hand(self) -> bool:
        """The reveal is of a two-card hand (not of a third card)."""
        return len(self.slots) == 2

    @property
    def name(self) -> str:
        """How the dealer is told about it: ``the PLAYER hand``, ``the BANKER third card``."""
        return f"the {self.side.upper()} {'hand' if len(self.slots) == 2 else 'third card'}"


def total_due(reveal: Reveal) -> Message:
    """The refusal of an ``@reveal`` without the total when ``[table] reveal_confirm = "total"``."""
    totals = {
        ("player", True): message("rejected.reveal.total_player_hand", "key the total the PLAYER hand shows, e.g. "
                                  "'@reveal 7' ([table] reveal_confirm = \"total\")"),
        ("banker", True): message("rejected.reveal.total_banker_hand", "key the total the BANKER hand shows, e.g. "
                                  "'@reveal 7' ([table] reveal_confirm = \"total\")"),
        ("player", False): message("rejected.reveal.total_player_third", "key the total the PLAYER third card "
                                   "shows, e.g. '@reveal 7' ([table] reveal_confirm = \"total\")"),
        ("banker", False): message("rejected.reveal.total_banker_third", "key the total the BANKER third card "
                                   "shows, e.g. '@reveal 7' ([table] reveal_confirm = \"total\")"),
    }
    return totals[(reveal.side, reveal.hand)]


def reveals_down(player: Sequence[Card], banker: Sequence[Card]) -> list[Reveal]:
    """The reveals whose cards are on the layout, in the order they are made."""
    reveals: list[Reveal] = []
    hands: tuple[tuple[Side, Sequence[Card], str], ...] = (("player", player, "P"), ("banker", banker, "B"))
    for side, hand, letter in hands:
        if len(hand) >= 2:
            reveals.append(Reveal(side, (letter + "1", letter + "2"), tuple(c.code for c in hand[:2]),
                                  hand_total(hand[:2])))
    if len(reveals) == 2:
        for side, hand, letter in hands:
            if len(hand) == 3:
                reveals.append(Reveal(side, (letter + "3",), (hand[2].code,), hand_total(hand)))
    return reveals


def reveal_due(shown: Shown, context: Context) -> Reveal | None:
    """The next reveal the dealer may make (its cards are down), or None."""
    if not context.face_down or shown.misdeal is not None:
        return None
    down = reveals_down(shown.round.player, shown.round.banker)
    return down[shown.revealed] if shown.revealed < len(down) else None


def reveal_instruction(context: Context) -> Message:
    """What the dealer is told while a face-down round waits for its reveals."""
    if context.keyed_reveals:
        return message("reveal.keyed", "Reveal the next hand and key its total (@reveal 7): the result comes "
                       "after the last reveal")
    return message("reveal.next", "Reveal the next hand (@reveal): the result comes after the last reveal")


def squeeze_instruction(context: Context) -> Message:
    """What the dealer is told while the next third-card decision waits for the reveals (a squeeze game)."""
    if context.keyed_reveals:
        return message("reveal.squeeze_keyed", "Reveal the next hand and key its total (@reveal 7): the third card "
                       "is called after the reveals")
    return message("reveal.squeeze", "Reveal the next hand (@reveal): the third card is called after the reveals")


def round_dealt(draft: Draft) -> None:
    """The round's last card is down: the result now, or after the last reveal."""
    from controller.core.dealing import finish_round

    if reveal_due(draft, draft.context) is not None:
        draft.result_due = True
    else:
        finish_round(draft)


def reveal(draft: Draft, item: Input) -> None:
    """``@reveal`` (``@reveal 7``: keying the total): the next hand turned up, or why not."""
    from controller.core.dealing import finish_round
    from controller.core.halting import raise_misdeal

    events = draft.events
    if not draft.context.face_down:
        face_up = message("rejected.reveal.face_up", 'dealing is face up ([table] dealing = "face_up"): nothing '
                          "to reveal")
        events.append(rejected(item, face_up))
        return
    due = reveal_due(draft, draft.context)
    if due is None:
        events.append(rejected(item, _why_no_reveal(draft)))
        return
    keyed = int(item.card) if item.card is not None and item.card.isdecimal() else None
    if keyed is None and draft.context.keyed_reveals:
        events.append(rejected(item, total_due(due)))
        return
    if keyed is not None and keyed != due.total:
        raise_misdeal(draft, "reveal_mismatch", None, _mismatch(due, keyed))
        return
    draft.revealed += 1
    events.append(RevealedEvent(round=draft.round.number, side=due.side, slots=list(due.slots),
                                cards=list(due.cards), total=due.total))
    if reveal_due(draft, draft.context) is not None:
        return
    if draft.result_due:
        draft.result_due = False
        finish_round(draft)
    else:
        _decide(draft)


def _decide(draft: Draft) -> None:
    """The cards down are all revealed: in a squeeze game the machine calls the next third card, or ends the round
    (its result); otherwise it has no ``revealed`` row and nothing moves."""
    from controller.core.dealing import finish_round, fire

    row = fire(draft, "revealed")
    if row is not None and row.ends_round:
        finish_round(draft)


def _why_no_reveal(draft: Draft) -> Message:
    if draft.misdeal is not None:
        return message("rejected.reveal.halted", "the table is halted; resolve the misdeal first")
    if draft.round.state in SLOT_SET:
        return message("rejected.reveal.nothing_down", "no hand of this round is complete and unrevealed; deal "
                       "the card the prompt asks for")
    return message("rejected.reveal.no_round", "no round is being dealt")


def _mismatch(due: Reveal, keyed: int) -> Message:
    """The ``reveal_mismatch`` detail: both totals, and what it may mean."""
    params = {"keyed": keyed, "total": due.total}
    if due.side == "player":
        if due.hand:
            return message("misdeal.reveal_mismatch.player", "the dealer keyed {keyed} for the PLAYER hand, the "
                           "shoe read {total}: a card may have been switched; call the supervisor", **params)
        return message("misdeal.reveal_mismatch.player_third", "the dealer keyed {keyed} for the PLAYER third "
                       "card, the shoe read {total}: a card may have been switched; call the supervisor", **params)
    if due.hand:
        return message("misdeal.reveal_mismatch.banker", "the dealer keyed {keyed} for the BANKER hand, the "
                       "shoe read {total}: a card may have been switched; call the supervisor", **params)
    return message("misdeal.reveal_mismatch.banker_third", "the dealer keyed {keyed} for the BANKER third "
                   "card, the shoe read {total}: a card may have been switched; call the supervisor", **params)

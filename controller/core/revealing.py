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

from dataclasses import dataclass

from controller.core.approvals import rejected
from controller.core.cards import Card, hand_total
from controller.core.events import Event, RevealedEvent, Side
from controller.core.inputs import Input
from controller.core.machine import State
from controller.core.tablestate import TableState
from controller.i18n.message import Message, message


@dataclass(frozen=True, slots=True)
class Reveal:
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


def reveals_down(player: list[Card], banker: list[Card]) -> list[Reveal]:
    """The reveals whose cards are on the layout, in the order they are made."""
    reveals: list[Reveal] = []
    hands: tuple[tuple[Side, list[Card], str], ...] = (("player", player, "P"), ("banker", banker, "B"))
    for side, hand, letter in hands:
        if len(hand) >= 2:
            reveals.append(Reveal(side, (letter + "1", letter + "2"), tuple(c.code for c in hand[:2]),
                                  hand_total(hand[:2])))
    if len(reveals) == 2:
        for side, hand, letter in hands:
            if len(hand) == 3:
                reveals.append(Reveal(side, (letter + "3",), (hand[2].code,), hand_total(hand)))
    return reveals


class Revealing(TableState):
    """The reveals of a face-down round; :meth:`_finish_round` (the result) is the dealing flow's."""

    def _finish_round(self, events: list[Event]) -> None:
        raise NotImplementedError

    @property
    def reveal_due(self) -> Reveal | None:
        """The next reveal the dealer may make (its cards are down), or None."""
        if not self.face_down or self.current_state() is State.HALTED:
            return None
        down = reveals_down(self.model.player, self.model.banker)
        return down[self.revealed] if self.revealed < len(down) else None

    def _round_dealt(self, events: list[Event]) -> None:
        """The round's last card is down: the result now, or after the last reveal."""
        if self.reveal_due is not None:
            self.result_due = True
        else:
            self._finish_round(events)

    def _reveal(self, item: Input, events: list[Event]) -> None:
        if not self.face_down:
            face_up = message("rejected.reveal.face_up", 'dealing is face up ([table] dealing = "face_up"): nothing '
                              "to reveal")
            events.append(rejected(item, face_up))
            return
        reveal = self.reveal_due
        if reveal is None:
            events.append(rejected(item, self._why_no_reveal()))
            return
        keyed = int(item.card) if item.card is not None and item.card.isdigit() else None
        if keyed is None and self.settings.table.reveal_confirm == "total":
            events.append(rejected(item, total_due(reveal)))
            return
        if keyed is not None and keyed != reveal.total:
            self._raise_misdeal(events, "reveal_mismatch", None, self._mismatch(reveal, keyed))
            return
        self.revealed += 1
        event: RevealedEvent = {"event": "revealed", "round": self.round, "side": reveal.side,
                                "slots": list(reveal.slots), "cards": list(reveal.cards), "total": reveal.total}
        events.append(event)
        if self.result_due and self.reveal_due is None:
            self.result_due = False
            self._finish_round(events)

    def _why_no_reveal(self) -> Message:
        if self.current_state() is State.HALTED:
            return message("rejected.reveal.halted", "the table is halted; resolve the misdeal first")
        if self.in_round:
            return message("rejected.reveal.nothing_down", "no hand of this round is complete and unrevealed; deal "
                           "the card the prompt asks for")
        return message("rejected.reveal.no_round", "no round is being dealt")

    @staticmethod
    def _mismatch(reveal: Reveal, keyed: int) -> Message:
        """The ``reveal_mismatch`` detail: both totals, and what it may mean."""
        params = {"keyed": keyed, "total": reveal.total}
        if reveal.side == "player":
            if reveal.hand:
                return message("misdeal.reveal_mismatch.player", "the dealer keyed {keyed} for the PLAYER hand, the "
                               "shoe read {total}: a card may have been switched; call the supervisor", **params)
            return message("misdeal.reveal_mismatch.player_third", "the dealer keyed {keyed} for the PLAYER third "
                           "card, the shoe read {total}: a card may have been switched; call the supervisor", **params)
        if reveal.hand:
            return message("misdeal.reveal_mismatch.banker", "the dealer keyed {keyed} for the BANKER hand, the "
                           "shoe read {total}: a card may have been switched; call the supervisor", **params)
        return message("misdeal.reveal_mismatch.banker_third", "the dealer keyed {keyed} for the BANKER third "
                       "card, the shoe read {total}: a card may have been switched; call the supervisor", **params)

"""The moments that matter, as the console shows them in large type: pure, from a :class:`TableView`.

:func:`next_moment` is what the dealer does next (the result in the winner's colour with the score,
"THIRD CARD TO PLAYER" with the rule that calls it, a misdeal's keys, the shoe closed with its report);
:func:`shoe_banner` is the shoe's own news (cut card out, LAST ROUND); :func:`alert_moment` an open alert.
A face-down card (dealt, not yet revealed) is drawn by the hand views, not here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from controller.core.cards import parse_card
from controller.core.events import EventLike
from controller.core.exceptions import CardCodeError
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import message
from controller.ui.dealer_words import misdeal_keys, misdeal_lines
from controller.ui.tableview import TableView

WINNER_STYLES: Final = {"B": "bold red", "P": "bold dodger_blue1", "T": "bold green"}
ALERT_STYLE: Final = "bold white"
ACTION_LABELS: Final = {"next_round": message("console.action.next_round", "NEXT ROUND: n"),
                        "confirm_shoe": message("console.action.confirm_shoe", "NEW SHOE: s"),
                        "approval": message("console.action.approval", "SUPERVISOR"),
                        "sign_in": message("console.action.sign_in", "SIGN IN"),
                        "new_shoe": message("console.action.new_shoe", "SHOE CLOSED"),
                        "resolve": message("console.action.resolve", "MISDEAL"),
                        "reveal": message("console.action.reveal", "REVEAL: r"),
                        "release_alert": message("console.action.release_alert", "STOPPED"),
                        "reconnect_reader": message("console.action.reconnect_reader", "READER OFFLINE")}
"""Large-type labels of the core's instruction actions (the full sentence is shown below them)."""


def side_word(side: str, words: Catalogue = ENGLISH) -> str:
    """``"PLAYER"``, ``"BANKER"`` or ``"TIE"`` as the console writes a side in capitals, in ``words``' language."""
    if side == "player":
        return words.say("console.side.player", "PLAYER")
    if side == "banker":
        return words.say("console.side.banker", "BANKER")
    return words.say("console.side.tie", "TIE")


@dataclass(frozen=True)
class Moment:
    """One thing in large type: the text, its colour (a Rich style) and the sentence below it."""

    big: str
    detail: str
    style: str = "bold"


def score_text(result: EventLike, words: Catalogue = ENGLISH) -> str:
    """``"BANKER 7 : 5"``: the winner and its total first; ``"TIE 6 : 6"``."""
    winner = str(result.get("winner", "")).lower()
    totals = {side: (result.get(side) or {}).get("total") for side in ("player", "banker")}
    if winner == "tie":
        return f"{side_word('tie', words)} {totals['player']} : {totals['banker']}"
    loser = "player" if winner == "banker" else "banker"
    return f"{side_word(winner, words)} {totals[winner]} : {totals[loser]}"


def _value(code: str | None) -> int | None:
    if code is None:
        return None
    try:
        return parse_card(code).value
    except CardCodeError:
        return None


def _two_card_total(view: TableView, slots: tuple[str, str]) -> int | None:
    values = [_value(view.slots.get(slot)) for slot in slots]
    return None if None in values else sum(v for v in values if v is not None) % 10


def third_card_rule(view: TableView, slot: str, words: Catalogue = ENGLISH) -> str:
    """The rule that calls for the third card due in ``slot`` (P3 or B3), in words."""
    if slot == "P3":
        return words.say("console.rule.player", "player draws on {total}",
                         total=str(_two_card_total(view, ("P1", "P2"))))
    banker = str(_two_card_total(view, ("B1", "B2")))
    third = _value(view.slots.get("P3"))
    if third is None:
        return words.say("console.rule.banker_player_stood", "banker draws on {total}: the player stood", total=banker)
    return words.say("console.rule.banker", "banker draws on {total} against the player's third card {third}",
                     total=banker, third=third)


def result_text(view: TableView, words: Catalogue = ENGLISH) -> str | None:
    """``"BANKER wins 7 to 5"`` / ``"TIE 6 to 6"`` for this round's result (``(natural)`` added), or None."""
    if view.result is None:
        return None
    winner = str(view.result.get("winner", "")).lower()
    player, banker = str(view.total("player")), str(view.total("banker"))
    natural = " " + words.say("console.result.natural", "(natural)") if view.result.get("natural") else ""
    if winner == "tie":
        text = words.say("console.result.tie", "TIE {player} to {banker}", player=player, banker=banker)
    elif winner == "banker":
        text = words.say("console.result.banker", "BANKER wins {banker} to {player}", player=player, banker=banker)
    else:
        text = words.say("console.result.player", "PLAYER wins {player} to {banker}", player=player, banker=banker)
    return text + natural


def result_then(result: str, then: str, words: Catalogue) -> str:
    """The result and the next step in one sentence pair, joined by the language's own punctuation."""
    return words.say("console.result_then", "{result}. {then}", result=result, then=then)


def _result_moment(view: TableView, words: Catalogue) -> Moment:
    assert view.result is not None
    winner = str(view.result.get("winner", "")).upper()[:1]
    then = (words.say("console.then.new_shoe", "Pay this hand, then load a new shoe and press s.")
            if view.shoe.closed else words.say("console.then.next", "Press n for the next round."))
    return Moment(score_text(view.result, words), result_then(result_text(view, words) or "", then, words),
                  WINNER_STYLES.get(winner, "bold"))


def next_moment(view: TableView, words: Catalogue = ENGLISH) -> Moment:
    """What the dealer does next, in large type."""
    supervisor = words.say("console.call_supervisor", "CALL SUPERVISOR")
    if view.approval is not None and view.instruction:
        return Moment(supervisor, view.instruction, "bold yellow")
    if view.instruction_action == "release_alert":  # a critical alert stops the table, a halt included
        return Moment(words.text(ACTION_LABELS["release_alert"]), dealer_instruction(view, words), "bold red")
    if view.misdeal is not None:
        lines = misdeal_lines(view.misdeal, words)
        return Moment(misdeal_keys(view.misdeal, words) or supervisor, lines[0], "bold yellow")
    if view.result is not None and view.instruction_action in (None, "next_round", "new_shoe"):
        return _result_moment(view, words)
    if view.shoe.closed:
        return Moment(words.say("console.action.new_shoe", "SHOE CLOSED"),
                      words.say("console.shoe_closed.detail", "Shoe closed: load a new shoe, then press s."))
    prompt = view.prompt
    if prompt is not None and prompt.get("slot") in ("P3", "B3"):
        side = "player" if prompt.get("slot") == "P3" else "banker"
        big = words.say("console.third_card", "THIRD CARD TO {side}", side=side_word(side, words))
        rule = third_card_rule(view, str(prompt["slot"]), words)
        return Moment(big, words.say("console.third_card.detail", "Third card to {side}: {rule}",
                                     side=side_word(side, words), rule=rule), WINNER_STYLES[side[0].upper()])
    if view.instruction:
        label = ACTION_LABELS.get(view.instruction_action or "")
        style = (WINNER_STYLES["P" if str(prompt.get("slot", "")).startswith("P") else "B"]
                 if prompt is not None else "bold")
        return Moment(words.text(label) if label else view.instruction, dealer_instruction(view, words), style)
    if view.voided is not None:
        return Moment(words.say("console.void", "VOID"),
                      words.say("console.void.detail", "Round {round} voided: bets returned. Press n for the next "
                                "round.", round=view.voided))
    return Moment(words.say("console.waiting", "WAITING"),
                  words.say("console.waiting.detail", "Waiting for the table."))


def dealer_instruction(view: TableView, words: Catalogue = ENGLISH) -> str:
    """The core's instruction as the console says it: the key to press rather than the script token."""
    if view.instruction_action == "release_alert":
        return words.say("console.release_alert", "Stopped on critical alert {id}: call surveillance; no card is "
                         "dealt. Once they release it, press a to acknowledge it.",
                         id=str(view.instruction_params.get("id", "?")))
    if view.instruction_action == "reveal":
        if view.instruction_id == "reveal.squeeze_keyed":
            return words.say("console.reveal.squeeze_keyed", "Reveal the next hand: press r and type the total it "
                             "shows. The third card is called after the reveals.")
        if view.instruction_id == "reveal.squeeze":
            return words.say("console.reveal.squeeze", "Reveal the next hand: press r. The third card is called "
                             "after the reveals.")
        if view.instruction_id == "reveal.keyed":
            return words.say("console.reveal.keyed", "Reveal the next hand: press r and type the total it shows. "
                             "The result comes after the last reveal.")
        return words.say("console.reveal.next", "Reveal the next hand: press r. The result comes after the last "
                         "reveal.")
    return view.instruction or ""


def shoe_banner(view: TableView, words: Catalogue = ENGLISH) -> Moment | None:
    """The shoe's news: closed (with its report), LAST ROUND, or the cut card out; None otherwise."""
    shoe = view.shoe
    if shoe.closed:
        details = shoe.details
        counts = view.roads().counts
        report = words.say(
            "console.shoe_report", "Shoe {shoe} closed after {rounds} rounds: banker {banker}, player {player}, "
            "tie {tie}; misdeals {misdeals}, voided {voided}, cards left {left}",
            shoe=str(details.get("shoe", "?")), rounds=counts.banker + counts.player + counts.tie,
            banker=counts.banker, player=counts.player, tie=counts.tie, misdeals=str(details.get("misdeals", 0)),
            voided=str(details.get("voided", 0)), left=str(shoe.cards_left if shoe.cards_left is not None else "?"))
        return Moment(words.say("console.action.new_shoe", "SHOE CLOSED"), report, "bold black on yellow")
    if not shoe.cut_card_out:
        return None
    last = view.last_round
    if last is not None and view.round is not None and view.round >= last:
        return Moment(words.say("console.last_round", "LAST ROUND"),
                      words.say("console.last_round.detail", "Round {round} is the last of this shoe.",
                                round=view.round), "bold black on yellow")
    detail = (words.say("console.cut_card.last", "Cut card out: round {round} is the last of this shoe.", round=last)
              if last is not None else words.say("console.cut_card.soon", "Cut card out: the shoe ends soon."))
    return Moment(words.say("console.cut_card", "CUT CARD OUT"), detail, "bold black on yellow")


def alert_moment(view: TableView, words: Catalogue = ENGLISH) -> Moment | None:
    """The oldest open alert, until it is acknowledged (key a sends ``@ack ID``); None when none is open."""
    if not view.alerts:
        return None
    alert = next(iter(view.alerts.values()))
    others = len(view.alerts) - 1
    more = " " + words.say("console.alert.more", "({count} more open)", count=others) if others else ""
    detail = words.say("console.alert.detail", "{severity} {kind}: {detail}{more}. Call the supervisor; "
                       "press a to acknowledge it.", severity=str(alert.get("severity", "critical")).upper(),
                       kind=str(alert.get("kind")), detail=str(alert.get("detail", "")), more=more)
    return Moment(words.say("console.alert", "ALERT {id}", id=str(alert.get("id", "?"))), detail, ALERT_STYLE)

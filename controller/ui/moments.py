"""The moments that matter, as the console shows them in large type: pure, from a :class:`TableView`.

:func:`next_moment` is what the dealer does next (the result in the winner's colour with the score,
"THIRD CARD TO PLAYER" with the rule that calls it, a misdeal's keys, the shoe closed with its report);
:func:`shoe_banner` is the shoe's own news (cut card out, LAST ROUND); :func:`alert_moment` an open alert.
A face-down card (dealt, not yet revealed) is drawn by the hand views, not here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from controller.core.cards import parse_card
from controller.core.exceptions import CardCodeError
from controller.ui.dealer_words import misdeal_keys, misdeal_lines
from controller.ui.tableview import TableView

WINNER_STYLES: Final = {"B": "bold red", "P": "bold dodger_blue1", "T": "bold green"}
ALERT_STYLE: Final = "bold white"
ACTION_LABELS: Final = {"next_round": "NEXT ROUND: n", "confirm_shoe": "NEW SHOE: s",
                        "approval": "SUPERVISOR", "sign_in": "SIGN IN",
                        "new_shoe": "SHOE CLOSED", "resolve": "MISDEAL", "reveal": "REVEAL: r"}
"""Large-type labels of the core's instruction actions (the full sentence is shown below them)."""


@dataclass(frozen=True)
class Moment:
    """One thing in large type: the text, its colour (a Rich style) and the sentence below it."""

    big: str
    detail: str
    style: str = "bold"


def score_text(result: Mapping[str, Any]) -> str:
    """``"BANKER 7 : 5"``: the winner and its total first; ``"TIE 6 : 6"``."""
    winner = str(result.get("winner", "")).lower()
    totals = {side: (result.get(side) or {}).get("total") for side in ("player", "banker")}
    if winner == "tie":
        return f"TIE {totals['player']} : {totals['banker']}"
    loser = "player" if winner == "banker" else "banker"
    return f"{winner.upper()} {totals[winner]} : {totals[loser]}"


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


def third_card_rule(view: TableView, slot: str) -> str:
    """The rule that calls for the third card due in ``slot`` (P3 or B3), in words."""
    if slot == "P3":
        return f"player draws on {_two_card_total(view, ('P1', 'P2'))}"
    banker = _two_card_total(view, ("B1", "B2"))
    third = _value(view.slots.get("P3"))
    if third is None:
        return f"banker draws on {banker}: the player stood"
    return f"banker draws on {banker} against the player's third card {third}"


def next_moment(view: TableView) -> Moment:
    """What the dealer does next, in large type."""
    if view.approval is not None and view.instruction:
        return Moment("CALL SUPERVISOR", view.instruction, "bold yellow")
    if view.misdeal is not None:
        lines = misdeal_lines(view.misdeal)
        return Moment(misdeal_keys(view.misdeal) or "CALL SUPERVISOR", lines[0], "bold yellow")
    if view.result is not None and view.instruction_action in (None, "next_round", "new_shoe"):
        winner = str(view.result.get("winner", "")).upper()[:1]
        then = ("Pay this hand, then load a new shoe and press s." if view.shoe.closed
                else "Press n for the next round.")
        return Moment(score_text(view.result), f"{view.result_text()}. {then}", WINNER_STYLES.get(winner, "bold"))
    if view.shoe.closed:
        return Moment("SHOE CLOSED", "Shoe closed: load a new shoe, then press s.")
    prompt = view.prompt
    if prompt is not None and prompt.get("slot") in ("P3", "B3"):
        side = "PLAYER" if prompt.get("slot") == "P3" else "BANKER"
        return Moment(f"THIRD CARD TO {side}", f"Third card to {side}: {third_card_rule(view, str(prompt['slot']))}",
                      WINNER_STYLES[side[0]])
    if view.instruction:
        label = ACTION_LABELS.get(view.instruction_action or "")
        style = WINNER_STYLES["P" if "PLAYER" in view.instruction else "B"] if prompt is not None else "bold"
        return Moment(label or view.instruction, view.instruction, style)
    if view.voided is not None:
        return Moment("VOID", f"Round {view.voided} voided: bets returned. Press n for the next round.")
    return Moment("WAITING", "Waiting for the table.")


def shoe_banner(view: TableView) -> Moment | None:
    """The shoe's news: closed (with its report), LAST ROUND, or the cut card out; None otherwise."""
    shoe = view.shoe
    if shoe.closed:
        details = shoe.details
        counts = view.roads().counts
        report = (f"Shoe {details.get('shoe', '?')} closed after {counts.banker + counts.player + counts.tie} "
                  f"rounds: banker {counts.banker}, player {counts.player}, tie {counts.tie}; "
                  f"misdeals {details.get('misdeals', 0)}, voided {details.get('voided', 0)}, "
                  f"cards left {shoe.cards_left if shoe.cards_left is not None else '?'}")
        return Moment("SHOE CLOSED", report, "bold black on yellow")
    if not shoe.cut_card_out:
        return None
    last = view.last_round
    if last is not None and view.round is not None and view.round >= last:
        return Moment("LAST ROUND", f"Round {view.round} is the last of this shoe.", "bold black on yellow")
    plan = f"round {last} is the last of this shoe" if last is not None else "the shoe ends soon"
    return Moment("CUT CARD OUT", f"Cut card out: {plan}.", "bold black on yellow")


def alert_moment(view: TableView) -> Moment | None:
    """The oldest open alert, until it is acknowledged (key A sends ``@ack ID``); None when none is open."""
    if not view.alerts:
        return None
    alert = next(iter(view.alerts.values()))
    others = len(view.alerts) - 1
    more = f" ({others} more open)" if others else ""
    return Moment(f"ALERT {alert.get('id', '?')}",
                  f"{str(alert.get('severity', 'critical')).upper()} {alert.get('kind')}: {alert.get('detail', '')}"
                  f"{more}. Call the supervisor; a acknowledges it (@ack {alert.get('id')}).", ALERT_STYLE)

"""Game recall (R1-R4 of docs/compliance.md): the rounds a table's events hold, step by step, for ``croupier recall``
and the console's recall screen.

Each round: every card in the order it was read with its slot, every third-card decision with the rule that made it
(from the rules' tables, :mod:`controller.core.rules`, worded as the drill words them: :mod:`controller.core.calls`),
the result, the payouts per bet, misdeals and their resolutions. Read from the table's own events, nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.core.calls import banker_call, player_call, rule_message
from controller.core.cards import Card, parse_card
from controller.i18n.message import Message, message

RECALL_EVENTS = frozenset({"shoe", "round", "card", "undone", "result", "settlement", "misdeal", "resolved",
                           "round_voided"})
"""The events recall reads."""


@dataclass
class Recalled:
    """One round as recall shows it, from the table's own events."""

    shoe: int
    round: int
    at: str
    order: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    payouts: dict[str, str] = field(default_factory=dict)
    misdeals: list[dict[str, Any]] = field(default_factory=list)
    resolutions: list[dict[str, Any]] = field(default_factory=list)
    undos: list[dict[str, Any]] = field(default_factory=list)
    """The inputs ``@undo`` took back, each its ``undone`` event's fields (its own words in ``say``)."""
    voided: bool = False

    @property
    def cards(self) -> dict[str, str]:
        """Each slot's card now (a hand-entered card taken back by ``@undo`` is not)."""
        return {step["slot"]: step["card"] for step in self.order if not step["undone"]}

    @property
    def unfinished(self) -> bool:
        return self.result is None and not self.voided

    def decisions(self) -> list[dict[str, str]]:
        """The third-card decisions the cards so far called for, each with the rule that made it."""
        cards = {slot: parse_card(code) for slot, code in self.cards.items() if code != "??"}
        if not all(slot in cards for slot in ("P1", "P2", "B1", "B2")):
            return []
        player, banker = [cards["P1"], cards["P2"]], [cards["B1"], cards["B2"]]
        first = player_call(player, banker)
        found = [{"hand": "player", "decision": first.answer, "rule": first.rule}]
        if first.answer == "natural":
            return found
        third: Card | None = cards.get("P3")
        if first.answer == "draw" and third is None:
            return found  # the banker's call waits for the player's third card
        second = banker_call(banker, third)
        found.append({"hand": "banker", "decision": second.answer, "rule": second.rule})
        return found

    def as_json(self) -> dict[str, Any]:
        result = self.result or {}
        return {"shoe": self.shoe, "round": self.round, "at": self.at, "cards": self.cards, "order": self.order,
                "decisions": self.decisions(), "winner": result.get("winner"), "player": result.get("player"),
                "banker": result.get("banker"), "natural": result.get("natural"), "payouts": self.payouts,
                "misdeals": self.misdeals, "resolutions": self.resolutions, "voided": self.voided,
                "unfinished": self.unfinished}


def recalled_rounds(events: Iterable[tuple[Mapping[str, Any], str]]) -> list[Recalled]:
    """Every round ``events`` (each event's fields, and the time it was journaled: "" when not known) hold, in order
    (a round with neither a card nor a misdeal left out)."""
    rounds: dict[tuple[int, int], Recalled] = {}
    shoe = 1
    for fields, at in events:
        name = fields["event"]
        if name in ("shoe", "round", "result"):
            shoe = int(fields.get("shoe", shoe))
        number = fields.get("round")
        if not isinstance(number, int) or number < 1:
            continue
        entry = rounds.setdefault((shoe, number), Recalled(shoe, number, at))
        _take(entry, name, fields)
    return [entry for entry in rounds.values() if entry.order or entry.misdeals or entry.result]


def _take(entry: Recalled, name: str, fields: Mapping[str, Any]) -> None:
    if name == "card":
        entry.order.append({"slot": fields["slot"], "card": fields["card"], "manual": bool(fields.get("manual")),
                            "undone": False})
    elif name == "undone":
        entry.undos.append(dict(fields))
        if str(fields["input"]).startswith("@manual"):
            _take_back(entry, fields)
    elif name == "result":
        entry.result = dict(fields)
    elif name == "settlement":
        entry.payouts = {bet: outcome["net"] for bet, outcome in fields["bets"].items()}
    elif name == "misdeal":
        entry.misdeals.append({key: fields.get(key) for key in ("kind", "card", "detail")})
    elif name == "resolved":
        entry.resolutions.append({key: fields.get(key) for key in ("kind", "resolution", "cards", "approved_by")})
    elif name == "round_voided":
        entry.voided = True


def _take_back(entry: Recalled, fields: Mapping[str, Any]) -> None:
    """A hand-entered card ``@undo`` took out of its slot (an exposed call taken back leaves its card dealt)."""
    for step in reversed(entry.order):
        if step["slot"] == fields["slot"] and step["manual"] and not step["undone"]:
            step["undone"] = True
            return


def _undo_said(fields: Mapping[str, Any], text: Callable[[Message], str]) -> str:
    """An ``undone`` event's own words, worded by ``text`` (as the event says them when it has no message id)."""
    said = str(fields["say"])
    msg_id = fields.get("say_id")
    return text(Message(msg_id, said, dict(fields.get("say_params") or {}))) if isinstance(msg_id, str) else said


def recall_text(rounds: list[Recalled], text: Callable[[Message], str] = Message.english) -> list[str]:
    """The recalled rounds as a person reads them, each message worded by ``text`` (a catalogue's)."""
    lines: list[str] = []
    for entry in rounds:
        if entry.at:
            heading = message("recall.round", "Shoe {shoe}, round {round} ({at})", shoe=entry.shoe, round=entry.round,
                              at=entry.at)
        else:
            heading = message("recall.round_now", "Shoe {shoe}, round {round}", shoe=entry.shoe, round=entry.round)
        lines.append(text(heading))
        lines.append("  " + "  ".join(f"{step['slot']} {step['card']}" + ("*" if step["manual"] else "")
                                      + (" (undone)" if step["undone"] else "") for step in entry.order))
        for decision in entry.decisions():
            worded = rule_message(decision["rule"])
            lines.append("  " + (text(worded) if worded is not None else decision["rule"]))
        for misdeal in entry.misdeals:
            lines.append("  " + text(message("recall.misdeal", "MISDEAL {kind}: {detail}", kind=str(misdeal["kind"]),
                                             detail=str(misdeal["detail"]))))
        for resolution in entry.resolutions:
            lines.append("  " + text(message("recall.resolved", "resolved: {resolution}",
                                             resolution=str(resolution["resolution"]))))
        for undone in entry.undos:
            lines.append("  @undo: " + _undo_said(undone, text))
        lines.append("  " + text(_ending(entry)))
    return lines


def _ending(entry: Recalled) -> Message:
    result = entry.result
    if result is not None:
        pays = ", ".join(f"{bet} {net}" for bet, net in entry.payouts.items())
        return message("recall.result", "{winner}: player {player} banker {banker}; pays {pays}",
                       winner=str(result["winner"]).upper(), player=result["player"]["total"],
                       banker=result["banker"]["total"], pays=pays)
    if entry.voided:
        return message("recall.voided", "VOID: bets returned")
    return message("recall.unfinished", "UNFINISHED")


__all__ = ["RECALL_EVENTS", "Recalled", "recall_text", "recalled_rounds"]

"""Game recall (R1-R4 of docs/compliance.md): the rounds a table's events hold, step by step, for ``croupier recall``
and the console's recall screen.

Each round: every card in the order it was read with its slot, every third-card decision with the rule that made it
(from the rules' tables, :mod:`controller.core.rules`, worded as the drill words them: :mod:`controller.core.calls`),
the result, the payouts per bet, misdeals and their resolutions, the inputs ``@undo`` took back. Read from the table's
own events, nothing else; worded for people by :mod:`controller.ui.recalltext`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.core.calls import banker_call, player_call
from controller.core.cards import Card, parse_card

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
    """Each ``misdeal`` event's fields (its own words' message id and parameters included)."""
    resolutions: list[dict[str, Any]] = field(default_factory=list)
    undos: list[dict[str, Any]] = field(default_factory=list)
    """The inputs ``@undo`` took back, each its ``undone`` event's fields (its own words in ``say``)."""
    voided: bool = False

    @property
    def cards(self) -> dict[str, str]:
        """Each slot's card now (a hand-entered card taken back by ``@undo`` is not)."""
        return {step["slot"]: step["card"] for step in self.order if not step["undone"] and not step["set_aside"]}

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
                "misdeals": [{key: misdeal.get(key) for key in ("kind", "card", "detail")} for misdeal in
                             self.misdeals],
                "resolutions": self.resolutions, "voided": self.voided,
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
        for step in entry.order:  # a card dealt again to its slot: the one there was taken back (an exposed card)
            if step["slot"] == fields["slot"] and not step["undone"]:
                step["set_aside"] = True
        entry.order.append({"slot": fields["slot"], "card": fields["card"], "manual": bool(fields.get("manual")),
                            "undone": False, "set_aside": False})
    elif name == "undone":
        entry.undos.append(dict(fields))
        if str(fields["input"]).startswith("@manual"):
            _take_back(entry, fields)
    elif name == "result":
        entry.result = dict(fields)
    elif name == "settlement":
        entry.payouts = {bet: outcome["net"] for bet, outcome in fields["bets"].items()}
    elif name == "misdeal":
        entry.misdeals.append(dict(fields))
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


__all__ = ["RECALL_EVENTS", "Recalled", "recalled_rounds"]

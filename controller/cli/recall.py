"""``croupier recall PATH [--rounds N] [--json]``: game recall (R1, R3, R4 of docs/compliance.md): the last rounds a
journal holds, step by step.

::

    croupier recall table.journal                 # the last 10 rounds, newest last, as text
    croupier recall table.journal --rounds 30 --json

Each round: every card in the order it was read with its slot, every third-card decision with the rule that made it
(read from the rules' tables, :mod:`controller.core.rules`, through :mod:`controller.training.calls`), the result,
the payouts per bet, misdeals and their resolutions; an unfinished round (the table stopped or halted in it) is the
last one, marked unfinished. ``--json`` gives one object per round: ``shoe``, ``round``, ``at``, ``cards`` (slot to
card), ``order`` (``slot``, ``card``, ``manual``, ``undone``), ``decisions`` (``hand``, ``decision``, ``rule``),
``winner``, ``player``, ``banker`` (``cards``, ``total``; null while unfinished), ``natural``, ``payouts`` (bet to
net), ``misdeals``, ``resolutions``, ``voided``, ``unfinished``. Exit status: 0, 1 the journal failed verification
(recalled anyway), 2 missing or not a journal, or bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from controller.cli.argtypes import add_lang_option, whole_number
from controller.cli.language import error_text
from controller.cli.language import text as language_text
from controller.core.cards import Card, parse_card
from controller.core.events import to_builtins
from controller.core.exceptions import JournalError, JournalTamperedError
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import message
from controller.journal.about import about, mode_word
from controller.journal.store import Journal
from controller.journal.timeline import Timed, timed_events
from controller.journal.verify import verify
from controller.training.calls import banker_call, player_call, rule_message

DEFAULT_ROUNDS = 10
"""R1: the latest game and the nine before it."""


def register(subparsers: Any) -> None:
    """Add the ``recall`` subcommand."""
    parser = subparsers.add_parser(
        "recall", help="game recall: the last rounds of a journal step by step (cards, decisions, result, pays)",
        description="Recall the last rounds a journal holds (10 unless --rounds), newest last: each card in order "
                    "with its slot, every third-card decision with the rule that made it, the result, the payouts "
                    "per bet, misdeals and their resolutions; an unfinished round (halted, stopped) is the last. "
                    "--json gives one JSON object per round. Exit status: 0, 1 the journal failed verification "
                    "(recalled anyway), 2 missing or not a journal, or bad arguments.",
    )
    parser.add_argument("path", metavar="PATH", help="the journal file")
    parser.add_argument("--rounds", type=whole_number(1), default=DEFAULT_ROUNDS, metavar="N",
                        help=f"how many of the last rounds (default {DEFAULT_ROUNDS})")
    parser.add_argument("--json", action="store_true", help="one JSON object per round")
    add_lang_option(parser)
    parser.add_argument("--config", metavar="FILE",
                        help="TOML config file whose [table] language and messages_dir word the text")
    parser.set_defaults(handler=recall)


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


def recalled_rounds(events: Iterable[Timed]) -> list[Recalled]:
    """Every round the events hold, in order (a round with neither a card nor a misdeal left out)."""
    rounds: dict[tuple[int, int], Recalled] = {}
    shoe = 1
    for timed in events:
        fields: dict[str, Any] = to_builtins(timed.event)
        name = fields["event"]
        if name in ("shoe", "round", "result"):
            shoe = int(fields.get("shoe", shoe))
        number = fields.get("round")
        if not isinstance(number, int) or number < 1:
            continue
        entry = rounds.setdefault((shoe, number), Recalled(shoe, number, timed.at))
        _take(entry, name, fields)
    return [entry for entry in rounds.values() if entry.order or entry.misdeals or entry.result]


def _take(entry: Recalled, name: str, fields: dict[str, Any]) -> None:
    if name == "card":
        entry.order.append({"slot": fields["slot"], "card": fields["card"], "manual": bool(fields.get("manual")),
                            "undone": False})
    elif name == "undone" and fields.get("slot"):
        for step in reversed(entry.order):
            if step["slot"] == fields["slot"] and not step["undone"]:
                step["undone"] = True
                break
    elif name == "result":
        entry.result = fields
    elif name == "settlement":
        entry.payouts = {bet: outcome["net"] for bet, outcome in fields["bets"].items()}
    elif name == "misdeal":
        entry.misdeals.append({key: fields.get(key) for key in ("kind", "card", "detail")})
    elif name == "resolved":
        entry.resolutions.append({key: fields.get(key) for key in ("kind", "resolution", "cards", "approved_by")})
    elif name == "round_voided":
        entry.voided = True


def recall_text(rounds: list[Recalled], words: Catalogue = ENGLISH) -> list[str]:
    """The recalled rounds as a person reads them."""
    lines: list[str] = []
    for entry in rounds:
        lines.append(words.say("recall.round", "Shoe {shoe}, round {round} ({at})", shoe=entry.shoe,
                               round=entry.round, at=entry.at))
        lines.append("  " + "  ".join(f"{step['slot']} {step['card']}" + ("*" if step["manual"] else "")
                                      + (" (undone)" if step["undone"] else "") for step in entry.order))
        for decision in entry.decisions():
            worded = rule_message(decision["rule"])
            lines.append("  " + (words.text(worded) if worded is not None else decision["rule"]))
        for misdeal in entry.misdeals:
            lines.append("  " + words.say("recall.misdeal", "MISDEAL {kind}: {detail}", kind=misdeal["kind"],
                                          detail=str(misdeal["detail"])))
        for resolution in entry.resolutions:
            lines.append("  " + words.say("recall.resolved", "resolved: {resolution}",
                                          resolution=str(resolution["resolution"])))
        lines.append("  " + _ending(entry, words))
    return lines


def _ending(entry: Recalled, words: Catalogue) -> str:
    result = entry.result
    if result is not None:
        pays = ", ".join(f"{bet} {net}" for bet, net in entry.payouts.items())
        return words.say("recall.result", "{winner}: player {player} banker {banker}; pays {pays}",
                         winner=str(result["winner"]).upper(), player=result["player"]["total"],
                         banker=result["banker"]["total"], pays=pays)
    if entry.voided:
        return words.say("recall.voided", "VOID: bets returned")
    return words.say("recall.unfinished", "UNFINISHED")


def _events(path: str) -> tuple[list[Timed], int, str]:
    """The journal's events, whether it failed verification (1) and its mode in words."""
    journal = Journal.open_existing(path)
    try:
        status = 0
        try:
            verify(journal)
        except JournalTamperedError as error:
            warning = message("recall.verification_warning", "WARNING: the journal failed verification: {error}; "
                              "recalling it anyway", error=error_text(error))
            print(f"croupier recall: {language_text(warning)}", file=sys.stderr)
            status = 1
        return timed_events(journal), status, language_text(mode_word(about(journal).mode))
    finally:
        journal.close()


def recall(args: argparse.Namespace) -> int:
    """Print the last ``args.rounds`` rounds of ``args.path``; returns the exit status."""
    try:
        events, status, mode = _events(args.path)
    except JournalError as error:
        print(f"croupier recall: {error_text(error)}", file=sys.stderr)
        return 2
    rounds = recalled_rounds(events)[-args.rounds:]
    if args.json:
        for entry in rounds:
            print(json.dumps(entry.as_json(), separators=(", ", ": ")))
        return status
    from controller.cli.history import text_catalogue

    words = text_catalogue(args)
    print(words.say("recall.title", "RECALL: the last {count} round(s) of {path} ({mode})", count=len(rounds),
                    path=args.path, mode=mode))
    for line in recall_text(rounds, words):
        print(line)
    return status


__all__ = ["Recalled", "recall", "recall_text", "recalled_rounds", "register"]

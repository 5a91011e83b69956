"""``croupier history PATH [--json | --csv]``: the rounds a journal holds.

::

    croupier history table.journal           # readable: each round's cards, result, settlement
    croupier history table.journal --json    # the events, exactly as the table emitted them
    croupier history table.journal --csv     # one row per round (results and voided rounds)

``--json`` prints one line per ``result`` event (each round exactly once, in
the shape of the event stream) with the ``shoe``, ``settlement``, ``misdeal``,
``resolved`` (approved resolutions carry ``approved_by``), ``approval``,
``approval_refused``, ``dealer_signed_in``/``out``, ``round_voided`` and ``shoe_closed``
events around them. The journal's hash chain is checked
first; a broken chain is reported on stderr and the history is still shown,
up to the end of the file, so the damage can be seen.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

from controller.cli.argtypes import add_lang_option
from controller.core.events import (
    ApprovalEvent,
    ApprovalRefusedEvent,
    Event,
    Identity,
    MisdealEvent,
    ResolvedEvent,
    ResultEvent,
    RoundVoidedEvent,
    SettlementEvent,
)
from controller.core.exceptions import JournalError, JournalTamperedError
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.numbers import format_count, format_net
from controller.journal.replay import journaled_events
from controller.journal.store import Journal
from controller.journal.verify import verify
from controller.ui.bigtext import pad_cells
from controller.ui.localise import Localiser
from controller.ui.transcript import bet_name

HISTORY_EVENTS = frozenset({"shoe", "result", "settlement", "misdeal", "resolved", "round_voided",
                            "shoe_closed", "approval", "approval_refused", "dealer_signed_in",
                            "dealer_signed_out"})
BETS = ("player", "banker", "tie", "player_pair", "banker_pair")
CSV_COLUMNS = ["shoe", "round", "outcome", "player_cards", "player_total", "banker_cards", "banker_total",
               "natural", "player_pair", "banker_pair", "manual",
               *(f"net_{bet}" for bet in BETS), "misdeals", "resolutions", "approvals", "dealer"]


def register(subparsers: Any) -> None:
    """Add the ``history`` subcommand."""
    parser = subparsers.add_parser(
        "history", help="print the rounds of a journal: cards, results, settlement, misdeals, approvals",
        description="Print the rounds a journal holds. --json gives the table's own events, one per "
                    "line (each round's result exactly once); --csv one row per round. Exit status: 0, "
                    "1 the journal failed verification (shown anyway), 2 missing or not a journal.",
    )
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="one JSON event per line")
    form.add_argument("--csv", action="store_true", help="one CSV row per round")
    parser.add_argument("path", metavar="PATH", help="the journal file")
    add_lang_option(parser)
    parser.set_defaults(handler=history)


@dataclass
class Round:
    """One round as the history shows it."""

    shoe: int
    number: int
    result: ResultEvent | None = None
    settlement: SettlementEvent | None = None
    voided: RoundVoidedEvent | None = None
    misdeals: list[MisdealEvent] = field(default_factory=list)
    resolutions: list[ResolvedEvent] = field(default_factory=list)
    approvals: list[ApprovalEvent | ApprovalRefusedEvent] = field(default_factory=list)


def all_events(journal: Journal) -> list[Event]:
    """Every event ``journal`` holds, in order."""
    return [event for _, events in journaled_events(journal) for event in events]


def history_events(events: list[Event]) -> list[Event]:
    """The history events among ``events``, in order (see the module doc)."""
    return [event for event in events
            if event["event"] in HISTORY_EVENTS and not (
                event["event"] == "shoe" and event["status"] != "new")]


def rounds_of(events: list[Event]) -> list[Round]:
    """Group events into rounds (misdeals go with the round they name, approvals with the
    round in progress)."""
    rounds: dict[tuple[int, int], Round] = {}
    shoe = 1
    current = 0

    def at(number: int) -> Round:
        key = (shoe, number)
        if key not in rounds:
            rounds[key] = Round(shoe, number)
        return rounds[key]

    for event in events:
        if event["event"] == "shoe":
            shoe = event["shoe"]
        elif event["event"] == "round":
            current = event["round"]
        elif event["event"] in ("approval", "approval_refused"):
            at(current).approvals.append(event)
        elif event["event"] == "result":
            shoe = event["shoe"]
            at(event["round"]).result = event
        elif event["event"] == "settlement":
            at(event["round"]).settlement = event
        elif event["event"] == "round_voided":
            at(event["round"]).voided = event
        elif event["event"] == "misdeal":
            at(event["round"]).misdeals.append(event)
        elif event["event"] == "resolved":
            at(event["round"]).resolutions.append(event)
    return list(rounds.values())


def _resolution_text(event: ResolvedEvent) -> str:
    text = f"{event['kind']}:{event['resolution']}"
    if event["cards"]:
        text += f"[{' '.join(event['cards'])}]"
    if event.get("approved_by"):
        text += f" approved by {event['approved_by']}"
    return text


def _approval_text(event: ApprovalEvent | ApprovalRefusedEvent) -> str:
    if event["event"] == "approval":
        return f"{event['action']} approved by {event['by']}"
    return f"{event['action']} refused ({event['reason']})"


def _dealer_of(identity: Identity | None) -> str:
    return "" if identity is None else identity["name"] or identity["uid"]


def _flags(result: ResultEvent) -> str:
    return ", ".join(flag.replace("_", " ") for flag, shown in (
        ("natural", result["natural"]), ("player_pair", result["player_pair"]),
        ("banker_pair", result["banker_pair"])) if shown)


def write_json(events: list[Event], stream: TextIO) -> None:
    """The events, one per line, as the JSON stream prints them."""
    for event in events:
        stream.write(json.dumps(event, separators=(", ", ": ")) + "\n")


def write_csv(rounds: list[Round], stream: TextIO) -> None:
    """One row per round that ended (a result or voided)."""
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for entry in rounds:
        result = entry.result
        if result is None and entry.voided is None:
            continue
        bets = entry.settlement["bets"] if entry.settlement else {}
        row: list[str | int] = [entry.shoe, entry.number]
        if result is not None:
            row += [result["winner"], " ".join(result["player"]["cards"]), result["player"]["total"],
                    " ".join(result["banker"]["cards"]), result["banker"]["total"],
                    int(result["natural"]), int(result["player_pair"]), int(result["banker_pair"]),
                    " ".join(result.get("manual", []))]
        else:
            row += ["void", "", "", "", "", "", "", "", ""]
        row += [bets[bet]["net"] if bet in bets else "0" if result is None else "" for bet in BETS]
        row.append("; ".join(f"{m['kind']}" + (f"({m['card']})" if m["card"] else "")
                             for m in entry.misdeals))
        row.append("; ".join(_resolution_text(r) for r in entry.resolutions))
        row.append("; ".join(_approval_text(a) for a in entry.approvals))
        ended = result or entry.voided
        row.append(_dealer_of(ended.get("dealer") if ended is not None else None))
        writer.writerow(row)


def _winner_name(winner: str, words: Catalogue) -> str:
    names = {"player": words.say("history.player", "player"), "banker": words.say("history.banker", "banker"),
             "tie": words.say("history.tie", "tie")}
    return names.get(winner, winner)


def _result_lines(entry: Round, result: ResultEvent, words: Catalogue) -> str:
    player, banker = result["player"], result["banker"]
    flags = _flags(result) if words is ENGLISH else ", ".join(
        text for text, shown in ((words.say("transcript.tag_natural", "natural"), result["natural"]),
                                 (words.say("transcript.tag_player_pair", "player pair"), result["player_pair"]),
                                 (words.say("transcript.tag_banker_pair", "banker pair"), result["banker_pair"]))
        if shown)
    line = words.say("history.result", "  Round {round}  {winner}  player {player_cards} = {player}  banker "
                     "{banker_cards} = {banker}", round=f"{entry.number:>3}",
                     winner=pad_cells(_winner_name(result["winner"], words), 6),
                     player_cards=f"{' '.join(player['cards']):<9}", player=player["total"],
                     banker_cards=f"{' '.join(banker['cards']):<9}", banker=banker["total"])
    line += f"  [{flags}]" if flags else ""
    if result.get("manual"):
        line += words.say("history.by_hand", "  (by hand: {slots})", slots=" ".join(result["manual"]))
    text = line + "\n"
    if entry.settlement is not None:
        nets = words.say("history.separator", ", ").join(
            f"{_bet_name(bet, words)} {format_net(outcome['net'], words.language)}"
            for bet, outcome in entry.settlement["bets"].items())
        text += words.say("history.pays", "             pays per unit: {nets}", nets=nets) + "\n"
    return text


def _bet_name(bet: str, words: Catalogue) -> str:
    return bet.replace("_", " ") if words is ENGLISH else bet_name(bet, words)


def write_text(rounds: list[Round], stream: TextIO, words: Catalogue = ENGLISH) -> None:
    """A readable history, in ``words``' language, its amounts in that locale's digits."""
    shoe = 0
    localiser = Localiser(words)
    for entry in rounds:
        if entry.shoe != shoe:
            shoe = entry.shoe
            stream.write(words.say("history.shoe", "Shoe {shoe}", shoe=shoe) + "\n")
        result = entry.result
        if result is not None:
            stream.write(_result_lines(entry, result, words))
        elif entry.voided is not None:
            stream.write(words.say("history.voided", "  Round {round}  VOID    cards {cards}, bets returned",
                                   round=f"{entry.number:>3}", cards=" ".join(entry.voided["cards"])) + "\n")
        elif not entry.misdeals and not entry.approvals:
            continue
        else:
            stream.write(words.say("history.not_finished", "  Round {round}  (not finished)",
                                   round=f"{entry.number:>3}") + "\n")
        for misdeal in entry.misdeals:
            card = f" ({misdeal['card']})" if misdeal["card"] else ""
            worded = localiser.event(misdeal)
            assert worded["event"] == "misdeal"
            stream.write(words.say("history.misdeal", "             misdeal {kind}{card}: {detail}",
                                   kind=misdeal["kind"], card=card, detail=worded["detail"]) + "\n")
        for resolution in entry.resolutions:
            stream.write(f"             resolved {_resolution_text(resolution)}\n")
        for approval in entry.approvals:
            stream.write(f"             {_approval_text(approval)}\n")


def history(args: argparse.Namespace) -> int:
    """Print the history of ``args.path``; returns the exit status."""
    try:
        journal = Journal.open_existing(args.path)
    except JournalError as error:
        print(f"croupier history: {error}", file=sys.stderr)
        return 2
    status = 0
    try:
        try:
            verify(journal)
        except JournalTamperedError as error:
            print(f"croupier history: WARNING: the journal failed verification: {error}; "
                  "showing it anyway", file=sys.stderr)
            status = 1
        events = all_events(journal)
    except JournalError as error:
        print(f"croupier history: {error}", file=sys.stderr)
        return 2
    finally:
        journal.close()
    output = io.StringIO()
    try:
        if args.json:
            write_json(history_events(events), output)
        elif args.csv:
            write_csv(rounds_of(events), output)
        else:
            rounds = rounds_of(events)
            words = Catalogue(args.lang) if args.lang else ENGLISH
            write_text(rounds, output, words)
            finished = sum(1 for entry in rounds if entry.result is not None)
            voided = sum(1 for entry in rounds if entry.voided is not None)
            output.write(words.say("history.count", "{finished} round(s) with a result, {voided} voided",
                                   finished=format_count(finished, words.language),
                                   voided=format_count(voided, words.language)) + "\n")
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        print(f"croupier history: {args.path}: the journal holds events the table does not emit "
              f"({type(error).__name__}: {error}); run croupier audit verify --replay", file=sys.stderr)
        return 2
    sys.stdout.write(output.getvalue())
    return status

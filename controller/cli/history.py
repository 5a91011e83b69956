"""``croupier history PATH [--json | --csv] [--cards] [--lang CODE]``: the rounds a journal holds.

::

    croupier history table.journal           # readable: times, cards, results, settlement, alerts, shoe reports
    croupier history table.journal --json    # the events as the table emitted them, each with its time "at"
    croupier history table.journal --csv     # one row per round (results and voided rounds)
    croupier history table.journal --cards --csv   # one row per card out of the shoe (surveillance export)

``--json`` prints one line per ``result`` event (each round exactly once, in
the shape of the event stream) with the ``shoe``, ``settlement``, ``misdeal``,
``resolved`` (approved resolutions carry ``approved_by``), ``approval``,
``approval_refused``, ``dealer_signed_in``/``out``, ``round_voided``, ``alert``,
``alert_acknowledged``, ``alert_cleared``, ``undone``, ``stub_count`` and ``shoe_closed`` events around them; each
line ends with ``"at"``, the UTC time (ISO 8601) its journal record was written. The journal's hash chain is checked
first; a broken chain is reported on stderr and the history is still shown,
up to the end of the file, so the damage can be seen: the round of the first record that failed is
marked TAMPERED (``"tampered": true`` on that record's events in ``--json``). A record that cannot be read
at all is named on stderr and left out, the round in progress at it marked TAMPERED, the rest shown (exit 1).

What the text, ``--csv`` and ``--cards`` say of the table (the shoe and round each record belongs to, the rounds
with a result and voided, the alerts still open, where each card out of the shoe went) is the table's own view:
the journaled inputs are replayed into the table core and its view read after each (:mod:`controller.journal.views`),
never worked out again from the events (issue 26 item 2). An input record the table cannot take is named and left
out like a record that cannot be read.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO, cast

from controller.cli.argtypes import add_lang_option
from controller.cli.language import error_text
from controller.cli.language import text as language_text
from controller.core.events import (
    AlertEvent,
    ApprovalEvent,
    ApprovalRefusedEvent,
    Identity,
    MisdealEvent,
    ResolvedEvent,
    ResultEvent,
    RoundVoidedEvent,
    SettlementEvent,
    StubCountEvent,
    UndoneEvent,
    to_builtins,
)
from controller.core.exceptions import JournalError, JournalTamperedError
from controller.core.published import View
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import message
from controller.journal.about import About, about, refuse_training_journal
from controller.journal.store import Journal, Record
from controller.journal.timeline import CardOut, Timed, cards_out, timed_events
from controller.journal.verify import verify
from controller.journal.views import Along, along

HISTORY_EVENTS = frozenset({"shoe", "result", "settlement", "misdeal", "resolved", "round_voided",
                            "shoe_closed", "approval", "approval_refused", "dealer_signed_in",
                            "dealer_signed_out", "alert", "alert_acknowledged", "alert_cleared", "undone",
                            "stub_count"})
BETS = ("player", "banker", "tie", "player_pair", "banker_pair")
CSV_COLUMNS = ["shoe", "round", "outcome", "player_cards", "player_total", "banker_cards", "banker_total",
               "natural", "player_pair", "banker_pair", "manual",
               *(f"net_{bet}" for bet in BETS), "misdeals", "resolutions", "approvals", "dealer",
               "at", "alerts", "tampered"]
CARD_COLUMNS = ["shoe", "position", "at", "slot", "card", "round", "entry"]


def resolution_text(event: ResolvedEvent) -> str:
    text = f"{event['kind']}:{event['resolution']}"
    if event["cards"]:
        text += f"[{' '.join(event['cards'])}]"
    if event.get("approved_by"):
        text += f" approved by {event['approved_by']}"
    return text


def approval_text(event: ApprovalEvent | ApprovalRefusedEvent) -> str:
    if event["event"] == "approval":
        return f"{event['action']} approved by {event['by']}"
    return f"{event['action']} refused ({event['reason']})"


def dealer_of(identity: Identity | None) -> str:
    return "" if identity is None else identity["name"] or identity["uid"]


def flags_of(result: ResultEvent) -> str:
    return ", ".join(flag.replace("_", " ") for flag, shown in (
        ("natural", result["natural"]), ("player_pair", result["player_pair"]),
        ("banker_pair", result["banker_pair"])) if shown)


def alert_status(alert: AlertEvent, found: History, words: Catalogue = ENGLISH) -> str:
    """An alert in a line: kind, id, severity, and open (as the table's view says at the journal's end), or who
    acknowledged it and when, or when it ended by itself (an advantage that is over)."""
    fields = cast(dict[str, Any], alert)
    alert_id = fields.get("id")
    key = str(alert_id) if alert_id is not None else None
    ack = found.acknowledged.get(key) if key is not None else None
    cleared = found.cleared.get(key) if key is not None else None
    by = cast(dict[str, Any], ack.event).get("by") if ack is not None else None
    by = found.names.get(by, by) if isinstance(by, str) else by  # the supervisor's name, as approvals give it
    if found.is_open(alert):
        status = words.say("history.alert_open", "OPEN")
    elif ack is not None and by:
        status = words.say("history.alert_acknowledged", "acknowledged by {by} at {at}", by=by, at=ack.at)
    elif ack is not None:  # no badges: nobody is named
        status = words.say("history.alert_acknowledged_at", "acknowledged at {at}", at=ack.at)
    elif cleared is not None:
        status = words.say("history.alert_ended", "ended at {at}", at=cleared.at)
    else:  # closed by the table, its closing record not shown (left out as unreadable)
        status = words.say("history.alert_closed", "closed")
    severity = f" {fields['severity']}" if fields.get("severity") else ""
    named = f" {alert_id}" if alert_id is not None else ""
    return f"{alert['kind']}{named}{severity} [{status}]"


def register(subparsers: Any) -> None:
    """Add the ``history`` subcommand."""
    parser = subparsers.add_parser(
        "history", help="print the rounds of a journal: cards, results, settlement, misdeals, approvals, alerts",
        description="Print the rounds a journal holds, with UTC times, misdeals, approvals, alerts (open or "
                    "acknowledged) and each shoe's report; a round whose record fails verification is marked "
                    "TAMPERED. --json gives the table's own events, one per line (each round's result exactly "
                    "once), each with \"at\" (UTC, ISO 8601); --csv one row per round; --cards one row per card "
                    "out of the shoe. Exit status: 0, 1 the journal failed verification or a record cannot be read "
                    "(shown anyway, that record left out and named), 2 missing or not a journal.",
    )
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="one JSON event per line")
    form.add_argument("--csv", action="store_true", help="one CSV row per round (per card with --cards)")
    parser.add_argument("--cards", action="store_true",
                        help="one row per card out of the shoe: shoe, position in the shoe, time, slot (or burn, "
                             "discard, held), card, round, entry (read or manual)")
    parser.add_argument("path", metavar="PATH", help="the journal file")
    add_lang_option(parser)
    parser.add_argument("--config", metavar="FILE",
                        help="TOML config file whose [table] language and messages_dir word the text "
                             "(default: the embedded default)")
    parser.set_defaults(handler=history)


@dataclass
class Round:
    """One round as the history shows it."""

    shoe: int
    number: int
    at: str = ""
    result: ResultEvent | None = None
    settlement: SettlementEvent | None = None
    voided: RoundVoidedEvent | None = None
    misdeals: list[MisdealEvent] = field(default_factory=list)
    resolutions: list[ResolvedEvent] = field(default_factory=list)
    approvals: list[ApprovalEvent | ApprovalRefusedEvent] = field(default_factory=list)
    alerts: list[AlertEvent] = field(default_factory=list)
    undone: list[UndoneEvent] = field(default_factory=list)
    stub_counts: list[StubCountEvent] = field(default_factory=list)
    """The stub counts made after this round (``[procedures] count_every``)."""
    tampered: bool = False

    def standing_misdeals(self) -> list[MisdealEvent]:
        """:attr:`misdeals` but the exposed calls ``@undo`` took back (``undone`` ``@exposed``): the table counts no
        misdeal for those (the shoe report, the summary)."""
        standing = list(self.misdeals)
        for undone in self.undone:
            if undone["input"] != "@exposed":
                continue
            index = next((index for index in range(len(standing) - 1, -1, -1)
                          if standing[index]["kind"] == "exposed_card" and standing[index]["card"] == undone["card"]),
                         None)
            if index is not None:
                del standing[index]
        return standing


@dataclass
class History:
    """A journal's history: its rounds, shoe reports, alerts and how they closed, the failed record, and the table's
    view at the journal's end."""

    rounds: list[Round]
    shoe_reports: dict[int, Timed] = field(default_factory=dict)
    acknowledged: dict[str, Timed] = field(default_factory=dict)
    tampered_seq: int = 0
    cleared: dict[str, Timed] = field(default_factory=dict)
    """The alerts that closed by themselves (``alert_cleared``: an advantage that ended), by id."""
    table: View | None = None
    """The table's view at the journal's end, as its core gives it (:mod:`controller.journal.views`); None when no
    table replays the journal (a drill's journal), or for a history made by hand."""
    names: dict[str, str] = field(default_factory=dict)
    """The name of each badge the table's settings enrol, by UID (an acknowledgement gives the badge's UID)."""

    def counts(self) -> tuple[int, int]:
        """The rounds with a result and the voided rounds of the whole game, as the table's view counts them;
        without a view, those of :attr:`rounds`."""
        if self.table is not None:
            return self.table.totals.rounds, self.table.totals.voided
        return (sum(1 for entry in self.rounds if entry.result is not None),
                sum(1 for entry in self.rounds if entry.voided is not None))

    def open_alerts(self) -> list[tuple[int, int, AlertEvent]]:
        """The alerts still open at the journal's end, each with its shoe and round: the table's view's, as they
        say now (an advantage alert follows its edge); without a view, each one the rounds hold that
        :meth:`is_open` finds, with the round that raised it."""
        if self.table is not None:
            return [(alert.shoe, alert.round, alert) for alert in self.table.alerts]
        return [(entry.shoe, entry.number, alert) for entry in self.rounds for alert in entry.alerts
                if self.is_open(alert)]

    def is_open(self, alert: AlertEvent) -> bool:
        """``alert`` is still open: among the open alerts of the table's view; without a view, neither
        acknowledged nor ended in the journal."""
        alert_id = cast(dict[str, Any], alert).get("id")
        if self.table is not None:
            return any(still.id == alert_id for still in self.table.alerts)
        return alert_id is None or (str(alert_id) not in self.acknowledged and str(alert_id) not in self.cleared)


def history_events(events: list[Timed]) -> list[Timed]:
    """The history events among ``events``, in order (see the module doc)."""
    return [timed for timed in events
            if timed.event["event"] in HISTORY_EVENTS and not (
                timed.event["event"] == "shoe" and timed.event["status"] != "new")]


def tampered_record(events: list[Timed], failed_seq: int) -> int:
    """The events record that holds (or follows) the record ``failed_seq`` that failed verification; 0: none."""
    if not failed_seq:
        return 0
    return next((timed.seq for timed in events if timed.seq >= failed_seq), 0)


ROUND_ONE_OF = {"result": "result", "settlement": "settlement", "round_voided": "voided"}
"""Events a round holds one of: the event name, the :class:`Round` field."""
ROUND_LIST_OF = {"misdeal": "misdeals", "resolved": "resolutions", "alert": "alerts", "undone": "undone",
                 "stub_count": "stub_counts"}
"""Events a round holds a list of, each naming its round."""


class _Grouper:
    """Groups events into rounds for :func:`history_of`: in the shoe, and (when they do not name their round) the
    round of the table's view at their record."""

    def __init__(self, found: History, table: Along) -> None:
        self.found = found
        self.table = table
        self.rounds: dict[tuple[int, int], Round] = {}
        self.shoe = 1
        self.current = 0

    def follow(self, seq: int) -> None:
        """The shoe and round in progress at record ``seq``, as the table's view says."""
        self.shoe, self.current = self.table.place(seq)

    def at(self, number: int, timed: Timed) -> Round:
        key = (self.shoe, number)
        if key not in self.rounds:
            self.rounds[key] = Round(self.shoe, number, at=timed.at)
        if timed.seq == self.found.tampered_seq:
            self.rounds[key].tampered = True
        return self.rounds[key]

    def left_out(self, seq: int, at: str) -> None:
        """Record ``seq`` cannot be read: the round in progress is marked TAMPERED."""
        self.follow(seq)
        key = (self.shoe, self.current)
        if key not in self.rounds:
            self.rounds[key] = Round(self.shoe, self.current, at=at)
        self.rounds[key].tampered = True

    def add(self, timed: Timed) -> None:
        fields = cast(dict[str, Any], timed.event)
        name: str = fields["event"]
        self.follow(timed.seq)
        if name in ROUND_ONE_OF:
            setattr(self.at(fields["round"], timed), ROUND_ONE_OF[name], timed.event)
        elif name in ROUND_LIST_OF:
            getattr(self.at(fields["round"], timed), ROUND_LIST_OF[name]).append(timed.event)
        elif name in ("approval", "approval_refused"):
            self.at(self.current, timed).approvals.append(cast(ApprovalEvent | ApprovalRefusedEvent, timed.event))
        elif name == "shoe_closed":
            self.found.shoe_reports[fields["shoe"]] = timed
        elif name == "alert_acknowledged":
            self.found.acknowledged[str(fields.get("id"))] = timed
        elif name == "alert_cleared":
            self.found.cleared[str(fields.get("id"))] = timed
        elif name == "round" or timed.seq == self.found.tampered_seq:
            self.at(self.current, timed)


def history_of(events: list[Timed], failed_seq: int = 0, unreadable: Iterable[int] = (),
               table: Along | None = None) -> History:
    """Group events into rounds of the shoe the table's view ``table`` was in at their record (misdeals and alerts
    go with the round they name, approvals with the view's round); shoe reports by shoe; acknowledgements and
    ends by alert id; the round of the record ``failed_seq`` that failed verification marked, and the round in
    progress at each ``unreadable`` record (left out of ``events``)."""
    table = table if table is not None else Along()
    found = History([], tampered_seq=tampered_record(events, failed_seq), table=table.last, names=table.names)
    grouper = _Grouper(found, table)
    left_out = sorted(unreadable)
    for timed in events:
        while left_out and left_out[0] < timed.seq:
            grouper.left_out(left_out.pop(0), timed.at)
        grouper.add(timed)
    for seq in left_out:
        grouper.left_out(seq, events[-1].at if events else "")
    found.rounds = list(grouper.rounds.values())
    return found


def write_json(events: list[Timed], stream: TextIO, tampered_seq: int = 0) -> None:
    """The events, one per line, as the JSON stream prints them, each ending with its time ``at``."""
    for timed in events:
        line: dict[str, Any] = {**to_builtins(timed.event), "at": timed.at}
        if tampered_seq and timed.seq == tampered_seq:
            line["tampered"] = True
        stream.write(json.dumps(line, separators=(", ", ": ")) + "\n")


def write_csv(found: History, stream: TextIO) -> None:
    """One row per round that ended (a result or voided), and one for a round that did not but has misdeals or alerts
    (``unfinished``: the table stopped or halted on them, or the journal ends there)."""
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for entry in found.rounds:
        result = entry.result
        unfinished = result is None and entry.voided is None and not entry.tampered
        if unfinished and not (entry.alerts or entry.misdeals):
            continue
        bets = entry.settlement["bets"] if entry.settlement else {}
        row: list[str | int] = [entry.shoe, entry.number]
        if result is not None:
            row += [result["winner"], " ".join(result["player"]["cards"]), result["player"]["total"],
                    " ".join(result["banker"]["cards"]), result["banker"]["total"],
                    int(result["natural"]), int(result["player_pair"]), int(result["banker_pair"]),
                    " ".join(result.get("manual", []))]
        else:  # voided, unfinished, or tampered before its end could be read (no outcome)
            outcome = "void" if entry.voided is not None else "unfinished" if unfinished else ""
            row += [outcome, "", "", "", "", "", "", "", ""]
        row += [bets[bet]["net"] if bet in bets else "0" if entry.voided is not None else "" for bet in BETS]
        row.append("; ".join(f"{m['kind']}" + (f"({m['card']})" if m["card"] else "")
                             for m in entry.standing_misdeals()))
        row.append("; ".join(resolution_text(r) for r in entry.resolutions))
        row.append("; ".join(approval_text(a) for a in entry.approvals))
        ended = result or entry.voided
        row.append(dealer_of(ended.get("dealer") if ended is not None else None))
        row += [entry.at, "; ".join(alert_status(alert, found) for alert in entry.alerts),
                int(entry.tampered)]
        writer.writerow(row)


def write_cards(cards: list[CardOut], stream: TextIO, form: str) -> None:
    """One row per card out of the shoe: CSV (``form`` "csv"), JSON lines ("json") or text."""
    rows = [[card.shoe, card.position, card.at, card.slot, card.code, card.round, card.entry] for card in cards]
    if form == "csv":
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(CARD_COLUMNS)
        writer.writerows(rows)
    elif form == "json":
        for row in rows:
            stream.write(json.dumps(dict(zip(CARD_COLUMNS, row, strict=True)), separators=(", ", ": ")) + "\n")
    else:
        stream.write("shoe  pos  at                           slot     card  round  entry\n")
        for row in rows:
            stream.write(f"{row[0]:>4}  {row[1]:>3}  {row[2]:<27}  {row[3]:<7}  {row[4]:<4}  {row[5]:>5}  "
                         f"{row[6]}\n")


@dataclass
class _Read:
    """What :func:`_read` found in a journal."""

    failed: int = 0
    """The record that failed verification (0: none)."""
    events: list[Timed] = field(default_factory=list)
    cards: list[CardOut] = field(default_factory=list)
    unreadable: dict[int, str] = field(default_factory=dict)
    """The records that cannot be read (left out), and why."""
    about: About = field(default_factory=lambda: About(None))
    """The journal's mode and the software that wrote it."""
    table: Along = field(default_factory=Along)
    """The table's view along the journal (for the text and the CSV)."""

    @property
    def status(self) -> int:
        """1 when the journal failed verification or a record cannot be read (it is shown anyway), else 0."""
        return 1 if self.failed or self.unreadable else 0

    @property
    def marked(self) -> int:
        """The record whose round and events are marked TAMPERED (a failed record that cannot be read has no
        events: its round is marked by :func:`history_of`)."""
        return 0 if self.failed in self.unreadable else self.failed


def _read(args: argparse.Namespace) -> _Read | None:
    """What ``args.path`` holds, the failed record named and each record that cannot be read named (on stderr,
    shown anyway); None when it is not a journal (named)."""
    try:
        journal = Journal.open_existing(args.path)
    except JournalError as error:
        print(f"croupier history: {error_text(error)}", file=sys.stderr)
        return None
    try:
        refuse_training_journal(journal)
    except JournalError as error:
        journal.close()
        print(f"croupier history: {error_text(error)}", file=sys.stderr)
        return None
    found = _Read()

    def unreadable(record: Record, error: JournalError) -> None:
        if record.seq not in found.unreadable:
            found.unreadable[record.seq] = error_text(error)
            warning = message("history.unreadable_record", "WARNING: {error}; the record is left out, the rest is "
                              "shown", error=error.message if error.message is not None else str(error))
            print(f"croupier history: {language_text(warning)}", file=sys.stderr)

    try:
        with journal.snapshot():  # one moment of a journal a running table is writing
            try:
                verify(journal)
            except JournalTamperedError as error:
                warning = message("history.verification_warning", "WARNING: the journal failed verification: "
                                  "{error}; showing it anyway", error=error_text(error))
                print(f"croupier history: {language_text(warning)}", file=sys.stderr)
                found.failed = max(error.seq, 1)
            found.about = about(journal)
            found.events = timed_events(journal, unreadable)
            if args.cards:
                found.cards = cards_out(journal, unreadable)
            elif not args.json:
                found.table = along(journal, unreadable)
    except JournalError as error:
        print(f"croupier history: {error_text(error)}", file=sys.stderr)
        return None
    finally:
        journal.close()
    return found


def history(args: argparse.Namespace) -> int:
    """Print the history of ``args.path``; returns the exit status."""
    from controller.cli.history_text import write_about, write_text

    words = ENGLISH if args.json or args.csv or args.cards else text_catalogue(args)
    try:
        found = _read(args)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        return _not_table_events(args, error)
    if found is None:
        return 2
    output = io.StringIO()
    try:
        if args.cards:
            write_cards(found.cards, output, "json" if args.json else "csv" if args.csv else "text")
        elif args.json:
            write_json(history_events(found.events), output, tampered_record(found.events, found.marked))
        elif args.csv:
            write_csv(history_of(found.events, found.marked, found.unreadable, found.table), output)
        else:
            write_text(history_of(found.events, found.marked, found.unreadable, found.table), output, words)
            write_about(found.about, output, words)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        return _not_table_events(args, error)
    sys.stdout.write(output.getvalue())
    return found.status


def text_catalogue(args: argparse.Namespace) -> Catalogue:
    """The catalogue the text is worded in: ``--lang``, else ``[table] language`` (``--config``, environment),
    with ``[table] messages_dir``'s house words; a bad one is a :class:`ConfigError` naming it."""
    from config.loader import load_config
    from controller.ui.localise import table_catalogue

    return table_catalogue(load_config(args.config), args.lang)


def _not_table_events(args: argparse.Namespace, error: Exception) -> int:
    print(f"croupier history: {args.path}: the journal holds events the table does not emit "
          f"({type(error).__name__}: {error}); run croupier audit verify --replay", file=sys.stderr)
    return 2

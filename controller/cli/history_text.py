"""The readable form of ``croupier history``: each shoe's rounds with their times, misdeals, approvals and
alerts, the shoe's report when it closed, the open alerts, and the round of a tampered record marked."""

from __future__ import annotations

from typing import TextIO

from controller.cli.history import History, Round, alert_text, approval_text, flags_of, resolution_text
from controller.core.events import ShoeClosedEvent
from controller.journal.timeline import Timed

TAMPERED_MARK = "  ** TAMPERED: its journal record failed verification **"


def clock_of(at: str) -> str:
    """``HH:MM:SS`` of a record time (``2026-12-01T09:50:01.123456Z``), or the text as it is."""
    return at[11:19] if len(at) >= 19 and at[10] == "T" else at


def shoe_report_text(report: ShoeClosedEvent) -> str:
    """A closed shoe's report in two lines."""
    results, pairs = report["results"], report["pairs"]
    foreign = f", foreign {' '.join(report['foreign'])}" if report["foreign"] else ""
    return (f"{report['rounds']} rounds: banker {results['banker']}, player {results['player']}, "
            f"tie {results['tie']}; naturals {report['naturals']}, player pairs {pairs['player']}, "
            f"banker pairs {pairs['banker']}; misdeals {report['misdeals']}, voided {report['voided']}\n"
            f"             cards: {report['cards_seen']} out of the shoe ({report['dealt']} dealt, "
            f"{report['burned']} burned, {report['discarded']} discarded, {report['unidentified']} unread"
            f"{foreign}), {report['cards_remaining']} left")


def _round_line(entry: Round) -> str | None:
    result = entry.result
    when = clock_of(entry.at)
    if result is not None:
        player, banker = result["player"], result["banker"]
        flags = flags_of(result)
        line = (f"  Round {entry.number:>3}  {when:<8}  {result['winner']:<6}  "
                f"player {' '.join(player['cards']):<9} = {player['total']}  "
                f"banker {' '.join(banker['cards']):<9} = {banker['total']}"
                + (f"  [{flags}]" if flags else "")
                + (f"  (by hand: {' '.join(result['manual'])})" if result.get("manual") else ""))
    elif entry.voided is not None:
        line = (f"  Round {entry.number:>3}  {when:<8}  VOID    cards {' '.join(entry.voided['cards'])}, "
                "bets returned")
    elif not (entry.misdeals or entry.approvals or entry.alerts or entry.tampered):
        return None
    else:
        line = f"  Round {entry.number:>3}  {when:<8}  (not finished)"
    return line + (TAMPERED_MARK if entry.tampered else "")


def _write_round(entry: Round, found: History, stream: TextIO) -> None:
    line = _round_line(entry)
    if line is None:
        return
    stream.write(line + "\n")
    if entry.settlement is not None:
        nets = ", ".join(f"{bet.replace('_', ' ')} {outcome['net']}"
                         for bet, outcome in entry.settlement["bets"].items())
        stream.write(f"             pays per unit: {nets}\n")
    for misdeal in entry.misdeals:
        card = f" ({misdeal['card']})" if misdeal["card"] else ""
        stream.write(f"             misdeal {misdeal['kind']}{card}: {misdeal['detail']}\n")
    for resolution in entry.resolutions:
        stream.write(f"             resolved {resolution_text(resolution)}\n")
    for approval in entry.approvals:
        stream.write(f"             {approval_text(approval)}\n")
    for alert in entry.alerts:
        stream.write(f"             ALERT {alert_text(alert, found.acknowledged)}: {alert['detail']}\n")


def _write_report(shoe: int, report: Timed | None, stream: TextIO) -> None:
    if report is not None and report.event["event"] == "shoe_closed":
        stream.write(f"Shoe {shoe} closed at {report.at}: {shoe_report_text(report.event)}\n")


def write_text(found: History, stream: TextIO) -> None:
    """A readable history: shoes, rounds, reports, then the totals and the alerts still open."""
    shoe = 0
    for entry in found.rounds:
        if entry.shoe != shoe:
            if shoe:
                _write_report(shoe, found.shoe_reports.get(shoe), stream)
            shoe = entry.shoe
            stream.write(f"Shoe {shoe}" + (f" (from {entry.at})" if entry.at else "") + "\n")
        _write_round(entry, found, stream)
    if shoe:
        _write_report(shoe, found.shoe_reports.get(shoe), stream)
    rounds = found.rounds
    stream.write(f"{sum(1 for entry in rounds if entry.result is not None)} round(s) with a result, "
                 f"{sum(1 for entry in rounds if entry.voided is not None)} voided\n")
    alerts = [(entry, alert) for entry in rounds for alert in entry.alerts]
    still_open = [(entry, alert) for entry, alert in alerts
                  if str(dict(alert).get("id")) not in found.acknowledged or dict(alert).get("id") is None]
    if alerts:
        stream.write(f"{len(alerts)} alert(s), {len(still_open)} open\n")
    for entry, alert in still_open:
        stream.write(f"  OPEN ALERT shoe {entry.shoe} round {entry.number}: "
                     f"{alert_text(alert, found.acknowledged)}: {alert['detail']}\n")

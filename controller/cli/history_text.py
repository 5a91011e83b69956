"""The readable form of ``croupier history``: each shoe's rounds with their times, misdeals, approvals and
alerts, the shoe's report when it closed, the open alerts, and the round of a tampered record marked.

The text is in a catalogue's language (``--lang``, ``[table] language``; docs/languages.md), its amounts
and counts in that locale's digits (:mod:`controller.i18n.numbers`); card codes, slots, misdeal and alert
kinds and resolutions stay machine words, as in ``--json`` and ``--csv``."""

from __future__ import annotations

from typing import Any, TextIO, cast

import msgspec

from controller.cli.history import History, Round, alert_status
from controller.core.bets.names import bet_name
from controller.core.events import (
    AlertEvent,
    ApprovalEvent,
    ApprovalRefusedEvent,
    ResolvedEvent,
    ResultEvent,
    ShoeClosedEvent,
)
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.counts import rounds as counted_rounds
from controller.i18n.kinds import kind_name
from controller.i18n.message import message
from controller.i18n.numbers import format_count, format_decimal_text, format_net
from controller.journal.about import About, mode_word
from controller.journal.timeline import Timed
from controller.ui.bigtext import cells, pad_cells
from controller.ui.localise import Localiser

INDENT = " " * 13
"""Where a round's second and later lines start."""


def clock_of(at: str) -> str:
    """``HH:MM:SS`` of a record time (``2026-12-01T09:50:01.123456Z``), or the text as it is."""
    return at[11:19] if len(at) >= 19 and at[10] == "T" else at


def side_name(name: str, words: Catalogue) -> str:
    """A side, bet or result flag (``banker``, ``player_pair``, ``natural``) as the history names it."""
    names = {
        "player": words.say("history.player", "player"), "banker": words.say("history.banker", "banker"),
        "tie": words.say("history.tie", "tie"), "natural": words.say("history.natural", "natural"),
        "player_pair": words.say("history.player_pair", "player pair"),
        "banker_pair": words.say("history.banker_pair", "banker pair"),
    }
    return names.get(name) or words.text(bet_name(name))


def winner_width(words: Catalogue) -> int:
    """Cells of a result line's winner column: 6, or the widest side's name in ``words``' language."""
    return max(6, *(cells(side_name(side, words)) for side in ("banker", "player", "tie")))


def _count(value: int, words: Catalogue) -> str:
    return format_count(value, words.language)


def shoe_report_text(report: ShoeClosedEvent, words: Catalogue = ENGLISH) -> str:
    """A closed shoe's report in two lines."""
    results, pairs = report["results"], report["pairs"]
    counts = {name: _count(value, words) for name, value in (
        ("rounds", report["rounds"]), ("banker", results["banker"]), ("player", results["player"]),
        ("tie", results["tie"]), ("naturals", report["naturals"]), ("player_pairs", pairs["player"]),
        ("banker_pairs", pairs["banker"]), ("misdeals", report["misdeals"]), ("voided", report["voided"]),
        ("seen", report["cards_seen"]), ("dealt", report["dealt"]), ("burned", report["burned"]),
        ("discarded", report["discarded"]), ("unread", report["unidentified"]),
        ("left", report["cards_remaining"]))}
    foreign = words.say("history.report_foreign", ", foreign {cards}", cards=" ".join(report["foreign"])) \
        if report["foreign"] else ""
    rounds = counted_rounds(report["rounds"], counts.pop("rounds"))
    return (words.say("history.report_results", "{rounds}: banker {banker}, player {player}, tie {tie}; "
                      "naturals {naturals}, player pairs {player_pairs}, banker pairs {banker_pairs}; misdeals "
                      "{misdeals}, voided {voided}", rounds=rounds, **counts)
            + "\n" + INDENT
            + words.say("history.report_cards", "cards: {seen} out of the shoe ({dealt} dealt, {burned} burned, "
                        "{discarded} discarded, {unread} unread{foreign}), {left} left", foreign=foreign, **counts))


def _flags(result: ResultEvent, words: Catalogue) -> str:
    shown = (("natural", result["natural"]), ("player_pair", result["player_pair"]),
             ("banker_pair", result["banker_pair"]))
    return words.say("history.separator", ", ").join(side_name(flag, words) for flag, on in shown if on)


def _result_line(entry: Round, result: ResultEvent, when: str, words: Catalogue) -> str:
    player, banker = result["player"], result["banker"]
    flags = _flags(result, words)
    line = words.say("history.result", "  Round {round}  {time}  {winner}  player {player_cards} = {player}  "
                     "banker {banker_cards} = {banker}", round=f"{entry.number:>3}", time=f"{when:<8}",
                     winner=pad_cells(side_name(result["winner"], words), winner_width(words)),
                     player_cards=f"{' '.join(player['cards']):<9}", player=player["total"],
                     banker_cards=f"{' '.join(banker['cards']):<9}", banker=banker["total"])
    line += f"  [{flags}]" if flags else ""
    if result.get("manual"):
        line += words.say("history.by_hand", "  (by hand: {slots})", slots=" ".join(result["manual"]))
    return line


def _round_line(entry: Round, words: Catalogue) -> str | None:
    result = entry.result
    when = clock_of(entry.at)
    if result is not None:
        line = _result_line(entry, result, when, words)
    elif entry.voided is not None:
        line = words.say("history.voided", "  Round {round}  {time}  VOID    cards {cards}, bets returned",
                         round=f"{entry.number:>3}", time=f"{when:<8}",
                         cards=" ".join(entry.voided["cards"]) or "-")  # voided before its first card
    elif not (entry.misdeals or entry.approvals or entry.alerts or entry.tampered):
        return None
    else:
        line = words.say("history.not_finished", "  Round {round}  {time}  (not finished)",
                         round=f"{entry.number:>3}", time=f"{when:<8}")
    return line + (words.say("history.tampered", "  ** TAMPERED: its journal record failed verification **")
                   if entry.tampered else "")


def resolution_line(event: ResolvedEvent, words: Catalogue) -> str:
    """A misdeal's resolution: ``kind:resolution[cards]``, and who approved it."""
    what = f"{event['kind']}:{event['resolution']}" + (f"[{' '.join(event['cards'])}]" if event["cards"] else "")
    if event.get("approved_by"):
        return words.say("history.resolved_approved", "resolved {what} approved by {by}", what=what,
                         by=str(event.get("approved_by")))
    return words.say("history.resolved", "resolved {what}", what=what)


def approval_line(event: ApprovalEvent | ApprovalRefusedEvent, words: Catalogue) -> str:
    """A supervisor's approval or its refusal."""
    if isinstance(event, ApprovalEvent):
        return words.say("history.approved", "{action} approved by {by}", action=event.action, by=event.by)
    return words.say("history.refused", "{action} refused ({reason})", action=event["action"],
                     reason=refusal_text(event, words))


def refusal_text(event: ApprovalRefusedEvent, words: Catalogue) -> str:
    """A refusal's reason in ``words``' language, from its ``say_id`` (as given when it has none or it is unknown)."""
    msg_id = event.say_id
    if not isinstance(msg_id, str):
        return event.reason
    return Localiser(words).text(msg_id, dict(event.say_params or {}), event.reason)


def alert_detail(alert: AlertEvent, localiser: Localiser) -> str:
    """An alert's detail in the localiser's language, its percentage with the locale's decimal sign."""
    params = dict(alert.say_params or {})
    if isinstance(params.get("percent"), str):
        params["percent"] = format_decimal_text(str(params["percent"]), localiser.catalogue.language)
        alert = msgspec.structs.replace(alert, say_params=params)
    return str(localiser.event(alert)["detail"])


def _write_round(entry: Round, found: History, stream: TextIO, words: Catalogue) -> None:
    line = _round_line(entry, words)
    if line is None:
        return
    stream.write(line + "\n")
    localiser = Localiser(words)
    if entry.settlement is not None:
        nets = words.say("history.separator", ", ").join(
            f"{side_name(bet, words)} {format_net(outcome['net'], words.language)}"
            for bet, outcome in entry.settlement["bets"].items())
        stream.write(INDENT + words.say("history.pays", "pays per unit: {nets}", nets=nets) + "\n")
    for counted in entry.stub_counts:
        stream.write(INDENT + words.say("history.stub_count", "stub count after round {round}: {counted} counted, "
                                        "{expected} expected", round=counted["round"], counted=counted["counted"],
                                        expected=counted["expected"]) + "\n")
    for misdeal in entry.misdeals:
        card = f" ({misdeal['card']})" if misdeal["card"] else ""
        detail = cast(dict[str, Any], localiser.event(misdeal))["detail"]
        stream.write(INDENT + words.say("history.misdeal", "misdeal {kind}{card}: {detail}", kind=misdeal["kind"],
                                        card=card, detail=detail) + "\n")
    for resolution in entry.resolutions:
        stream.write(INDENT + resolution_line(resolution, words) + "\n")
    for approval in entry.approvals:
        stream.write(INDENT + approval_line(approval, words) + "\n")
    for undone in entry.undone:
        stream.write(INDENT + f"@undo: {cast(dict[str, Any], localiser.event(undone))['say']}" + "\n")
    for alert in entry.alerts:
        detail = alert_detail(alert, localiser)
        stream.write(INDENT + words.say("history.alert", "ALERT {alert}: {detail}",
                                        alert=alert_status(alert, found, words), detail=detail) + "\n")


def _write_report(shoe: int, report: Timed | None, stream: TextIO, words: Catalogue) -> None:
    if report is not None and isinstance(report.event, ShoeClosedEvent):
        stream.write(words.say("history.shoe_closed", "Shoe {shoe} closed at {at}: {report}", shoe=shoe,
                               at=report.at, report=shoe_report_text(report.event, words)) + "\n")


def _write_totals(found: History, stream: TextIO, words: Catalogue) -> None:
    rounds = found.rounds
    finished, voided = found.counts()
    stream.write(words.say("history.count", "{finished} with a result, {voided} voided",
                           finished=counted_rounds(finished, _count(finished, words)),
                           voided=_count(voided, words)) + "\n")
    alerts = sum(len(entry.alerts) for entry in rounds)
    still_open = found.open_alerts()
    if alerts or still_open:
        stream.write(words.say("history.alert_count", "{alerts} alert(s), {open} open",
                               alerts=_count(alerts, words), open=_count(len(still_open), words)) + "\n")
    localiser = Localiser(words)
    for shoe, round_number, alert in still_open:
        detail = alert_detail(alert, localiser)
        stream.write(words.say("history.open_alert", "  OPEN ALERT shoe {shoe} round {round}: {alert}: {detail}",
                               shoe=shoe, round=round_number,
                               alert=alert_status(alert, found, words), detail=detail) + "\n")


def write_about(found: About, stream: TextIO, words: Catalogue = ENGLISH) -> None:
    """The journal's software and what happened to it, then its mode, last (after the totals): a simulation or a
    drill never reads as live play."""
    for line in software_lines(found, words) + restart_lines(found, words):
        stream.write(line + "\n")
    stream.write(words.say("history.mode", "Mode: {mode}", mode=words.text(mode_word(found.mode))) + "\n")


SOFTWARE_STATUS = {
    "verified": message("history.software.verified", "verified against its manifest"),
    "none": message("history.software.none", "not verified against a manifest"),
    "failed": message("history.software.failed", "FAILED its verification"),
}


def software_lines(found: About, words: Catalogue = ENGLISH) -> list[str]:
    """The software the journal was begun with, and each note on it (a change, a failed verification)."""
    lines: list[str] = []
    software = found.software
    if software is not None:
        status = SOFTWARE_STATUS.get(str(software.get("manifest")))
        lines.append(words.say("history.software", "Software: croupier {version}, signature {signature}, {status}",
                               version=str(software.get("version", "")), signature=str(software.get("signature", "")),
                               status=words.text(status) if status is not None else str(software.get("manifest"))))
    for note in found.notes:
        stated = note.get("software")
        now: dict[str, Any] = stated if isinstance(stated, dict) else {}
        if note.get("note") == "software_changed":
            changed = ", ".join(_change(change) for change in note.get("changed") or [] if isinstance(change, dict))
            lines.append(words.say("history.software_changed", "At {at} the software changed: croupier {version}, "
                                   "signature {signature}; changed: {changed}", at=str(note.get("at")),
                                   version=str(now.get("version", "")), signature=str(now.get("signature", "")),
                                   changed=changed))
        elif note.get("note") == "integrity_failed":
            problems = [str(problem) for problem in note.get("problems") or []]
            lines.append(words.say("history.integrity_failed", "At {at} the software failed its verification and "
                                   "nothing was played: {problems}", at=str(note.get("at")),
                                   problems="; ".join(problems[:3]) + ("; ..." if len(problems) > 3 else "")))
    return lines


def restart_lines(found: About, words: Catalogue = ENGLISH) -> list[str]:
    """Each restart of the table (its ``resumed`` note, L2): when, where it resumed, and a fault that came back."""
    lines: list[str] = []
    for note in found.notes:
        if note.get("note") != "resumed":
            continue
        line = words.say("history.resumed", "At {at} the table restarted: resumed in shoe {shoe} round {round} from "
                         "the journal ({inputs} inputs replayed; its last record before was at {previous})",
                         at=str(note.get("at")), shoe=str(note.get("shoe")), round=str(note.get("round")),
                         inputs=str(note.get("inputs")), previous=str(note.get("previous_at")))
        if note.get("stopped_by"):
            line += words.say("history.resumed_stopped", "; still stopped on critical alert {alert}",
                              alert=str(note.get("stopped_by")))
        elif note.get("halted"):
            line += words.say("history.resumed_halted", "; still halted on {kind}",
                              kind=kind_name(str(note.get("halted")), words))
        lines.append(line)
    return lines


def _change(change: dict[str, Any]) -> str:
    was, now = change.get("was"), change.get("now")
    versions = [part.get("version") if isinstance(part, dict) else None for part in (was, now)]
    shown = " -> ".join(str(version) if version is not None else "-" for version in versions)
    return f"{change.get('component')} ({shown})"


def write_text(found: History, stream: TextIO, words: Catalogue = ENGLISH) -> None:
    """A readable history in ``words``' language: shoes, rounds, reports, then the totals and the open alerts."""
    shoe = 0
    for entry in found.rounds:
        if entry.shoe != shoe:
            if shoe:
                _write_report(shoe, found.shoe_reports.get(shoe), stream, words)
            shoe = entry.shoe
            stream.write((words.say("history.shoe_from", "Shoe {shoe} (from {at})", shoe=shoe, at=entry.at)
                          if entry.at else words.say("history.shoe", "Shoe {shoe}", shoe=shoe)) + "\n")
        _write_round(entry, found, stream, words)
    if shoe:
        _write_report(shoe, found.shoe_reports.get(shoe), stream, words)
    _write_totals(found, stream, words)

"""The recalled rounds (:mod:`controller.core.recall`) as a person reads them, for ``croupier recall`` and the
console's recall screen: worded as history and the transcript word them (kinds, resolutions, bets, nets in the
locale's digits, each event's own words in the catalogue's language)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.core.calls import rule_message
from controller.core.misdeals import SAY_RESOLUTION
from controller.core.recall import Recalled
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.kinds import action_name, kind_name
from controller.i18n.message import Message, message
from controller.ui.localise import Localiser
from controller.ui.transcript import bet_name, net_text


def _said(fields: Mapping[str, Any], field: str, localiser: Localiser) -> str:
    """An event's own words (its ``field``) in the localiser's language (as the event says them without an id)."""
    said = str(fields.get(field) or "")
    msg_id = fields.get("say_id")
    if not isinstance(msg_id, str):
        return said
    return localiser.text(msg_id, dict(fields.get("say_params") or {}), said)


def recall_text(rounds: list[Recalled], words: Catalogue = ENGLISH) -> list[str]:
    """The recalled rounds as a person reads them, in ``words``' language."""
    localiser = Localiser(words)
    lines: list[str] = []
    undone_mark = words.say("recall.undone", " (undone)")
    set_aside_mark = words.say("recall.set_aside", " (set aside)")
    for entry in rounds:
        if entry.at:
            heading = message("recall.round", "Shoe {shoe}, round {round} ({at})", shoe=entry.shoe, round=entry.round,
                              at=entry.at)
        else:
            heading = message("recall.round_now", "Shoe {shoe}, round {round}", shoe=entry.shoe, round=entry.round)
        lines.append(words.text(heading))
        lines.append("  " + "  ".join(f"{step['slot']} {step['card']}" + ("*" if step["manual"] else "")
                                      + (undone_mark if step["undone"] else "")
                                      + (set_aside_mark if step.get("set_aside") else "") for step in entry.order))
        for decision in entry.decisions():
            worded = rule_message(decision["rule"])
            lines.append("  " + (words.text(worded) if worded is not None else decision["rule"]))
        for misdeal in entry.misdeals:
            lines.append("  " + words.say("recall.misdeal", "MISDEAL {kind}: {detail}",
                                          kind=kind_name(str(misdeal["kind"]), words),
                                          detail=_said(misdeal, "detail", localiser)))
        for resolution in entry.resolutions:
            lines.append("  " + words.say("recall.resolved", "resolved: {resolution}",
                                          resolution=action_name(str(resolution["resolution"]), words,
                                                                 SAY_RESOLUTION)))
        for undone in entry.undos:
            lines.append("  @undo: " + _said(undone, "say", localiser))
        lines.append("  " + words.text(_ending(entry, words)))
    return lines


def _ending(entry: Recalled, words: Catalogue) -> Message:
    result = entry.result
    if result is not None:
        pays = ", ".join(f"{bet_name(bet, words)} {net_text(net, words)}" for bet, net in entry.payouts.items())
        return message("recall.result", "{winner}: player {player} banker {banker}; pays {pays}",
                       winner=bet_name(str(result["winner"]), words).upper(), player=result["player"]["total"],
                       banker=result["banker"]["total"], pays=pays)
    if entry.voided:
        return message("recall.voided", "VOID: bets returned")
    return message("recall.unfinished", "UNFINISHED")


__all__ = ["recall_text"]

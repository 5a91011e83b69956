"""The dealer console's own words in the table's language: its keys, top bar, status line and result line.

Every text is a catalogue message (docs/languages.md); card codes, slots and key letters stay as they are.
The moments in large type are worded in :mod:`controller.ui.moments`, a misdeal's in
:mod:`controller.ui.dealer_words`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Final

from rich.text import Text
from textual.binding import BindingsMap
from textual.dom import DOMNode

from controller.core.inputs import Input, InputKind
from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.message import Message, message
from controller.ui.bigtext import cells
from controller.ui.cardnames import card_name
from controller.ui.moments import result_text
from controller.ui.roadsview import WINNER_STYLES
from controller.ui.tableview import TableView

MANUAL_MARK: Final = "✎"
"""Marks a card entered by hand."""

KEY_WORDS: Final = {
    "dealer('next')": message("console.key.next", "Next round"),
    "dealer('burn')": message("console.key.burn", "Burn"),
    "void": message("console.key.void", "Void"),
    "dealer('exposed')": message("console.key.exposed", "Exposed"),
    "dealer('use')": message("console.key.use", "Use"),
    "manual": message("console.key.manual", "Manual"),
    "new_shoe": message("console.key.new_shoe", "New shoe"),
    "close_shoe": message("console.key.close_shoe", "Close shoe"),
    "ack": message("console.key.ack", "Ack alert"),
    "reveal": message("console.key.reveal", "Reveal"),
    "count_confirm": message("console.key.count_confirm", "Count OK"),
    "count_type": message("console.key.count_type", "Type count"),
    "undo": message("console.key.undo", "Undo"),
    "recall": message("console.key.recall", "Recall"),
    "back": message("console.key.back", "Back"),
    "answer(True)": message("console.key.yes", "Yes"),
    "answer(False)": message("console.key.no", "No"),
    "cancel": message("console.key.cancel", "Cancel"),
    "quit": message("console.key.quit", "Quit"),
}
"""The footer's name of each key binding, by the binding's action."""

INPUT_KEYS: Final = {
    InputKind.NEXT: "dealer('next')", InputKind.BURN: "dealer('burn')", InputKind.VOID: "void",
    InputKind.EXPOSED: "dealer('exposed')", InputKind.USE: "dealer('use')", InputKind.MANUAL: "manual",
    InputKind.SHOE: "new_shoe", InputKind.CLOSE: "close_shoe", InputKind.ACK: "ack", InputKind.REVEAL: "reveal",
    InputKind.UNDO: "undo",
}
"""The key binding (its action) that gives each dealer input."""

APPROVAL_WORDS: Final = {
    "manual": message("console.approval.manual", "a card entered by hand"),
    "void": message("console.approval.void", "a void"),
    "foreign_card": message("console.approval.foreign_card", "a void for a foreign card"),
    "close_shoe": message("console.approval.close_shoe", "an early close of the shoe"),
    "burn": message("console.approval.burn", "a burn"),
    "use": message("console.approval.use", "an exposed card used"),
    "ack_alert": message("console.approval.ack_alert", "an alert acknowledged"),
}
"""What an approval is for, as the status line names it (by the approval's action)."""

READER_WORDS: Final = {
    "online": message("console.reader.online", "ONLINE"),
    "offline": message("console.reader.offline", "OFFLINE"),
    "unknown": message("console.reader.unknown", "UNKNOWN"),
}


def word_bindings(node: DOMNode, words: Catalogue, names: Mapping[str, Message] = KEY_WORDS) -> None:
    """Give ``node``'s key bindings their footer names in ``words``' language (keys and actions unchanged)."""
    keys = {key: [replace(binding, description=words.text(names[binding.action]))
                  if binding.action in names else binding for binding in bindings]
            for key, bindings in node._bindings.key_to_bindings.items()}
    node._bindings = BindingsMap.from_keys(keys)


def sent_words(item: Input, words: Catalogue = ENGLISH) -> str:
    """The dealer input just sent, as the key the dealer pressed is named (``Burn``; ``Manual Q♥``), never a
    script token."""
    action = INPUT_KEYS.get(item.kind)
    name = words.text(KEY_WORDS[action]) if action is not None else item.kind.value
    if item.card:
        name += " " + (card_name(item.card) if item.kind is InputKind.MANUAL else item.card)
    return words.say("console.sent", "Sent: {input}", input=name)


def reader_word(reader: str, words: Catalogue = ENGLISH) -> str:
    """The reader's status as the console writes it (``ONLINE``)."""
    known = READER_WORDS.get(reader)
    return words.text(known) if known is not None else reader.upper()


def _or_dash(value: object) -> str:
    return "–" if value is None else str(value)


def top_bar(view: TableView, words: Catalogue = ENGLISH, width: int | None = None, counts: bool = False) -> Text:
    """Shoe, round, dealer, cards left, the reader and the open alerts: always in view; with ``counts`` (a small
    terminal, where the status line makes way) the cards burned and set aside too. Within ``width`` cells the
    dealer's name is shortened (``…``, to no fewer than :data:`SHORTEST_NAME` characters) so that what follows it is
    not cut off; a line still too wide wraps (the console's top bar grows a row)."""
    name = view.dealer or "–"
    line = _top_bar(view, words, name, counts)
    while width is not None and cells(line.plain) > width and len(name) > SHORTEST_NAME:
        name = name.removesuffix("…")[:-1] + "…"
        line = _top_bar(view, words, name, counts)
    return line


SHORTEST_NAME: Final = 8
"""The fewest characters of a dealer's name the top bar shortens it to (``Alexand…``)."""


def _top_bar(view: TableView, words: Catalogue, dealer: str, counts: bool = False) -> Text:
    shoe = view.shoe
    line = Text(words.say("console.top.shoe", "SHOE {shoe}", shoe=str(shoe.details.get("shoe", "–"))), style="bold")
    line.append("  " + words.say("console.top.round", "ROUND {round}", round=_or_dash(view.round)))
    line.append("  " + words.say("console.top.dealer", "DEALER {dealer}", dealer=dealer))
    line.append("  " + words.say("console.top.left", "LEFT {left}", left=_or_dash(shoe.cards_left)))
    if counts:
        line.append("  " + words.say("console.top.burned", "BURNED {count}", count=shoe.burned))
        if shoe.set_aside:
            line.append("  " + words.say("console.top.set_aside", "SET ASIDE {count}", count=shoe.set_aside))
    line.append("  " + words.say("console.top.reader", "READER {status}", status=reader_word(view.reader, words)),
                style="bold reverse red" if view.reader == "offline" else "")
    if view.alerts:
        count = len(view.alerts)
        text = (words.say("console.top.alerts", "{count} ALERTS OPEN", count=count) if count > 1
                else words.say("console.top.alert", "1 ALERT OPEN"))
        line.append("  " + text, style="bold white on red")
    return line


def status_parts(view: TableView, words: Catalogue = ENGLISH, compact: bool = False) -> list[str]:
    """The status line: shoe counters, round, cut card, approvals and, with badges, the supervisor's
    advantage alerts (the dealer is on the top bar). ``compact`` (a small terminal): only the approval awaited
    and the advantage alerts; the rest is shown elsewhere there (the counters on the top bar, the cut card and
    the closed shoe in large type, a card entered by hand marked in its slot)."""
    shoe = view.shoe
    cut = (words.say("console.status.cut_out", "OUT") if shoe.cut_card_out
           else words.say("console.status.cut_not_yet", "not yet"))
    parts = [] if compact else [
        words.say("console.status.cards_left", "Cards left: {left}", left=_or_dash(shoe.cards_left)),
        words.say("console.status.round", "Round: {round}", round=_or_dash(view.round)),
        words.say("console.status.cut_card", "Cut card: {state}", state=cut),
        words.say("console.status.burned", "Burned: {count}", count=shoe.burned)]
    if shoe.set_aside and not compact:
        parts.append(words.say("console.status.set_aside", "Set aside: {count}", count=shoe.set_aside))
    if view.manual_slots and not compact:
        parts.append(words.say("console.status.manual", "{mark} entered by hand", mark=MANUAL_MARK))
    if shoe.closed and not compact:
        parts.append(words.say("console.status.shoe_closed", "SHOE CLOSED"))
    if view.approval is not None:
        named = APPROVAL_WORDS.get(view.approval)
        parts.append(words.say("console.status.approval", "Awaiting supervisor: {action}",
                               action=words.text(named) if named is not None else view.approval))
    if view.advantage:
        parts.append(words.say("console.status.advantage", "Supervisor, player advantage: {bets}",
                               bets=", ".join(view.advantage)))
    return parts


def result_line(view: TableView, words: Catalogue = ENGLISH) -> Text | str:
    """The round and its result in the winner's colour, with the pairs; a voided round says so."""
    result = result_text(view, words)
    round_text = (words.say("console.round", "Round {round}", round=view.round) if view.round is not None
                  else words.say("console.no_round", "No round yet"))
    if result is not None and view.result is not None:
        winner = str(view.result.get("winner", "")).upper()[:1]
        line = Text(f"{round_text}: ")
        line.append(result, style=WINNER_STYLES.get(winner, "bold"))
        flags = [words.text(name) for name, key in (
            (message("console.banker_pair", "banker pair"), "banker_pair"),
            (message("console.player_pair", "player pair"), "player_pair")) if view.result.get(key)]
        if flags:
            line.append("  (" + ", ".join(flags) + ")")
        return line
    if view.voided is not None:
        return words.say("console.voided", "Round {round}: VOID — bets returned", round=view.voided)
    return round_text
